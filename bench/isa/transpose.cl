// transpose through a 16x17 shared tile as rocjit's sample kernel computes it (rocjit's ABI).
#pragma OPENCL FP_CONTRACT OFF  // rocjit does not contract a * b + c into fma either
#define TPB 16
__kernel __attribute__((amdgpu_flat_work_group_size(1, TPB * TPB)))
void transpose(__global const float* in, int in_shape0, int in_shape1, __global float* out, int out_shape0,
               int out_shape1) {
  __local float tile[TPB][TPB + 1];
  int tx = get_local_id(0), ty = get_local_id(1);
  int x = get_group_id(0) * TPB + tx, y = get_group_id(1) * TPB + ty;
  if (y < in_shape0 && x < in_shape1) tile[ty][tx] = in[y * in_shape1 + x];
  barrier(CLK_LOCAL_MEM_FENCE);
  int ox = get_group_id(1) * TPB + tx, oy = get_group_id(0) * TPB + ty;
  if (oy < out_shape0 && ox < out_shape1) out[oy * out_shape1 + ox] = tile[tx][ty];
}
