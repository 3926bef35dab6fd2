// Structured control flow and synchronisation: If/Else, For, While, Break, barriers.
#pragma once

#include <source_location>
#include <type_traits>
#include <utility>

#include "rocjit/dsl/value.hpp"

namespace rocjit::dsl {

namespace detail {
ir::Op& open_if(const Operand& cond, const std::source_location& loc);
ir::Op& open_for(const Operand& begin, const Operand& end, const Operand& step, const std::source_location& loc,
                 Value& induction);
ir::Op& open_while(const std::source_location& loc);
void close_while_condition(ir::Op& loop, const Operand& cond);
struct LoopDepth {
  LoopDepth();
  ~LoopDepth();
};
}  // namespace detail

/// The result of If(...): call .Else(...) or .ElseIf(...) on it to add the other branch.
class IfChain {
 public:
  /// Continues the If whose op is `op`.
  explicit IfChain(ir::Op* op) : op_(op) {}

  /// The branch taken when no condition held.
  template <class F>
  void Else(F&& body) {
    detail::record_into(op_->regions[1], std::forward<F>(body));
  }
  /// Another condition tried in order.
  template <class F>
  IfChain ElseIf(const Operand& cond, F&& body, std::source_location loc = std::source_location::current()) {
    ir::Op* inner = nullptr;
    detail::record_into(op_->regions[1], [&] { inner = &detail::open_if(cond, loc); });
    detail::record_into(inner->regions[0], std::forward<F>(body));
    return IfChain(inner);
  }

 private:
  ir::Op* op_;
};

/// Runs `body` for the work-items where `cond` holds.
template <class F>
IfChain If(const Operand& cond, F&& body, std::source_location loc = std::source_location::current()) {
  ir::Op& op = detail::open_if(cond, loc);
  detail::record_into(op.regions[0], std::forward<F>(body));
  return IfChain(&op);
}

/// for (i = begin; i < end; i += step) body(i)   (i > end when step is negative).
/// The counter has the common type of begin and end (weak literals adapt).
template <class F>
void For(const Operand& begin, const Operand& end, const Operand& step, F&& body,
         std::source_location loc = std::source_location::current()) {
  Value i;
  ir::Op& op = detail::open_for(begin, end, step, loc, i);
  detail::LoopDepth depth;
  detail::record_into(op.regions[0], [&] {
    if constexpr (std::is_invocable_v<F, Value>)
      body(i);
    else
      body();
  });
}

/// `For(begin, end, 1, body)`: runs `body(i)` for i = begin, begin + 1, ... while i < end.
template <class F>
void For(const Operand& begin, const Operand& end, F&& body, std::source_location loc = std::source_location::current()) {
  For(begin, end, Operand(1, loc), std::forward<F>(body), loc);
}

/// while (cond()) body(). The condition is a callable re-evaluated before every iteration.
template <class C, class F>
void While(C&& cond, F&& body, std::source_location loc = std::source_location::current()) {
  ir::Op& op = detail::open_while(loc);
  detail::record_into(op.regions[0], [&] {
    detail::close_while_condition(op, Operand(cond(), loc));
  });
  detail::LoopDepth depth;
  detail::record_into(op.regions[1], std::forward<F>(body));
}

/// Leaves the innermost For/While.
void Break(std::source_location loc = std::source_location::current());

/// Memory fence flags for barrier(), as in OpenCL and Numba's ROC target.
///@{
inline constexpr unsigned CLK_LOCAL_MEM_FENCE = ir::fence_local;
inline constexpr unsigned CLK_GLOBAL_MEM_FENCE = ir::fence_global;
///@}

/// Work-group barrier: every work-item of the group waits here; the fences order shared
/// (local) and/or global memory accesses across it.
void barrier(unsigned flags = CLK_LOCAL_MEM_FENCE, std::source_location loc = std::source_location::current());
/// CUDA-style alias for barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE).
void syncthreads(std::source_location loc = std::source_location::current());
/// Wavefront-level barrier (llvm.amdgcn.wave.barrier).
void wavebarrier(std::source_location loc = std::source_location::current());

}  // namespace rocjit::dsl
