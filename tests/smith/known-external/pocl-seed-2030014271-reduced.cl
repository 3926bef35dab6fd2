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
// f16 emulated in float: round to the nearest binary16 value (ties to even), from a float (rh) or
// directly from a double (rhd).
// (OpenCL 1.2 allows half only behind pointers, hence the ushort.)
static float rh(float x) { ushort h; vstore_half_rte(x, 0, (half*)&h); return vload_half(0, (const half*)&h); }
static float rhd(double x) { ushort h; vstore_half_rte(x, 0, (half*)&h); return vload_half(0, (const half*)&h); }
__kernel void smith(__global int* in_i, __global uint* in_u, __global long* in_l, __global float* in_f, __global double* in_d, __global int* out_i, __global uint* out_u, __global long* out_l, __global float* out_f, __global double* out_d, __global float* ap_f, __global double* ap_d, __global volatile int* at_i, __global volatile uint* at_u, __global volatile long* at_l) {
  int lid = (int)get_local_id(0) + 1 * ((int)get_local_id(1) + 1 * (int)get_local_id(2));
  int gx = (int)get_global_id(0), gy = (int)get_global_id(1), gz = (int)get_global_id(2);
  int lin = gx + 1 * (gy + 1 * gz);
  int inb = gx < 1 && gy < 1 && gz < 1;
  float v0 = as_float(0x00000000u);
  v0 = (v0 / as_float(0x00000000u));
  { double t = ceil(((double)v0)); if (inb) out_d[lin * 3 + 0] = t; }
}
