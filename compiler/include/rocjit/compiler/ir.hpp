// rocjit IR: a structured (scf-like) kernel made of typed SSA operations and nested regions.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace rocjit::ir {

// Scalar types. `none` marks operations without a result.
enum class Type : uint8_t { none, i1, i32, i64, u32, u64, f32, f64 };

std::string_view type_name(Type t);          // "f32"
bool is_integer(Type t);                     // i1 excluded
bool is_signed(Type t);                      // i32, i64
bool is_float(Type t);
unsigned bit_width(Type t);                  // i1 -> 1
unsigned byte_size(Type t);                  // i1 -> 1

// Where a DSL call was made. Every operation carries one, every diagnostic prints one.
struct SourceLoc {
  std::string file;
  uint32_t line = 0;
  uint32_t column = 0;
  std::string str() const;  // "file:line"  (or "<unknown>")
};

using ValueId = uint32_t;  // 0 = no value
using MemoryId = uint32_t; // index into Kernel::memories
using SlotId = uint32_t;   // index into Kernel::slots

enum class MemorySpace : uint8_t { global, shared, local };
std::string_view space_name(MemorySpace s);

// How a multi-dimensional index is linearised. C: last index fastest; F: first index fastest;
// strided: per-dimension element strides passed at launch (views, non-contiguous arrays).
enum class Layout : uint8_t { C, F, strided };
std::string_view layout_name(Layout l);

// A memory object: an array parameter (global, dynamic shape passed at launch) or a
// shared/local array with a static shape.
struct Memory {
  std::string name;
  MemorySpace space = MemorySpace::global;
  Type element = Type::f32;
  unsigned rank = 1;
  Layout layout = Layout::C;
  std::vector<int64_t> shape;  // static extents (shared/local); empty for parameters
  int param_index = -1;        // >= 0 for array parameters
  SourceLoc loc;
  int64_t element_count() const;  // static shapes only
};

// A mutable variable (DSL `Var<T>`): loads and stores; promoted to registers by LLVM.
struct Slot {
  std::string name;
  Type type = Type::f32;
  SourceLoc loc;
};

struct Param {
  enum class Kind : uint8_t { array, scalar };
  std::string name;
  Kind kind = Kind::scalar;
  Type type = Type::f32;  // element type for arrays
  MemoryId memory = 0;    // arrays
  ValueId value = 0;      // scalars: the SSA value holding the argument
};

enum class OpKind : uint8_t {
  constant,     // result = imm
  binary,       // result = a <op> b
  unary,        // result = <op> a
  compare,      // result(i1) = a <pred> b
  select,       // result = c ? a : b
  cast,         // result = (type) a
  math,         // result = fn(args...)
  workitem,     // result(i32) = local_id(dim) ...
  shape,        // result(i32) = extent `dim` of memory
  load,         // result = memory[indices...]
  store,        // memory[indices...] = value  (operands: indices..., value)
  atomic,       // result = atomic_op(memory[indices...], value [, desired])
  var_load,     // result = slot
  var_store,    // slot = a
  barrier,      // work-group barrier with fence flags
  wavebarrier,  // wavefront barrier
  if_,          // operands: cond; regions: then, else
  for_,         // operands: begin, end, step; result: induction variable; regions: body
  while_,       // regions: cond (ends in `condition`), body
  condition,    // terminator of a while's cond region; operand: i1
  break_,       // leaves the innermost loop
};
std::string_view op_kind_name(OpKind k);

enum class BinaryOp : uint8_t { add, sub, mul, div, rem, min, max, and_, or_, xor_, shl, shr };
enum class UnaryOp : uint8_t { neg, not_, abs };
enum class ComparePred : uint8_t { eq, ne, lt, le, gt, ge };
enum class MathFn : uint8_t {
  sqrt, rsqrt, exp, exp2, log, log2, sin, cos, tan, pow, fma, fabs, floor, ceil, fmin, fmax
};
enum class WorkItem : uint8_t { local_id, group_id, local_size, num_groups, global_id, global_size };
enum class AtomicOp : uint8_t { add, sub, min, max, and_, or_, xor_, exchange, compare_exchange };

// Barrier fence flags, values as OpenCL's CLK_*_MEM_FENCE.
enum FenceFlags : uint8_t { fence_local = 1, fence_global = 2 };

std::string_view binary_op_name(BinaryOp o);
std::string_view unary_op_name(UnaryOp o);
std::string_view compare_pred_name(ComparePred p);
std::string_view math_fn_name(MathFn f);
unsigned math_fn_arity(MathFn f);
std::string_view workitem_name(WorkItem w);
std::string_view atomic_op_name(AtomicOp o);

struct Op;

// An ordered list of operations; owns them.
struct Region {
  std::vector<std::unique_ptr<Op>> ops;
};

struct Op {
  OpKind kind = OpKind::constant;
  Type type = Type::none;  // result type
  ValueId result = 0;
  std::vector<ValueId> operands;
  uint8_t sub = 0;          // BinaryOp / UnaryOp / ComparePred / MathFn / WorkItem / AtomicOp / FenceFlags
  uint8_t dim = 0;          // workitem, shape
  uint32_t ref = 0;         // MemoryId (shape/load/store/atomic) or SlotId (var_load/var_store)
  int64_t int_value = 0;    // constant (integers, i1)
  double float_value = 0;   // constant (floats)
  std::vector<Region> regions;
  SourceLoc loc;

  BinaryOp binary_op() const { return static_cast<BinaryOp>(sub); }
  UnaryOp unary_op() const { return static_cast<UnaryOp>(sub); }
  ComparePred pred() const { return static_cast<ComparePred>(sub); }
  MathFn math_fn() const { return static_cast<MathFn>(sub); }
  WorkItem workitem() const { return static_cast<WorkItem>(sub); }
  AtomicOp atomic_op() const { return static_cast<AtomicOp>(sub); }
};

struct ValueInfo {
  Type type = Type::none;
  const Op* def = nullptr;  // defining op; nullptr for scalar parameters
};

// Regions (the bodies of if, for and while) nest at most this deep. Every pass walks regions
// recursively; the bound keeps a machine-made kernel from exhausting the stack.
inline constexpr unsigned max_region_depth = 256;

// Shared and local arrays hold at most this many elements (indices are 32-bit).
inline constexpr int64_t max_array_elements = 2147483647;

struct Kernel {
  std::string name;
  std::vector<Param> params;
  std::vector<Memory> memories;
  std::vector<Slot> slots;
  std::vector<ValueInfo> values{ValueInfo{}};  // index 0 = no value
  Region body;
  uint32_t max_block_size = 1024;
  SourceLoc loc;  // where the kernel was defined

  Type value_type(ValueId v) const { return values.at(v).type; }
  ValueId new_value(Type t) {
    values.push_back(ValueInfo{t, nullptr});
    return static_cast<ValueId>(values.size() - 1);
  }
  // Bytes of statically allocated shared memory (sum over shared arrays).
  int64_t shared_bytes() const;
  // Re-establishes ValueInfo::def pointers after the op tree was built or moved.
  void index_definitions();
};

// Walks every op in a region tree, pre-order.
template <class F>
void walk(const Region& r, F&& f) {
  for (const auto& op : r.ops) {
    f(*op);
    for (const auto& sub : op->regions) walk(sub, f);
  }
}

}  // namespace rocjit::ir
