// rocjit IR: a structured (scf-like) kernel made of typed SSA operations and nested regions.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <span>
#include <string_view>
#include <vector>

#include "rocjit/compiler/ops.hpp"
#include "rocjit/compiler/type.hpp"

namespace rocjit::ir {

/// Where a DSL call was made. Every operation carries one, every diagnostic prints one.
struct SourceLoc {
  /// File name.
  std::string file;
  /// Line, from 1 (0: unknown).
  uint32_t line = 0;
  /// Column, from 1 (0: unknown).
  uint32_t column = 0;
  std::string str() const;  ///< "file:line"  (or "<unknown>")
  bool operator==(const SourceLoc&) const = default;
};

using ValueId = uint32_t;  ///< 0 = no value
using MemoryId = uint32_t; ///< index into Kernel::memories
using SlotId = uint32_t;   ///< index into Kernel::slots

/// Where a memory lives: global (array parameters), shared (per work-group) or local (per work-item).
enum class MemorySpace : uint8_t { global, shared, local };
/// The .rjir spelling of `s`: "global", "shared", "local".
std::string_view space_name(MemorySpace s);

/// How a multi-dimensional index is linearised. C: last index fastest; F: first index fastest;
/// strided: per-dimension element strides passed at launch (views, non-contiguous arrays).
///@{
enum class Layout : uint8_t { C, F, strided };
std::string_view layout_name(Layout l);
///@}

/// A memory object: an array parameter (global, dynamic shape passed at launch) or a
/// shared/local array with a static shape.
struct Memory {
  /// The name in .rjir and messages.
  std::string name;
  /// Global (parameters), shared or local.
  MemorySpace space = MemorySpace::global;
  /// Element type.
  Type element = Type::f32;
  /// Number of dimensions.
  unsigned rank = 1;
  /// How indices are linearised.
  Layout layout = Layout::C;
  /// Static extents: shared and local arrays; array parameters whose launch shapes were made
  /// constants (KernelOptions::specialize_shapes; each launch's arrays must then have them).
  /// Empty for other parameters and dynamic shared memory.
  std::vector<int64_t> shape;
  /// Dynamic shared memory (shared::dynamic<T>()): rank 1, its bytes given at launch; every
  /// dynamic shared array starts at the same address, after the static ones.
  bool dynamic = false;
  int param_index = -1;        ///< >= 0 for array parameters
  /// Where it was declared.
  SourceLoc loc;
  int64_t element_count() const;  ///< static shapes only
};

/// A mutable variable (DSL `Var<T>`): loads and stores; promoted to registers by LLVM.
struct Slot {
  /// The name in .rjir and messages.
  std::string name;
  /// Value type.
  Type type = Type::f32;
  /// Where it was declared.
  SourceLoc loc;
};

/// A kernel parameter: an array or a scalar.
struct Param {
  /// Array or scalar parameter.
  enum class Kind : uint8_t { array, scalar };
  /// The parameter's name.
  std::string name;
  /// Array or scalar.
  Kind kind = Kind::scalar;
  Type type = Type::f32;  ///< element type for arrays
  MemoryId memory = 0;    ///< arrays
  ValueId value = 0;      ///< scalars: the SSA value holding the argument
};

// The enums below are built from the op registry (ops.hpp), where each op is documented.
#define ROCJIT_ENUMERATOR(name, ...) name,
/// The op kinds and their families' members, built from the op registry (ops.hpp), where each is documented.
///@{
enum class OpKind : uint8_t { ROCJIT_OPS(ROCJIT_ENUMERATOR) };
enum class BinaryOp : uint8_t { ROCJIT_BINARY_OPS(ROCJIT_ENUMERATOR) };
enum class UnaryOp : uint8_t { ROCJIT_UNARY_OPS(ROCJIT_ENUMERATOR) };
enum class ComparePred : uint8_t { ROCJIT_COMPARE_PREDS(ROCJIT_ENUMERATOR) };
enum class MathFn : uint8_t { ROCJIT_MATH_FNS(ROCJIT_ENUMERATOR) };
enum class WorkItem : uint8_t { ROCJIT_WORKITEMS(ROCJIT_ENUMERATOR) };
enum class AtomicOp : uint8_t { ROCJIT_ATOMIC_OPS(ROCJIT_ENUMERATOR) };
enum class WaveOp : uint8_t { ROCJIT_WAVE_OPS(ROCJIT_ENUMERATOR) };
///@}
/// Memory order and scope of an atomic or a fence, as C++'s and OpenCL's (device = agent).
///@{
enum class MemoryOrder : uint8_t { ROCJIT_MEMORY_ORDERS(ROCJIT_ENUMERATOR) };
enum class MemoryScope : uint8_t { ROCJIT_MEMORY_SCOPES(ROCJIT_ENUMERATOR) };
///@}
#undef ROCJIT_ENUMERATOR

/// Barrier fence flags, values as OpenCL's CLK_*_MEM_FENCE.
enum FenceFlags : uint8_t { fence_local = 1, fence_global = 2 };

/// The .rjir spelling of an op kind or family member ("add", "cmp.lt", ...), and a math function's operand count.
///@{
std::string_view op_kind_name(OpKind k);
std::string_view binary_op_name(BinaryOp o);
std::string_view unary_op_name(UnaryOp o);
std::string_view compare_pred_name(ComparePred p);
std::string_view math_fn_name(MathFn f);
unsigned math_fn_arity(MathFn f);
/// What a math function computes on: floats (operands and result of one float type), integers
/// (operands and result of one integer type), or ldexp's float and i32 exponent.
enum class MathDomain : uint8_t { floating, integer, ldexp };
/// The domain of `f` (its list in ops.hpp).
MathDomain math_fn_domain(MathFn f);
std::string_view workitem_name(WorkItem w);
std::string_view atomic_op_name(AtomicOp o);
std::string_view wave_op_name(WaveOp o);
std::string_view memory_order_name(MemoryOrder o);
std::string_view memory_scope_name(MemoryScope s);
///@}

// --- The op registry ---------------------------------------------------------------------
/// Which sub-enum an op keeps in Op::sub.
enum class OpFamily : uint8_t { none, binary, unary, compare, math, workitem, atomic, fence, wave };
/// What Op::ref names: nothing, a memory object, a memory object indexed by the first rank
/// operands, or a variable slot.
enum class OpReference : uint8_t { none, memory, indexed, slot };
/// Whether the op defines Op::result: never, always, when the text names one (atomics), or as a
/// for loop's induction variable (defined inside the body).
enum class OpResult : uint8_t { none, value, optional, induction };
/// What an op does besides computing its result.
enum class OpEffect : uint8_t { none, reads_memory, writes_memory, synchronizes, control_flow };
/// The work-items a synchronisation point waits for.
enum class SyncScope : uint8_t { none, wavefront, workgroup };

/// Operand count of an op whose family member decides it (OpInfo::operands).
inline constexpr int8_t by_member = -1;
/// Operand count of an op that takes one operand per lane of its result (make_vector).
inline constexpr int8_t by_lanes = -2;

/// Static facts about one OpKind (op_info()).
struct OpInfo {
  /// The op.
  OpKind kind;
  std::string_view name;     ///< op_kind_name; the .rjir spelling of ops without a family
  /// The family whose member (`Op::sub`) selects the operation, if any.
  OpFamily family;
  int8_t operands;           ///< value operands besides indices, or by_member, or by_lanes
  /// What `Op::ref` names: a memory, a slot or nothing.
  OpReference reference;
  /// Whether and how the op produces a value.
  OpResult result;
  /// Side effects (memory reads, writes, synchronisation).
  OpEffect effect;
  /// Whether every work-item must reach it together (barriers).
  bool convergent;
  /// The scope it synchronises.
  SyncScope sync;
  /// Number of nested regions (if, for, while bodies).
  uint8_t regions;
};

/// One member of a sub-enum (a BinaryOp, a MathFn, ...).
struct SubOpInfo {
  std::string_view name;     ///< "add", "compare_exchange"
  uint8_t operands;          ///< value operands (after the indices, for atomics)
  bool divergent;            ///< varies between work-items whatever the operands (local_id)
};

const OpInfo& op_info(OpKind k);  ///< an out-of-range kind reads as constant: check is_valid_kind
/// Whether `k` names an op kind.
bool is_valid_kind(OpKind k);
/// Every op kind, in enumerator order.
std::span<const OpInfo> all_ops();
/// The members of a family in enumerator order (empty for none and fence).
std::span<const SubOpInfo> family_members(OpFamily f);
/// "cmp.", "math.", "atomic." or "": members are spelled `<prefix><member name>` in .rjir.
std::string_view family_prefix(OpFamily f);
std::string_view family_name(OpFamily f);  ///< "BinaryOp", ... for diagnostics

struct Op;
/// Whether op.sub names a member of its family (always, for ops without one). Ops built by
/// hand or by a buggy pass may hold any byte there; everything below assumes a valid one.
bool has_valid_sub(const Op& op);
/// The op's .rjir spelling: "add", "cmp.lt", "math.sqrt", "atomic.add", "load", "barrier".
std::string op_spelling(const Op& op);
/// Value operands the op takes besides its indices (op.sub must be valid).
unsigned value_operand_count(const Op& op);
/// A synchronisation point: barrier (work-group), wavebarrier (wavefront).
bool is_sync_point(const Op& op);
/// What is wrong with the memory order and scope of an atomic or fence `op`, or "": atomic loads
/// cannot be release/acq_rel, stores not acquire/acq_rel, fences not relaxed.
std::string check_memory_order(const Op& op);

struct Op;

/// An ordered list of operations; owns them. Copies are deep and equality compares the ops, so
/// Op's own copy and `==` (the compiler's, member by member) cannot forget a field.
struct Region {
  /// The operations, in order.
  std::vector<std::unique_ptr<Op>> ops;

