// saxpy as rocjit's sample kernel computes it, with rocjit's kernel ABI (array: pointer, then
// one int extent per dimension). Ids from group id, size and local id (no global offset).
#pragma OPENCL FP_CONTRACT OFF  // rocjit does not contract a * b + c into fma either
__kernel void saxpy(float a, __global const float* x, int x_shape0, __global float* y, int y_shape0) {
  int i = get_group_id(0) * get_local_size(0) + get_local_id(0);
  if (i < x_shape0) y[i] = a * x[i] + y[i];
}
