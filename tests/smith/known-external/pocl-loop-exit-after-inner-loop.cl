// PoCL 3.1 (Debian 12): a loop left by a Break that comes after an inner loop, in a kernel with a
// barrier, ends with the last work-item's values in every work-item.
// Run: g++ pocl-run.cpp -o pocl-run -lOpenCL && ./pocl-run pocl-loop-exit-after-inner-loop.cl
// With in = {0, 0, 31, 101, 100} and one work-group of 4 work-items (lid 0..3), work-item lid
// leaves the outer loop when in[k] > 33 - lid: lid 3 at k = 2 (v = 16), the others at k = 3
// (v = 64). Right: 64 64 64 16. PoCL 3.1: 16 16 16 16. Without the barrier, or with the Break
// before the inner loop or inside it, PoCL is right.
__kernel void t(__global const int* in, __global float* out) {
  float v = 1.0f;
  int lid = (int)get_local_id(0);
  barrier(CLK_LOCAL_MEM_FENCE);
  int k = 0;
  while (k < 4) {
    k += 1;
    for (int j = 0; j < 2; ++j) v = v * 2.0f;
    if (in[k] > 33 - lid) break;
  }
  out[lid] = v;
}
