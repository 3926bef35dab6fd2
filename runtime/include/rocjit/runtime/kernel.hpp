/// \file
/// rocjit::kernel() and rocjit::Kernel: a kernel traced by the DSL (rocjit::TracedKernel,
/// rocjit/dsl/kernel.hpp) as programs hold it, to launch (rocjit/runtime/launch.hpp) and to
/// inspect what the compiler makes of it.
#pragma once

#include <cstdint>
#include <memory>
#include <source_location>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "rocjit/compiler/code_object.hpp"
#include "rocjit/compiler/compile.hpp"
#include "rocjit/compiler/ir.hpp"
#include "rocjit/compiler/target.hpp"
#include "rocjit/dsl/kernel.hpp"

namespace rocjit {

struct LaunchConfig;
class Launcher;
class Stream;

/// A traced kernel (its name, IR and specialised versions: TracedKernel) that can be launched and
/// inspected. Cheap to copy (the IR is shared and immutable). Made by rocjit::kernel().
class Kernel : public TracedKernel {
 public:
  Kernel() = default;
  /// The kernel the DSL traced (dsl::trace_kernel()).
  Kernel(TracedKernel traced) : TracedKernel(std::move(traced)) {}
  /// Wraps traced IR.
  explicit Kernel(std::shared_ptr<const ir::Kernel> ir) : TracedKernel(std::move(ir)) {}

  /// What the JIT makes of this kernel, like Numba's inspect_llvm() / inspect_asm(): the same
  /// texts as ROCJIT_DUMP and rocjit-dump. `target` is a Target or its spelling: "gfx90a",
  /// "amdgpu:gfx1100:+wavefrontsize64", "host". At -O3 (AMDGPU code object v5). llvm_ir() and
  /// assembly() always compile afresh; metadata() for a GPU comes from the kernel cache when the
  /// kernel was compiled before. For the host nothing is added to the process's JIT.
  /// (The IR itself is ir(); print() or `std::cout << k.ir()` shows it as .rjir.)
  enum class LlvmStage { lowered, optimized };
  /// The LLVM IR for `target`, optimised or as lowered (compiles afresh).
  std::string llvm_ir(const Target& target, LlvmStage stage = LlvmStage::optimized) const;
  /// The assembly for `target` (compiles afresh).
  std::string assembly(const Target& target) const;
  /// Registers, spills, LDS, scratch, kernel arguments and occupancy (AMDGPU), or regions,
  /// per-work-item storage, shared bytes and argument order (host).
  std::string metadata(const Target& target) const;
  /// Numba-style launch: k[{grid, block}](args...) or k[{grid, block, stream}](args...).
  /// Defined in rocjit/runtime/launch.hpp (included by rocjit/rocjit.hpp).
  Launcher operator[](const LaunchConfig& config) const;
  /// A one-dimensional launch over `n` work-items, like Numba's kernel.forall(n):
  /// `k.forall(n)(args...)` runs global ids 0 .. at least n - 1 (the kernel guards `i < n`) in
  /// work-groups the runtime picks for the device (runtime::forall_config); forall(0) launches
  /// nothing. Defined in rocjit/runtime/launch.hpp.
  Launcher forall(int64_t n) const;
  /// forall(n) on `stream` (and its device).
  Launcher forall(int64_t n, const Stream& stream) const;
};

/// Compiles traced kernels for one target in parallel, e.g. to have every kernel of an application
/// in the cache before its first launches: compile_all() of rocjit/compiler/compile.hpp on their IR.
std::vector<CodeObject> compile_all(std::span<const Kernel> kernels, const Target& target,
                                    const CompileOptions& options = {}, unsigned threads = 0);

/// Traces `body` once and returns the kernel. Lambda parameters must be rocjit::dsl::Array<T, N>
/// (global arrays) or scalar expressions (Float, Int, ...). Errors while tracing are rethrown as
/// rocjit::CompileError naming the kernel. (The tracing is dsl::trace_kernel()'s.)
template <class F>
Kernel kernel(std::string name, F&& body, KernelOptions options = {},
              std::source_location loc = std::source_location::current()) {
  return Kernel(dsl::trace_kernel(std::move(name), std::forward<F>(body), std::move(options), loc));
}

}  // namespace rocjit
