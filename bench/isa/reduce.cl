// reduce as rocjit's sample kernel computes it (rocjit's kernel ABI): a shared tree with barriers
// down to 32 sums, then wave::reduce_add as rocjit lowers it: lane l adds lane l + k's value
// (ds_bpermute) where that lane exists, for k = 1, 2, 4, ... below the wave size, and the first
// lane's sum goes to every lane.
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
  for (int s = BLOCK / 2; s >= 32; s /= 2) {
    if (t < s) sums[t] += sums[t + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  float r = 0.0f;
  if (t < 32) r = sums[t];
  const uint wave = __builtin_amdgcn_wavefrontsize();
  const uint lane = wave == 32 ? __builtin_amdgcn_mbcnt_lo(~0u, 0u)
                               : __builtin_amdgcn_mbcnt_hi(~0u, __builtin_amdgcn_mbcnt_lo(~0u, 0u));
  const ulong active = __builtin_amdgcn_read_exec();
  for (uint k = 1; k < wave; k <<= 1) {
    const uint from = lane + k;
    const float y = as_float(__builtin_amdgcn_ds_bpermute((int)(from << 2), as_int(r)));
    if (from < wave && ((active >> (from & 63)) & 1)) r = r + y;
  }
  const float total = as_float(__builtin_amdgcn_readfirstlane(as_int(r)));
  if (t == 0) partial[get_group_id(0)] = total;
}
