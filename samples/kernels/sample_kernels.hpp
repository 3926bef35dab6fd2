// The seven sample kernels, shared by the samples, the tests and the benchmarks. Each function
// traces its kernel when called.
#pragma once

#include <rocjit/rocjit.hpp>

namespace rocjit::samples {

using namespace rocjit::dsl;

inline constexpr int TPB = 16;            // matmul and transpose tile edge
inline constexpr int BLOCK = 256;         // 1-D block size of reverse, reduce, histogram
inline constexpr int HISTOGRAM_BINS = 256;
inline constexpr int SCAN_BLOCK = 256;    // scan_blocks and add_offsets

// y = a * x + y
// saxpy_with, matmul_with, jacobi_with: the same kernels with more KernelOptions (runtime
// specialisation in bench-specialize); their names and block limits stay fixed.
inline Kernel saxpy_with(KernelOptions options) {
  options.param_names = {"a", "x", "y"};
  return kernel("saxpy", [](Float a, Array<float> x, Array<float> y) {
    Int i = global_id(0);
    If(i < x.shape(0), [&] { y(i) = a * x(i) + y(i); });
  }, options);
}
inline Kernel saxpy() { return saxpy_with({}); }

// Reverses each block-sized chunk of `in` into `out` through shared memory.
inline Kernel reverse() {
  return kernel("reverse", [](Array<float> in, Array<float> out) {
    auto tile = shared::array<float>({BLOCK}, "tile");
    Int t = local_id(0);
    Int base = group_id(0) * BLOCK;
    Int n = in.shape(0);
    Int len = min(BLOCK, n - base);
    If(t < len, [&] { tile(t) = in(base + t); });
    barrier(CLK_LOCAL_MEM_FENCE);
    If(t < len, [&] { out(base + t) = tile(len - 1 - t); });
  }, {.max_block_size = BLOCK, .param_names = {"in", "out"}});
}

// C = A * B with 16x16 shared tiles; every work-item reaches every barrier (the bounds checks
// guard the loads and the store, not the barriers).
inline Kernel matmul_with(KernelOptions options) {
  options.max_block_size = TPB * TPB;
  options.param_names = {"A", "B", "C"};
  return kernel("matmul", [](Array<float, 2> A, Array<float, 2> B, Array<float, 2> C) {
    auto sA = shared::array<float>({TPB, TPB}, "sA");
    auto sB = shared::array<float>({TPB, TPB}, "sB");
    Int x = global_id(0), y = global_id(1), tx = local_id(0), ty = local_id(1);
    Var<float> acc = 0.0f;
    For(0, ceil_div(A.shape(1), TPB), [&](Int t) {
      sA(ty, tx) = 0.0f;
      sB(ty, tx) = 0.0f;
      If(y < A.shape(0) && t * TPB + tx < A.shape(1), [&] { sA(ty, tx) = A(y, t * TPB + tx); });
      If(x < B.shape(1) && t * TPB + ty < B.shape(0), [&] { sB(ty, tx) = B(t * TPB + ty, x); });
      barrier(CLK_LOCAL_MEM_FENCE);
      For(0, TPB, [&](Int j) { acc += sA(ty, j) * sB(j, tx); });
      barrier(CLK_LOCAL_MEM_FENCE);
    });
    If(y < C.shape(0) && x < C.shape(1), [&] { C(y, x) = acc; });
  }, options);
}
inline Kernel matmul() { return matmul_with({}); }

// sample-gemm: C = A . B with matrix-core operations (dsl::mma), T = half or bfloat16 inputs and
// float accumulation. A group of 4 waves (64 x 4 work-items) computes a 32 x 32 block of C, each
// wave one 16 x 16 tile; per step of 16 along K the group stages a 32 x 16 slice of A and a
// 16 x 32 slice of B in shared memory (zeros past the edges, so any size works), and each wave
// loads its fragments from there and accumulates.
inline constexpr int GEMM_TILE = 32;
template <class T>
Kernel gemm_mma() {
  return kernel("gemm_mma", [](Array<T, 2> A, Array<T, 2> B, Array<float, 2> C) {
    constexpr mma::Shape S{16, 16, 16};
    auto sA = shared::array<T>({GEMM_TILE, 16}, "sA");
    auto sB = shared::array<T>({16, GEMM_TILE}, "sB");
    Int m = A.shape(0), kdim = A.shape(1), n = B.shape(1);
    Int t = local_id(0) + 64 * local_id(1);  // 0 .. 255
    Int wave = local_id(1);
    Int tile_row = wave / 2 * 16, tile_col = wave % 2 * 16;  // the wave's tile in the block
    Int row0 = group_id(1) * GEMM_TILE, col0 = group_id(0) * GEMM_TILE;
    mma::A<T> a(S);
    mma::B<T> b(S);
    mma::Accumulator<float> acc(S, 0.0f);
    For(0, kdim, 16, [&](Int k0) {
      for (int half_of = 0; half_of < 2; ++half_of) {  // 512 elements of each slice, 2 per work-item
        Int e = t + 256 * half_of;
        Int ar = e / 16, ac = e % 16, br = e / GEMM_TILE, bc = e % GEMM_TILE;
        Var<T> x = 0.0f, y = 0.0f;
        If(row0 + ar < m && k0 + ac < kdim, [&] { x = A(row0 + ar, k0 + ac); });
        If(k0 + br < kdim && col0 + bc < n, [&] { y = B(k0 + br, col0 + bc); });
        sA(ar, ac) = x;
        sB(br, bc) = y;
      }
      barrier(CLK_LOCAL_MEM_FENCE);
      mma::load(a, sA, tile_row, 0);
      mma::load(b, sB, 0, tile_col);
      mma::mma(acc, a, b);
      barrier(CLK_LOCAL_MEM_FENCE);
    });
    for (unsigned e = 0; e < acc.size(); ++e) {
      Int r = row0 + tile_row + acc.row(e), c = col0 + tile_col + acc.col(e);
      If(r < m && c < n, [&] { C(r, c) = acc[e]; });
    }
  }, {.max_block_size = 256, .param_names = {"A", "B", "C"}});
}

// sample-attention: one head of flash attention's forward pass, O = softmax(Q Kᵀ · scale) V, with
// matrix-core operations. Q, K, V are n x D (half), O is n x D (float); D is a multiple of 16.
// One wave per 16 query rows: for each block of 16 keys, S = Q Kᵀ with mma (D / 16 steps), the
// running row maximum and sum updated in registers (rows reduced across the 16 lanes that hold
// them with shuffle_xor), P = exp(S - max) handed through shared memory from the accumulator's
// layout to an A fragment, and O += P V with mma. Keys and queries past n are masked.
template <int D>
Kernel attention_mma() {
  static_assert(D % 16 == 0, "the head dimension is a multiple of 16");
  return kernel("attention_mma", [](Array<half, 2> Q, Array<half, 2> K, Array<half, 2> V, Array<float, 2> O,
                                    Float scale) {
    constexpr mma::Shape S{16, 16, 16};
    constexpr int chunks = D / 16;
    constexpr float masked = -1e30f;
    Int n = Q.shape(0);
    Int q0 = group_id(0) * 16;
    auto sP = shared::array<half>({16, 16}, "sP");
    // This wave's 16 rows of Q, one A fragment per 16 columns (zeros past n).
    std::vector<mma::A<half>> q;
    std::vector<mma::Accumulator<float>> o;
    q.reserve(chunks);
    o.reserve(chunks);
    for (int c = 0; c < chunks; ++c) {
      q.emplace_back(S);
      o.emplace_back(S, 0.0f);
      for (unsigned e = 0; e < q[c].size(); ++e) {
        Var<half> x = 0.0f;
        Int r = q0 + q[c].row(e);
        If(r < n, [&] { x = Q(r, 16 * c + q[c].col(e)); });
        q[c].set(e, x);
      }
    }
    // The running maximum and sum of the rows this lane's accumulator elements belong to (element
    // e of every 16 x 16 accumulator is row 4 * (lane / 16) + e).
    std::vector<Var<float>> row_max, row_sum;
    row_max.reserve(4);
    row_sum.reserve(4);
    for (int e = 0; e < 4; ++e) {
      row_max.emplace_back(masked);
      row_sum.emplace_back(0.0f);
    }
    For(0, n, 16, [&](Int k0) {
      mma::Accumulator<float> s(S, 0.0f);
      for (int c = 0; c < chunks; ++c) {
        mma::B<half> kt(S);  // Kᵀ: element (d, key) is K(key, d)
        for (unsigned e = 0; e < kt.size(); ++e) {
          Var<half> x = 0.0f;
          Int key = k0 + kt.col(e);
          If(key < n, [&] { x = K(key, 16 * c + kt.row(e)); });
          kt.set(e, x);
        }
        mma::mma(s, q[c], kt);
      }
      for (unsigned e = 0; e < s.size(); ++e) {
        Value v = select(k0 + s.col(e) < n, s[e] * scale, masked);
        Value top = v;
        for (int x = 1; x < 16; x <<= 1) top = fmax(top, wave::shuffle_xor(top, x));
        Value m_new = fmax(row_max[e], top);
        Value p = exp(v - m_new);
        Value sum = p;
        for (int x = 1; x < 16; x <<= 1) sum = sum + wave::shuffle_xor(sum, x);
        Value alpha = exp(row_max[e] - m_new);
        row_sum[e] = row_sum[e] * alpha + sum;
        row_max[e] = m_new;
        for (int c = 0; c < chunks; ++c) o[c].set(e, o[c][e] * alpha);
        sP(s.row(e), s.col(e)) = cast<half>(p);
      }
      wavebarrier();
      mma::A<half> pa(S);
      mma::load(pa, sP, 0, 0);
      wavebarrier();
      for (int c = 0; c < chunks; ++c) {
        mma::B<half> vb(S);
        for (unsigned e = 0; e < vb.size(); ++e) {
          Var<half> x = 0.0f;
          Int key = k0 + vb.row(e);
          If(key < n, [&] { x = V(key, 16 * c + vb.col(e)); });
          vb.set(e, x);
        }
        mma::mma(o[c], pa, vb);
      }
    });
    for (int c = 0; c < chunks; ++c)
      for (unsigned e = 0; e < o[c].size(); ++e) {
        Int r = q0 + o[c].row(e);
        If(r < n, [&] { O(r, 16 * c + o[c].col(e)) = o[c][e] / row_sum[e]; });
      }
  }, {.max_block_size = 64, .param_names = {"Q", "K", "V", "O", "scale"}});
}

// partial(g) = sum of in over block g: a shared-memory tree with group barriers down to 32
// partial sums, then wave::reduce_add finishes in the first wavefront (32 or 64 lanes: the 32
// partial sums are in it either way).
inline Kernel reduce() {
  return kernel("reduce", [](Array<float> in, Array<float> partial) {
    auto sums = shared::array<float>({BLOCK}, "sums");
    Int t = local_id(0);
    Int i = global_id(0);
    // Work-items past the end contribute 0. (Not select(i < n, in(i), 0.0f): both sides of a
    // select are evaluated, so that would read in(i) out of bounds in the last block.)
    sums(t) = 0.0f;
    If(i < in.shape(0), [&] { sums(t) = in(i); });
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = BLOCK / 2; s >= 32; s /= 2) {  // unrolled while tracing
      If(t < s, [&] { sums(t) += sums(t + s); });
      barrier(CLK_LOCAL_MEM_FENCE);
    }
    Var<float> last = 0.0f;
    If(t < 32, [&] { last = sums(t); });
    Float total = wave::reduce_add(last);
    If(t == 0, [&] { partial(group_id(0)) = total; });
  }, {.max_block_size = BLOCK, .param_names = {"in", "partial"}});
}

