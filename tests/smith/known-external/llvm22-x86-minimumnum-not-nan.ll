; LLVM 22 X86: llvm.minimumnum / llvm.maximumnum return the NaN when the other operand is known
; never to be NaN (here a uitofp): the lowering orders the operands for the signed-zero rule and
; drops the NaN fix-up, leaving the NaN as minsd's second source, which it returns. f(3, NaN)
; must be 3.0 (minimumNumber ignores a NaN operand). rocjit's host lowering therefore uses
; minnum/maxnum and orders the zeros itself (Workaround host_min_max,
; include/rocjit/workarounds.def; compiler/targets/host/lower.cpp). AMDGPU is right.
; Reproduce: lli-22 llvm22-x86-minimumnum-not-nan.ll; echo $?   (prints 3 and exits 0 when fixed;
; prints nan and exits 1 on LLVM 22)
@fmt = private constant [4 x i8] c"%g\0A\00"

define double @f(i32 %i, double %b) noinline {
  %a = uitofp i32 %i to double
  %r = call double @llvm.minimumnum.f64(double %a, double %b)
  ret double %r
}

define i32 @main() {
  %nan = load volatile double, ptr @nan
  %r = call double @f(i32 3, double %nan)
  call i32 (ptr, ...) @printf(ptr @fmt, double %r)
  %bad = fcmp uno double %r, %r
  %rc = zext i1 %bad to i32
  ret i32 %rc
}

@nan = global double 0x7FF8000000000000
declare double @llvm.minimumnum.f64(double, double)
declare i32 @printf(ptr, ...)
