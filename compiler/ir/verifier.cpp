// Verifies that a kernel is well formed: values defined before use, types consistent,
// regions shaped as their ops require, `break` only inside loops.
#include "rocjit/compiler/verifier.hpp"

#include <fmt/format.h>

#include <limits>

#include <algorithm>
#include <string_view>
#include <vector>

#include "rocjit/compiler/device_print.hpp"
#include "rocjit/compiler/error.hpp"
#include "rocjit/compiler/mma.hpp"

namespace rocjit::ir {
namespace {

class Verifier {
 public:
  explicit Verifier(const Kernel& k)
      : kernel_(k), defined_(k.values.size(), false), ended_(k.values.size(), false) {}

  void run() {
    check_names();
    if (kernel_.max_block_size < 1 || kernel_.max_block_size > 1024)
      fail(kernel_.loc, fmt::format("max_block_size {} is outside 1..1024", kernel_.max_block_size));
    for (const Param& p : kernel_.params) {
      if (p.kind == Param::Kind::scalar) {
        if (p.value == 0 || p.value >= kernel_.values.size())
          fail(kernel_.loc, fmt::format("scalar parameter '{}' has no value", p.name));
        if (!is_supported(kernel_.values[p.value].type))
          unsupported(kernel_.values[p.value].type, kernel_.loc, fmt::format("scalar parameter '{}'", p.name));
        defined_[p.value] = true;
      } else if (p.memory >= kernel_.memories.size()) {
        fail(kernel_.loc, fmt::format("array parameter '{}' has no memory object", p.name));
      }
    }
    for (const Memory& m : kernel_.memories) {
      if (m.rank < 1 || m.rank > 3)
        fail(m.loc, fmt::format("array '{}' has rank {}; ranks 1 to 3 are supported", m.name, m.rank));
      if (m.element == Type::none)
        fail(m.loc, fmt::format("array '{}' has no element type", m.name));
      if (!is_supported(m.element)) unsupported(m.element, m.loc, fmt::format("array '{}'", m.name));
      if (m.dynamic) {
        if (m.space != MemorySpace::shared || m.rank != 1 || !m.shape.empty())
          fail(m.loc, fmt::format("dynamic array '{}' must be a shared array of rank 1 without static extents",
                                  m.name));
      } else if (m.space == MemorySpace::global) {
        if (!m.shape.empty() && m.shape.size() != m.rank)
          fail(m.loc, fmt::format("array parameter '{}' has {} fixed extents for rank {}", m.name, m.shape.size(), m.rank));
        for (int64_t e : m.shape)
          if (e < 0 || e > std::numeric_limits<int32_t>::max())
            fail(m.loc, fmt::format("array parameter '{}' has fixed extent {}, outside 0..2^31 - 1", m.name, e));
      } else {
        if (m.shape.size() != m.rank)
          fail(m.loc, fmt::format("{} array '{}' has {} extents for rank {}", space_name(m.space), m.name,
                                  m.shape.size(), m.rank));
        int64_t elements = 1;
        for (int64_t e : m.shape) {
          if (e <= 0)
            fail(m.loc, fmt::format("{} array '{}' has extent {}; extents must be positive constants",
                                    space_name(m.space), m.name, e));
          // Checked before multiplying, so the product never overflows.
          if (e > max_array_elements / elements)
            fail(m.loc, fmt::format("{} array '{}' has more than {} elements; its extents multiply past the "
                                    "32-bit index range",
                                    space_name(m.space), m.name, max_array_elements));
          elements *= e;
        }
      }
    }
    for (const Slot& slot : kernel_.slots)
      if (!is_supported(slot.type)) unsupported(slot.type, slot.loc, fmt::format("variable '{}'", slot.name));
    region(kernel_.body, 0);
  }

