// histogram as rocjit's sample kernel computes it: shared counts with local atomics, grid-stride
// loop, merged with global atomics (rocjit's kernel ABI).
#pragma OPENCL FP_CONTRACT OFF  // rocjit does not contract a * b + c into fma either
#define BLOCK 256
#define BINS 256
__kernel __attribute__((amdgpu_flat_work_group_size(1, BLOCK)))
void histogram(__global const uint* data, int data_shape0, __global uint* hist, int hist_shape0) {
  __local uint counts[BINS];
  int t = get_local_id(0);
  int threads = get_local_size(0);
  for (int b = t; b < BINS; b += threads) counts[b] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  int stride = get_num_groups(0) * get_local_size(0);
  for (int i = get_group_id(0) * get_local_size(0) + t; i < data_shape0; i += stride)
    atomic_add(&counts[data[i] % BINS], 1u);
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int b = t; b < BINS; b += threads) {
    uint c = counts[b];
    if (c != 0) atomic_add(&hist[b], c);
  }
}
