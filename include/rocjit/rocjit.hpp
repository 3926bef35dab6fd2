// The umbrella header for rocjit users: the kernel DSL, compile() and code objects.
#pragma once

#include "rocjit/compiler/code_object.hpp"
#include "rocjit/compiler/compile.hpp"
#include "rocjit/compiler/error.hpp"
#include "rocjit/compiler/host.hpp"
#include "rocjit/compiler/printer.hpp"
#include "rocjit/compiler/target.hpp"
#include "rocjit/compiler/verifier.hpp"
#include "rocjit/dsl.hpp"

namespace rocjit {

// Compiles a traced kernel for a target.
inline CodeObject compile(const Kernel& kernel, const Target& target, const CompileOptions& options = {}) {
  return compile(kernel.ir(), target, options);
}

}  // namespace rocjit
