// Structural and type checks on rocjit IR; the first problem found is thrown as a CompileError.
#pragma once

#include "rocjit/compiler/ir.hpp"

namespace rocjit::ir {

// Throws rocjit::CompileError naming the kernel, the op's file:line and what is allowed.
// Structure and types only: the compile pipeline (passes/pipeline.h) runs this and then the
// barrier-uniformity rule, which holds for every target.
void verify(const Kernel& kernel);

}  // namespace rocjit::ir
