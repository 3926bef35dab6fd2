#pragma OPENCL FP_CONTRACT OFF
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable
// rocjit's total integer semantics, spelled out (OpenCL C leaves these undefined).
#define SMITH_INT(T, UT, MINV, W, N) \
  static T add_##N(T a, T b) { return (T)((UT)a + (UT)b); } \
  static T sub_##N(T a, T b) { return (T)((UT)a - (UT)b); } \
  static T mul_##N(T a, T b) { return (T)((UT)a * (UT)b); } \
  static T neg_##N(T a) { return (T)((UT)0 - (UT)a); } \
  static T div_##N(T a, T b) { return b == 0 ? (T)0 : (a == MINV && b == (T)-1) ? a : a / b; } \
  static T rem_##N(T a, T b) { return b == 0 ? a : (a == MINV && b == (T)-1) ? (T)0 : a % b; } \
  static T shl_##N(T a, T b) { return (T)((UT)a << ((UT)b & (W - 1))); } \
  static T shr_##N(T a, T b) { return a >> ((UT)b & (W - 1)); } \
  static T abs_##N(T a) { return a < (T)0 ? neg_##N(a) : a; }
SMITH_INT(int, uint, INT_MIN, 32, i)
SMITH_INT(uint, uint, 0u, 32, u)
SMITH_INT(long, ulong, LONG_MIN, 64, l)
static int norm_i(int e, int n) { return ((e % n) + n) % n; }
__kernel void smith(__global int* in_i, __global uint* in_u, __global long* in_l, __global float* in_f, __global double* in_d, __global int* out_i, __global uint* out_u, __global long* out_l, __global float* out_f, __global double* out_d, __global float* ap_f, __global double* ap_d, __global volatile int* at_i, __global volatile uint* at_u, __global volatile long* at_l) {
  int lid = (int)get_local_id(0) + 1 * ((int)get_local_id(1) + 4 * (int)get_local_id(2));
  int gx = (int)get_global_id(0), gy = (int)get_global_id(1), gz = (int)get_global_id(2);
  int lin = gx + 1 * (gy + 1 * gz);
  int inb = gx < 1 && gy < 1 && gz < 1;
  long v0 = ((long)0x0000000000000000ul);
  uint v1 = 0x00000000u;
  float v2 = as_float(0x355661c6u);
  uint v3 = ((uint)((int)get_local_id(1)));
  long v4 = ((long)0x0000000000000000ul);
  long v5 = ((long)0xd4413d2b26e772c7ul);
  __local long s0[4];
  uint p0[5];
  for (int t = 0; t < 5; ++t) p0[t] = 0xffffff67u;
  s0[lid] = ((long)0x0000000000000000ul);
  barrier(CLK_LOCAL_MEM_FENCE);
  barrier(CLK_LOCAL_MEM_FENCE);
  { int k7 = 0;
  while (k7 < 4) {
    k7 += 1;
    { int k8 = 0;
    while (k8 < 2) {
      k8 += 1;
      v2 = (v2 * as_float(0x42834000u));
    }}
    if ((in_d[norm_i(in_i[norm_i(k7, 35)], 35)] > (as_double(0x0000000000000000ul) - ((double)v3)))) break;
  }}
  barrier(CLK_LOCAL_MEM_FENCE);
  { float t = v2; if (inb) out_f[lin * 2 + 1] = t; }
}
