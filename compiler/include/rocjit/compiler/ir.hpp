// rocjit IR: a structured (scf-like) kernel made of typed SSA operations and nested regions.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <span>
#include <string_view>
#include <tuple>
#include <variant>
#include <vector>

#include "rocjit/compiler/mma.hpp"
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
  bool operator==(const SourceLoc&) const = default;  ///< field by field
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
/// Whether an atomic read or fence with order `o` acquires (acquire, acq_rel, seq_cst).
constexpr bool acquires(MemoryOrder o) {
  return o == MemoryOrder::acquire || o == MemoryOrder::acq_rel || o == MemoryOrder::seq_cst;
}
/// Whether an atomic write or fence with order `o` releases (release, acq_rel, seq_cst).
constexpr bool releases(MemoryOrder o) {
  return o == MemoryOrder::release || o == MemoryOrder::acq_rel || o == MemoryOrder::seq_cst;
}
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
/// Operand count of an op that takes any number of operands (print, assert).
inline constexpr int8_t variadic = -3;

/// Static facts about one OpKind (op_info()).
struct OpInfo {
  /// The op.
  OpKind kind;
  std::string_view name;     ///< op_kind_name; the .rjir spelling of ops without a family
  /// The family whose member (`Op::sub`) selects the operation, if any.
  OpFamily family;
  int8_t operands;           ///< value operands besides indices, or by_member, by_lanes, variadic
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
/// Whether op.attrs is its kind's struct and its member (BinaryOp, MathFn, ...) and barrier
/// flags are in range. Ops built by hand or by a buggy pass may hold anything there; everything
/// below assumes valid ones (ir::verify checks first).
bool has_valid_attrs(const Op& op);
/// The op's .rjir spelling: "add", "cmp.lt", "math.sqrt", "atomic.add", "load", "barrier".
std::string op_spelling(const Op& op);
/// Value operands the op takes besides its indices (op's attributes must be valid).
unsigned value_operand_count(const Op& op);
/// A synchronisation point: barrier (work-group), wavebarrier (wavefront), wave ops.
bool is_sync_point(const Op& op);
/// A convergent op that computes a value from the operands of other work-items (wave ops; from
/// the definitions: convergent with a result). Executors run it once for the work-items of its
/// sync scope together.
bool computes_collectively(const Op& op);
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
  Region(Region&&) noexcept = default;             ///< moves the ops
  Region& operator=(Region&&) noexcept = default;  ///< moves the ops
  Region(const Region& other);                     ///< deep: copies each op
  Region& operator=(const Region& other);          ///< deep: copies each op
  bool operator==(const Region& other) const;      ///< the same ops, compared op by op
};

// --- Typed attributes ----------------------------------------------------------------------
// Each op kind carries the attribute struct its definition names (ops.hpp, the last column) in
// Op::attrs, and no other: an atomic's order and scope, a loop's unroll request, a workitem's
// dimension exist only on those ops. Each struct lists its fields once in fields(); equality and
// hashing are built from it, copies are the struct's own.

/// An attribute struct's field list: fields() gives references to each, in order (const and not).
#define ROCJIT_ATTR_FIELDS(...)                              \
  auto fields() const { return std::tie(__VA_ARGS__); }     \
  auto fields() { return std::tie(__VA_ARGS__); }

