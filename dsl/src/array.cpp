// Memory objects of a trace: parameters, shared and local arrays, element loads and stores.
#include "rocjit/dsl/array.hpp"

#include <fmt/format.h>

#include <cstdint>

#include "rocjit/compiler/error.hpp"

namespace rocjit::dsl {

namespace {
const ir::Memory& memory_of(const ir::MemoryId id, const std::source_location& loc, uint64_t trace) {
  detail::Trace& t = detail::current(loc);
  if (trace != t.serial)
    detail::fail(loc, "an array from another kernel's trace (or a trace that has ended) was used here; "
                      "arrays belong to the kernel that created them");
  return t.kernel.memories.at(id);
}
}  // namespace

ElementRef ArrayRef::element(std::initializer_list<const Operand*> indices) const {
  const std::source_location& loc = (*indices.begin())->loc();
  const ir::Memory& m = memory_of(memory_, loc, trace_);
  if (indices.size() != m.rank)
    detail::fail(loc, fmt::format("{} array '{}' has rank {} but was indexed with {} {}", ir::space_name(m.space),
                                  m.name, m.rank, indices.size(), indices.size() == 1 ? "index" : "indices"));
  std::vector<ir::ValueId> ids;
  unsigned d = 0;
  for (const Operand* i : indices) {
    if (ir::is_float(i->type()) || i->type() == ir::Type::i1)
      detail::fail(i->loc(), fmt::format("index {} of array '{}' is {}; indices must be integers "
                                         "(write cast<int32_t>(...) to truncate)",
                                         d, m.name, ir::type_name(i->type())));
    // Literal indices are i32 unless they need 64 bits; index arithmetic stays 32-bit on GPUs.
    ir::Type t = i->type();
    if (i->is_literal()) {
      int64_t v = i->kind() == Operand::Kind::uint_literal ? static_cast<int64_t>(i->uint_literal()) : i->int_literal();
      t = (v >= INT32_MIN && v <= INT32_MAX) ? ir::Type::i32 : ir::Type::i64;
    }
    ids.push_back(detail::coerce(*i, t, false, "an index").id());
    ++d;
  }
  return ElementRef(memory_, element_, std::move(ids), trace_, loc);
}

Int ArrayRef::shape(int d, std::source_location loc) const {
  const ir::Memory& m = memory_of(memory_, loc, trace_);
  if (d < 0 || static_cast<unsigned>(d) >= m.rank)
    detail::fail(loc, fmt::format("array '{}' has rank {}; shape({}) does not exist", m.name, m.rank, d));
  if (m.space != ir::MemorySpace::global && !m.dynamic)  // static extents are constants
    return Int(detail::constant(ir::Type::i32, m.shape[d], 0, loc), loc);
  return Int(detail::emit(ir::OpKind::shape, ir::Type::i32, {}, loc, ir::ShapeAttrs{memory_, static_cast<uint8_t>(d)}), loc);
}

Value ElementRef::load(const std::source_location& loc) const {
  memory_of(memory_, loc, trace_);
  return detail::emit(ir::OpKind::load, element_, indices_, loc, ir::AccessAttrs{memory_});
}

void ElementRef::store(const Operand& v) const {
  const ir::Memory& m = memory_of(memory_, v.loc(), trace_);
  std::string context = fmt::format("array '{}'", m.name);
  Value x = detail::coerce(v, element_, false, context.c_str());
  std::vector<ir::ValueId> operands = indices_;
  operands.push_back(x.id());
  detail::emit(ir::OpKind::store, ir::Type::none, std::move(operands), v.loc(), ir::AccessAttrs{memory_});
}

const ElementRef& ElementRef::update(ir::BinaryOp op, const Operand& v) const {
  Value old = load(v.loc());
  store(Operand(detail::binary(op, Operand(old, v.loc()), v), v.loc()));
  return *this;
}

namespace detail {

namespace {
// The indices of a vload/vstore on `a` (the last one a vector index), after checking that `a`
// can take vector accesses: lanes of its element type, one index per dimension, and a contiguous
// last dimension (rank 1, or C order).
std::vector<ir::ValueId> vector_indices(const ArrayRef& a, ir::Type lane_type, unsigned lanes,
                                        std::span<const Operand* const> indices, const char* what) {
  const std::source_location& loc = indices.front()->loc();
  const ir::Memory& m = memory_of(a.memory(), loc, a.trace());
  const std::string vec = fmt::format("Vec<{}, {}>", ir::cpp_type_name(lane_type), lanes);
  if (lane_type != m.element)
    fail(loc, fmt::format("{}<{}> on {} array '{}' of {}: the Vec's lanes must have the element type "
                          "(a {} holds {})",
                          what, lanes, ir::space_name(m.space), m.name, ir::cpp_type_name(m.element), vec,
                          ir::cpp_type_name(lane_type)));
  if (indices.size() != m.rank)
    fail(loc, fmt::format("{}<{}> on {} array '{}' with {} indices: the array has {} dimensions (one index per "
                          "dimension; the last one counts vectors)",
                          what, lanes, ir::space_name(m.space), m.name, indices.size(), m.rank));
  if (m.layout == ir::Layout::strided || (m.rank > 1 && m.layout != ir::Layout::C))
    fail(loc, fmt::format("{}<{}> on {} array '{}': vector accesses run along a contiguous last dimension, so they "
                          "need a one-dimensional array or layout C (it has rank {}, layout {}); index elements one by "
                          "one instead",
                          what, lanes, ir::space_name(m.space), m.name, m.rank, ir::layout_name(m.layout)));
  std::vector<ir::ValueId> ids;
  for (const Operand* p : indices) {
    const Operand& i = *p;
    if (ir::is_float(i.type()) || i.type() == ir::Type::i1)
      fail(i.loc(), fmt::format("an index of {}<{}> on array '{}' is {}; indices must be integers", what, lanes, m.name,
                                ir::type_name(i.type())));
    ir::Type t = i.type();
    if (i.is_literal()) {
      int64_t v = i.kind() == Operand::Kind::uint_literal ? static_cast<int64_t>(i.uint_literal()) : i.int_literal();
      t = (v >= INT32_MIN && v <= INT32_MAX) ? ir::Type::i32 : ir::Type::i64;
    }
    ids.push_back(coerce(i, t, false, "an index").id());
  }
  return ids;
}
}  // namespace

std::vector<Value> vload(const ArrayRef& a, ir::Type lane_type, unsigned lanes, std::span<const Operand* const> indices) {
  const std::source_location& loc = indices.front()->loc();
  std::vector<ir::ValueId> ids = vector_indices(a, lane_type, lanes, indices, "vload");
  const Value v = emit(ir::OpKind::load, lane_type.with_lanes(lanes), std::move(ids), loc, ir::AccessAttrs{a.memory()});
  std::vector<Value> out;
  for (unsigned k = 0; k < lanes; ++k)
    out.push_back(emit(ir::OpKind::extract, lane_type, {v.id()}, loc, ir::ExtractAttrs{static_cast<uint8_t>(k)}));
  return out;
}

void vstore(const ArrayRef& a, std::span<const Operand* const> indices, std::span<const Value> lanes) {
  const std::source_location& loc = indices.front()->loc();
  const ir::Type lane_type = lanes.front().type();
  const auto n = static_cast<unsigned>(lanes.size());
  std::vector<ir::ValueId> ids = vector_indices(a, lane_type, n, indices, "vstore");
  std::vector<ir::ValueId> values;
  for (const Value& l : lanes) values.push_back(use(l, loc));
  const Value v = emit(ir::OpKind::make_vector, lane_type.with_lanes(n), std::move(values), loc);
  ids.push_back(v.id());
  emit(ir::OpKind::store, ir::Type::none, std::move(ids), loc, ir::AccessAttrs{a.memory()});
}

ArrayRef make_array(ir::MemorySpace space, ir::Type element, std::initializer_list<Operand> shape,
                    const std::string& name, const std::source_location& loc) {
  Trace& t = current(loc);
  const char* what = space == ir::MemorySpace::shared ? "shared" : "local";
  if (shape.size() < 1 || shape.size() > 3)
    fail(loc, fmt::format("a {} array has 1 to 3 dimensions, got {}", what, shape.size()));
  ir::Memory m;
  m.space = space;
  m.element = element;
  m.rank = static_cast<unsigned>(shape.size());
  m.loc = to_loc(loc);
  int& counter = space == ir::MemorySpace::shared ? t.shared_count : t.local_count;
  m.name = name.empty() ? fmt::format("{}{}", what, counter) : name;
  ++counter;
  for (const ir::Memory& other : t.kernel.memories)
    if (other.name == m.name) fail(loc, fmt::format("an array named '{}' already exists in this kernel", m.name));
  for (const Operand& e : shape) {
    if (!e.is_literal() || e.kind() == Operand::Kind::float_literal || e.kind() == Operand::Kind::bool_literal)
      fail(loc, fmt::format("{} array '{}': every extent must be a positive integer constant known when the "
                            "kernel is traced, not a run-time value",
                            what, m.name));
    int64_t v = e.kind() == Operand::Kind::uint_literal ? static_cast<int64_t>(e.uint_literal()) : e.int_literal();
    if (v <= 0)
      fail(loc, fmt::format("{} array '{}': extent {} is not positive; every extent must be a positive "
                            "integer constant",
                            what, m.name, v));
    m.shape.push_back(v);
  }
  t.kernel.memories.push_back(std::move(m));
  return ArrayRef(static_cast<ir::MemoryId>(t.kernel.memories.size() - 1), element,
                  static_cast<unsigned>(shape.size()), t.serial);
}

ArrayRef make_dynamic_shared(ir::Type element, const std::string& name, const std::source_location& loc) {
  Trace& t = current(loc);
  ir::Memory m;
  m.space = ir::MemorySpace::shared;
  m.element = element;
  m.rank = 1;
  m.dynamic = true;
  m.loc = to_loc(loc);
  m.name = name.empty() ? fmt::format("shared{}", t.shared_count) : name;
  ++t.shared_count;
  for (const ir::Memory& other : t.kernel.memories)
    if (other.name == m.name) fail(loc, fmt::format("an array named '{}' already exists in this kernel", m.name));
  t.kernel.memories.push_back(std::move(m));
  return ArrayRef(static_cast<ir::MemoryId>(t.kernel.memories.size() - 1), element, 1, t.serial);
}

uint32_t declare_slot(ir::Type type, const std::source_location& loc) {
  Trace& t = current(loc);
  ir::Slot s;
  s.name = fmt::format("v{}", t.kernel.slots.size());
  s.type = type;
  s.loc = to_loc(loc);
  t.kernel.slots.push_back(std::move(s));
  return static_cast<uint32_t>(t.kernel.slots.size() - 1);
}

Value load_slot(uint32_t slot, ir::Type type, uint64_t trace, const std::source_location& loc) {
  Trace& t = current(loc);
  if (trace != t.serial)
    fail(loc, "a Var from another kernel's trace (or a trace that has ended) was used here");
  return emit(ir::OpKind::var_load, type, {}, loc, ir::SlotAttrs{slot});
}

void store_slot(uint32_t slot, ir::Type type, uint64_t trace, const Operand& v) {
  Trace& t = current(v.loc());
  if (trace != t.serial)
    fail(v.loc(), "a Var from another kernel's trace (or a trace that has ended) was used here");
  std::string context = fmt::format("variable '{}'", t.kernel.slots.at(slot).name);
  Value x = coerce(v, type, false, context.c_str());
  emit(ir::OpKind::var_store, ir::Type::none, {x.id()}, v.loc(), ir::SlotAttrs{slot});
}

}  // namespace detail
}  // namespace rocjit::dsl
