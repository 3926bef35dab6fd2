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
  long v0 = ((long)0xffffffffffffff9cul);
  double v1 = as_double(0x3fe0000000000000ul);
  uint v2 = 0x00000000u;
  double v3 = as_double(0x0000000000000000ul);
  uint v4 = 0x00000000u;
  __local volatile int s0[2];
  __local long s1[4];
  if (lid == 0) { s0[0] = ((int)0x00000020u); s0[1] = ((int)0x00000001u); }
  s1[lid] = ((long)0x0000000000000000ul);
  barrier(CLK_LOCAL_MEM_FENCE);
  { int k6 = 0;
  while (k6 < 2) {
    k6 += 1;
    { int end = norm_i(((int)get_local_id(1)), 4) + -3;
    for (int k7 = -3; k7 < end; ++k7) {
      v2 = 0xffffffffu;
    }}
  }}
  barrier(CLK_LOCAL_MEM_FENCE);
  { uint t = v2; if (inb) out_u[lin * 4 + 2] = t; }
}
