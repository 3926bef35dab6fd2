// Contraction as an IR pass (KernelOptions::contract): a floating-point a * b + c whose product
// has no other use becomes fma(a, b, c) in the kernel's IR, so every executor (the interpreter,
// the CPU backend, every AMDGPU processor) computes the same fused, once-rounded result. LLVM's
// own contraction (fast_math) happens per target, after the IR, and so may differ by device.
#pragma once

#include "rocjit/compiler/ir.hpp"
#include "rocjit/compiler/passes.hpp"

namespace rocjit::passes {

// contract_multiply_adds(ir::Kernel&) is declared in rocjit/compiler/passes.hpp, for the DSL.

}  // namespace rocjit::passes
