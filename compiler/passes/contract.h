// Contraction as an IR pass (KernelOptions::contract): a floating-point a * b + c whose product
// has no other use becomes fma(a, b, c) in the kernel's IR, so every executor (the interpreter,
// the CPU backend, every AMDGPU processor) computes the same fused, once-rounded result. LLVM's
// own contraction (fast_math) happens per target, after the IR, and so may differ by device.
#pragma once

#include "rocjit/compiler/ir.hpp"

namespace rocjit::passes {

// Rewrites `kernel` in place; returns how many additions became fma. f32 and f64 values and
// vectors of them (16-bit floats are left alone: their products round to 16 bits first).
int contract_multiply_adds(ir::Kernel& kernel);

}  // namespace rocjit::passes
