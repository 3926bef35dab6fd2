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
  int lid = (int)get_local_id(0) + 2 * ((int)get_local_id(1) + 1 * (int)get_local_id(2));
  int gx = (int)get_global_id(0), gy = (int)get_global_id(1), gz = (int)get_global_id(2);
  int lin = gx + 6 * (gy + 1 * gz);
  int inb = gx < 6 && gy < 1 && gz < 1;
  double v0 = ((double)((int)get_global_id(0)));
  __local long s0[2];
  double p0[4];
  for (int t = 0; t < 4; ++t) p0[t] = as_double(0x3fb999999999999aul);
  s0[lid] = convert_long_sat_rtz(as_double(0x46293e5939a08ceaul));
  barrier(CLK_LOCAL_MEM_FENCE);
  { int t = norm_i(((int)0x00000000u), 4); p0[t] = (((double)((int)get_group_id(0))) / in_d[norm_i(((int)s0[norm_i(((int)0x00000000u), 2)]), 39)]); }
  { int end = norm_i(((int)0x00000002u), 5) + -3;
  for (int k0 = -3; k0 < end; ++k0) {
    { int k1 = 0;
    while (k1 < 4) {
      k1 += 1;
      atom_xor(&at_l[1], ((long)0x0000000000000000ul));
    }}
    if ((convert_int_sat_rtz(p0[norm_i(((int)get_global_id(0)), 4)]) >= ((int)0xe6a16ca8u))) {
      if (1) break;
    }
    { int k4 = 0;
    while (k4 < 1) {
      k4 += 1;
      { int t = norm_i(in_i[norm_i(((int)0x00000000u), 39)], 4); p0[t] = ((double)as_float(0xc0200000u)); }
    }}
  }}
  barrier(CLK_LOCAL_MEM_FENCE);
  { int end = norm_i(convert_int_sat_rtz(p0[norm_i(((int)0x7da5aecau), 4)]), 4) + 0;
  for (int k10 = 0; k10 < end; ++k10) {
    v0 = as_double(0x0000000000000000ul);
  }}
  barrier(CLK_LOCAL_MEM_FENCE);
  { double t = v0; if (inb) out_d[lin * 2 + 1] = t; }
}
