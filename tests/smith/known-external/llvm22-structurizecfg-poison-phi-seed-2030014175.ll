; LLVM 22 AMDGPU (seen on gfx1100): rocjit's optimised IR of kernel 2030014175 (--one=2030014175), correct as
; IR. llc-22 -O3 -mtriple=amdgcn-amd-amdhsa -mcpu=gfx1100: the out_l address pair s[16:17] is written on
; the paths through .LBB0_3 and .LBB0_10 only; the path entry -> if.end (in bounds, global_id(0) != 0)
; -> .LBB0_5 uses it unwritten, so work-group 1 stores out_l(1) to wherever s[16:17] points.
; -print-after=structurizecfg shows `phi i64 [ %36, %if.then3 ], [ poison, %if.end ]` in Flow4: the
; value on that path is %.pre55 (defined in entry). With -structurizecfg-skip-uniform-regions (every
; branch here is uniform) s[16:17] is written on every path.
; ModuleID = 'smith'
source_filename = "smith"
target datalayout = "e-m:e-p:64:64-p1:64:64-p2:32:32-p3:32:32-p4:64:64-p5:32:32-p6:32:32-p7:160:256:256:32-p8:128:128:128:48-p9:192:256:256:32-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-v2048:2048-n32:64-S32-A5-G1-ni:7:8:9"
target triple = "amdgcn-amd-amdhsa"

; Function Attrs: mustprogress nofree norecurse nounwind willreturn
define amdgpu_kernel void @smith(ptr addrspace(1) noundef readonly captures(none) %in_i, i32 noundef %in_i.shape0, ptr addrspace(1) noundef readnone captures(none) %in_u, i32 noundef %in_u.shape0, ptr addrspace(1) noundef readnone captures(none) %in_l, i32 noundef %in_l.shape0, ptr addrspace(1) noundef readonly captures(none) %in_f, i32 noundef %in_f.shape0, ptr addrspace(1) noundef readnone captures(none) %in_d, i32 noundef %in_d.shape0, ptr addrspace(1) noundef writeonly captures(none) %out_i, i32 noundef %out_i.shape0, ptr addrspace(1) noundef readnone captures(none) %out_u, i32 noundef %out_u.shape0, ptr addrspace(1) noundef writeonly captures(none) %out_l, i32 noundef %out_l.shape0, ptr addrspace(1) noundef writeonly captures(none) %out_f, i32 noundef %out_f.shape0, ptr addrspace(1) noundef writeonly captures(none) %out_d, i32 noundef %out_d.shape0, ptr addrspace(1) noundef writeonly captures(none) %ap_f, i32 noundef %ap_f.shape0, ptr addrspace(1) noundef readnone captures(none) %ap_d, i32 noundef %ap_d.shape0, ptr addrspace(1) noundef readnone captures(none) %at_i, i32 noundef %at_i.shape0, ptr addrspace(1) noundef readnone captures(none) %at_u, i32 noundef %at_u.shape0, ptr addrspace(1) noundef readnone captures(none) %at_l, i32 noundef %at_l.shape0) local_unnamed_addr #0 {
entry:
  %0 = tail call ptr addrspace(4) @llvm.amdgcn.dispatch.ptr()
  %1 = tail call i32 @llvm.amdgcn.workgroup.id.x()
  %2 = getelementptr inbounds nuw i8, ptr addrspace(4) %0, i64 4
  %3 = load i16, ptr addrspace(4) %2, align 4, !invariant.load !5
  %.fr = freeze i16 %3
  %4 = zext i16 %.fr to i32
  %5 = mul nsw i32 %1, %4
  %6 = tail call i32 @llvm.amdgcn.workgroup.id.y()
  %7 = getelementptr inbounds nuw i8, ptr addrspace(4) %0, i64 6
  %8 = load i16, ptr addrspace(4) %7, align 2, !invariant.load !5
  %9 = zext i16 %8 to i32
  %10 = mul nsw i32 %6, %9
  %11 = tail call i32 @llvm.amdgcn.workgroup.id.z()
  %12 = getelementptr inbounds nuw i8, ptr addrspace(4) %0, i64 8
  %13 = load i16, ptr addrspace(4) %12, align 4, !invariant.load !5
  %14 = zext i16 %13 to i32
  %15 = mul nsw i32 %11, %14
  %16 = add i32 %15, %10
  %17 = shl i32 %16, 1
  %18 = add i32 %17, %5
  %19 = icmp sgt i32 %5, 1
  %20 = icmp sgt i32 %10, 0
  %.not43 = or i1 %19, %20
  %21 = icmp sgt i32 %15, 0
  %.not40 = or i1 %.not43, %21
  %22 = uitofp i16 %.fr to double
  %23 = tail call i32 @llvm.fptosi.sat.i32.f64(double %22)
  br i1 %.not40, label %if.end.if.end2_crit_edge, label %if.end

