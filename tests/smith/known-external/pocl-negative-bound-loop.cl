// PoCL 3.1 (Debian 12): in a kernel with a barrier, a loop whose bound is below zero for some
// work-items (they skip it) hands its uint variable's skipped value to the work-items that run it.
// Run: g++ pocl-run.cpp -o pocl-run -lOpenCL && ./pocl-run --uint pocl-negative-bound-loop.cl 2 1 2
// One 2x1x2 work-group: work-items with z = 0 run the loop three times (v = 0), those with z = 1
// not at all (v = 572). Right: 0 0 572 572. PoCL 3.1: 572 572 572 572. Right on PoCL with a float
// variable, with the float conversion of v stored instead of v, or with bounds that are never
// negative (counting from 0 to 3 and 0 to 0).
__kernel void t(__global const int* in, __global uint* out) {
  uint v = 572u;
  int n = get_global_id(2) != 0 ? -1 : 2;
  for (int k = -1; k < n; ++k) v = 0u;
  barrier(CLK_LOCAL_MEM_FENCE);
  out[get_global_id(0) + 2 * get_global_id(2)] = v;
}
