// sample-gemm's kernel (rocjit::samples::gemm_mma<half>) as clang compiles it with the MFMA builtin:
// the same block of 32 x 32 per group of 4 waves, the same staging of A and B slices in LDS with
// zeros past the edges, one v_mfma_f32_16x16x16f16 per wave per step of 16 along K (rocjit's
// kernel ABI, C-ordered 2-D arrays). Fragments in the CDNA single-block layout, as rocjit's.
// Compiled without the device libraries (-nogpulib: Debian has them for gfx90a and gfx1030 only),
// so work-item ids and the barrier are clang's AMDGPU builtins, as the libraries' own are.
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#define local_id(d) (d == 0 ? __builtin_amdgcn_workitem_id_x() : __builtin_amdgcn_workitem_id_y())
#define group_id(d) (d == 0 ? __builtin_amdgcn_workgroup_id_x() : __builtin_amdgcn_workgroup_id_y())
#define BARRIER()                                        \
  do {                                                   \
    __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup"); \
    __builtin_amdgcn_s_barrier();                        \
    __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup"); \
  } while (0)
#define TILE 32
typedef half half4v __attribute__((ext_vector_type(4)));
typedef float float4v __attribute__((ext_vector_type(4)));
__kernel __attribute__((amdgpu_flat_work_group_size(1, 256)))
void gemm_mma(__global const half* A, int A_shape0, int A_shape1, __global const half* B, int B_shape0,
              int B_shape1, __global float* C, int C_shape0, int C_shape1) {
  __local half sA[TILE][16];
  __local half sB[16][TILE];
  int m = A_shape0, kdim = A_shape1, n = B_shape1;
  int t = local_id(0) + 64 * local_id(1);
  int wave = local_id(1);
  int tile_row = wave / 2 * 16, tile_col = wave % 2 * 16;
  int row0 = group_id(1) * TILE, col0 = group_id(0) * TILE;
  int lane = t & 63;
  float4v acc = 0.0f;
  for (int k0 = 0; k0 < kdim; k0 += 16) {
    for (int h = 0; h < 2; ++h) {
      int e = t + 256 * h;
      int ar = e / 16, ac = e % 16, br = e / TILE, bc = e % TILE;
      half x = 0.0h, y = 0.0h;
      if (row0 + ar < m && k0 + ac < kdim) x = A[(row0 + ar) * A_shape1 + k0 + ac];
      if (k0 + br < kdim && col0 + bc < n) y = B[(k0 + br) * B_shape1 + col0 + bc];
      sA[ar][ac] = x;
      sB[br][bc] = y;
    }
    BARRIER();
    half4v a, b;
    for (int i = 0; i < 4; ++i) {
      a[i] = sA[tile_row + (lane & 15)][(lane >> 4) * 4 + i];
      b[i] = sB[(lane >> 4) * 4 + i][tile_col + (lane & 15)];
    }
    acc = __builtin_amdgcn_mfma_f32_16x16x16f16(a, b, acc, 0, 0, 0);
    BARRIER();
  }
  for (int i = 0; i < 4; ++i) {
    int r = row0 + tile_row + (lane >> 4) * 4 + i, c = col0 + tile_col + (lane & 15);
    if (r < m && c < n) C[r * C_shape1 + c] = acc[i];
  }
}