/// Ops without attributes.
struct NoAttrs {
  static constexpr std::string_view name = "NoAttrs";  ///< the struct's name, for diagnostics
  /// Its fields, as a tuple of references (ROCJIT_ATTR_FIELDS), and field-by-field equality.
  ///@{
  ROCJIT_ATTR_FIELDS()
  bool operator==(const NoAttrs&) const = default;
  ///@}
};
/// constant: the value, in the member its type uses (integers and i1: integer; floats: floating,
/// already rounded to the type).
struct ConstantAttrs {
  static constexpr std::string_view name = "ConstantAttrs";  ///< the struct's name, for diagnostics
  int64_t integer = 0;   ///< the value of an integer or i1 constant
  double floating = 0;   ///< the value of a float constant, already rounded to its type
  /// Its fields, as a tuple of references (ROCJIT_ATTR_FIELDS), and field-by-field equality.
  ///@{
  ROCJIT_ATTR_FIELDS(integer, floating)
  bool operator==(const ConstantAttrs&) const = default;
  ///@}
};
/// binary: the operation.
struct BinaryAttrs {
  static constexpr std::string_view name = "BinaryAttrs";  ///< the struct's name, for diagnostics
  BinaryOp op = BinaryOp::add;  ///< the operation
  /// Its fields, as a tuple of references (ROCJIT_ATTR_FIELDS), and field-by-field equality.
  ///@{
  ROCJIT_ATTR_FIELDS(op)
  bool operator==(const BinaryAttrs&) const = default;
  ///@}
};
/// unary: the operation.
struct UnaryAttrs {
  static constexpr std::string_view name = "UnaryAttrs";  ///< the struct's name, for diagnostics
  UnaryOp op = UnaryOp::neg;  ///< the operation
  /// Its fields, as a tuple of references (ROCJIT_ATTR_FIELDS), and field-by-field equality.
  ///@{
  ROCJIT_ATTR_FIELDS(op)
  bool operator==(const UnaryAttrs&) const = default;
  ///@}
};
/// compare: the predicate.
struct CompareAttrs {
  static constexpr std::string_view name = "CompareAttrs";  ///< the struct's name, for diagnostics
  ComparePred pred = ComparePred::eq;  ///< the predicate
  /// Its fields, as a tuple of references (ROCJIT_ATTR_FIELDS), and field-by-field equality.
  ///@{
  ROCJIT_ATTR_FIELDS(pred)
  bool operator==(const CompareAttrs&) const = default;
  ///@}
};
/// math: the function.
struct MathAttrs {
  static constexpr std::string_view name = "MathAttrs";  ///< the struct's name, for diagnostics
  MathFn fn = MathFn::sqrt;  ///< the function
  /// Its fields, as a tuple of references (ROCJIT_ATTR_FIELDS), and field-by-field equality.
  ///@{
  ROCJIT_ATTR_FIELDS(fn)
  bool operator==(const MathAttrs&) const = default;
  ///@}
};
/// workitem: which id or size, and its dimension (0..2; lane_id and wave_size: 0).
struct WorkItemAttrs {
  static constexpr std::string_view name = "WorkItemAttrs";  ///< the struct's name, for diagnostics
  WorkItem item = WorkItem::local_id;  ///< which id or size
  uint8_t dim = 0;  ///< its dimension, 0..2 (lane_id and wave_size: 0)
  /// Its fields, as a tuple of references (ROCJIT_ATTR_FIELDS), and field-by-field equality.
  ///@{
  ROCJIT_ATTR_FIELDS(item, dim)
  bool operator==(const WorkItemAttrs&) const = default;
  ///@}
};
/// shape: the array and the dimension whose extent it reads.
struct ShapeAttrs {
  static constexpr std::string_view name = "ShapeAttrs";  ///< the struct's name, for diagnostics
  MemoryId memory = 0;  ///< the array
  uint8_t dim = 0;  ///< the dimension whose extent it reads
  /// Its fields, as a tuple of references (ROCJIT_ATTR_FIELDS), and field-by-field equality.
  ///@{
  ROCJIT_ATTR_FIELDS(memory, dim)
  bool operator==(const ShapeAttrs&) const = default;
  ///@}
};
/// load, store: the array accessed.
struct AccessAttrs {
  static constexpr std::string_view name = "AccessAttrs";  ///< the struct's name, for diagnostics
  MemoryId memory = 0;  ///< the array accessed
  /// Its fields, as a tuple of references (ROCJIT_ATTR_FIELDS), and field-by-field equality.
  ///@{
  ROCJIT_ATTR_FIELDS(memory)
  bool operator==(const AccessAttrs&) const = default;
  ///@}
};
/// atomic: the operation, the array, and the memory order and scope (default relaxed, device).
struct AtomicAttrs {
  static constexpr std::string_view name = "AtomicAttrs";  ///< the struct's name, for diagnostics
  AtomicOp op = AtomicOp::add;               ///< the operation
  MemoryId memory = 0;                       ///< the array
  MemoryOrder order = MemoryOrder::relaxed;  ///< the memory order
  MemoryScope scope = MemoryScope::device;   ///< the memory scope
  /// Its fields, as a tuple of references (ROCJIT_ATTR_FIELDS), and field-by-field equality.
  ///@{
  ROCJIT_ATTR_FIELDS(op, memory, order, scope)
  bool operator==(const AtomicAttrs&) const = default;
  ///@}
};
/// var.load, var.store: the variable.
struct SlotAttrs {
  static constexpr std::string_view name = "SlotAttrs";  ///< the struct's name, for diagnostics
  SlotId slot = 0;  ///< the variable
  /// Its fields, as a tuple of references (ROCJIT_ATTR_FIELDS), and field-by-field equality.
  ///@{
  ROCJIT_ATTR_FIELDS(slot)
  bool operator==(const SlotAttrs&) const = default;
  ///@}
};
/// barrier: the memory it fences (FenceFlags: fence_local | fence_global; 0: none).
struct BarrierAttrs {
  static constexpr std::string_view name = "BarrierAttrs";  ///< the struct's name, for diagnostics
  uint8_t fences = fence_local;  ///< FenceFlags: fence_local | fence_global; 0: none
  /// Its fields, as a tuple of references (ROCJIT_ATTR_FIELDS), and field-by-field equality.
  ///@{
  ROCJIT_ATTR_FIELDS(fences)
  bool operator==(const BarrierAttrs&) const = default;
  ///@}
};
/// fence: memory order (not relaxed) and scope.
struct FenceAttrs {
  static constexpr std::string_view name = "FenceAttrs";  ///< the struct's name, for diagnostics
  MemoryOrder order = MemoryOrder::seq_cst;  ///< the memory order (not relaxed)
  MemoryScope scope = MemoryScope::device;   ///< the memory scope
  /// Its fields, as a tuple of references (ROCJIT_ATTR_FIELDS), and field-by-field equality.
  ///@{
  ROCJIT_ATTR_FIELDS(order, scope)
  bool operator==(const FenceAttrs&) const = default;
  ///@}
};
/// extract: the lane read.
struct ExtractAttrs {
  static constexpr std::string_view name = "ExtractAttrs";  ///< the struct's name, for diagnostics
  uint8_t lane = 0;  ///< the lane read
  /// Its fields, as a tuple of references (ROCJIT_ATTR_FIELDS), and field-by-field equality.
  ///@{
  ROCJIT_ATTR_FIELDS(lane)
  bool operator==(const ExtractAttrs&) const = default;
  ///@}
};
/// wave: the operation.
struct WaveAttrs {
  static constexpr std::string_view name = "WaveAttrs";  ///< the struct's name, for diagnostics
  WaveOp op = WaveOp::shuffle;  ///< the operation
  /// Its fields, as a tuple of references (ROCJIT_ATTR_FIELDS), and field-by-field equality.
  ///@{
  ROCJIT_ATTR_FIELDS(op)
  bool operator==(const WaveAttrs&) const = default;
  ///@}
};
/// mma: the shape, m x n += (m x k) . (k x n), and the precision of A and B
/// (rocjit/compiler/mma.hpp).
struct MmaAttrs {
  static constexpr std::string_view name = "MmaAttrs";  ///< the struct's name, for diagnostics
  /// The shape's extents.
  ///@{
  uint8_t m = 16, n = 16, k = 16;
  ///@}
  mma::Precision precision = mma::Precision::full;  ///< xf32: f32 A and B rounded to xf32 first
  /// Its fields, as a tuple of references (ROCJIT_ATTR_FIELDS), and field-by-field equality.
  ///@{
  ROCJIT_ATTR_FIELDS(m, n, k, precision)
  bool operator==(const MmaAttrs&) const = default;
  ///@}
};
/// print and assert: the fmt-style format of the output (assert: of the failure message), one
/// replacement field per value operand (assert: after the condition).
struct PrintAttrs {
  static constexpr std::string_view name = "PrintAttrs";  ///< the struct's name, for diagnostics
  std::string format;  ///< the fmt-style format
  /// Its fields, as a tuple of references (ROCJIT_ATTR_FIELDS), and field-by-field equality.
  ///@{
  ROCJIT_ATTR_FIELDS(format)
  bool operator==(const PrintAttrs&) const = default;
  ///@}
};