// sample-scan's first pass: out(i) = in(0) + ... + in(i - 1) within i's block of SCAN_BLOCK,
// totals(g) = the sum of block g. Wave scans per wavefront, one more wave scan over the
// wavefronts' totals in shared memory, Return() past the end once the wave operations are done.
inline Kernel scan_blocks() {
  return kernel("scan_blocks", [](Array<int32_t> in, Array<int32_t> out, Array<int32_t> totals) {
    // One total per wavefront: at most SCAN_BLOCK / 32 of them (wave32).
    auto wave_totals = shared::array<int32_t>({SCAN_BLOCK / 32}, "wave_totals");
    Int t = local_id(0);
    Int i = global_id(0);
    Int n = in.shape(0);
    Var<int32_t> v = 0;
    If(i < n, [&] { v = in(i); });
    Int inclusive = wave::inclusive_scan_add(v);
    Int wave = t / wave_size();
    If(lane_id() == wave_size() - 1, [&] { wave_totals(wave) = inclusive; });
    barrier(CLK_LOCAL_MEM_FENCE);
    // Every wavefront scans the wavefronts' totals (a few lanes' worth) and takes its own offset.
    Int waves = local_size(0) / wave_size();
    Var<int32_t> total = 0;
    If(lane_id() < waves, [&] { total = wave_totals(lane_id()); });
    Int offsets = wave::exclusive_scan_add(total);
    Int offset = wave::broadcast(offsets, wave);
    Int block_total = wave::reduce_add(total);
    If(i >= n, [&] { Return(); });
    out(i) = offset + inclusive - v;
    If(t == 0, [&] { totals(group_id(0)) = block_total; });
  }, {.max_block_size = SCAN_BLOCK, .param_names = {"in", "out", "totals"}});
}

