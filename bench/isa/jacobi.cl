// One Jacobi sweep as rocjit's sample kernel computes it (rocjit's kernel ABI).
#pragma OPENCL FP_CONTRACT OFF  // rocjit does not contract a * b + c into fma either
__kernel void jacobi(__global const float* in, int in_shape0, int in_shape1, __global float* out, int out_shape0,
                     int out_shape1) {
  int j = get_group_id(0) * get_local_size(0) + get_local_id(0);
  int i = get_group_id(1) * get_local_size(1) + get_local_id(1);
  int rows = in_shape0, cols = in_shape1;
  if (i >= 1 && i < rows - 1 && j >= 1 && j < cols - 1)
    out[i * out_shape1 + j] = 0.25f * (in[(i - 1) * in_shape1 + j] + in[(i + 1) * in_shape1 + j] +
                                       in[i * in_shape1 + j - 1] + in[i * in_shape1 + j + 1]);
}