/// for, while: the unroll request (0: LLVM decides; 1: none; N: unroll N times).
struct LoopAttrs {
  static constexpr std::string_view name = "LoopAttrs";  ///< the struct's name, for diagnostics
  int64_t unroll = 0;  ///< 0: LLVM decides; 1: none; N: unroll N times
  /// Its fields, as a tuple of references (ROCJIT_ATTR_FIELDS), and field-by-field equality.
  ///@{
  ROCJIT_ATTR_FIELDS(unroll)
  bool operator==(const LoopAttrs&) const = default;
  ///@}
};

/// Every attribute struct, in one variant (a struct named in ROCJIT_OPS must be listed here: a
/// static_assert in ir.cpp checks).
using OpAttrs = std::variant<NoAttrs, ConstantAttrs, BinaryAttrs, UnaryAttrs, CompareAttrs, MathAttrs,
                             WorkItemAttrs, ShapeAttrs, AccessAttrs, AtomicAttrs, SlotAttrs, BarrierAttrs,
                             FenceAttrs, ExtractAttrs, WaveAttrs, MmaAttrs, PrintAttrs, LoopAttrs>;


/// The attributes a new op of kind `k` starts with (its struct, default-constructed).
OpAttrs default_attrs(OpKind k);
/// Whether op.attrs holds the struct its kind's definition names.
bool has_kind_attrs(const Op& op);
/// The name of the attribute struct of kind `k` ("AtomicAttrs"), for diagnostics.
std::string_view attrs_name(OpKind k);
/// Thrown when an op is asked for attributes its kind does not have (a compiler bug: ir::verify
/// rejects such ops first).
[[noreturn]] void wrong_attrs(const Op& op, std::string_view wanted);