// sample-scan's last pass: out(i) += offsets(i's block).
inline Kernel add_offsets() {
  return kernel("add_offsets", [](Array<int32_t> out, Array<int32_t> offsets) {
    Int i = global_id(0);
    If(i >= out.shape(0), [&] { Return(); });
    out(i) = out(i) + offsets(group_id(0));
  }, {.max_block_size = SCAN_BLOCK, .param_names = {"out", "offsets"}});
}

// out = in^T through a 16x17 shared tile (the padding avoids LDS bank conflicts).
inline Kernel transpose() {
  return kernel("transpose", [](Array<float, 2> in, Array<float, 2> out) {
    auto tile = shared::array<float>({TPB, TPB + 1}, "tile");
    Int tx = local_id(0), ty = local_id(1);
    Int x = group_id(0) * TPB + tx, y = group_id(1) * TPB + ty;
    If(y < in.shape(0) && x < in.shape(1), [&] { tile(ty, tx) = in(y, x); });
    barrier(CLK_LOCAL_MEM_FENCE);
    Int ox = group_id(1) * TPB + tx, oy = group_id(0) * TPB + ty;
    If(oy < out.shape(0) && ox < out.shape(1), [&] { out(oy, ox) = tile(tx, ty); });
  }, {.max_block_size = TPB * TPB, .param_names = {"in", "out"}});
}

