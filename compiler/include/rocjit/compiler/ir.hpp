// rocjit IR: a structured (scf-like) kernel made of typed SSA operations and nested regions.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <span>
#include <string_view>
#include <vector>

#include "rocjit/compiler/ops.hpp"

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

// The enums below are built from the op registry (ops.hpp), where each op is documented.
#define ROCJIT_ENUMERATOR(name, ...) name,
enum class OpKind : uint8_t { ROCJIT_OPS(ROCJIT_ENUMERATOR) };
enum class BinaryOp : uint8_t { ROCJIT_BINARY_OPS(ROCJIT_ENUMERATOR) };
enum class UnaryOp : uint8_t { ROCJIT_UNARY_OPS(ROCJIT_ENUMERATOR) };
enum class ComparePred : uint8_t { ROCJIT_COMPARE_PREDS(ROCJIT_ENUMERATOR) };
enum class MathFn : uint8_t { ROCJIT_MATH_FNS(ROCJIT_ENUMERATOR) };
enum class WorkItem : uint8_t { ROCJIT_WORKITEMS(ROCJIT_ENUMERATOR) };
enum class AtomicOp : uint8_t { ROCJIT_ATOMIC_OPS(ROCJIT_ENUMERATOR) };
#undef ROCJIT_ENUMERATOR

// Barrier fence flags, values as OpenCL's CLK_*_MEM_FENCE.
enum FenceFlags : uint8_t { fence_local = 1, fence_global = 2 };

std::string_view op_kind_name(OpKind k);
std::string_view binary_op_name(BinaryOp o);
std::string_view unary_op_name(UnaryOp o);
std::string_view compare_pred_name(ComparePred p);
std::string_view math_fn_name(MathFn f);
unsigned math_fn_arity(MathFn f);
std::string_view workitem_name(WorkItem w);
std::string_view atomic_op_name(AtomicOp o);

// --- The op registry ---------------------------------------------------------------------
// Which sub-enum an op keeps in Op::sub.
enum class OpFamily : uint8_t { none, binary, unary, compare, math, workitem, atomic, fence };
// What Op::ref names: nothing, a memory object, a memory object indexed by the first rank
// operands, or a variable slot.
enum class OpReference : uint8_t { none, memory, indexed, slot };
// Whether the op defines Op::result: never, always, when the text names one (atomics), or as a
// for loop's induction variable (defined inside the body).
enum class OpResult : uint8_t { none, value, optional, induction };
// What an op does besides computing its result.
enum class OpEffect : uint8_t { none, reads_memory, writes_memory, synchronizes, control_flow };
// The work-items a synchronisation point waits for.
enum class SyncScope : uint8_t { none, wavefront, workgroup };

// Operand count of an op whose family member decides it (OpInfo::operands).
inline constexpr int8_t by_member = -1;

struct OpInfo {
  OpKind kind;
  std::string_view name;     // op_kind_name; the .rjir spelling of ops without a family
  OpFamily family;
  int8_t operands;           // value operands besides indices, or by_member
  OpReference reference;
  OpResult result;
  OpEffect effect;
  bool convergent;
  SyncScope sync;
  uint8_t regions;
};

// One member of a sub-enum (a BinaryOp, a MathFn, ...).
struct SubOpInfo {
  std::string_view name;     // "add", "compare_exchange"
  uint8_t operands;          // value operands (after the indices, for atomics)
  bool divergent;            // varies between work-items whatever the operands (local_id)
};

const OpInfo& op_info(OpKind k);  // an out-of-range kind reads as constant: check is_valid_kind
bool is_valid_kind(OpKind k);
// Every op kind, in enumerator order.
std::span<const OpInfo> all_ops();
// The members of a family in enumerator order (empty for none and fence).
std::span<const SubOpInfo> family_members(OpFamily f);
// "cmp.", "math.", "atomic." or "": members are spelled <prefix><member name> in .rjir.
std::string_view family_prefix(OpFamily f);
std::string_view family_name(OpFamily f);  // "BinaryOp", ... for diagnostics

struct Op;
// Whether op.sub names a member of its family (always, for ops without one). Ops built by
// hand or by a buggy pass may hold any byte there; everything below assumes a valid one.
bool has_valid_sub(const Op& op);
// The op's .rjir spelling: "add", "cmp.lt", "math.sqrt", "atomic.add", "load", "barrier".
std::string op_spelling(const Op& op);
// Value operands the op takes besides its indices (op.sub must be valid).
unsigned value_operand_count(const Op& op);
// A synchronisation point: barrier (work-group), wavebarrier (wavefront).
bool is_sync_point(const Op& op);

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
