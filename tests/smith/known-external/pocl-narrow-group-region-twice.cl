// PoCL 3.1 (Debian 12): a work-group one work-item wide along x, with 3 or more along y, runs the
// code before a conditional loop twice for one work-item (kernel with a barrier). Run with
// `pocl-run pocl-narrow-group-region-twice.cl 1 5` (one 2-D work-group {1, 5}):
// out[0] is 6 (right: 5, one atomic_add per work-item). {1, 2}, {2, 3}, {3, 2}, {5, 1} and 1-D
// groups are right; {1, 3}, {1, 4}, {1, 6}, {1, 8} count one too many. The same with the loop's
// body a plain store; without the if, or without the loop, it is right.
__kernel void t(__global const int* in, __global float* out) { __global volatile int* c = (__global volatile int*)out; __global volatile int* m = c + 2; atomic_add(&c[1], 1); if (in[0] == 0) { int k = 0; while (k < 4) { k += 1; m[0] = k; } } barrier(CLK_LOCAL_MEM_FENCE); barrier(CLK_LOCAL_MEM_FENCE); if (get_local_id(1) == 0) out[0] = (float)c[1]; }
