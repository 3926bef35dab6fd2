; LLVM 22 AMDGPU: a lane of a <2 x i64> built by two insertelements at run-time indices, read as
; element 2 of its <4 x i32> bitcast, is taken from element 0. This is rocjit's optimised LLVM IR
; for tests/smith/known-external/gpu-seed-2026010010-reduced.rjir (rocjit-dump --mcpu=gfx942
; --emit=llvm-opt), a private array of two i64 that LLVM promoted to a vector.
; In if.then, %57 = lane 2 of %56 = low word of element 1 of %53 =
;   %52 == 1 ? (2 >> s) : (%48 == 1 ? (1 >> s) : 0x7fffffff).
; llc-22 -O3 -mcpu=gfx942 computes `v_cndmask_b32 v2, v6, v2, vcc` with vcc = (%52 != 0) and v6
; = element 0's low word of %49 (%48 == 0 ? (1 >> s) : 0x7fffffff), so for s = 2 and
; %48 = %52 = 0 it stores 0 instead of 0x7fffffff. The same IR written by hand with other
; index and value sources (loads, shifts of loads) is compiled right; not reduced further.
; ModuleID = 'smith'
source_filename = "smith"
target datalayout = "e-m:e-p:64:64-p1:64:64-p2:32:32-p3:32:32-p4:64:64-p5:32:32-p6:32:32-p7:160:256:256:32-p8:128:128:128:48-p9:192:256:256:32-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-v2048:2048-n32:64-S32-A5-G1-ni:7:8:9"
target triple = "amdgcn-amd-amdhsa"

@shared0 = internal unnamed_addr addrspace(3) global [2 x double] poison, align 16

; Function Attrs: mustprogress nofree norecurse nounwind willreturn
define amdgpu_kernel void @smith(ptr addrspace(1) noundef readonly captures(none) %in_i, i32 noundef %in_i.shape0, ptr addrspace(1) noundef readnone captures(none) %in_u, i32 noundef %in_u.shape0, ptr addrspace(1) noundef readnone captures(none) %in_l, i32 noundef %in_l.shape0, ptr addrspace(1) noundef readnone captures(none) %in_f, i32 noundef %in_f.shape0, ptr addrspace(1) noundef readnone captures(none) %in_d, i32 noundef %in_d.shape0, ptr addrspace(1) noundef readnone captures(none) %out_i, i32 noundef %out_i.shape0, ptr addrspace(1) noundef writeonly captures(none) %out_u, i32 noundef %out_u.shape0, ptr addrspace(1) noundef readnone captures(none) %out_l, i32 noundef %out_l.shape0, ptr addrspace(1) noundef readnone captures(none) %out_f, i32 noundef %out_f.shape0, ptr addrspace(1) noundef readnone captures(none) %out_d, i32 noundef %out_d.shape0, ptr addrspace(1) noundef readnone captures(none) %ap_f, i32 noundef %ap_f.shape0, ptr addrspace(1) noundef readnone captures(none) %ap_d, i32 noundef %ap_d.shape0, ptr addrspace(1) noundef readnone captures(none) %at_i, i32 noundef %at_i.shape0, ptr addrspace(1) noundef readnone captures(none) %at_u, i32 noundef %at_u.shape0, ptr addrspace(1) noundef readnone captures(none) %at_l, i32 noundef %at_l.shape0) local_unnamed_addr #0 {
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
  %10 = getelementptr inbounds nuw i8, ptr addrspace(4) %0, i64 6
  %11 = load i16, ptr addrspace(4) %10, align 2, !invariant.load !1
  %12 = getelementptr inbounds nuw i8, ptr addrspace(4) %0, i64 8
  %13 = load i16, ptr addrspace(4) %12, align 4, !invariant.load !1
  %14 = getelementptr inbounds nuw double, ptr addrspace(3) @shared0, i32 %3
  %15 = getelementptr inbounds nuw double, ptr addrspace(3) %14, i32 %2
  %.idx = shl nuw nsw i32 %1, 4
  %16 = getelementptr inbounds nuw i8, ptr addrspace(3) %15, i32 %.idx
  store double 0.000000e+00, ptr addrspace(3) %16, align 8
  fence syncscope("workgroup") release
  tail call void @llvm.amdgcn.s.barrier()
  fence syncscope("workgroup") acquire
  fence syncscope("workgroup") release
  tail call void @llvm.amdgcn.s.barrier()
  fence syncscope("workgroup") acquire
  %17 = getelementptr inbounds nuw i8, ptr addrspace(1) %in_i, i64 4
  %18 = load i32, ptr addrspace(1) %17, align 4, !amdgpu.noclobber !1
  %19 = and i32 %18, 1
  %20 = getelementptr inbounds nuw double, ptr addrspace(3) @shared0, i32 %19
  %21 = load double, ptr addrspace(3) %20, align 8
  %22 = getelementptr inbounds nuw i8, ptr addrspace(1) %in_i, i64 8
  %23 = load i32, ptr addrspace(1) %22, align 4, !amdgpu.noclobber !1
  %24 = and i32 %23, 1
  %25 = getelementptr inbounds nuw double, ptr addrspace(3) @shared0, i32 %24
  %26 = load double, ptr addrspace(3) %25, align 8
  %27 = tail call i32 @llvm.amdgcn.workgroup.id.y()
  %28 = zext i16 %11 to i32
  %29 = mul nsw i32 %27, %28
  %30 = add nsw i32 %29, %2
  %31 = tail call i32 @llvm.amdgcn.workgroup.id.z()
  %32 = zext i16 %13 to i32
  %33 = mul nsw i32 %31, %32
  %34 = add nsw i32 %33, %1
  %35 = icmp slt i32 %9, 3
  %36 = icmp slt i32 %30, 1
  %37 = and i1 %35, %36
  %38 = icmp slt i32 %34, 1
  %39 = and i1 %37, %38
  fence syncscope("workgroup") release
  tail call void @llvm.amdgcn.s.barrier()
  fence syncscope("workgroup") acquire
  br i1 %39, label %if.then, label %if.end

