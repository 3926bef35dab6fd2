; LLVM 22 AMDGPU: a 64-bit `or` whose operand's low half is all ones (a select of INT64_MAX and
; -1, as in kernel 2030013782). %r's low half must be all ones; llc-22 -O3 -mcpu=gfx942 stores
; %neg's low word instead (`v_or_b32 lo, -1` folded into `lo` by SIFoldOperands). rocjit rewrites
; such `or`s (targets/amdgpu/workarounds.h, guard_or_with_half_ones).
target triple = "amdgcn-amd-amdhsa"
define amdgpu_kernel void @f(ptr addrspace(1) %out, ptr addrspace(1) %in) {
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %p = getelementptr i32, ptr addrspace(1) %in, i32 %tid
  %v = load i32, ptr addrspace(1) %p
  %bit = and i32 %v, 1
  %even = icmp eq i32 %bit, 0
  %c = select i1 %even, i64 9223372036854775807, i64 -1
  %w = zext i32 %v to i64
  %neg = sub i64 0, %w
  %r = or i64 %c, %neg
  %q = getelementptr i64, ptr addrspace(1) %out, i32 %tid
  store i64 %r, ptr addrspace(1) %q
  ret void
}
declare i32 @llvm.amdgcn.workitem.id.x()
