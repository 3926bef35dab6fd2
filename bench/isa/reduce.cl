// reduce as rocjit's sample kernel computes it: a shared tree with barriers down to 64 sums,
// then a wave-level finish ordered only within the wavefront (rocjit's kernel ABI).
#pragma OPENCL FP_CONTRACT OFF  // rocjit does not contract a * b + c into fma either
#define BLOCK 256
__kernel __attribute__((amdgpu_flat_work_group_size(1, BLOCK)))
void reduce(__global const float* in, int in_shape0, __global float* partial, int partial_shape0) {
  __local float sums[BLOCK];
  int t = get_local_id(0);
  int i = get_group_id(0) * BLOCK + t;
  sums[t] = 0.0f;
  if (i < in_shape0) sums[t] = in[i];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int s = BLOCK / 2; s > 32; s /= 2) {
    if (t < s) sums[t] += sums[t + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  for (int s = 32; s > 0; s /= 2) {
    if (t < s) sums[t] += sums[t + s];
    __builtin_amdgcn_fence(__ATOMIC_RELEASE, "wavefront");
    __builtin_amdgcn_wave_barrier();
    __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "wavefront");
  }
  if (t == 0) partial[get_group_id(0)] = sums[0];
}
