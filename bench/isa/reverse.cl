// reverse as rocjit's sample kernel computes it (rocjit's kernel ABI).
#pragma OPENCL FP_CONTRACT OFF  // rocjit does not contract a * b + c into fma either
#define BLOCK 256
__kernel __attribute__((amdgpu_flat_work_group_size(1, BLOCK)))
void reverse(__global const float* in, int in_shape0, __global float* out, int out_shape0) {
  __local float tile[BLOCK];
  int t = get_local_id(0);
  int base = get_group_id(0) * BLOCK;
  int len = min(BLOCK, in_shape0 - base);
  if (t < len) tile[t] = in[base + t];
  barrier(CLK_LOCAL_MEM_FENCE);
  if (t < len) out[base + t] = tile[len - 1 - t];
}
