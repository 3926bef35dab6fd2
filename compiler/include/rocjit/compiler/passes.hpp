/// \file
/// What the compile pipeline's passes offer the layers above them (the DSL, the compiler back
/// ends, the runtime): the checks every kernel goes through and the IR contraction pass. The rest
/// of the pipeline (prepare() and the passes it runs) is private to the compiler.
#pragma once

#include "rocjit/compiler/ir.hpp"

namespace rocjit::passes {

/// The checks every kernel passes before any target sees it: ir::verify (structure and types),
/// then the barrier-uniformity rule. Throws CompileError. The DSL runs it when a kernel is
/// defined, the parser on every kernel it reads, and both compile paths before their cache keys.
void check(const ir::Kernel& kernel);

/// Contraction as an IR pass (KernelOptions::contract): a floating-point a * b + c whose product
/// has no other use becomes fma(a, b, c), so every executor computes the same fused, once-rounded
/// result. Rewrites `kernel` in place; returns how many additions became fma. f32 and f64 values
/// and vectors of them (16-bit floats are left alone: their products round to 16 bits first).
int contract_multiply_adds(ir::Kernel& kernel);

}  // namespace rocjit::passes