// hist(b) += count of data values v with v % 256 == b: per-group counts in shared memory
// with shared atomics, merged into the global histogram with global atomics.
inline Kernel histogram() {
  return kernel("histogram", [](Array<uint32_t> data, Array<uint32_t> hist) {
    auto counts = shared::array<uint32_t>({HISTOGRAM_BINS}, "counts");
    Int t = local_id(0);
    Int threads = local_size(0);
    For(t, HISTOGRAM_BINS, threads, [&](Int b) { counts(b) = 0u; });
    barrier(CLK_LOCAL_MEM_FENCE);
    For(global_id(0), data.shape(0), global_size(0), [&](Int i) {
      atomic::add(counts, data(i) % HISTOGRAM_BINS, 1u);
    });
    barrier(CLK_LOCAL_MEM_FENCE);
    For(t, HISTOGRAM_BINS, threads, [&](Int b) {
      UInt c = counts(b);
      If(c != 0u, [&] { atomic::add(hist, b, c); });
    });
  }, {.max_block_size = BLOCK, .param_names = {"data", "hist"}});
}

// One Jacobi sweep of the 5-point Laplace stencil on the interior of a 2-D grid.
inline Kernel jacobi_with(KernelOptions options) {
  options.param_names = {"in", "out"};
  return kernel("jacobi", [](Array<float, 2> in, Array<float, 2> out) {
    Int j = global_id(0), i = global_id(1);
    Int rows = in.shape(0), cols = in.shape(1);
    If(i >= 1 && i < rows - 1 && j >= 1 && j < cols - 1, [&] {
      out(i, j) = 0.25f * (in(i - 1, j) + in(i + 1, j) + in(i, j - 1) + in(i, j + 1));
    });
  }, options);
}
inline Kernel jacobi() { return jacobi_with({}); }

