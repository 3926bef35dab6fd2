/// \file
/// The umbrella header for rocjit users: the kernel DSL, compile(), the host JIT and the runtime.

/// \namespace rocjit
/// rocjit's host-side API: kernels, compile(), the host JIT, devices, arrays, streams.
/// \namespace rocjit::ir
/// rocjit's structured IR: kernels, regions and ops, with their printer, parser and verifier.
/// \namespace rocjit::passes
/// The compile pipeline's checks and IR passes that the DSL and the compiler call (rocjit/compiler/passes.hpp).
/// \namespace rocjit::dsl
/// The kernel-side vocabulary: values, arrays, variables, control flow and builtins.
/// \namespace rocjit::dsl::atomic
/// Atomic read-modify-write operations on global and shared arrays.
/// \namespace rocjit::dsl::shared
/// Arrays in work-group shared memory (LDS).
/// \namespace rocjit::dsl::local
/// Arrays private to each work-item.
/// \namespace rocjit::runtime
/// The runtime's backend interfaces (CPU and HIP devices, streams, events, allocations).
/// \namespace rocjit::time_trace
/// Timing of compile phases (CompileRecord, ROCJIT_TIME_TRACE).
/// \fn void rocjit::ir::verify(const Kernel& kernel)
/// Checks a kernel's structure and types; throws CompileError naming the kernel, the op's file:line and what is allowed.
#pragma once

#include "rocjit/compiler/bundle.hpp"
#include "rocjit/compiler/cache.hpp"
#include "rocjit/compiler/code_object.hpp"
#include "rocjit/compiler/compile.hpp"
#include "rocjit/compiler/error.hpp"
#include "rocjit/compiler/host.hpp"
#include "rocjit/compiler/kernel_abi.hpp"
#include "rocjit/compiler/occupancy.hpp"
#include "rocjit/compiler/printer.hpp"
#include "rocjit/compiler/target.hpp"
#include "rocjit/compiler/type.hpp"
#include "rocjit/compiler/verifier.hpp"
#include "rocjit/dsl.hpp"
#include "rocjit/runtime/array.hpp"
#include "rocjit/runtime/device.hpp"
#include "rocjit/runtime/host_runner.hpp"
#include "rocjit/runtime/interop.hpp"
#include "rocjit/runtime/kernel.hpp"
#include "rocjit/runtime/launch.hpp"
#include "rocjit/runtime/memory.hpp"
#include "rocjit/runtime/module.hpp"
#include "rocjit/runtime/smart_array.hpp"
#include "rocjit/runtime/stream.hpp"
#include "rocjit/runtime/vectorize.hpp"
#include "rocjit/settings.hpp"

namespace rocjit {

/// Compiles a traced kernel for a target.
inline CodeObject compile(const Kernel& kernel, const Target& target, const CompileOptions& options = {}) {
  return compile(kernel.ir_ptr(), target, options);
}

}  // namespace rocjit
