// The compile pipeline: the one ordered list of passes every kernel goes through, for every
// target (Halide's Lower.cpp is the model), drawn from the table of named passes below:
//
//   check():    verify -> uniformity               every target; before the kernel cache key
//   prepare():  legalize-types -> expand-math      the target's IR passes; on a cache miss
//   then the target lowers the prepared kernel to LLVM (targets/amdgpu/lower, targets/host/lower).
//
// `contract` is not in the pipeline: the DSL runs it when a kernel is defined with
// KernelOptions::contract, so every device computes the same fused result.
//
// Each pass is a time_trace phase of the open compile record ("verify", "uniformity",
// "legalize types", "expand math"). ROCJIT_LOG_PASSES=1 logs each pass and its time (level info,
// through the log handler); ROCJIT_LOG_PASSES=ir also prints the IR after each pass that rewrote it.
// rocjit-opt runs any list of the named passes on .rjir files (tests/lit/passes/).
/// \file
/// The pass pipeline and the named passes (compiler/passes/): what the DSL, the parser, the compile
/// paths and rocjit-opt call.
#pragma once

#include <memory>
#include <span>
#include <string_view>

#include "rocjit/compiler/ir.hpp"
#include "rocjit/compiler/target.hpp"

namespace rocjit::passes {

/// One pass of the table: a check (throws CompileError on the first problem) or a rewrite
/// (returns a rewritten copy of the kernel, or nullptr when it changes nothing).
struct PassInfo {
  std::string_view name;  ///< rocjit-opt's spelling: "legalize-types"
  const char* phase;      ///< the time_trace phase and log name: "legalize types"
  std::string_view description;  ///< one line, for rocjit-opt --list-passes
  void (*check)(const ir::Kernel&) = nullptr;  ///< a check, or
  std::unique_ptr<ir::Kernel> (*rewrite)(const ir::Kernel&, const Target&) = nullptr;  ///< a rewrite
};

/// Every named pass, in pipeline order (then the passes outside the pipeline).
std::span<const PassInfo> all_passes();
/// The pass named `name`, or nullptr.
const PassInfo* find_pass(std::string_view name);

/// Runs one pass on `kernel` (as a time_trace phase, logged per ROCJIT_LOG_PASSES): the rewritten
/// copy, or nullptr when the pass checked or changed nothing.
std::unique_ptr<ir::Kernel> run_pass(const PassInfo& pass, const ir::Kernel& kernel, const Target& target);

/// The checks every kernel passes before any target sees it: ir::verify (structure and types),
/// then the barrier-uniformity rule. Throws CompileError. The DSL runs it when a kernel is
/// defined, the parser on every kernel it reads, and both compile paths before their cache keys.
void check(const ir::Kernel& kernel);

/// The kernel a target lowers: the checked input itself, or the copy the last pass that changed
/// anything made (the input must outlive it).
class PreparedKernel {
 public:
  /// The unrewritten `input`.
  explicit PreparedKernel(const ir::Kernel& input) : input_(&input) {}
  /// The kernel to lower.
  const ir::Kernel& get() const { return rewritten_ ? *rewritten_ : *input_; }
  /// Whether a pass rewrote the input.
  bool rewritten() const { return rewritten_ != nullptr; }
  /// A pass's rewritten copy becomes the kernel to lower.
  void replace(std::unique_ptr<ir::Kernel> kernel) { rewritten_ = std::move(kernel); }

 private:
  const ir::Kernel* input_;
  std::unique_ptr<ir::Kernel> rewritten_;
};

/// The target's IR passes on a checked kernel, in order: legalize-types, expand-math.
PreparedKernel prepare(const ir::Kernel& kernel, const Target& target);

/// Contraction (KernelOptions::contract): a floating-point a * b + c whose product has no other use
/// becomes fma(a, b, c) in the kernel's IR, so every executor (the interpreter, the CPU backend,
/// every AMDGPU processor) computes the same fused, once-rounded result. LLVM's own contraction
/// (fast_math) happens per target, after the IR, and so may differ by device. Rewrites `kernel` in
/// place; returns how many additions became fma. f32 and f64 values only (16-bit floats are left
/// alone: their products round to 16 bits first).
int contract_multiply_adds(ir::Kernel& kernel);

}  // namespace rocjit::passes