namespace detail {
// Body j's position and mass: one vload<4> (one 16-byte load) or four scalar loads.
inline Vec<float, 4> nbody_read(const Array<float>& p, const Int& j, bool vector_loads) {
  return vector_loads ? p.vload<4>(j) : Vec<float, 4>(p(4 * j), p(4 * j + 1), p(4 * j + 2), p(4 * j + 3));
}
// Adds body pj's pull on body pi to (ax, ay, az).
inline void nbody_pull(const Vec<float, 4>& pi, const Vec<float, 4>& pj, Var<float>& ax, Var<float>& ay,
                       Var<float>& az) {
  Vec<float, 4> d = pj - pi;
  Float r2 = d.x() * d.x() + d.y() * d.y() + d.z() * d.z() + 0.01f;
  Float s = pj.w() * rsqrt(r2 * r2 * r2);
  ax += d.x() * s;
  ay += d.y() * s;
  az += d.z() * s;
}
}  // namespace detail

// One N-body step: the acceleration of body i from all bodies, positions and masses as x, y, z,
// m in four consecutive floats. `vector_loads` reads each body with one vload<4> (one 16-byte
// load) instead of four scalar loads; both compute the same operations in the same order.
inline Kernel nbody(bool vector_loads) {
  return kernel(vector_loads ? "nbody_vload4" : "nbody_scalar", [vector_loads](Array<float> p, Array<float> acc) {
    Int i = global_id(0);
    Int n = p.shape(0) / 4;
    If(i < n, [&] {
      Vec<float, 4> pi = p.vload<4>(i);
      Var<float> ax = 0.0f, ay = 0.0f, az = 0.0f;
      For(0, n, [&](Int j) { detail::nbody_pull(pi, detail::nbody_read(p, j, vector_loads), ax, ay, az); });
      acc.vstore(i, Vec<float, 4>(ax, ay, az, 0.0f));
    });
  }, {.param_names = {"pos", "acc"}});
}

// The same interaction over a neighbour list, as cell-list N-body codes do: work-item i reads the
// k bodies nbr(i*k ... i*k+k-1), a different body in every lane (a gather).
inline Kernel nbody_neighbours(bool vector_loads) {
  return kernel(vector_loads ? "gather_vload4" : "gather_scalar",
                [vector_loads](Array<float> p, Array<int32_t> nbr, Array<float> acc, Int k) {
    Int i = global_id(0);
    Vec<float, 4> pi = p.vload<4>(i);
    Var<float> ax = 0.0f, ay = 0.0f, az = 0.0f;
    For(0, k, [&](Int m) { detail::nbody_pull(pi, detail::nbody_read(p, nbr(i * k + m), vector_loads), ax, ay, az); });
    acc.vstore(i, Vec<float, 4>(ax, ay, az, 0.0f));
  }, {.param_names = {"pos", "nbr", "acc", "k"}});
}

}  // namespace rocjit::samples