 private:
  // Names become symbols, file names (ROCJIT_DUMP) and .rjir text that must parse back: letters,
  // digits, '_', '.' and '-', and unique among the parameters and arrays.
  void check_names() {
    auto valid = [](const std::string& n) {
      if (n.empty()) return false;
      for (char c : n)
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
              c == '-'))
          return false;
      return true;
    };
    const char* rule = "names may use letters, digits, '_', '.' and '-'";
    if (!valid(kernel_.name))
      throw CompileError(fmt::format("kernel name '{}' is not valid: {} (at {})", kernel_.name, rule, kernel_.loc.str()));
    std::vector<std::string_view> seen;
    auto check = [&](const std::string& name, const char* what, const SourceLoc& loc) {
      if (!valid(name)) fail(loc, fmt::format("{} name '{}' is not valid: {}", what, name, rule));
      if (std::find(seen.begin(), seen.end(), name) != seen.end())
        fail(loc, fmt::format("two parameters or arrays are named '{}'", name));
      seen.push_back(name);
    };
    for (const Param& p : kernel_.params)
      if (p.kind == Param::Kind::scalar) check(p.name, "parameter", kernel_.loc);
    for (const Memory& m : kernel_.memories) check(m.name, "array", m.loc);
    for (const Slot& s : kernel_.slots)
      if (!valid(s.name)) fail(s.loc, fmt::format("variable name '{}' is not valid: {}", s.name, rule));
  }

  [[noreturn]] void fail(const SourceLoc& loc, const std::string& what) const {
    // IR parsed from text without loc(...) has no locations; the parser prefixes its position.
    if (loc.file.empty() && loc.line == 0) throw CompileError(fmt::format("kernel '{}': {}", kernel_.name, what));
    throw CompileError(fmt::format("kernel '{}': {} (at {})", kernel_.name, what, loc.str()));
  }

  Type use(const Op& op, ValueId v) const {
    if (v == 0 || v >= kernel_.values.size())
      fail(op.loc, fmt::format("{} uses undefined value %{}", op_kind_name(op.kind), v));
    if (!defined_[v]) {
      const Op* def = kernel_.values[v].def;
      if (ended_[v])
        fail(op.loc, fmt::format("{} uses %{}, which was defined inside an If/For/While body{} that has "
                                 "ended; carry values out of a body with a Var",
                                 op_kind_name(op.kind), v, def ? " at " + def->loc.str() : std::string()));
      fail(op.loc, fmt::format("{} uses %{} before it is defined", op_kind_name(op.kind), v));
    }
    const Type t = kernel_.values[v].type;
    if (t.is_vector() && op.kind != OpKind::extract && op.kind != OpKind::store && op.kind != OpKind::print &&
        op.kind != OpKind::assert_ && op.kind != OpKind::mma)
      fail(op.loc, fmt::format("{} cannot take the vector %{} ({}); vectors are read with extract and written "
                               "with store",
                               op_spelling(op), v, type_name(t)));
    return t;
  }

  // A load or store of a whole vector `t` on array `m`: lanes of its element type, along a
  // contiguous last dimension (a one-dimensional array with layout C or F, or layout C).
  void check_vector_access(const Op& op, const Memory& m, Type t) const {
    if (t.element_of() != m.element)
      fail(op.loc, fmt::format("{} of {} on array '{}' of {}: the lanes must have the element type",
                               op_kind_name(op.kind), type_name(t), m.name, type_name(m.element)));
    if (!is_supported_vector(t))
      fail(op.loc, fmt::format("{} of {}: vectors have 2 to 4 lanes of a number type", op_kind_name(op.kind),
                               type_name(t)));
    if (m.layout == Layout::strided || (m.rank > 1 && m.layout != Layout::C))
      fail(op.loc, fmt::format("vector {} on array '{}': vector accesses need a contiguous last dimension: a "
                               "one-dimensional array or layout C (it has rank {}, layout {})",
                               op_kind_name(op.kind), m.name, m.rank, layout_name(m.layout)));
  }

  void define(const Op& op) {
    if (op.result == 0) return;
    if (op.result >= kernel_.values.size())
      fail(op.loc, fmt::format("{} defines unknown value %{}", op_kind_name(op.kind), op.result));
    if (defined_[op.result])
      fail(op.loc, fmt::format("value %{} is defined twice", op.result));
    if (kernel_.values[op.result].type != op.type)
      fail(op.loc, fmt::format("value %{} is declared {} but defined as {}", op.result,
                               type_name(kernel_.values[op.result].type), type_name(op.type)));
    if (op.type.is_vector() && (op.kind == OpKind::make_vector || op.kind == OpKind::mma)) {
      // mma fragments (up to 16 lanes) are built with `vector` too.
      if (!is_supported_vector(op.type) && !is_fragment_vector(op.type))
        fail(op.loc, fmt::format("value %{} has type {}; vectors have 2 to 4 lanes of a number type (mma "
                                 "fragments up to 16)",
                                 op.result, type_name(op.type)));
    } else if (op.type.is_vector() && op.kind == OpKind::load) {
      if (!is_supported_vector(op.type))
        fail(op.loc, fmt::format("value %{} has type {}; vectors have 2 to 4 lanes of a number type", op.result,
                                 type_name(op.type)));
    } else if (op.type.is_vector()) {
      fail(op.loc, fmt::format("{} cannot produce the vector type {}; vectors come from vector and load",
                               op_spelling(op), type_name(op.type)));
    } else if (!is_supported(op.type)) {
      unsupported(op.type, op.loc, fmt::format("value %{}", op.result));
    }
    defined_[op.result] = true;
    scope_.push_back(op.result);
  }

