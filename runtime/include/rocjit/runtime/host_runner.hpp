// Running kernels compiled for the host CPU (compile(kernel, Target::host())): work-groups in
// parallel on a worker pool, each on one thread. The CPU device launches through this; tests and
// benchmarks may call it directly. No LLVM types in this header.
#pragma once

#include <cstdint>
#include <string>

#include "rocjit/compiler/host.hpp"

namespace rocjit {

/// The most work-items of a work-group on the CPU and the interpreter devices.
inline constexpr unsigned host_max_group_size = 1024;

/// Checks grid (work-groups per dimension) and block (work-items per group) against the kernel
/// and the host limits; throws LaunchError naming the kernel and the bad dimension.
void check_host_geometry(const HostKernel& kernel, Dim3 grid, Dim3 block);
/// The same checks for a kernel not compiled yet (named, with its KernelOptions::max_block_size).
void check_host_geometry(const std::string& kernel, uint32_t max_block_size, Dim3 grid, Dim3 block);

/// Runs the kernel over `grid` groups of `block` work-items and returns when all are done.
/// args[i] points to the value of argument i (see argument_names()), as hipModuleLaunchKernel's
/// kernelParams. Throws LaunchError for bad geometry, or after the run when a bounds-checked
/// kernel accessed an array out of bounds (nothing out of bounds was touched).
void run_host(const HostKernel& kernel, Dim3 grid, Dim3 block, const void* const* args);

/// Worker threads used for work-groups: Settings::cpu_threads (ROCJIT_CPU_THREADS) when the pool
/// starts (the first CPU launch), else one per hardware thread; fixed from then on.
unsigned host_thread_count();

/// The CPU device's tiered compilation. A kernel's first launch with a work-group shape runs
/// the O3 kernel if the kernel cache has it, or else one compiled at O1 (a fraction of the O3
/// compile time); from the second launch on, the O3 kernel is compiled on a background thread
/// and used once ready. First launches of more than 4M work-items compile O3 at once.
/// ROCJIT_CPU_TIERING=0 turns it off (every shape compiled at O3 at its first launch), as do
/// ROCJIT_DUMP and ROCJIT_LLVM_ARGS. Counts since the process started:
struct CpuTieringStats {
  uint64_t quick_compiles = 0;   ///< first launches of a shape compiled at O1
  uint64_t cached_starts = 0;    ///< first launches that found the O3 kernel in the kernel cache
  uint64_t tier_ups = 0;         ///< O3 compiles started in the background
  uint64_t tier_ups_failed = 0;  ///< of those, compiles that threw (the O1 kernel stays in use)
};
/// The CPU device's tiering counts so far.
CpuTieringStats cpu_tiering_stats();
/// Waits until every background O3 compile started so far is finished and in use.
void wait_for_cpu_tier_ups();

}  // namespace rocjit
