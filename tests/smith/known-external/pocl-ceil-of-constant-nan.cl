#pragma OPENCL EXTENSION cl_khr_fp64 : enable
// PoCL 3.1 (Debian 12) folds floor, ceil, trunc, round and rint of a constant NaN to 0, in float and
// double; fabs and sqrt keep the NaN, and a NaN computed at run time is right. Run with pocl-run.cpp:
// prints 0 0 0 0 (right: nan nan nan nan).
__kernel void t(__global const int* in, __global float* out) {
  int i = get_global_id(0);
  float v = as_float(0u);
  v = v / as_float(0u);
  out[i] = (float)ceil((double)v);
}
