// The compile pipeline: the one ordered list of passes every kernel goes through, for every
// target (Halide's Lower.cpp is the model):
//
//   check():    verify -> uniformity               every target; before the kernel cache key
//   prepare():  legalize types -> expand math      the target's IR passes; on a cache miss
//   then the target lowers the prepared kernel to LLVM (targets/amdgpu/lower, targets/host/lower).
//
// Each pass is a time_trace phase of the open compile record ("verify", "uniformity",
// "legalize types", "expand math"). ROCJIT_LOG_PASSES=1 logs each pass and its time (level info,
// through the log handler); ROCJIT_LOG_PASSES=ir also prints the IR after each pass that rewrote it.
#pragma once

#include <memory>

#include "rocjit/compiler/ir.hpp"
#include "rocjit/compiler/passes.hpp"
#include "rocjit/compiler/target.hpp"

namespace rocjit::passes {

// check(const ir::Kernel&): rocjit/compiler/passes.hpp.

// The kernel a target lowers: the checked input itself, or the copy the last pass that changed
// anything made (the input must outlive it).
class PreparedKernel {
 public:
  explicit PreparedKernel(const ir::Kernel& input) : input_(&input) {}
  const ir::Kernel& get() const { return rewritten_ ? *rewritten_ : *input_; }
  bool rewritten() const { return rewritten_ != nullptr; }
  void replace(std::unique_ptr<ir::Kernel> kernel) { rewritten_ = std::move(kernel); }

 private:
  const ir::Kernel* input_;
  std::unique_ptr<ir::Kernel> rewritten_;
};

// The target's IR passes on a checked kernel, in order: legalize_types, expand_math.
PreparedKernel prepare(const ir::Kernel& kernel, const Target& target);

}  // namespace rocjit::passes
