// matmul with 16x16 shared tiles as rocjit's sample kernel computes it (rocjit's kernel ABI,
// C-ordered 2-D arrays).
#pragma OPENCL FP_CONTRACT OFF  // rocjit does not contract a * b + c into fma either
#define TPB 16
__kernel __attribute__((amdgpu_flat_work_group_size(1, TPB * TPB)))
void matmul(__global const float* A, int A_shape0, int A_shape1, __global const float* B, int B_shape0,
            int B_shape1, __global float* C, int C_shape0, int C_shape1) {
  __local float sA[TPB][TPB];
  __local float sB[TPB][TPB];
  int tx = get_local_id(0), ty = get_local_id(1);
  int x = get_group_id(0) * TPB + tx, y = get_group_id(1) * TPB + ty;
  float acc = 0.0f;
  int tiles = (A_shape1 + TPB - 1) / TPB;
  for (int t = 0; t < tiles; ++t) {
    sA[ty][tx] = 0.0f;
    sB[ty][tx] = 0.0f;
    if (y < A_shape0 && t * TPB + tx < A_shape1) sA[ty][tx] = A[y * A_shape1 + t * TPB + tx];
    if (x < B_shape1 && t * TPB + ty < B_shape0) sB[ty][tx] = B[(t * TPB + ty) * B_shape1 + x];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int j = 0; j < TPB; ++j) acc += sA[ty][j] * sB[j][tx];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (y < C_shape0 && x < C_shape1) C[y * C_shape1 + x] = acc;
}
