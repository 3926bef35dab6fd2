// Structured control flow and synchronisation: If/Else, For, While, Break, barriers.
#pragma once

#include <source_location>
#include <type_traits>
#include <utility>

#include "rocjit/dsl/value.hpp"

namespace rocjit::dsl {

/// Options of a For or While loop, e.g. `For(0, n, 1, body, {.unroll = 4})`.
struct LoopOptions {
  /// Unroll request passed to LLVM: 0 lets LLVM decide, 1 keeps the loop rolled, N > 1 unrolls
  /// N times (at most ir::max_unroll).
  int unroll = 0;
};

namespace detail {
ir::Op& open_if(const Operand& cond, const std::source_location& loc);
ir::Op& open_for(const Operand& begin, const Operand& end, const Operand& step, const std::source_location& loc,
                 Value& induction, const LoopOptions& options);
ir::Op& open_while(const std::source_location& loc, const LoopOptions& options);
void close_while_condition(ir::Op& loop, const Operand& cond);
struct LoopDepth {
  LoopDepth();
  ~LoopDepth();
};
/// The counter of a C-style For: a variable of init's type.
struct Counter {
  uint32_t slot;
  ir::Type type;
  uint64_t trace;
};
Counter declare_counter(const Operand& init, const std::source_location& loc);
Value load_counter(const Counter& c, const std::source_location& loc);
void store_counter(const Counter& c, const Operand& v, const std::source_location& loc);
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
void For(const Operand& begin, const Operand& end, const Operand& step, F&& body, const LoopOptions& options,
         std::source_location loc = std::source_location::current()) {
  Value i;
  ir::Op& op = detail::open_for(begin, end, step, loc, i, options);
  detail::LoopDepth depth;
  detail::record_into(op.regions[0], [&] {
    if constexpr (std::is_invocable_v<F, Value>)
      body(i);
    else
      body();
  });
}

/// The same without options.
template <class F>
void For(const Operand& begin, const Operand& end, const Operand& step, F&& body,
         std::source_location loc = std::source_location::current()) {
  For(begin, end, step, std::forward<F>(body), LoopOptions{}, loc);
}

/// `For(begin, end, 1, body)`: runs `body(i)` for i = begin, begin + 1, ... while i < end.
template <class F>
void For(const Operand& begin, const Operand& end, F&& body, std::source_location loc = std::source_location::current()) {
  For(begin, end, Operand(1, loc), std::forward<F>(body), LoopOptions{}, loc);
}
/// The same with options.
template <class F>
void For(const Operand& begin, const Operand& end, F&& body, const LoopOptions& options,
         std::source_location loc = std::source_location::current()) {
  For(begin, end, Operand(1, loc), std::forward<F>(body), options, loc);
}

/// A C-style loop: for (i = init; cond(i); i = next(i)) body(i). `cond` and `next` are callables
/// of the counter, which has init's type (a literal is an Int), e.g.
/// `For(BLOCK / 2, [](Int s) { return s > 0; }, [](Int s) { return s / 2; }, body)`.
/// A Continue() in the body goes on with next(i).
template <class C, class N, class F>
  requires(std::is_invocable_v<C, Value> && std::is_invocable_v<N, Value>)
void For(const Operand& init, C&& cond, N&& next, F&& body, const LoopOptions& options = {},
         std::source_location loc = std::source_location::current()) {
  const detail::Counter counter = detail::declare_counter(init, loc);
  ir::Op& op = detail::open_while(loc, options);
  detail::record_into(op.regions[0], [&] {
    detail::close_while_condition(op, Operand(cond(detail::load_counter(counter, loc)), loc));
  });
  {
    detail::LoopDepth depth;
    detail::record_into(op.regions[1], [&] {
      if constexpr (std::is_invocable_v<F, Value>)
        body(detail::load_counter(counter, loc));
      else
        body();
    });
  }
  detail::record_into(op.regions[2], [&] {
    detail::store_counter(counter, Operand(next(detail::load_counter(counter, loc)), loc), loc);
  });
}

/// while (cond()) body(). The condition is a callable re-evaluated before every iteration.
template <class C, class F>
void While(C&& cond, F&& body, const LoopOptions& options, std::source_location loc = std::source_location::current()) {
  ir::Op& op = detail::open_while(loc, options);
  detail::record_into(op.regions[0], [&] {
    detail::close_while_condition(op, Operand(cond(), loc));
  });
  detail::LoopDepth depth;
  detail::record_into(op.regions[1], std::forward<F>(body));
}

/// The same without options.
template <class C, class F>
void While(C&& cond, F&& body, std::source_location loc = std::source_location::current()) {
  While(std::forward<C>(cond), std::forward<F>(body), LoopOptions{}, loc);
}

/// Leaves the innermost For/While.
void Break(std::source_location loc = std::source_location::current());
/// Skips the rest of the innermost For/While body: the loop goes on with its next iteration
/// (a C-style For runs its `next` first).
void Continue(std::source_location loc = std::source_location::current());
/// Ends the work-item (like `return` in a HIP kernel). A barrier or wave operation may follow
/// only if the Return is in work-group-uniform control flow (every work-item returns together).
void Return(std::source_location loc = std::source_location::current());

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
