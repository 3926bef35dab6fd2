// Type legalisation: rewrites values of types a target cannot lower into types it can.
#pragma once

#include <memory>

#include "rocjit/compiler/ir.hpp"
#include "rocjit/compiler/target.hpp"

namespace rocjit::passes {

// Whether `target`'s lowering handles values of type `t` itself. Every ir::Type today, on both
// targets; narrow floats and vectors will be the first types a target may lack.
bool target_supports_type(const Target& target, ir::Type t);

// Returns a copy of `kernel` whose every value, variable and array has a type `target` supports
// (an unsupported type computed in a supported one, rounded back where the IR says so), or
// nullptr when the kernel uses supported types only, which costs one walk over the ops. A type
// with no rewrite rule is an internal error (CompileError naming the kernel, type and target).
std::unique_ptr<ir::Kernel> legalize_types(const ir::Kernel& kernel, const Target& target);

}  // namespace rocjit::passes
