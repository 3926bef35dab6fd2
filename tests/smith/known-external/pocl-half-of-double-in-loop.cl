// PoCL 3.1 (Debian 12): in a kernel with a barrier, a loop under a uniform If that has an else
// branch, whose body rounds a double to half and back (vstore_half_rte of a double, then
// vload_half), gives every work-item the last work-item's value of a variable set before the
// barrier (here `inb`).
// Run: g++ pocl-run.cpp -o pocl-run -lOpenCL && ./pocl-run pocl-half-of-double-in-loop.cl
// One work-group of 4 work-items, in = {0, 0, 31, 101, 100}: the If is taken by all.
// Right: 7 0 0 0. PoCL 3.1: 0 0 0 0 (every work-item has lid 3's inb = 0). Without the
// barrier, the loop, the else branch, or either of the two conversions, PoCL is right.
// In rocjit-smith the same bug made a work-item outside the logical extent store past the end
// of an output array (kernel 2027006731; reduced: pocl-seed-2027006731-reduced.cl).
static float rh(float x) { ushort h; vstore_half_rte(x, 0, (half*)&h); return vload_half(0, (const half*)&h); }
static float rhd(double x) { ushort h; vstore_half_rte(x, 0, (half*)&h); return vload_half(0, (const half*)&h); }
__kernel void t(__global const int* in, __global float* out) {
  int lid = (int)get_local_id(0);
  int inb = lid < 1;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (in[3] > 100) {
    for (int k = 0; k < 4; ++k) {
      float v = rh(rhd((double)lid));
      if (inb) out[0] = v;
    }
  } else {
    if (inb) out[1] = 2.0f;
  }
  if (inb) out[lid] = 7.0f;
}
