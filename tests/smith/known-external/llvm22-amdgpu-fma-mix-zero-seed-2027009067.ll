; LLVM 22 AMDGPU: fptrunc(fmul float %41, 0.0) to half is selected as v_fma_mixlo_f16 s0, 0, 0,
; i.e. fma(x, 0, +0): for negative x the product is -0 and -0 + +0 = +0, where the IR's value is
; -0. rocjit's optimised IR for rocjit-smith kernel 2027009067 (reduced); llc-22 -O3 -mcpu=gfx942
; shows `v_fma_mixlo_f16 v1, s0, 0, 0`. rocjit now emits fma(a, b, -0.0) for such multiplies
; (guard_mixed_precision_multiply), and the addend becomes v_bfrev_b32 v1, 1 (-0.0).
; ModuleID = 'smith'
source_filename = "smith"
target datalayout = "e-m:e-p:64:64-p1:64:64-p2:32:32-p3:32:32-p4:64:64-p5:32:32-p6:32:32-p7:160:256:256:32-p8:128:128:128:48-p9:192:256:256:32-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-v2048:2048-n32:64-S32-A5-G1-ni:7:8:9"
target triple = "amdgcn-amd-amdhsa"

@shared0 = internal unnamed_addr addrspace(3) global [1 x i64] poison, align 16

; Function Attrs: mustprogress nofree norecurse nounwind willreturn
define amdgpu_kernel void @smith(ptr addrspace(1) noundef readnone captures(none) %in_i, i32 noundef %in_i.shape0, ptr addrspace(1) noundef readnone captures(none) %in_u, i32 noundef %in_u.shape0, ptr addrspace(1) noundef readonly captures(none) %in_l, i32 noundef %in_l.shape0, ptr addrspace(1) noundef readonly captures(none) %in_f, i32 noundef %in_f.shape0, ptr addrspace(1) noundef readnone captures(none) %in_d, i32 noundef %in_d.shape0, ptr addrspace(1) noundef readnone captures(none) %out_i, i32 noundef %out_i.shape0, ptr addrspace(1) noundef readnone captures(none) %out_u, i32 noundef %out_u.shape0, ptr addrspace(1) noundef readnone captures(none) %out_l, i32 noundef %out_l.shape0, ptr addrspace(1) noundef writeonly captures(none) %out_f, i32 noundef %out_f.shape0, ptr addrspace(1) noundef readnone captures(none) %out_d, i32 noundef %out_d.shape0, ptr addrspace(1) noundef readnone captures(none) %ap_f, i32 noundef %ap_f.shape0, ptr addrspace(1) noundef readnone captures(none) %ap_d, i32 noundef %ap_d.shape0, ptr addrspace(1) noundef readnone captures(none) %at_i, i32 noundef %at_i.shape0, ptr addrspace(1) noundef readnone captures(none) %at_u, i32 noundef %at_u.shape0, ptr addrspace(1) noundef readnone captures(none) %at_l, i32 noundef %at_l.shape0) local_unnamed_addr #0 {
entry:
  %0 = tail call ptr addrspace(4) @llvm.amdgcn.dispatch.ptr()
  %1 = tail call i32 @llvm.amdgcn.workitem.id.z()
  %2 = tail call i32 @llvm.amdgcn.workitem.id.y()
  %3 = tail call i32 @llvm.amdgcn.workitem.id.x()
  %4 = tail call i32 @llvm.amdgcn.workgroup.id.x()
  %5 = getelementptr inbounds nuw i8, ptr addrspace(4) %0, i64 4
  %6 = load i16, ptr addrspace(4) %5, align 4, !invariant.load !1
  %7 = zext i16 %6 to i32
  %8 = mul nsw i32 %4, %7
  %9 = add nsw i32 %8, %3
  %10 = tail call i32 @llvm.amdgcn.workgroup.id.y()
  %11 = getelementptr inbounds nuw i8, ptr addrspace(4) %0, i64 6
  %12 = load i16, ptr addrspace(4) %11, align 2, !invariant.load !1
  %13 = zext i16 %12 to i32
  %14 = mul nsw i32 %10, %13
  %15 = add nsw i32 %14, %2
  %16 = tail call i32 @llvm.amdgcn.workgroup.id.z()
  %17 = getelementptr inbounds nuw i8, ptr addrspace(4) %0, i64 8
  %18 = load i16, ptr addrspace(4) %17, align 4, !invariant.load !1
  %19 = zext i16 %18 to i32
  %20 = mul nsw i32 %16, %19
  %21 = add nsw i32 %20, %1
  %22 = icmp slt i32 %9, 1
  %23 = icmp slt i32 %15, 1
  %24 = and i1 %22, %23
  %25 = icmp slt i32 %21, 1
  %26 = and i1 %24, %25
  %27 = getelementptr inbounds nuw i8, ptr addrspace(1) %in_l, i64 24
  %28 = load i64, ptr addrspace(1) %27, align 8, !amdgpu.noclobber !1
  %29 = add i64 %28, -1112240006051870653
  %30 = getelementptr inbounds nuw i64, ptr addrspace(3) @shared0, i32 %3
  %31 = getelementptr inbounds nuw i64, ptr addrspace(3) %30, i32 %2
  %32 = getelementptr inbounds nuw i64, ptr addrspace(3) %31, i32 %1
  store i64 %29, ptr addrspace(3) %32, align 8
  fence syncscope("workgroup") release
  tail call void @llvm.amdgcn.s.barrier()
  fence syncscope("workgroup") acquire
  br i1 %26, label %if.then, label %if.end

