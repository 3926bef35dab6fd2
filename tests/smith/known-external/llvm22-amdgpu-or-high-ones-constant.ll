; LLVM 22 AMDGPU: a 64-bit `or` with a constant whose high half is all ones and low half is not
; zero (-101). %41's high half must be all ones; llc-22 -O3 -mcpu=gfx942 computes it as
; `v_or_b32 v1, v1, v3` from %40's and %37's high words. rocjit rewrites such `or`s
; (targets/amdgpu/workarounds.h, guard_or_with_half_ones), which fixes this form only: see
; llvm22-amdgpu-or-high-ones-chain.ll for the form it does not.
target triple = "amdgcn-amd-amdhsa"
define amdgpu_kernel void @f(ptr addrspace(1) %out, ptr addrspace(1) %in) {
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %p = getelementptr i32, ptr addrspace(1) %in, i32 %tid
  %v = load i32, ptr addrspace(1) %p
  %33 = sext i32 %v to i64
  %34 = lshr i64 %33, 27
  %35 = or i64 %34, -101
  %36 = and i64 %35, 63
  %37 = ashr i64 %33, %36
  %38 = or i64 %37, %35
  %39 = and i64 %38, 63
  %40 = ashr i64 %33, %39
  %41 = or i64 %40, %38
  %q = getelementptr i64, ptr addrspace(1) %out, i32 %tid
  store i64 %41, ptr addrspace(1) %q
  ret void
}
declare i32 @llvm.amdgcn.workitem.id.x()
