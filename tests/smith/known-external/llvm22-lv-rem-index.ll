; LLVM 22.1.8 loop vectorizer: the load from %shared indexed by `iv & 3` is vectorized as if
; the index were `iv` (consecutive): the vector loop loads shared[0..3] and shared[4..7] where
; every part should read shared[0..3]. The same happens for srem/urem by 4; udiv and lshr are
; fine. Reduced from rocjit's host lowering of x[global_id] = fixed[local_id % 4].
; Reproduce: opt-22 -passes=loop-vectorize llvm22-lv-rem-index.ll -S
;   vector.body: %3 = and i64 %index, 3; %4 = getelementptr float, ptr %shared, i64 %3;
;                load <4 x float>, ptr %4   <- consecutive from shared[index & 3]
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"
define void @f(ptr %shared, ptr %x, i64 %n) {
entry:
  br label %loop
loop:
  %iv = phi i64 [ %iv.next, %loop ], [ 0, %entry ]
  %m = and i64 %iv, 3
  %p = getelementptr inbounds nuw float, ptr %shared, i64 %m
  %v = load float, ptr %p, align 4
  %q = getelementptr inbounds nuw float, ptr %x, i64 %iv
  store float %v, ptr %q, align 4
  %iv.next = add nuw nsw i64 %iv, 1
  %done = icmp eq i64 %iv.next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret void
}
