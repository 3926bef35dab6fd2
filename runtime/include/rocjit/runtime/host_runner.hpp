// Running kernels compiled for the host CPU (compile(kernel, Target::host())): work-groups in
// parallel on a worker pool, each on one thread. The CPU device launches through this; tests and
// benchmarks may call it directly. No LLVM types in this header.
#pragma once

#include <cstdint>
#include <string>

#include "rocjit/compiler/host.hpp"

namespace rocjit {

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

/// Worker threads used for work-groups: hardware threads, or ROCJIT_CPU_THREADS.
unsigned host_thread_count();

}  // namespace rocjit