  Region() = default;
  Region(Region&&) noexcept = default;
  Region& operator=(Region&&) noexcept = default;
  Region(const Region& other);
  Region& operator=(const Region& other);
  bool operator==(const Region& other) const;
};

/// One operation: its kind, result, operands and nested regions.
struct Op {
  /// What the op does.
  OpKind kind = OpKind::constant;
  Type type = Type::none;  ///< result type
  /// The value it defines (0: none).
  ValueId result = 0;
  /// Value operands, in order.
  std::vector<ValueId> operands;
  uint8_t sub = 0;          ///< BinaryOp / UnaryOp / ComparePred / MathFn / WorkItem / AtomicOp / FenceFlags / WaveOp
  uint8_t dim = 0;          ///< workitem, shape; extract: the lane
  MemoryOrder order = MemoryOrder::relaxed;  ///< atomic, fence
  MemoryScope scope = MemoryScope::device;   ///< atomic, fence
  uint32_t ref = 0;         ///< MemoryId (shape/load/store/atomic) or SlotId (var_load/var_store)
  int64_t int_value = 0;    ///< constant (integers, i1); for/while: the unroll request (0 = LLVM decides, 1 = none)
  double float_value = 0;   ///< constant (floats)
  /// Nested bodies (if: then/else; for: body; while: condition, body, step).
  std::vector<Region> regions;
  /// Where the DSL call or .rjir text was.
  SourceLoc loc;

