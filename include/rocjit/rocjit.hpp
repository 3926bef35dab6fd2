// The umbrella header for rocjit users: the kernel DSL, compile(), the host JIT and the runtime.
#pragma once

#include "rocjit/compiler/cache.hpp"
#include "rocjit/compiler/code_object.hpp"
#include "rocjit/compiler/compile.hpp"
#include "rocjit/compiler/error.hpp"
#include "rocjit/compiler/host.hpp"
#include "rocjit/compiler/printer.hpp"
#include "rocjit/compiler/target.hpp"
#include "rocjit/compiler/verifier.hpp"
#include "rocjit/dsl.hpp"
#include "rocjit/runtime/array.hpp"
#include "rocjit/runtime/device.hpp"
#include "rocjit/runtime/launch.hpp"
#include "rocjit/runtime/memory.hpp"
#include "rocjit/runtime/smart_array.hpp"
#include "rocjit/runtime/stream.hpp"

namespace rocjit {

/// Compiles a traced kernel for a target.
inline CodeObject compile(const Kernel& kernel, const Target& target, const CompileOptions& options = {}) {
  return compile(kernel.ir_ptr(), target, options);
}

}  // namespace rocjit