  // The IR spells any {code, bits, lanes}; the targets lower the types listed by is_supported.
  [[noreturn]] void unsupported(Type t, const SourceLoc& loc, const std::string& what) const {
    fail(loc, fmt::format("{} has type {}, which rocjit does not support yet (supported: {})", what, type_name(t),
                          supported_type_names()));
  }

  void expect_operands(const Op& op, size_t n) const {
    if (op.operands.size() != n)
      fail(op.loc, fmt::format("{} takes {} operands, got {}", op_kind_name(op.kind), n, op.operands.size()));
  }

  void same_type(const Op& op, Type a, Type b, std::string_view what) const {
    if (a != b)
      fail(op.loc, fmt::format("{} needs operands of one type, got {} and {}{}", what, type_name(a),
                               type_name(b), " (insert a cast)"));
  }

  const Memory& memory(const Op& op) const {
    if (op.memory() >= kernel_.memories.size())
      fail(op.loc, fmt::format("{} refers to unknown memory object {}", op_kind_name(op.kind), op.memory()));
    return kernel_.memories[op.memory()];
  }

  void check_indices(const Op& op, const Memory& m) const {
    if (op.operands.size() < m.rank)
      fail(op.loc, fmt::format("array '{}' has rank {} but is indexed with {} indices", m.name, m.rank,
                               op.operands.size()));
    for (unsigned i = 0; i < m.rank; ++i) {
      Type t = use(op, op.operands[i]);
      if (!is_integer(t) || t.is_vector())
        fail(op.loc, fmt::format("index {} of array '{}' is {}; indices must be integers", i, m.name,
                                 type_name(t)));
    }
  }

  // Values defined in a region are visible only inside it (SSA dominance on structured regions).
  void region(const Region& r, int loop_depth, ValueId scoped = 0) {
    if (++region_depth_ > max_region_depth) {
      const SourceLoc& at = r.ops.empty() ? kernel_.loc : r.ops.front()->loc;
      fail(at, fmt::format("regions are nested more than {} deep", max_region_depth));
    }
    size_t mark = scope_.size();
    for (const auto& p : r.ops) operation(*p, loop_depth);
    for (size_t i = mark; i < scope_.size(); ++i) close(scope_[i]);
    scope_.resize(mark);
    if (scoped) close(scoped);
    --region_depth_;
  }

  void close(ValueId v) {
    defined_[v] = false;
    ended_[v] = true;
  }

  // What the op registry fixes for every op: a known kind, a member of its family in Op::sub,
  // the operand count, the regions and whether it defines a value.
  void check_signature(const Op& op) const {
    if (!is_valid_kind(op.kind))
      fail(op.loc, fmt::format("unknown op kind {}", static_cast<unsigned>(op.kind)));
    const OpInfo& info = op_info(op.kind);
    if (!has_kind_attrs(op))
      fail(op.loc, fmt::format("{} carries the attributes of another kind (it takes {})", op_kind_name(op.kind),
                               attrs_name(op.kind)));
    if (!has_valid_attrs(op)) {
      if (info.family == OpFamily::fence)
        fail(op.loc, fmt::format("barrier has fence flags {:#x}; only local (1) and global (2) exist", op.fences()));
      fail(op.loc, fmt::format("{} has {} code {}, which is not one of its {} members", op_kind_name(op.kind),
                               family_name(info.family), op.member(), family_members(info.family).size()));
    }
    if (info.reference == OpReference::memory || info.reference == OpReference::indexed) {
      const Memory& m = memory(op);
      expect_operands(op, (info.reference == OpReference::indexed ? m.rank : 0) + value_operand_count(op));
    } else {
      expect_operands(op, value_operand_count(op));
    }
    if (info.regions == 0 && !op.regions.empty())
      fail(op.loc, fmt::format("{} has {} regions; it takes none", op_kind_name(op.kind), op.regions.size()));
    if (info.result == OpResult::none && op.result != 0)
      fail(op.loc, fmt::format("{} produces no value but defines %{}", op_kind_name(op.kind), op.result));
    if (info.result == OpResult::value && op.result == 0)
      fail(op.loc, fmt::format("{} produces a value but defines none", op_kind_name(op.kind)));
  }