if.then:                                          ; preds = %entry
  %40 = add i32 %34, %30
  %41 = mul i32 %40, 3
  %42 = add i32 %41, %9
  %43 = uitofp i32 %9 to double
  %44 = tail call i64 @llvm.fptosi.sat.i64.f64(double %43)
  %45 = and i64 %44, 63
  %46 = lshr i64 1, %45
  %47 = tail call i32 @llvm.fptosi.sat.i32.f64(double %21)
  %48 = and i32 %47, 1
  %49 = insertelement <2 x i64> splat (i64 2147483647), i64 %46, i32 %48
  %50 = lshr i64 2, %45
  %51 = tail call i32 @llvm.fptosi.sat.i32.f64(double %26)
  %52 = and i32 %51, 1
  %53 = insertelement <2 x i64> %49, i64 %50, i32 %52
  %54 = extractelement <2 x i64> %53, i64 0
  %55 = icmp eq i64 %54, 0
  %56 = bitcast <2 x i64> %53 to <4 x i32>
  %57 = extractelement <4 x i32> %56, i64 2
  %58 = select i1 %55, i32 %57, i32 0
  %59 = shl i32 %42, 2
  %60 = or disjoint i32 %59, 3
  %61 = zext i32 %60 to i64
  %62 = getelementptr inbounds nuw i32, ptr addrspace(1) %out_u, i64 %61
  store i32 %58, ptr addrspace(1) %62, align 4
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

; Function Attrs: mustprogress nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none)
declare i32 @llvm.fptosi.sat.i32.f64(double) #3

; Function Attrs: mustprogress nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none)
declare i64 @llvm.fptosi.sat.i64.f64(double) #3

attributes #0 = { mustprogress nofree norecurse nounwind willreturn "amdgpu-agpr-alloc"="0" "amdgpu-flat-work-group-size"="1,2" "amdgpu-no-cluster-id-x" "amdgpu-no-cluster-id-y" "amdgpu-no-cluster-id-z" "amdgpu-no-completion-action" "amdgpu-no-default-queue" "amdgpu-no-dispatch-id" "amdgpu-no-flat-scratch-init" "amdgpu-no-heap-ptr" "amdgpu-no-hostcall-ptr" "amdgpu-no-implicitarg-ptr" "amdgpu-no-lds-kernel-id" "amdgpu-no-multigrid-sync-arg" "amdgpu-no-queue-ptr" "amdgpu-no-workgroup-id-x" "amdgpu-no-workitem-id-x" "uniform-work-group-size"="true" }
attributes #1 = { mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #2 = { convergent mustprogress nocallback nofree nounwind willreturn }
attributes #3 = { mustprogress nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none) }

!llvm.module.flags = !{!0}

!0 = !{i32 1, !"amdhsa_code_object_version", i32 500}
!1 = !{}