if.then:                                          ; preds = %entry
  %33 = load i64, ptr addrspace(3) @shared0, align 16
  %.fr3 = freeze i64 %33
  %34 = trunc i64 %.fr3 to i32
  %35 = sub i32 3, %34
  %36 = srem i32 %35, 66
  %37 = add nsw i32 %36, 66
  %.cmp = icmp slt i32 %36, 0
  %38 = select i1 %.cmp, i32 %37, i32 %36
  %39 = zext nneg i32 %38 to i64
  %40 = getelementptr inbounds nuw float, ptr addrspace(1) %in_f, i64 %39
  %41 = load float, ptr addrspace(1) %40, align 4, !amdgpu.noclobber !1
  %42 = fmul float %41, 0.000000e+00
  %43 = fptrunc float %42 to half
  %44 = add i32 %15, %9
  %45 = add i32 %44, %21
  %46 = shl i32 %45, 2
  %47 = or disjoint i32 %46, 3
  %48 = fpext half %43 to float
  %49 = zext i32 %47 to i64
  %50 = getelementptr inbounds nuw float, ptr addrspace(1) %out_f, i64 %49
  store float %48, ptr addrspace(1) %50, align 4
  br label %if.end

if.end:                                           ; preds = %if.then, %entry
  ret void
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 1024) i32 @llvm.amdgcn.workitem.id.z() #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 1024) i32 @llvm.amdgcn.workitem.id.y() #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 1024) i32 @llvm.amdgcn.workitem.id.x() #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.amdgcn.workgroup.id.x() #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef nonnull align 4 ptr addrspace(4) @llvm.amdgcn.dispatch.ptr() #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.amdgcn.workgroup.id.y() #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.amdgcn.workgroup.id.z() #1

; Function Attrs: convergent mustprogress nocallback nofree nounwind willreturn
declare void @llvm.amdgcn.s.barrier() #2

attributes #0 = { mustprogress nofree norecurse nounwind willreturn "amdgpu-agpr-alloc"="0" "amdgpu-flat-work-group-size"="1,1" "amdgpu-no-cluster-id-x" "amdgpu-no-cluster-id-y" "amdgpu-no-cluster-id-z" "amdgpu-no-completion-action" "amdgpu-no-default-queue" "amdgpu-no-dispatch-id" "amdgpu-no-flat-scratch-init" "amdgpu-no-heap-ptr" "amdgpu-no-hostcall-ptr" "amdgpu-no-implicitarg-ptr" "amdgpu-no-lds-kernel-id" "amdgpu-no-multigrid-sync-arg" "amdgpu-no-queue-ptr" "amdgpu-no-workgroup-id-x" "amdgpu-no-workitem-id-x" "uniform-work-group-size"="true" }
attributes #1 = { mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #2 = { convergent mustprogress nocallback nofree nounwind willreturn }

!llvm.module.flags = !{!0}

!0 = !{i32 1, !"amdhsa_code_object_version", i32 500}
!1 = !{}
