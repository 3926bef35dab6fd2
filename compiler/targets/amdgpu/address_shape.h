// Shapes of optimised LLVM IR that AMDGPU instruction selection turns into fewer instructions.
// Each runs after the -O pipeline, right before code generation.
#pragma once

#include <llvm/IR/Module.h>

namespace rocjit::targets::amdgpu {

// InstCombine splits `gep p, (a + b)` into `gep (gep p, a), b`. For an array element
// `zext(i) * extent + zext(j)` that leaves two 64-bit pointer additions (each a shift, an add and
// an add-with-carry) where AMDGPU has one v_mad_u64_u32 for the multiply-add. Every such pair of
// single-index in-bounds GEPs over the same element type, with the inner one used only by the
// outer, becomes one GEP of the sum again; `nuw` on both GEPs carries to the sum (an unsigned byte
// offset that does not wrap in two steps does not wrap in one). Returns how many were merged.
int merge_split_element_addresses(llvm::Module& module);

}  // namespace rocjit::targets::amdgpu
