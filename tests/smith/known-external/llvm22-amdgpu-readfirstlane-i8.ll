; LLVM 22 AMDGPU: llvm.amdgcn.readfirstlane of an i8 aborts instruction selection's type
; legaliser ("LLVM ERROR: Do not know how to promote this operator!"), on gfx942, gfx90a and
; gfx1100 (i16 and i32 are fine). rocjit's wave::read_first and wave::reduce_* of 8-bit values
; (and booleans) therefore read the value through an i32 readfirstlane (Workaround
; read_first_lane_i8, include/rocjit/workarounds.def; compiler/targets/amdgpu/lower.cpp).
; Reproduce: llc-22 -mtriple=amdgcn-amd-amdhsa -mcpu=gfx942 llvm22-amdgpu-readfirstlane-i8.ll -o /dev/null
; Fixed when llc emits a v_readfirstlane_b32 instead of aborting.
define amdgpu_kernel void @first_i8(ptr addrspace(1) %in, ptr addrspace(1) %out) {
  %id = call i32 @llvm.amdgcn.workitem.id.x()
  %p = getelementptr i8, ptr addrspace(1) %in, i32 %id
  %v = load i8, ptr addrspace(1) %p
  %w = add i8 %v, 1
  %f = call i8 @llvm.amdgcn.readfirstlane.i8(i8 %w)
  %q = getelementptr i8, ptr addrspace(1) %out, i32 %id
  store i8 %f, ptr addrspace(1) %q
  ret void
}
declare i32 @llvm.amdgcn.workitem.id.x()
declare i8 @llvm.amdgcn.readfirstlane.i8(i8)