  /// Every field equal, nested regions compared op by op (the defaulted comparison: a new field
  /// is compared without anyone remembering to).
  bool operator==(const Op&) const = default;

  /// `sub` as a BinaryOp.
  BinaryOp binary_op() const { return static_cast<BinaryOp>(sub); }
  /// `sub` as a UnaryOp.
  UnaryOp unary_op() const { return static_cast<UnaryOp>(sub); }
  /// `sub` as a ComparePred.
  ComparePred pred() const { return static_cast<ComparePred>(sub); }
  /// `sub` as a MathFn.
  MathFn math_fn() const { return static_cast<MathFn>(sub); }
  /// `sub` as a WorkItem.
  WorkItem workitem() const { return static_cast<WorkItem>(sub); }
  /// `sub` as an AtomicOp.
  AtomicOp atomic_op() const { return static_cast<AtomicOp>(sub); }
  /// `sub` as a WaveOp.
  WaveOp wave_op() const { return static_cast<WaveOp>(sub); }
};

/// What the kernel knows about one value.
struct ValueInfo {
  /// The value's type.
  Type type = Type::none;
  const Op* def = nullptr;  ///< defining op; nullptr for scalar parameters
};

struct Kernel;
/// Elements a load or store moves: its vector's lanes (a vector access), 1 for scalar accesses
/// and every other op.
unsigned access_lanes(const Kernel& k, const Op& op);

/// Regions (the bodies of if, for and while) nest at most this deep. Every pass walks regions
/// recursively; the bound keeps a machine-made kernel from exhausting the stack.
inline constexpr unsigned max_region_depth = 256;

/// The largest unroll count a loop may request (For/While `{.unroll = N}`).
inline constexpr int64_t max_unroll = 1024;

/// Shared and local arrays hold at most this many elements (indices are 32-bit).
inline constexpr int64_t max_array_elements = 2147483647;

/// A kernel in rocjit's structured IR: parameters, memories, variables, values and the body.
struct Kernel {
  /// The kernel's name (symbol name too).
  std::string name;
  /// Parameters, in order.
  std::vector<Param> params;
  /// Array parameters, shared and local arrays.
  std::vector<Memory> memories;
  /// Mutable variables.
  std::vector<Slot> slots;
  /// Facts per value id; index 0 stands for no value.
  std::vector<ValueInfo> values{ValueInfo{}};  // index 0 = no value
  /// The body.
  Region body;
  /// Largest work-group it may be launched with.
  uint32_t max_block_size = 1024;
  /// Allows contraction (a * b + c as one fma) and approximate functions (AMDGPU: the hardware's
  /// sin, cos, exp2, log2, rcp and sqrt instead of ocml's accurate ones); README, "fast_math".
  bool fast_math = false;
  SourceLoc loc;  ///< where the kernel was defined

  /// The type of value `v`.
  Type value_type(ValueId v) const { return values.at(v).type; }
  /// Adds a value of type `t`; returns its id.
  ValueId new_value(Type t) {
    values.push_back(ValueInfo{t, nullptr});
    return static_cast<ValueId>(values.size() - 1);
  }
  /// Bytes of statically allocated shared memory (sum over static shared arrays).
  int64_t shared_bytes() const;
  /// Whether a shared array's extent comes from the launch (shared::dynamic<T>()).
  bool has_dynamic_shared() const;
  /// Re-establishes ValueInfo::def pointers after the op tree was built or moved.
  void index_definitions();
};

/// Walks every op in a region tree, pre-order.
template <class F>
void walk(const Region& r, F&& f) {
  for (const auto& op : r.ops) {
    f(*op);
    for (const auto& sub : op->regions) walk(sub, f);
  }
}

}  // namespace rocjit::ir
