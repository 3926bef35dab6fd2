// Rewrites of optimised LLVM IR that keep known AMDGPU back-end bugs of LLVM 22 away from rocjit's
// kernels (tests/smith/known-external.md). Each runs after the -O pipeline, right before codegen,
// so no later InstCombine undoes it. Each is an entry of rocjit/workarounds.def, applied only
// when workaround_enabled() says so for the compile's settings.
#pragma once

#include <llvm/Analysis/TargetTransformInfo.h>
#include <llvm/CodeGen/TargetPassConfig.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/Module.h>

#include "rocjit/settings.hpp"

namespace rocjit::targets::amdgpu {

// LLVM 22's instruction selection folds `fsub +0.0, x` into a negated source operand of its users
// (SelectVOP3Mods, "fold fsub [+-]0 into fneg"), which is -0 instead of +0 for x = +0. Every
// `fsub +0.0, x` (and `fadd -x, +0.0`, which the DAG turns into it) without `nsz` becomes
// `x == 0 ? +0.0 : -x`: the same value for every x, and a form the fold does not match.
// Returns how many were rewritten.
int guard_fsub_of_positive_zero(llvm::Module& module);

// LLVM 22's SIFoldOperands turns `or x, -1` into `x` instead of -1 (tests/smith/known-external.md).
// Such an `or` appears during code generation when a 64-bit `or` is split into 32-bit halves and
// one operand's half is known to be all ones. Every `or i64 a, b` where an operand's high half is
// all ones becomes `zext(trunc(a) | trunc(b)) | 0xffffffff00000000`, and one where an operand's
// low half is all ones becomes `zext(hi(a) | hi(b)) << 32 | 0xffffffff`: the same value, with that
// half a constant the back end cannot lose. Returns how many were rewritten.
int guard_or_with_half_ones(llvm::Module& module);

// LLVM 22's AMDGPU code generation mixes up lanes when a vector built by `insertelement` at a
// run-time index is read by `extractelement` at another (a private array LLVM promoted to a
// vector; tests/smith/known-external.md): both lanes of a select come out as the same lane. Every
// insert or extract at a run-time index becomes selects over the lanes at constant indices, the
// form the back end's own expansion would have, written out before it can mis-combine it.
// Returns how many were rewritten.
int guard_dynamic_vector_index(llvm::Module& module);

// LLVM 22's AMDGPU selection turns an f32 `fmul` next to f16 conversions (its result truncated to
// half, or its operands extended from half) into v_fma_mix* with a +0.0 addend, which makes a -0
// product +0. Each such `fmul` without `nsz` becomes `fma(a, b, -0.0)`, whose -0 addend keeps
// every product's sign; the mix instruction then gets -0 as its addend. The conversions are also
// found through extractelement, insertelement and shufflevector (a <2 x float> fmul whose lane is
// extracted and truncated: seed-2051 kernel 2051008432). Returns how many.
int guard_mixed_precision_multiply(llvm::Module& module);

// All of the above that `settings` enable (Workaround::fsub_of_positive_zero, or_with_half_ones,
// dynamic_vector_index, mixed_precision_multiply), in that order: what the AMDGPU compile runs
// after optimisation.
void apply_workarounds(llvm::Module& module, const Settings& settings);

// LLVM 22's peephole optimiser (SIInstrInfo::foldImmediate) turns a COPY of a 64-bit constant
// (S_MOV_B64_IMM_PSEUDO) into `S_MOV_B64 imm` for any imm, but S_MOV_B64 encodes a 32-bit literal:
// 0x40effe0000000000 (65520.0) is emitted as literal 0. This machine pass, inserted right after
// the peephole optimiser, gives every such move whose immediate is not a sign-extended 32-bit
// value back to the pseudo, which is expanded after register allocation into what the processor
// can encode.
// (Workaround::copy_of_64_bit_immediate)
void add_machine_workarounds(llvm::TargetPassConfig& config);

// LLVM 22's StructurizeCFG hoists a zero-cost instruction of an "else" block that feeds a phi of
// its successor into the nearest common dominator of the then and else blocks, and then leaves
// `poison` on a Flow block's path that reaches the phi with that value when the else block has
// another predecessor (seed-2030 kernel 2030014175: an address register read unwritten on
// gfx1100; tests/smith/known-external.md). This moves each such instruction (zero latency cost,
// safe to speculate, operands available there) to its block's immediate dominator first, so the
// structurizer finds nothing to hoist and reconstructs the phi from a value that dominates it.
// Returns how many were moved.
int hoist_zero_cost_phi_operands(llvm::Function& function, const llvm::DominatorTree& dominators,
                                 const llvm::TargetTransformInfo& costs);

// Inserts a pass running hoist_zero_cost_phi_operands right before StructurizeCFG
// (Workaround::structurizer_phi_hoist).
void add_structurizer_workarounds(llvm::TargetPassConfig& config);

// Both of the above, those `settings` enable: what the AMDGPU compile inserts into its
// code-generation pipeline.
void add_codegen_workarounds(llvm::TargetPassConfig& config, const Settings& settings);

}  // namespace rocjit::targets::amdgpu
