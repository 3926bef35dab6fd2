// The per-thread kernel trace and the primitive that appends ops to it.
#include "rocjit/dsl/trace.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>

#include "rocjit/compiler/error.hpp"
#include "rocjit/dsl/value.hpp"

namespace rocjit::dsl::detail {
namespace {
thread_local Trace* current_trace = nullptr;
std::atomic<uint64_t> next_serial{1};

std::string short_file(const char* path) {
  // Keep the path as the compiler gave it; it is what the user's editor understands.
  return path ? std::string(path) : std::string();
}
}  // namespace

ir::SourceLoc to_loc(const std::source_location& loc) {
  return ir::SourceLoc{short_file(loc.file_name()), loc.line(), loc.column()};
}

Trace* current_or_null() { return current_trace; }

Trace& current(const std::source_location& loc) {
  if (!current_trace)
    throw CompileError(fmt::format(
        "a kernel-side DSL operation was used outside of kernel tracing (at {}:{}); DSL values and "
        "operations exist only inside the lambda passed to rocjit::kernel()",
        loc.file_name(), loc.line()));
  return *current_trace;
}

TraceScope::TraceScope(std::string name, const std::source_location& loc)
    : trace_(new Trace), previous_(current_trace) {
  trace_->kernel.name = std::move(name);
  trace_->kernel.loc = to_loc(loc);
  trace_->serial = next_serial.fetch_add(1);
  trace_->insert_stack.push_back(&trace_->kernel.body);
  current_trace = trace_;
}

TraceScope::~TraceScope() {
  current_trace = previous_;
  delete trace_;
}

void fail(const std::source_location& loc, const std::string& what) {
  Trace* t = current_trace;
  throw CompileError(fmt::format("kernel '{}': {} (at {}:{})", t ? t->kernel.name : std::string("?"), what,
                                 loc.file_name(), loc.line()));
}

ir::ValueId use(const Value& v, const std::source_location& loc) {
  Trace& t = current(loc);
  if (!v.valid())
    fail(loc, "an uninitialised DSL value was used; initialise it from an expression, or use Var<T>");
  if (v.trace() != t.serial)
    fail(loc, "a DSL value from another kernel's trace (or from a trace that has ended) was used "
              "here; values belong to the kernel whose lambda created them");
  return v.id();
}

// Whether load `later` (just traced) goes before load `earlier`, the op traced before it: its
// location is to the left on the same line and it does not use `earlier`'s value. The operands of
// an overloaded operator are unsequenced in C++, and g++ evaluates them right to left:
// `a * x(i) + y(i)` traces y(i)'s load (located at the `+`) first, clang x(i)'s (at the `*`).
// Adjacent loads are kept in the order of their locations, so such IR is the same whichever
// compiler built the application, and AMDGPU code follows the source (saxpy's loads in g++'s
// order cost gfx90a two VGPRs: docs/performance.md). Two loads at one location (the operands of
// one operator, `a(i) + b(i)`) keep the order they were traced in. Loads have no effect on
// memory, so their order changes no result.
bool precedes(const ir::Op& later, const ir::Op& earlier) {
  return later.kind == ir::OpKind::load && earlier.kind == ir::OpKind::load && later.loc.line != 0 &&
         later.loc.line == earlier.loc.line && later.loc.column < earlier.loc.column &&
         later.loc.file == earlier.loc.file &&
         std::find(later.operands.begin(), later.operands.end(), earlier.result) == later.operands.end();
}

ir::Op& append(ir::Op op) {
  Trace* t = current_trace;
  auto owned = std::make_unique<ir::Op>(std::move(op));
  ir::Op& ref = *owned;
  auto& ops = t->insert_stack.back()->ops;
  auto at = ops.end();
  while (at != ops.begin() && precedes(ref, **std::prev(at))) --at;
  ops.insert(at, std::move(owned));
  return ref;
}

Value emit(ir::OpKind kind, ir::Type type, std::vector<ir::ValueId> operands, const std::source_location& loc) {
  return emit(kind, type, std::move(operands), loc, ir::default_attrs(kind));
}

Value emit(ir::OpKind kind, ir::Type type, std::vector<ir::ValueId> operands, const std::source_location& loc,
           ir::OpAttrs attrs) {
  Trace& t = current(loc);
  ir::Op op(kind);
  op.type = type;
  op.operands = std::move(operands);
  op.attrs = std::move(attrs);
  op.loc = to_loc(loc);
  if (!ir::has_kind_attrs(op)) ir::wrong_attrs(op, "the attributes passed to emit");
  if (type != ir::Type::none) op.result = t.kernel.new_value(type);
  ir::Op& placed = append(std::move(op));
  if (placed.result) t.kernel.values[placed.result].def = &placed;
  return Value(placed.result, type, t.serial);
}

}  // namespace rocjit::dsl::detail