/// One operation: its kind, result, operands, typed attributes and nested regions.
struct Op {
  /// What the op does.
  OpKind kind;
  Type type = Type::none;  ///< result type
  /// The value it defines (0: none).
  ValueId result = 0;
  /// Value operands, in order.
  std::vector<ValueId> operands;
  /// The attributes of its kind (the struct its ROCJIT_OPS line names).
  OpAttrs attrs;
  /// Nested bodies (if: then/else; for: body; while: condition, body, step).
  std::vector<Region> regions;
  /// Where the DSL call or .rjir text was.
  SourceLoc loc;

  /// An op of kind `k` with its kind's default attributes and `k`'s number of (empty) regions.
  /// (There is no default constructor: every op starts from its kind's definition.)
  explicit Op(OpKind k);
  /// An op of kind `k` with attributes `a` (which must be k's struct).
  template <class A>
  Op(OpKind k, A a) : Op(k) {
    set(std::move(a));
  }

  /// Every field equal, nested regions compared op by op (the defaulted comparison: a new field
  /// is compared without anyone remembering to).
  bool operator==(const Op&) const = default;

  /// The attributes as struct A; wrong_attrs() if the op's kind has another struct.
  ///@{
  template <class A>
  const A& get() const {
    if (const A* a = std::get_if<A>(&attrs)) return *a;
    wrong_attrs(*this, A::name);
  }
  template <class A>
  A& get() {
    if (A* a = std::get_if<A>(&attrs)) return *a;
    wrong_attrs(*this, A::name);
  }
  ///@}
  /// Replaces the attributes (the struct must be the kind's).
  template <class A>
  void set(A a) {
    attrs = std::move(a);
    if (!has_kind_attrs(*this)) wrong_attrs(*this, A::name);
  }

