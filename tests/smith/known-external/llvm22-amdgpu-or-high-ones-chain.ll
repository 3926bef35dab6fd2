; LLVM 22 AMDGPU: the high half of a 64-bit `or` whose operand has its high half known all ones.
; Reduced by hand from rocjit-smith kernel 2026010031 (seed 2026, kernel 3953).
; %43 = or %42, %39 has its high half all ones (%39's is), so %47 = or %46, %43 must too.
; llc-22 -O3 -mcpu=gfx942 (also gfx90a, gfx1030, gfx1100) stores `v_mov_b32 v3, v1` as the
; high word: v1 is the sign word of %33, not -1. -global-isel gets it right.
target triple = "amdgcn-amd-amdhsa"
define amdgpu_kernel void @f(ptr addrspace(1) %out, ptr addrspace(1) %in) {
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %p = getelementptr i32, ptr addrspace(1) %in, i32 %tid
  %32 = load volatile i32, ptr addrspace(1) %p
  %33 = sext i32 %32 to i64
  %34 = lshr i64 %33, 27
  %35 = add nuw nsw i64 %34, 127
  %36 = trunc i64 %35 to i32
  %37 = or i32 %36, -101
  %38 = zext i32 %37 to i64
  %39 = or i64 %38, -4294967296
  %40 = and i64 %39, 63
  %41 = ashr i64 %33, %40
  %42 = add nsw i64 %41, 127
  %43 = or i64 %42, %39
  %44 = and i64 %43, 63
  %45 = ashr i64 %33, %44
  %46 = add nsw i64 %45, 127
  %47 = or i64 %46, %43
  %q = getelementptr i64, ptr addrspace(1) %out, i32 %tid
  store i64 %47, ptr addrspace(1) %q
  ret void
}
declare i32 @llvm.amdgcn.workitem.id.x()
