// Names and small queries on rocjit IR: source locations, spaces, layouts and the op registry.
#include "rocjit/compiler/ir.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <functional>
#include <iterator>
#include <optional>

#include "rocjit/compiler/error.hpp"

namespace rocjit::ir {

Region::Region(const Region& other) {
  ops.reserve(other.ops.size());
  for (const auto& op : other.ops) ops.push_back(std::make_unique<Op>(*op));
}

Region& Region::operator=(const Region& other) {
  if (this != &other) *this = Region(other);
  return *this;
}

bool Region::operator==(const Region& other) const {
  if (ops.size() != other.ops.size()) return false;
  for (size_t i = 0; i < ops.size(); ++i)
    if (!(*ops[i] == *other.ops[i])) return false;
  return true;
}

std::string SourceLoc::str() const {
  if (file.empty()) return "<unknown>";
  return fmt::format("{}:{}", file, line);
}

std::string_view space_name(MemorySpace s) {
  switch (s) {
    case MemorySpace::global: return "global";
    case MemorySpace::shared: return "shared";
    case MemorySpace::local: return "local";
  }
  return "?";
}

std::string_view layout_name(Layout l) {
  switch (l) {
    case Layout::C: return "C";
    case Layout::F: return "F";
    case Layout::strided: return "strided";
  }
  return "?";
}

int64_t Memory::element_count() const {
  if (dynamic) return 0;
  int64_t n = 1;
  for (int64_t e : shape) n *= e;
  return n;
}

namespace {

// The registry, built from ops.hpp. Enumerators are numbered in list order, so each table is
// indexed by its enum.
constexpr OpInfo op_table[] = {
#define ROCJIT_OP_INFO(kind, spelling, family, operands, reference, result, effect, convergent, sync, regions, attrs) \
  OpInfo{OpKind::kind,          spelling,       OpFamily::family,   operands,   OpReference::reference,           \
         OpResult::result,      OpEffect::effect, convergent,       SyncScope::sync, regions},
    ROCJIT_OPS(ROCJIT_OP_INFO)
#undef ROCJIT_OP_INFO
};

#define ROCJIT_SUB_OP_INFO(name, spelling, operands, divergent) SubOpInfo{spelling, operands, divergent},
constexpr SubOpInfo binary_ops[] = {ROCJIT_BINARY_OPS(ROCJIT_SUB_OP_INFO)};
constexpr SubOpInfo unary_ops[] = {ROCJIT_UNARY_OPS(ROCJIT_SUB_OP_INFO)};
constexpr SubOpInfo compare_preds[] = {ROCJIT_COMPARE_PREDS(ROCJIT_SUB_OP_INFO)};
constexpr SubOpInfo math_fns[] = {ROCJIT_MATH_FNS(ROCJIT_SUB_OP_INFO)};
constexpr SubOpInfo workitems[] = {ROCJIT_WORKITEMS(ROCJIT_SUB_OP_INFO)};
constexpr SubOpInfo atomic_ops[] = {ROCJIT_ATOMIC_OPS(ROCJIT_SUB_OP_INFO)};
constexpr SubOpInfo wave_ops[] = {ROCJIT_WAVE_OPS(ROCJIT_SUB_OP_INFO)};
#undef ROCJIT_SUB_OP_INFO

constexpr bool table_in_enum_order() {
  for (size_t i = 0; i < std::size(op_table); ++i)
    if (static_cast<size_t>(op_table[i].kind) != i) return false;
  return true;
}
static_assert(table_in_enum_order());
// Op::sub is a byte.
static_assert(std::size(binary_ops) <= 256 && std::size(math_fns) <= 256 && std::size(atomic_ops) <= 256);

template <class Enum>
std::string_view member_name(std::span<const SubOpInfo> members, Enum e) {
  const auto i = static_cast<size_t>(e);
  return i < members.size() ? members[i].name : std::string_view("?");
}

}  // namespace

const OpInfo& op_info(OpKind k) {
  const auto i = static_cast<size_t>(k);
  // An out-of-range kind (a corrupted op) reads as a constant; ir::verify reports it first.
  return i < std::size(op_table) ? op_table[i] : op_table[0];
}

bool is_valid_kind(OpKind k) { return static_cast<size_t>(k) < std::size(op_table); }

std::span<const OpInfo> all_ops() { return op_table; }

std::span<const SubOpInfo> family_members(OpFamily f) {
  switch (f) {
    case OpFamily::binary: return binary_ops;
    case OpFamily::unary: return unary_ops;
    case OpFamily::compare: return compare_preds;
    case OpFamily::math: return math_fns;
    case OpFamily::workitem: return workitems;
    case OpFamily::atomic: return atomic_ops;
    case OpFamily::wave: return wave_ops;
    case OpFamily::none: case OpFamily::fence: break;
  }
  return {};
}

std::string_view family_prefix(OpFamily f) {
  switch (f) {
    case OpFamily::compare: return "cmp.";
    case OpFamily::math: return "math.";
    case OpFamily::atomic: return "atomic.";
    case OpFamily::wave: return "wave.";
    case OpFamily::none: case OpFamily::binary: case OpFamily::unary: case OpFamily::workitem:
    case OpFamily::fence: return "";
  }
  return "";
}

std::string_view family_name(OpFamily f) {
  switch (f) {
    case OpFamily::none: return "none";
    case OpFamily::binary: return "BinaryOp";
    case OpFamily::unary: return "UnaryOp";
    case OpFamily::compare: return "ComparePred";
    case OpFamily::math: return "MathFn";
    case OpFamily::workitem: return "WorkItem";
    case OpFamily::atomic: return "AtomicOp";
    case OpFamily::fence: return "FenceFlags";
    case OpFamily::wave: return "WaveOp";
  }
  return "?";
}

std::string_view op_kind_name(OpKind k) {
  return static_cast<size_t>(k) < std::size(op_table) ? op_table[static_cast<size_t>(k)].name : "?";
}

std::string_view binary_op_name(BinaryOp o) { return member_name(binary_ops, o); }
std::string_view unary_op_name(UnaryOp o) { return member_name(unary_ops, o); }
std::string_view compare_pred_name(ComparePred p) { return member_name(compare_preds, p); }
std::string_view math_fn_name(MathFn f) { return member_name(math_fns, f); }
MathDomain math_fn_domain(MathFn f) {
#define ROCJIT_MATH_CASE(name, ...) case MathFn::name:
  switch (f) {
    ROCJIT_INTEGER_MATH_FNS(ROCJIT_MATH_CASE) return MathDomain::integer;
    ROCJIT_LDEXP_MATH_FNS(ROCJIT_MATH_CASE) return MathDomain::ldexp;
    ROCJIT_FLOAT_MATH_FNS(ROCJIT_MATH_CASE) return MathDomain::floating;
  }
#undef ROCJIT_MATH_CASE
  return MathDomain::floating;
}

unsigned math_fn_arity(MathFn f) {
  const auto i = static_cast<size_t>(f);
  return i < std::size(math_fns) ? math_fns[i].operands : 0;
}
std::string_view workitem_name(WorkItem w) { return member_name(workitems, w); }
std::string_view atomic_op_name(AtomicOp o) { return member_name(atomic_ops, o); }
std::string_view wave_op_name(WaveOp o) { return member_name(wave_ops, o); }

namespace {
#define ROCJIT_SPELLING(name, spelling) spelling,
constexpr std::string_view memory_orders[] = {ROCJIT_MEMORY_ORDERS(ROCJIT_SPELLING)};
constexpr std::string_view memory_scopes[] = {ROCJIT_MEMORY_SCOPES(ROCJIT_SPELLING)};
#undef ROCJIT_SPELLING
}  // namespace

std::string_view memory_order_name(MemoryOrder o) {
  const auto i = static_cast<size_t>(o);
  return i < std::size(memory_orders) ? memory_orders[i] : "?";
}

std::string_view memory_scope_name(MemoryScope s) {
  const auto i = static_cast<size_t>(s);
  return i < std::size(memory_scopes) ? memory_scopes[i] : "?";
}

std::string check_memory_order(const Op& op) {
  const MemoryOrder o = op.order();
  if (static_cast<unsigned>(o) > static_cast<unsigned>(MemoryOrder::seq_cst)) return "an unknown memory order";
  if (static_cast<unsigned>(op.scope()) > static_cast<unsigned>(MemoryScope::system)) return "an unknown memory scope";
  if (op.kind == OpKind::fence && o == MemoryOrder::relaxed)
    return "a fence needs memory_order acquire, release, acq_rel or seq_cst (relaxed orders nothing)";
  if (op.kind != OpKind::atomic) return "";
  if (op.atomic_op() == AtomicOp::load && (o == MemoryOrder::release || o == MemoryOrder::acq_rel))
    return fmt::format("an atomic load cannot be {} (use relaxed, acquire or seq_cst)", memory_order_name(o));
  if (op.atomic_op() == AtomicOp::store && (o == MemoryOrder::acquire || o == MemoryOrder::acq_rel))
    return fmt::format("an atomic store cannot be {} (use relaxed, release or seq_cst)", memory_order_name(o));
  return "";
}

bool has_valid_attrs(const Op& op) {
  if (!is_valid_kind(op.kind) || !has_kind_attrs(op)) return false;
  const OpInfo& info = op_info(op.kind);
  if (info.family == OpFamily::fence) return (op.fences() & ~(fence_local | fence_global)) == 0;
  if (info.family == OpFamily::none) return true;
  return op.member() < family_members(info.family).size();
}

std::string op_spelling(const Op& op) {
  const OpInfo& info = op_info(op.kind);
  const auto members = family_members(info.family);
  if (members.empty()) return std::string(info.name);
  return std::string(family_prefix(info.family)) + std::string(member_name(members, op.member()));
}

unsigned value_operand_count(const Op& op) {
  const OpInfo& info = op_info(op.kind);
  if (info.operands == by_lanes) return op.type.lanes;
  if (info.operands == variadic) return static_cast<unsigned>(op.operands.size());
  if (info.operands != by_member) return static_cast<unsigned>(info.operands);
  const auto members = family_members(info.family);
  const unsigned m = op.member();
  return m < members.size() ? members[m].operands : 0;
}

// --- Typed attributes --------------------------------------------------------------------------

namespace {

template <class A, class Variant>
struct in_variant;
template <class A, class... Ts>
struct in_variant<A, std::variant<Ts...>> : std::bool_constant<(std::is_same_v<A, Ts> || ...)> {};

#define ROCJIT_ATTRS_LISTED(kind, spelling, family, operands, reference, result, effect, convergent, sync, regions, attrs) \
  static_assert(in_variant<attrs, OpAttrs>::value, "the attribute struct of op '" spelling "' is missing from ir::OpAttrs");
ROCJIT_OPS(ROCJIT_ATTRS_LISTED)
#undef ROCJIT_ATTRS_LISTED

// The variant index of each kind's struct, in enumerator order.
template <class A, size_t I = 0>
constexpr size_t variant_index() {
  if constexpr (std::is_same_v<A, std::variant_alternative_t<I, OpAttrs>>) return I;
  else return variant_index<A, I + 1>();
}
constexpr size_t attrs_index[] = {
#define ROCJIT_ATTRS_INDEX(kind, spelling, family, operands, reference, result, effect, convergent, sync, regions, attrs) \
  variant_index<attrs>(),
    ROCJIT_OPS(ROCJIT_ATTRS_INDEX)
#undef ROCJIT_ATTRS_INDEX
};
constexpr std::string_view attrs_names[] = {
#define ROCJIT_ATTRS_NAME(kind, spelling, family, operands, reference, result, effect, convergent, sync, regions, attrs) \
  attrs::name,
    ROCJIT_OPS(ROCJIT_ATTRS_NAME)
#undef ROCJIT_ATTRS_NAME
};

void hash_combine(size_t& seed, size_t h) { seed ^= h + 0x9e3779b97f4a7c15ull + (seed << 6) + (seed >> 2); }

template <class T>
size_t hash_field(const T& v) {
  if constexpr (std::is_enum_v<T>) return std::hash<std::underlying_type_t<T>>{}(static_cast<std::underlying_type_t<T>>(v));
  else return std::hash<T>{}(v);
}

}  // namespace

OpAttrs default_attrs(OpKind k) {
  switch (k) {
#define ROCJIT_DEFAULT_ATTRS(kind, spelling, family, operands, reference, result, effect, convergent, sync, regions, attrs) \
  case OpKind::kind: return attrs{};
    ROCJIT_OPS(ROCJIT_DEFAULT_ATTRS)
#undef ROCJIT_DEFAULT_ATTRS
  }
  return NoAttrs{};  // an out-of-range kind (ir::verify rejects it)
}

bool has_kind_attrs(const Op& op) {
  return is_valid_kind(op.kind) && op.attrs.index() == attrs_index[static_cast<size_t>(op.kind)];
}

std::string_view attrs_name(OpKind k) {
  return is_valid_kind(k) ? attrs_names[static_cast<size_t>(k)] : std::string_view("?");
}

void wrong_attrs(const Op& op, std::string_view wanted) {
  throw Error(fmt::format("internal error at {}: op '{}' carries {}, not {}", op.loc.str(), op_kind_name(op.kind),
                          attrs_name(op.kind), wanted));
}

Op::Op(OpKind k) : kind(k), attrs(default_attrs(k)) { regions.resize(op_info(k).regions); }

// The attribute `field` of whichever struct the op carries, if that struct has
// one (found by name: a struct added later with such a field needs no edit here).
#define ROCJIT_SHARED_ATTR(type, field, what)                                     \
  std::optional<type> found;                                                      \
  std::visit(                                                                     \
      [&](const auto& a) {                                                        \
        if constexpr (requires { a.field; }) found = static_cast<type>(a.field); \
      },                                                                          \
      attrs);                                                                     \
  if (!found) wrong_attrs(*this, what);                                           \
  return *found;

MemoryId Op::memory() const { ROCJIT_SHARED_ATTR(MemoryId, memory, "an array (a struct with a memory field)") }
unsigned Op::dim() const { ROCJIT_SHARED_ATTR(unsigned, dim, "a dimension (a struct with a dim field)") }
MemoryOrder Op::order() const { ROCJIT_SHARED_ATTR(MemoryOrder, order, "a memory order (a struct with an order field)") }
MemoryScope Op::scope() const { ROCJIT_SHARED_ATTR(MemoryScope, scope, "a memory scope (a struct with a scope field)") }
#undef ROCJIT_SHARED_ATTR

unsigned Op::member() const {
  return std::visit(
      [](const auto& a) -> unsigned {
        using A = std::decay_t<decltype(a)>;
        if constexpr (std::is_same_v<A, BinaryAttrs> || std::is_same_v<A, UnaryAttrs> ||
                      std::is_same_v<A, AtomicAttrs> || std::is_same_v<A, WaveAttrs>)
          return static_cast<unsigned>(a.op);
        else if constexpr (std::is_same_v<A, CompareAttrs>) return static_cast<unsigned>(a.pred);
        else if constexpr (std::is_same_v<A, MathAttrs>) return static_cast<unsigned>(a.fn);
        else if constexpr (std::is_same_v<A, WorkItemAttrs>) return static_cast<unsigned>(a.item);
        else return 0;
      },
      attrs);
}

void set_member(Op& op, unsigned member) {
  std::visit(
      [&](auto& a) {
        using A = std::decay_t<decltype(a)>;
        if constexpr (std::is_same_v<A, BinaryAttrs>) a.op = static_cast<BinaryOp>(member);
        else if constexpr (std::is_same_v<A, UnaryAttrs>) a.op = static_cast<UnaryOp>(member);
        else if constexpr (std::is_same_v<A, AtomicAttrs>) a.op = static_cast<AtomicOp>(member);
        else if constexpr (std::is_same_v<A, WaveAttrs>) a.op = static_cast<WaveOp>(member);
        else if constexpr (std::is_same_v<A, CompareAttrs>) a.pred = static_cast<ComparePred>(member);
        else if constexpr (std::is_same_v<A, MathAttrs>) a.fn = static_cast<MathFn>(member);
        else if constexpr (std::is_same_v<A, WorkItemAttrs>) a.item = static_cast<WorkItem>(member);
      },
      op.attrs);
}

size_t hash(const Op& op) {
  size_t h = static_cast<size_t>(op.kind);
  hash_combine(h, (static_cast<size_t>(op.type.code) << 24) | (size_t{op.type.bits} << 16) | op.type.lanes);
  hash_combine(h, op.result);
  for (ValueId v : op.operands) hash_combine(h, v);
  hash_combine(h, op.attrs.index());
  std::visit([&](const auto& a) { std::apply([&](const auto&... f) { (hash_combine(h, hash_field(f)), ...); }, a.fields()); },
             op.attrs);
  for (const Region& r : op.regions) {
    hash_combine(h, r.ops.size());
    for (const auto& o : r.ops) hash_combine(h, hash(*o));
  }
  return h;
}

unsigned access_lanes(const Kernel& k, const Op& op) {
  if (op.kind == OpKind::load) return op.type.lanes;
  if (op.kind != OpKind::store || !has_kind_attrs(op) || op.memory() >= k.memories.size()) return 1;
  const unsigned rank = k.memories[op.memory()].rank;
  return rank < op.operands.size() && op.operands[rank] < k.values.size() ? k.values[op.operands[rank]].type.lanes : 1;
}

std::string describe_vector_access(std::span<const int64_t> index, int64_t lanes) {
  const int64_t last = index.back();
  const std::string elements = fmt::format("{}..{}", last * lanes, last * lanes + lanes - 1);
  if (index.size() == 1) return fmt::format("vector index {} is elements {}", last, elements);
  const std::span<const int64_t> outer = index.first(index.size() - 1);
  return fmt::format("vector index ({}) is elements ({}, {})", fmt::join(index, ", "), fmt::join(outer, ", "), elements);
}

bool is_sync_point(const Op& op) { return op_info(op.kind).sync != SyncScope::none; }

bool computes_collectively(const Op& op) {
  const OpInfo& info = op_info(op.kind);
  return info.convergent && info.result != OpResult::none;
}

int64_t Kernel::shared_bytes() const {
  int64_t total = 0;
  for (const auto& m : memories)
    if (m.space == MemorySpace::shared) total += m.element_count() * byte_size(m.element);
  return total;
}

bool Kernel::has_dynamic_shared() const {
  for (const auto& m : memories)
    if (m.dynamic) return true;
  return false;
}

void Kernel::index_definitions() {
  for (auto& v : values) v.def = nullptr;
  walk(body, [&](const Op& op) {
    if (op.result != 0 && op.result < values.size()) values[op.result].def = &op;
  });
}

}  // namespace rocjit::ir