  void operation(const Op& op, int loop_depth) {
    if (op.kind == OpKind::condition) fail(op.loc, "condition may only end a while's condition region");
    check_signature(op);
    if ((op.kind == OpKind::for_ || op.kind == OpKind::while_) && (op.unroll() < 0 || op.unroll() > max_unroll))
      fail(op.loc, fmt::format("loop unroll count {} is outside 0..{}", op.unroll(), max_unroll));
    switch (op.kind) {
      case OpKind::constant:
        if (op.type == Type::none) fail(op.loc, "constant without a type");
        break;
      case OpKind::binary: {
        Type a = use(op, op.operands[0]), b = use(op, op.operands[1]);
        same_type(op, a, b, binary_op_name(op.binary_op()));
        if (op.type != a) fail(op.loc, "binary result type differs from its operands");
        BinaryOp bo = op.binary_op();
        bool bitwise = bo == BinaryOp::and_ || bo == BinaryOp::or_ || bo == BinaryOp::xor_;
        bool shift = bo == BinaryOp::shl || bo == BinaryOp::shr;
        if ((bitwise && is_float(a)) || (shift && !is_integer(a)))
          fail(op.loc, fmt::format("{} is not defined on {}", binary_op_name(bo), type_name(a)));
        if (!bitwise && a == Type::i1)
          fail(op.loc, fmt::format("{} is not defined on i1", binary_op_name(bo)));
        // An integer division by the constant 0 is undefined behaviour that the optimiser would
        // silently delete along with whatever depends on it: refuse it where it was written.
        if ((bo == BinaryOp::div || bo == BinaryOp::rem) && is_integer(a)) {
          const Op* divisor = kernel_.values[op.operands[1]].def;
          if (divisor && divisor->kind == OpKind::constant && divisor->int_value() == 0)
            fail(op.loc, fmt::format("integer {} by the constant 0 (undefined: the result and every store of it "
                                     "would be dropped); guard the divisor or divide floats",
                                     bo == BinaryOp::div ? "division" : "remainder"));
        }
        break;
      }
      case OpKind::unary: {
        Type a = use(op, op.operands[0]);
        if (op.type != a) fail(op.loc, "unary result type differs from its operand");
        if (op.unary_op() == UnaryOp::not_ ? is_float(a) : a == Type::i1)
          fail(op.loc, fmt::format("{} is not defined on {}", unary_op_name(op.unary_op()), type_name(a)));
        break;
      }
      case OpKind::compare: {
        same_type(op, use(op, op.operands[0]), use(op, op.operands[1]), "comparison");
        if (op.type != Type::i1) fail(op.loc, "comparison must produce i1");
        break;
      }
      case OpKind::select: {
        if (use(op, op.operands[0]) != Type::i1) fail(op.loc, "select condition must be i1");
        Type a = use(op, op.operands[1]), b = use(op, op.operands[2]);
        same_type(op, a, b, "select");
        if (op.type != a) fail(op.loc, "select result type differs from its operands");
        break;
      }
      case OpKind::cast:
        use(op, op.operands[0]);
        if (op.type == Type::none) fail(op.loc, "cast without a target type");
        break;
      case OpKind::bitcast: {
        Type from = use(op, op.operands[0]);
        if (from.bytes() != op.type.bytes() || from == Type::i1 || op.type == Type::i1)
          fail(op.loc, fmt::format("bitcast from {} to {}: both types must have the same size in bytes "
                                   "(and neither be i1)",
                                   type_name(from), type_name(op.type)));
        break;
      }
      case OpKind::math: {
        const MathFn fn = op.math_fn();
        const MathDomain domain = math_fn_domain(fn);
        for (size_t i = 0; i < op.operands.size(); ++i) {
          Type t = use(op, op.operands[i]);
          Type want = domain == MathDomain::ldexp && i == 1 ? Type::i32 : op.type;
          if (t != want)
            fail(op.loc, fmt::format("{} takes {} as operand {} here, got {}", math_fn_name(fn), type_name(want), i,
                                     type_name(t)));
        }
        if (domain == MathDomain::integer ? !is_integer(op.type) : !is_float(op.type))
          fail(op.loc, fmt::format("{} is defined on {}, not {}", math_fn_name(fn),
                                   domain == MathDomain::integer ? "integers" : "floats", type_name(op.type)));
        break;
      }
      case OpKind::workitem:
        if (op.dim() > 2) fail(op.loc, fmt::format("dimension {} is outside 0..2", op.dim()));
        if (op.type != Type::i32) fail(op.loc, "work-item queries produce i32");
        break;
      case OpKind::shape: {
        const Memory& m = memory(op);
        if (op.dim() >= m.rank)
          fail(op.loc, fmt::format("array '{}' has rank {}; shape({}) does not exist", m.name, m.rank, op.dim()));
        if (op.type != Type::i32) fail(op.loc, "shape produces i32");
        break;
      }
      case OpKind::load: {
        const Memory& m = memory(op);
        check_indices(op, m);
        if (op.type.is_vector()) check_vector_access(op, m, op.type);
        else if (op.type != m.element)
          fail(op.loc, fmt::format("load from '{}' must produce {}", m.name, type_name(m.element)));
        break;
      }
      case OpKind::store: {
        const Memory& m = memory(op);
        check_indices(op, m);
        Type t = use(op, op.operands[m.rank]);
        if (t.is_vector()) check_vector_access(op, m, t);
        else if (t != m.element)
          fail(op.loc, fmt::format("storing {} into array '{}' of {} needs an explicit cast", type_name(t),
                                   m.name, type_name(m.element)));
        break;
      }
      case OpKind::atomic: {
        const Memory& m = memory(op);
        if (m.space == MemorySpace::local)
          fail(op.loc, fmt::format("atomics work on global and shared arrays; '{}' is local", m.name));
        if (m.element.bits < 32)
          fail(op.loc, fmt::format("atomics work on 32- and 64-bit elements; '{}' holds {}", m.name,
                                   type_name(m.element)));
        check_indices(op, m);
        for (size_t i = m.rank; i < op.operands.size(); ++i) {
          Type t = use(op, op.operands[i]);
          if (t != m.element)
            fail(op.loc, fmt::format("atomic {} on array '{}' of {} got a {} operand", atomic_op_name(op.atomic_op()),
                                     m.name, type_name(m.element), type_name(t)));
        }
        AtomicOp ao = op.atomic_op();
        bool bitwise = ao == AtomicOp::and_ || ao == AtomicOp::or_ || ao == AtomicOp::xor_;
        if ((bitwise || ao == AtomicOp::compare_exchange) && is_float(m.element))
          fail(op.loc, fmt::format("atomic {} needs an integer array; '{}' holds {}", atomic_op_name(ao), m.name,
                                   type_name(m.element)));
        if (ao == AtomicOp::sub && is_float(m.element))
          fail(op.loc, fmt::format("atomic sub needs an integer array; '{}' holds {} (add a negated value)",
                                   m.name, type_name(m.element)));
        if (op.type != m.element) fail(op.loc, "atomic must produce the array's element type");
        if (ao == AtomicOp::store && op.result != 0) fail(op.loc, "atomic store produces no value");
        if (ao == AtomicOp::load && op.result == 0) fail(op.loc, "atomic load produces a value but defines none");
        if (std::string wrong = check_memory_order(op); !wrong.empty()) fail(op.loc, wrong);
        break;
      }
      case OpKind::fence:
        if (std::string wrong = check_memory_order(op); !wrong.empty()) fail(op.loc, wrong);
        break;
      case OpKind::uniform:
        if (use(op, op.operands[0]) != op.type) fail(op.loc, "uniform result type differs from its operand");
        break;
      case OpKind::wave: {
        const WaveOp w = op.wave_op();
        const Type a = use(op, op.operands[0]);
        const std::string_view name = wave_op_name(w);
        if (w == WaveOp::ballot || w == WaveOp::any || w == WaveOp::all || w == WaveOp::count) {
          if (a != Type::i1) fail(op.loc, fmt::format("wave.{} takes an i1 predicate, got {}", name, type_name(a)));
          const Type want = w == WaveOp::ballot ? Type::u64 : w == WaveOp::count ? Type::i32 : Type::i1;
          if (op.type != want) fail(op.loc, fmt::format("wave.{} produces {}", name, type_name(want)));
          break;
        }
        if (a == Type::i1 || a.is_vector() || !(is_integer(a) || is_float(a)))
          fail(op.loc, fmt::format("wave.{} takes a scalar number, got {}", name, type_name(a)));
        if (op.type != a) fail(op.loc, fmt::format("wave.{} produces its operand's type", name));
        if (op.operands.size() > 1 && use(op, op.operands[1]) != Type::i32)
          fail(op.loc, fmt::format("wave.{}'s lane operand must be i32, got {}", name,
                                   type_name(kernel_.value_type(op.operands[1]))));
        if ((w == WaveOp::reduce_and || w == WaveOp::reduce_or || w == WaveOp::reduce_xor) && !is_integer(a))
          fail(op.loc, fmt::format("wave.{} needs an integer, got {}", name, type_name(a)));
        break;
      }
      case OpKind::mma: {
        const auto& attrs = op.get<MmaAttrs>();
        const mma::Shape shape{attrs.m, attrs.n, attrs.k};
        const Type c = use(op, op.operands[0]), a = use(op, op.operands[1]), b = use(op, op.operands[2]);
        if (std::string wrong = mma::check(a.element_of(), c.element_of(), shape, attrs.precision); !wrong.empty())
          fail(op.loc, wrong);
        const mma::Counts n = mma::counts(shape);
        auto fragment = [&](const char* what, Type t, Type element, unsigned lanes) {
          if (t != element.with_lanes(lanes))
            fail(op.loc, fmt::format("mma {}: {} must be {} (the fragment of {} elements per lane), got {}",
                                     mma::shape_name(shape), what, type_name(element.with_lanes(lanes)), lanes,
                                     type_name(t)));
        };
        fragment("C", c, c.element_of(), n.c);
        fragment("A", a, a.element_of(), n.a);
        fragment("B", b, a.element_of(), n.b);
        if (op.type != c) fail(op.loc, fmt::format("mma produces C's type {}", type_name(c)));
        break;
      }
      case OpKind::make_vector: {
        if (!op.type.is_vector()) fail(op.loc, fmt::format("vector must produce a vector type, not {}", type_name(op.type)));
        for (ValueId v : op.operands)
          if (Type t = use(op, v); t != op.type.element_of())
            fail(op.loc, fmt::format("vector of {} takes {} lanes, got a {}", type_name(op.type),
                                     type_name(op.type.element_of()), type_name(t)));
        break;
      }
      case OpKind::extract: {
        const Type v = use(op, op.operands[0]);
        if (!v.is_vector()) fail(op.loc, fmt::format("extract takes a vector, got {}", type_name(v)));
        if (op.lane() >= v.lanes)
          fail(op.loc, fmt::format("extract of lane {} from {}, which has {} lanes", op.lane(), type_name(v), v.lanes));
        if (op.type != v.element_of())
          fail(op.loc, fmt::format("extract from {} produces {}, not {}", type_name(v), type_name(v.element_of()),
                                   type_name(op.type)));
        break;
      }
      case OpKind::var_load:
        if (op.slot() >= kernel_.slots.size()) fail(op.loc, "var.load of an unknown variable");
        if (op.type != kernel_.slots[op.slot()].type) fail(op.loc, "var.load type differs from the variable's");
        break;
      case OpKind::var_store: {
        if (op.slot() >= kernel_.slots.size()) fail(op.loc, "var.store to an unknown variable");
        Type t = use(op, op.operands[0]);
        if (t != kernel_.slots[op.slot()].type)
          fail(op.loc, fmt::format("storing {} into variable '{}' of {} needs an explicit cast", type_name(t),
                                   kernel_.slots[op.slot()].name, type_name(kernel_.slots[op.slot()].type)));
        break;
      }
      case OpKind::print:
      case OpKind::assert_: {
        const bool is_assert = op.kind == OpKind::assert_;
        if (is_assert && op.operands.empty()) fail(op.loc, "assert without a condition");
        if (is_assert && use(op, op.operands[0]) != Type::i1)
          fail(op.loc, fmt::format("assert's condition is {}; it must be i1 (a comparison)",
                                   type_name(use(op, op.operands[0]))));
        std::vector<Type> types;
        for (size_t i = is_assert ? 1 : 0; i < op.operands.size(); ++i) types.push_back(use(op, op.operands[i]));
        if (std::string e = check_print_format(op.format(), types); !e.empty())
          fail(op.loc, fmt::format("{} \"{}\": {}", op_kind_name(op.kind), op.format(), e));
        break;
      }
      case OpKind::barrier:
      case OpKind::wavebarrier:
      case OpKind::condition:  // rejected above: only a while's condition region ends in one
        break;
      case OpKind::break_:
        if (loop_depth == 0) fail(op.loc, "Break() outside a loop");
        break;
      case OpKind::continue_:
        if (loop_depth == 0) fail(op.loc, "Continue() outside a loop");
        break;
      case OpKind::return_:
        break;
      case OpKind::if_: {
        if (use(op, op.operands[0]) != Type::i1) fail(op.loc, "if condition must be i1 (a comparison)");
        if (op.regions.size() != 2) fail(op.loc, "if needs a then and an else region");
        region(op.regions[0], loop_depth);
        region(op.regions[1], loop_depth);
        break;
      }
      case OpKind::for_: {
        Type a = use(op, op.operands[0]), b = use(op, op.operands[1]), s = use(op, op.operands[2]);
        same_type(op, a, b, "for bounds");
        same_type(op, a, s, "for step");
        if (!is_integer(a)) fail(op.loc, fmt::format("for bounds must be integers, got {}", type_name(a)));
        if (op.type != a || op.result == 0) fail(op.loc, "for induction variable must have the bounds' type");
        if (op.regions.size() != 1) fail(op.loc, "for needs one body region");
        if (op.result >= kernel_.values.size() || defined_[op.result])
          fail(op.loc, fmt::format("for induction variable %{} is invalid or defined twice", op.result));
        defined_[op.result] = true;
        region(op.regions[0], loop_depth + 1, op.result);
        return;
      }
      case OpKind::while_: {
        if (op.regions.size() != 3) fail(op.loc, "while needs a condition, a body and a step region");
        const Region& cond = op.regions[0];
        if (cond.ops.empty() || cond.ops.back()->kind != OpKind::condition)
          fail(op.loc, "while condition region must end in a condition");
        size_t mark = scope_.size();
        for (size_t i = 0; i + 1 < cond.ops.size(); ++i) {
          const Op& c = *cond.ops[i];
          const OpInfo& info = op_info(c.kind);
          const OpEffect effect = info.effect;
          const bool atomic_load = c.kind == OpKind::atomic && c.atomic_op() == AtomicOp::load;  // a spin-wait
          // A collective that computes a value (a wave vote, reduction, broadcast or shuffle) may
          // decide a loop: every lane that enters the loop evaluates it at each test (the
          // uniformity rule refuses loops that lanes leave one by one). A barrier or a fence
          // only synchronises, and a condition is not the place for it.
          const bool collective_value = effect == OpEffect::synchronizes && info.result == OpResult::value;
          if (effect == OpEffect::writes_memory && !atomic_load)
            fail(c.loc, "a while condition may only compute values: it cannot store or modify memory (an "
                        "atomic.load may spin on a flag)");
          if (effect == OpEffect::synchronizes && !collective_value)
            fail(c.loc, fmt::format("a while condition cannot hold a {} (put it in the loop's body)",
                                    op_spelling(c)));
          if (effect == OpEffect::control_flow)
            fail(c.loc, fmt::format("a while condition cannot hold control flow ({})", op_spelling(c)));
          operation(*cond.ops[i], loop_depth);
        }
        const Op& c = *cond.ops.back();
        expect_operands(c, 1);
        if (use(c, c.operands[0]) != Type::i1) fail(c.loc, "while condition must be i1 (a comparison)");
        for (size_t i = mark; i < scope_.size(); ++i) close(scope_[i]);
        scope_.resize(mark);
        region(op.regions[1], loop_depth + 1);
        // The step (a C for loop's increment) computes and assigns; it cannot leave the loop.
        walk(op.regions[2], [&](const Op& s) {
          const OpEffect effect = op_info(s.kind).effect;
          if (effect == OpEffect::synchronizes || effect == OpEffect::control_flow)
            fail(s.loc, "a while's step may only compute values and assign variables");
        });
        region(op.regions[2], loop_depth);
        break;
      }
    }
    define(op);
  }

  const Kernel& kernel_;
  std::vector<bool> defined_;
  std::vector<bool> ended_;
  std::vector<ValueId> scope_;
  unsigned region_depth_ = 0;
};

}  // namespace

void verify(const Kernel& kernel) { Verifier(kernel).run(); }

}  // namespace rocjit::ir