if.end:                                           ; preds = %entry
  %24 = shl i32 %18, 1
  %25 = or disjoint i32 %24, 1
  %26 = zext i32 %25 to i64
  %27 = getelementptr inbounds nuw float, ptr addrspace(1) %out_f, i64 %26
  store float 0.000000e+00, ptr addrspace(1) %27, align 4
  %28 = and i32 %5, 65535
  %.not = icmp eq i32 %28, 0
  br i1 %.not, label %if.then3, label %if.end.if.end2_crit_edge

if.end.if.end2_crit_edge:                         ; preds = %entry, %if.end
  %.pre55 = zext i32 %18 to i64
  br label %if.end2

if.end2:                                          ; preds = %if.end.if.end2_crit_edge, %if.then3
  %.pre-phi56 = phi i64 [ %.pre55, %if.end.if.end2_crit_edge ], [ %32, %if.then3 ]
  %29 = shl i32 %18, 1
  %30 = or disjoint i32 %29, 1
  %31 = zext i32 %30 to i64
  br i1 %.not40, label %while.cond7.loopexit.2, label %if.then10

if.then3:                                         ; preds = %if.end
  %32 = zext i32 %18 to i64
  %33 = getelementptr inbounds nuw double, ptr addrspace(1) %out_d, i64 %32
  store double 0.000000e+00, ptr addrspace(1) %33, align 8
  br label %if.end2

while.cond7.loopexit.2:                           ; preds = %if.end2, %if.then10
  fence syncscope("workgroup") release
  tail call void @llvm.amdgcn.s.barrier()
  fence syncscope("workgroup") acquire
  fence syncscope("workgroup") release
  tail call void @llvm.amdgcn.s.barrier()
  fence syncscope("workgroup") acquire
  br i1 %.not40, label %if.end18, label %if.then17

if.then10:                                        ; preds = %if.end2
  %34 = load i32, ptr addrspace(1) %in_i, align 4
  %.fr34 = freeze i32 %34
  %35 = srem i32 %.fr34, 3
  %.cmp31 = icmp slt i32 %35, 0
  %36 = add nsw i32 %35, 3
  %37 = select i1 %.cmp31, i32 %36, i32 %35
  %38 = zext nneg i32 %37 to i64
  %39 = getelementptr inbounds nuw i32, ptr addrspace(1) %in_i, i64 %38
  %40 = load i32, ptr addrspace(1) %39, align 4
  %41 = icmp eq i32 %40, -1
  %42 = sitofp i32 %23 to double
  %43 = fadd double %42, 1.000000e+00
  %44 = tail call i32 @llvm.fptosi.sat.i32.f64(double %43)
  %45 = srem i32 %44, 3
  %.cmp = icmp slt i32 %45, 0
  %46 = add nsw i32 %45, 3
  %47 = select i1 %.cmp, i32 %46, i32 %45
  %48 = zext nneg i32 %47 to i64
  %49 = getelementptr inbounds nuw float, ptr addrspace(1) %in_f, i64 %48
  %50 = load float, ptr addrspace(1) %49, align 4
  %51 = tail call i32 @llvm.fptoui.sat.i32.f32(float %50)
  %52 = select i1 %41, i32 0, i32 %51
  %53 = insertelement <2 x i32> <i32 poison, i32 1227384201>, i32 %52, i64 0
  %54 = getelementptr inbounds nuw i64, ptr addrspace(1) %out_l, i64 %.pre-phi56
  %55 = and i32 %23, 1
  %56 = getelementptr inbounds nuw float, ptr addrspace(1) %ap_f, i64 %31
  %57 = extractelement <2 x i32> %53, i64 0
  %58 = extractelement <2 x i32> %53, i64 1
  %59 = icmp eq i32 %55, 1
  %60 = select i1 %59, i32 %58, i32 %57
  %61 = zext i32 %60 to i64
  store i64 %61, ptr addrspace(1) %54, align 8
  store float 0xBFEAD9AC80000000, ptr addrspace(1) %56, align 4
  %.pre = load i32, ptr addrspace(1) %in_i, align 4
  %.pre46 = freeze i32 %.pre
  %.pre47 = srem i32 %.pre46, 3
  %.pre48 = add nsw i32 %.pre47, 3
  %.cmp31.1 = icmp slt i32 %.pre47, 0
  %62 = select i1 %.cmp31.1, i32 %.pre48, i32 %.pre47
  %63 = zext nneg i32 %62 to i64
  %64 = getelementptr inbounds nuw i32, ptr addrspace(1) %in_i, i64 %63
  %65 = load i32, ptr addrspace(1) %64, align 4
  %66 = icmp eq i32 %65, -1
  %67 = fadd double %42, 2.000000e+00
  %68 = tail call i32 @llvm.fptosi.sat.i32.f64(double %67)
  %69 = srem i32 %68, 3
  %.cmp.1 = icmp slt i32 %69, 0
  %70 = add nsw i32 %69, 3
  %71 = select i1 %.cmp.1, i32 %70, i32 %69
  %72 = zext nneg i32 %71 to i64
  %73 = getelementptr inbounds nuw float, ptr addrspace(1) %in_f, i64 %72
  %74 = load float, ptr addrspace(1) %73, align 4
  %75 = tail call i32 @llvm.fptoui.sat.i32.f32(float %74)
  %76 = select i1 %66, i32 0, i32 %75
  %77 = insertelement <2 x i32> %53, i32 %76, i64 0
  %78 = extractelement <2 x i32> %77, i64 0
  %79 = extractelement <2 x i32> %77, i64 1
  %80 = icmp eq i32 %55, 1
  %81 = select i1 %80, i32 %79, i32 %78
  %82 = zext i32 %81 to i64
  store i64 %82, ptr addrspace(1) %54, align 8
  store float 0xBFEAD9AC80000000, ptr addrspace(1) %56, align 4
  %.pre45 = load i32, ptr addrspace(1) %in_i, align 4
  %.pre50 = freeze i32 %.pre45
  %.pre51 = srem i32 %.pre50, 3
  %.pre53 = add nsw i32 %.pre51, 3
  %.cmp31.2 = icmp slt i32 %.pre51, 0
  %83 = select i1 %.cmp31.2, i32 %.pre53, i32 %.pre51
  %84 = zext nneg i32 %83 to i64
  %85 = getelementptr inbounds nuw i32, ptr addrspace(1) %in_i, i64 %84
  %86 = load i32, ptr addrspace(1) %85, align 4
  %87 = icmp eq i32 %86, -1
  %88 = fadd double %42, 3.000000e+00
  %89 = tail call i32 @llvm.fptosi.sat.i32.f64(double %88)
  %90 = srem i32 %89, 3
  %.cmp.2 = icmp slt i32 %90, 0
  %91 = add nsw i32 %90, 3
  %92 = select i1 %.cmp.2, i32 %91, i32 %90
  %93 = zext nneg i32 %92 to i64
  %94 = getelementptr inbounds nuw float, ptr addrspace(1) %in_f, i64 %93
  %95 = load float, ptr addrspace(1) %94, align 4
  %96 = tail call i32 @llvm.fptoui.sat.i32.f32(float %95)
  %97 = select i1 %87, i32 0, i32 %96
  %98 = insertelement <2 x i32> %77, i32 %97, i64 0
  %99 = extractelement <2 x i32> %98, i64 0
  %100 = extractelement <2 x i32> %98, i64 1
  %101 = icmp eq i32 %55, 1
  %102 = select i1 %101, i32 %100, i32 %99
  %103 = zext i32 %102 to i64
  store i64 %103, ptr addrspace(1) %54, align 8
  store float 0xBFEAD9AC80000000, ptr addrspace(1) %56, align 4
  br label %while.cond7.loopexit.2

