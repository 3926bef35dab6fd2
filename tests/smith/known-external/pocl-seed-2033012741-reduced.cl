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
SMITH_INT(char, uint, CHAR_MIN, 8, c)
SMITH_INT(uchar, uint, (uchar)0, 8, uc)
SMITH_INT(short, uint, SHRT_MIN, 16, s)
SMITH_INT(ushort, uint, (ushort)0, 16, us)
static int norm_i(int e, int n) { return ((e % n) + n) % n; }
// PoCL 3.1 folds floor and ceil of a constant NaN to 0 (tests/smith/known-external.md): NaN goes
// around them, the same value OpenCL C defines.
static float floor_f(float x) { return isnan(x) ? x : floor(x); }
static float ceil_f(float x) { return isnan(x) ? x : ceil(x); }
static double floor_d(double x) { return isnan(x) ? x : floor(x); }
static double ceil_d(double x) { return isnan(x) ? x : ceil(x); }
// f16 emulated in float: round to the nearest binary16 value (ties to even), from a float (rh) or
// directly from a double (rhd).
// (OpenCL 1.2 allows half only behind pointers, hence the ushort.)
static float rh(float x) { ushort h; vstore_half_rte(x, 0, (half*)&h); return vload_half(0, (const half*)&h); }
static float rhd(double x) { ushort h; vstore_half_rte(x, 0, (half*)&h); return vload_half(0, (const half*)&h); }
__kernel void smith(__global int* in_i, __global uint* in_u, __global long* in_l, __global float* in_f, __global double* in_d, __global int* out_i, __global uint* out_u, __global long* out_l, __global float* out_f, __global double* out_d, __global float* ap_f, __global double* ap_d, __global volatile int* at_i, __global volatile uint* at_u, __global volatile long* at_l) {
  int lid = (int)get_local_id(0) + 2 * ((int)get_local_id(1) + 1 * (int)get_local_id(2));
  int gx = (int)get_global_id(0), gy = (int)get_global_id(1), gz = (int)get_global_id(2);
  int lin = gx + 1 * (gy + 1 * gz);
  int inb = gx < 1 && gy < 1 && gz < 1;
  uint v0 = 0x0000023cu;
  __local int s0[4];
  s0[lid] = ((int)convert_uchar_sat_rtz(in_d[norm_i(((((int)get_global_id(2)) != 0) ? ((int)0x00000000u) : div_i(((int)0x00bc614eu), ((int)v0))), 3)]));
  { int end = norm_i(s0[lid], 4) + -1;
  for (int k0 = -1; k0 < end; ++k0) {
    v0 = 0x00000000u;
  }}
  barrier(CLK_LOCAL_MEM_FENCE);
  { uint t = v0; if (inb) out_u[lin * 4 + 3] = t; }
}
