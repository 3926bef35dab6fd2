// Matrix-core operations: fragments as variables, their loads and stores from the canonical
// layout (rocjit/compiler/mma.hpp), and the mma op.
#include "rocjit/dsl/mma.hpp"

#include <fmt/format.h>

#include <bit>

#include "rocjit/dsl/builtins.hpp"

namespace rocjit::dsl::mma::detail {
namespace {

namespace core = rocjit::dsl::detail;
namespace layout = rocjit::ir::mma;

const char* role_name(Role r) { return r == Role::a ? "A" : r == Role::b ? "B" : "an accumulator"; }

unsigned count(Role r, Shape s) {
  const layout::Counts n = layout::counts(s);
  return r == Role::a ? n.a : r == Role::b ? n.b : n.c;
}

// Whether the shape exists for some input type, of any precision for accumulators and of the
// fragment's own for A and B (the types are checked where they meet, at mma).
bool shape_exists(Shape s, Role role, layout::Precision precision) {
  for (layout::Precision p : {layout::Precision::full, layout::Precision::xf32}) {
    if (role != Role::c && p != precision) continue;
    for (ir::Type t : {ir::Type::f16, ir::Type::f32, ir::Type::f64})
      for (const Shape& d : layout::defined_shapes(t, t == ir::Type::f64 ? ir::Type::f64 : ir::Type::f32, p))
        if (d == s) return true;
  }
  return false;
}

// The fragment lane of this work-item: its linear local id modulo 64. That is the wave's lane l on
// every target that runs mma (in 64-lane waves), and the same definition in kernels that only
// load and store fragments, which wave32 processors run in wave32. Computed once per fragment,
// where it is declared, so loops that load fragments do not recompute it.
Value fragment_lane(const std::source_location& loc) {
  auto at = [&](const Value& v) { return Operand(v, loc); };
  Value rows = at(local_id(1, loc)) + at(at(local_size(1, loc)) * at(local_id(2, loc)));
  Value linear = at(local_id(0, loc)) + at(at(local_size(0, loc)) * at(rows));
  return at(linear) & Operand(int32_t(layout::wave_lanes - 1), loc);
}

// Row and column of element e of `lane` (a value from fragment_lane, non-negative, so the
// divisions by the power-of-two m and n are shifts), as i32 values. The per-element terms come
// from the layout's definition (rocjit/compiler/mma.hpp): each operand's position is an element
// term (lane 0's) plus one step per group of m (A) or n (B, C) lanes, and the lane mod m or n.
std::pair<Value, Value> position(Role r, Shape s, const Value& lane, unsigned e, const std::source_location& loc) {
  auto op = [&](unsigned v) { return Operand(int32_t(v), loc); };
  const Operand l(lane, loc);
  auto v = [&](const Value& x) { return Operand(x, loc); };
  // (lane div group) * step + term, and lane mod group.
  auto stepped = [&](unsigned group, unsigned step, unsigned term) {
    return v(v(l >> op(std::countr_zero(group))) * op(step)) + op(term);
  };
  auto within = [&](unsigned group) { return l & op(group - 1); };
  switch (r) {
    case Role::a: return {within(s.m), stepped(s.m, layout::a_col(s, s.m, 0), layout::a_col(s, 0, e))};
    case Role::b: return {stepped(s.n, layout::b_row(s, s.n, 0), layout::b_row(s, 0, e)), within(s.n)};
    case Role::c: return {stepped(s.n, layout::c_row(s, s.n, 0), layout::c_row(s, 0, e)), within(s.n)};
  }
  return {};
}

void check_array(const Fragment& f, const ArrayRef& array, const char* what, const std::source_location& loc) {
  if (array.rank() != 2)
    core::fail(loc, fmt::format("mma::{} needs a 2-D array; this one has {} dimensions", what, array.rank()));
  if (array.element_type() != f.type())
    core::fail(loc, fmt::format("mma::{}: the array holds {} but the fragment {}; the types must match", what,
                                ir::type_name(array.element_type()), ir::type_name(f.type())));
}

}  // namespace

Fragment::Fragment(Role role, Shape s, ir::Type type, const std::source_location& loc, layout::Precision precision)
    : role_(role), shape_(s), type_(type), precision_(precision) {
  trace_ = core::current(loc).serial;
  if (precision == layout::Precision::xf32 && !shape_exists(s, role, precision))
    core::fail(loc, fmt::format("mma has no shape {} for xf32 (m x n x k; defined: 16x16x8, 32x32x4)",
                                layout::shape_name(s)));
  if (!shape_exists(s, role, precision))
    core::fail(loc, fmt::format("mma has no shape {} (m x n x k; defined: 16x16x16, 32x32x8, 16x16x32, 32x32x16 for "
                                "16-bit floats and i8, 16x16x4 and 32x32x2 for f32, 16x16x4 for f64; 16x16x8 and "
                                "32x32x4 for xf32)",
                                layout::shape_name(s)));
  if (type == ir::Type::i1 || !(ir::is_float(type) || ir::is_integer(type)))
    core::fail(loc, fmt::format("an mma fragment holds numbers, not {}", ir::type_name(type)));
  lane_ = fragment_lane(loc);
  for (unsigned e = 0; e < count(role, s); ++e) {
    slots_.push_back(core::declare_slot(type, loc));
    core::store_slot(slots_.back(), type, trace_, Operand(0, loc));
  }
}

void Fragment::check_element(unsigned e, const std::source_location& loc) const {
  if (e >= slots_.size())
    core::fail(loc, fmt::format("element {} of {} fragment of shape {}, whose lanes hold {} elements each", e,
                                role_name(role_), layout::shape_name(shape_), slots_.size()));
}

Value Fragment::row(unsigned e, std::source_location loc) const {
  check_element(e, loc);
  return position(role_, shape_, lane_, e, loc).first;
}

Value Fragment::col(unsigned e, std::source_location loc) const {
  check_element(e, loc);
  return position(role_, shape_, lane_, e, loc).second;
}

Value Fragment::get(unsigned e, std::source_location loc) const {
  check_element(e, loc);
  return core::load_slot(slots_[e], type_, trace_, loc);
}

void Fragment::set(unsigned e, const Operand& v) {
  check_element(e, v.loc());
  core::store_slot(slots_[e], type_, trace_, v);
}

void Fragment::fill(const Operand& v) {
  for (unsigned e = 0; e < slots_.size(); ++e) set(e, v);
}

void load(Fragment& f, const ArrayRef& array, const Operand& row0, const Operand& col0, const std::source_location& loc) {
  check_array(f, array, "load", loc);
  for (unsigned e = 0; e < f.size(); ++e) {
    auto [r, c] = position(f.role(), f.shape(), f.lane(), e, loc);
    Value x = array(Operand(row0 + Operand(r, loc), loc), Operand(col0 + Operand(c, loc), loc)).load(loc);
    core::store_slot(f.slots()[e], f.type(), f.trace(), Operand(x, loc));
  }
}

void store(const ArrayRef& array, const Operand& row0, const Operand& col0, const Fragment& f,
           const std::source_location& loc) {
  check_array(f, array, "store", loc);
  for (unsigned e = 0; e < f.size(); ++e) {
    auto [r, c] = position(f.role(), f.shape(), f.lane(), e, loc);
    array(Operand(row0 + Operand(r, loc), loc), Operand(col0 + Operand(c, loc), loc))
        .store(Operand(core::load_slot(f.slots()[e], f.type(), f.trace(), loc), loc));
  }
}

void mma(Fragment& c, const Fragment& a, const Fragment& b, const std::source_location& loc) {
  if (a.role() != Role::a || b.role() != Role::b || c.role() != Role::c)
    core::fail(loc, "mma::mma(c, a, b) takes an Accumulator, an A and a B fragment, in that order");
  if (!(a.shape() == c.shape()) || !(b.shape() == c.shape()))
    core::fail(loc, fmt::format("mma::mma: the fragments have shapes {} (C), {} (A) and {} (B); they must be one shape",
                                layout::shape_name(c.shape()), layout::shape_name(a.shape()),
                                layout::shape_name(b.shape())));
  if (a.type() != b.type())
    core::fail(loc, fmt::format("mma::mma: A holds {} and B {}; they must hold one type", ir::type_name(a.type()),
                                ir::type_name(b.type())));
  // A and B of one shape have one precision: no xf32 shape is a shape of another input type.
  if (std::string wrong = layout::check(a.type(), c.type(), c.shape(), a.precision()); !wrong.empty())
    core::fail(loc, wrong);
  auto fragment = [&](const Fragment& f) {
    std::vector<ir::ValueId> lanes;
    for (unsigned e = 0; e < f.size(); ++e) lanes.push_back(core::load_slot(f.slots()[e], f.type(), f.trace(), loc).id());
    if (lanes.size() == 1) return lanes[0];
    return core::emit(ir::OpKind::make_vector, f.type().with_lanes(f.size()), std::move(lanes), loc).id();
  };
  const ir::ValueId cv = fragment(c), av = fragment(a), bv = fragment(b);
  const Shape s = c.shape();
  const ir::Type result = c.type().with_lanes(c.size());
  Value r = core::emit(ir::OpKind::mma, result, {cv, av, bv}, loc,
                       ir::MmaAttrs{static_cast<uint8_t>(s.m), static_cast<uint8_t>(s.n), static_cast<uint8_t>(s.k),
                                    a.precision()});
  for (unsigned e = 0; e < c.size(); ++e) {
    Value x = c.size() == 1 ? r
                            : core::emit(ir::OpKind::extract, c.type(), {r.id()}, loc,
                                         ir::ExtractAttrs{static_cast<uint8_t>(e)});
    core::store_slot(c.slots()[e], c.type(), c.trace(), Operand(x, loc));
  }
}

std::vector<Shape> shapes(ir::Type input, ir::Type accumulator, const Target& target, layout::Precision precision) {
  if (target.kind != Target::Kind::amdgpu) return {};
  return layout::native_shapes(target.processor, input, accumulator, precision);
}

}  // namespace rocjit::dsl::mma::detail