  /// Typed views of the attributes; each is valid only on the kinds whose struct has the field.
  ///@{
  BinaryOp binary_op() const { return get<BinaryAttrs>().op; }
  UnaryOp unary_op() const { return get<UnaryAttrs>().op; }
  ComparePred pred() const { return get<CompareAttrs>().pred; }
  MathFn math_fn() const { return get<MathAttrs>().fn; }
  WorkItem workitem() const { return get<WorkItemAttrs>().item; }
  AtomicOp atomic_op() const { return get<AtomicAttrs>().op; }
  WaveOp wave_op() const { return get<WaveAttrs>().op; }
  /// The array of a shape, load, store or atomic.
  MemoryId memory() const;
  /// The variable of a var.load or var.store.
  SlotId slot() const { return get<SlotAttrs>().slot; }
  /// The dimension of a workitem or shape.
  unsigned dim() const;
  /// The lane an extract reads.
  unsigned lane() const { return get<ExtractAttrs>().lane; }
  /// A barrier's FenceFlags.
  uint8_t fences() const { return get<BarrierAttrs>().fences; }
  /// The memory order and scope of an atomic or fence.
  MemoryOrder order() const;
  MemoryScope scope() const;
  /// The format of a print or assert.
  const std::string& format() const { return get<PrintAttrs>().format; }
  /// A for or while loop's unroll request.
  int64_t unroll() const { return get<LoopAttrs>().unroll; }
  /// A constant's value (integer types and i1; float types).
  int64_t int_value() const { return get<ConstantAttrs>().integer; }
  double float_value() const { return get<ConstantAttrs>().floating; }
  ///@}
  /// The family member index (BinaryOp, MathFn, ...) of an op with a family, else 0.
  unsigned member() const;
};

/// Sets the family member (BinaryOp, MathFn, ... by index) of an op with a family; the op's
/// attributes must be its kind's.
void set_member(Op& op, unsigned member);

/// A hash of the op's kind, type, result, operands, attributes and nested ops (not its location).
size_t hash(const Op& op);

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
/// The elements a vector access of `lanes` lanes at `index` covers (the last index counts
/// vectors), for messages: "vector index 5 is elements 20..23", "vector index (2, 5) is elements
/// (2, 20..23)".
std::string describe_vector_access(std::span<const int64_t> index, int64_t lanes);

/// Regions (the bodies of if, for and while) nest at most this deep. Every pass walks regions
/// recursively; the bound keeps a machine-made kernel from exhausting the stack.
inline constexpr unsigned max_region_depth = 256;

/// The largest unroll count a loop may request (For/While `{.unroll = N}`).
inline constexpr int64_t max_unroll = 1024;

/// Shared and local arrays hold at most this many elements (indices are 32-bit).
inline constexpr int64_t max_array_elements = 2147483647;

/// Whether an array of these extents has fewer than 2^31 elements: every in-bounds element offset
/// of a C or F layout array of this shape is then a non-negative 32-bit integer (AMDGPU computes
/// such offsets in 32 bits; Kernel::small_arrays). A negative extent: false.
inline bool fewer_than_2_31_elements(std::span<const int64_t> extents) {
  constexpr int64_t limit = int64_t{1} << 31;
  int64_t elements = 1;
  for (int64_t e : extents) {
    if (e < 0 || e >= limit) return false;
    elements *= e;  // both below 2^31: no overflow
    if (elements >= limit) return false;
  }
  return true;
}

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
  /// A promise: every global array of C or F layout has fewer than 2^31 elements (the product of
  /// its extents) at every launch. An in-bounds element offset is then below 2^31, so AMDGPU
  /// computes offsets in 32 bits (as clang's `int` indices) instead of 64. The HIP device compiles
  /// a copy with it set for launches whose arrays it checked (README, "Semantics"; .rjir:
  /// `small_arrays` after max_block_size and fast_math). Nothing else changes.
  bool small_arrays = false;
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
