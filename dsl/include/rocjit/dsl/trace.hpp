// The recording side of the DSL: the kernel being traced on this thread and how ops get into it.
#pragma once

#include <cstdint>
#include <source_location>
#include <string>
#include <vector>

#include "rocjit/compiler/ir.hpp"

namespace rocjit::dsl {
class Value;
}

namespace rocjit::dsl::detail {

ir::SourceLoc to_loc(const std::source_location& loc);

/// One kernel being recorded. Lives on the tracing thread for the duration of kernel().
struct Trace {
  ir::Kernel kernel;
  uint64_t serial = 0;                    ///< distinguishes values of different traces
  std::vector<ir::Region*> insert_stack;  ///< innermost region last
  int loop_depth = 0;
  int shared_count = 0, local_count = 0;
};

/// The trace open on this thread; throws CompileError naming `loc` when there is none.
Trace& current(const std::source_location& loc);
/// The trace open on this thread, or nullptr.
Trace* current_or_null();

/// Installs a new trace for the current thread (nesting restores the outer one on exit).
class TraceScope {
 public:
  TraceScope(std::string name, const std::source_location& loc);
  ~TraceScope();
  TraceScope(const TraceScope&) = delete;
  TraceScope& operator=(const TraceScope&) = delete;
  Trace& trace() { return *trace_; }

 private:
  Trace* trace_;
  Trace* previous_;
};

/// Throws a CompileError "kernel 'NAME': WHAT (at FILE:LINE)".
[[noreturn]] void fail(const std::source_location& loc, const std::string& what);

/// Checks that `v` belongs to the current trace; returns its id.
ir::ValueId use(const Value& v, const std::source_location& loc);

/// Appends an op to the innermost open region; returns the op (owned by the region).
ir::Op& append(ir::Op op);

/// Creates an op of `kind` with attributes `attrs` (its kind's struct) producing a fresh value of
/// `type` (none: no value) and appends it.
///@{
Value emit(ir::OpKind kind, ir::Type type, std::vector<ir::ValueId> operands, const std::source_location& loc,
           ir::OpAttrs attrs);
Value emit(ir::OpKind kind, ir::Type type, std::vector<ir::ValueId> operands, const std::source_location& loc);
///@}

/// Records `body` into `region` (pushes it as the insertion point while body runs).
template <class F>
void record_into(ir::Region& region, F&& body) {
  Trace* t = current_or_null();
  t->insert_stack.push_back(&region);
  struct Pop {
    Trace* t;
    ~Pop() { t->insert_stack.pop_back(); }
  } pop{t};
  body();
}

}  // namespace rocjit::dsl::detail
