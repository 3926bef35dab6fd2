// Kernels written in OpenCL C and compiled by clang-22 when the tests are built
// (tests/e2e/CMakeLists.txt): code objects rocjit did not build, for prebuilt_tests.cpp. They use
// only clang's AMDGPU builtins, so no device library is needed for any processor.
__attribute__((reqd_work_group_size(64, 1, 1)))
__kernel void saxpy(float a, __global const float* x, __global float* y, int n) {
  int i = (int)(__builtin_amdgcn_workgroup_id_x() * 64 + __builtin_amdgcn_workitem_id_x());
  if (i < n) y[i] = a * x[i] + y[i];
}

__kernel void scale_long(__global long* v, long factor, uchar shift) {
  size_t i = __builtin_amdgcn_workitem_id_x();
  v[i] = (v[i] * factor) << shift;
}