if.then17:                                        ; preds = %while.cond7.loopexit.2
  %104 = getelementptr inbounds nuw i32, ptr addrspace(1) %out_i, i64 %31
  store i32 0, ptr addrspace(1) %104, align 4
  br label %if.end18

if.end18:                                         ; preds = %if.then17, %while.cond7.loopexit.2
  ret void
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.amdgcn.workgroup.id.x() #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef nonnull align 4 ptr addrspace(4) @llvm.amdgcn.dispatch.ptr() #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.amdgcn.workgroup.id.y() #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.amdgcn.workgroup.id.z() #1

; Function Attrs: mustprogress nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none)
declare i32 @llvm.fptosi.sat.i32.f64(double) #2

; Function Attrs: mustprogress nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none)
declare i32 @llvm.fptoui.sat.i32.f32(float) #2

; Function Attrs: convergent mustprogress nocallback nofree nounwind willreturn
declare void @llvm.amdgcn.s.barrier() #3

attributes #0 = { mustprogress nofree norecurse nounwind willreturn "amdgpu-flat-work-group-size"="1,1" "amdgpu-no-cluster-id-x" "amdgpu-no-cluster-id-y" "amdgpu-no-cluster-id-z" "amdgpu-no-completion-action" "amdgpu-no-default-queue" "amdgpu-no-dispatch-id" "amdgpu-no-flat-scratch-init" "amdgpu-no-heap-ptr" "amdgpu-no-hostcall-ptr" "amdgpu-no-implicitarg-ptr" "amdgpu-no-lds-kernel-id" "amdgpu-no-multigrid-sync-arg" "amdgpu-no-queue-ptr" "amdgpu-no-workgroup-id-x" "amdgpu-no-workitem-id-x" "amdgpu-no-workitem-id-y" "amdgpu-no-workitem-id-z" "uniform-work-group-size"="true" }
attributes #1 = { mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #2 = { mustprogress nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none) }
attributes #3 = { convergent mustprogress nocallback nofree nounwind willreturn }

!llvm.module.flags = !{!0, !1, !2}
!opencl.ocl.version = !{!3}
!llvm.ident = !{!4}

!0 = !{i32 1, !"amdhsa_code_object_version", i32 500}
!1 = !{i32 1, !"wchar_size", i32 4}
!2 = !{i32 8, !"PIC Level", i32 0}
!3 = !{i32 2, i32 0}
!4 = !{!"Debian clang version 15.0.5"}
!5 = !{}
