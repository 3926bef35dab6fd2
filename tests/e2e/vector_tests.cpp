// Vec<T, N> and the vector accesses vload/vstore on the device under test: every lane type that
// vectors take, 2, 3 and 4 lanes, global, shared and local arrays. Lane-wise arithmetic must give
// exactly the scalar operations' results, so a kernel written with vload<4> and its scalar twin
// agree to the bit (the N-body test).
#include <catch2/catch.hpp>

#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "e2e.hpp"
#include "sample_kernels.hpp"

using namespace rocjit;
using namespace rocjit::dsl;

namespace {

std::vector<float> random_floats(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-4.0f, 4.0f);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

}  // namespace

TEST_CASE("vload<4> and vstore move four floats at a time; lane-wise arithmetic is the scalar one") {
  const int vectors = 300;  // not a multiple of the block
  std::vector<float> a = random_floats(4 * vectors, 1), b = random_floats(4 * vectors, 2);
  Kernel k = kernel("vec4_axpb", [](Array<float> x, Array<float> y, Array<float> out) {
    Int i = global_id(0);
    If(i < x.shape(0) / 4, [&] {
      Vec<float, 4> u = x.vload<4>(i), v = y.vload<4>(i);
      Vec<float, 4> r = u * 2.0f + v - Vec<float, 4>(u.w(), u.z(), u.y(), u.x()) / (v * v + 1.0f);
      out.vstore(i, -r);
    });
  });
  auto out = device_array<float>({4 * vectors});
  k[{(vectors + 63) / 64, 64}](to_device(a), to_device(b), out);
  std::vector<float> o = out.copy_to_host().to_vector();
  for (int i = 0; i < vectors; ++i)
    for (int l = 0; l < 4; ++l) {
      const float u = a[4 * i + l], v = b[4 * i + l], swapped = a[4 * i + 3 - l];
      const float want = -((u * 2.0f + v) - swapped / (v * v + 1.0f));
      INFO("vector " << i << " lane " << l);
      CHECK(std::bit_cast<uint32_t>(o[4 * i + l]) == std::bit_cast<uint32_t>(want));
    }
}

TEST_CASE("Vec<half, 2> arithmetic is correctly rounded lane by lane") {
  const int vectors = 256;
  std::vector<half> a(2 * vectors), b(2 * vectors);
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> d(-8.0f, 8.0f);
  for (int i = 0; i < 2 * vectors; ++i) a[i] = half(d(rng)), b[i] = half(d(rng));
  Kernel k = kernel("half2", [](Array<half> x, Array<half> y, Array<half> out, Array<float> wide) {
    Int i = global_id(0);
    Vec<half, 2> u = x.vload<2>(i), v = y.vload<2>(i);
    out.vstore(i, u * v + u);
    wide.vstore(i, cast<float>(u - v));
  });
  auto out = device_array<half>({2 * vectors});
  auto wide = device_array<float>({2 * vectors});
  k[{vectors / 64, 64}](to_device(a), to_device(b), out, wide);
  std::vector<half> o = out.copy_to_host().to_vector();
  std::vector<float> w = wide.copy_to_host().to_vector();
  for (int i = 0; i < 2 * vectors; ++i) {
    INFO("element " << i << ": " << float(a[i]) << ", " << float(b[i]));
    CHECK(std::bit_cast<uint16_t>(o[i]) == std::bit_cast<uint16_t>(a[i] * b[i] + a[i]));
    CHECK(w[i] == float(a[i] - b[i]));
  }
}

TEST_CASE("three-lane integer vectors, lane access, broadcasts and shifts") {
  const int vectors = 64;
  std::vector<int32_t> a(3 * vectors);
  for (int i = 0; i < 3 * vectors; ++i) a[i] = i * 7919 - 40000;
  Kernel k = kernel("int3", [](Array<int32_t> x, Array<int32_t> out, Array<int64_t> sums) {
    Int i = global_id(0);
    Vec<int32_t, 3> v = x.vload<3>(i);
    Vec<int32_t, 3> s = (v >> 2) ^ Vec<int32_t, 3>(i) + (v % 5) * 3 - (1 << v.z() % 8);
    out.vstore(i, Vec<int32_t, 3>(s.z(), s[1], s.x()));
    sums(i) = cast<int64_t>(v[0]) + v[1] + v[2];
  });
  auto out = device_array<int32_t>({3 * vectors});
  auto sums = device_array<int64_t>({vectors});
  k[{1, vectors}](to_device(a), out, sums);
  std::vector<int32_t> o = out.copy_to_host().to_vector();
  std::vector<int64_t> s = sums.copy_to_host().to_vector();
  for (int i = 0; i < vectors; ++i) {
    int32_t r[3];
    for (int l = 0; l < 3; ++l) {
      const int32_t v = a[3 * i + l], z = a[3 * i + 2];
      r[l] = (v >> 2) ^ (i + (v % 5) * 3 - (1 << (z % 8 & 31)));
    }
    INFO("vector " << i);
    CHECK(o[3 * i] == r[2]);
    CHECK(o[3 * i + 1] == r[1]);
    CHECK(o[3 * i + 2] == r[0]);
    CHECK(s[i] == int64_t{a[3 * i]} + a[3 * i + 1] + a[3 * i + 2]);
  }
}

TEST_CASE("byte, double and bfloat16 vectors") {
  const int n = 128;
  std::vector<uint8_t> bytes(4 * n);
  std::vector<double> d(2 * n);
  std::vector<bfloat16> bf(4 * n);
  for (int i = 0; i < 4 * n; ++i) bytes[i] = static_cast<uint8_t>(i * 37), bf[i] = bfloat16(0.1f * i - 3.0f);
  for (int i = 0; i < 2 * n; ++i) d[i] = 1.0 / (i + 1);
  Kernel k = kernel("mixed_vectors", [](Array<uint8_t> b, Array<double> x, Array<bfloat16> h) {
    Int i = global_id(0);
    b.vstore(i, b.vload<4>(i) * 3 + 1);  // u8 lanes wrap
    Vec<double, 2> v = x.vload<2>(i);
    x.vstore(i, v * v.y() - 1.0);
    Vec<bfloat16, 4> w = h.vload<4>(i);
    h.vstore(i, w * w);
  });
  auto db = to_device(bytes);
  auto dd = to_device(d);
  auto dh = to_device(bf);
  k[{n / 64, 64}](db, dd, dh);
  std::vector<uint8_t> ob = db.copy_to_host().to_vector();
  std::vector<double> od = dd.copy_to_host().to_vector();
  std::vector<bfloat16> oh = dh.copy_to_host().to_vector();
  for (int i = 0; i < 4 * n; ++i) {
    CHECK(ob[i] == static_cast<uint8_t>(bytes[i] * 3 + 1));
    CHECK(std::bit_cast<uint16_t>(oh[i]) == std::bit_cast<uint16_t>(bf[i] * bf[i]));
  }
  for (int i = 0; i < 2 * n; ++i) CHECK(od[i] == d[i] * d[i | 1] - 1.0);
}

TEST_CASE("vector accesses on shared and local arrays") {
  const int block = 64;
  std::vector<float> a = random_floats(4 * block, 5);
  Kernel k = kernel("shared_vectors", [](Array<float> x, Array<float> out) {
    auto tile = shared::array<float>({4 * 64});
    auto mine = local::array<float>({8});
    Int t = local_id(0);
    tile.vstore(t, x.vload<4>(t));
    barrier(CLK_LOCAL_MEM_FENCE);
    Vec<float, 4> other = tile.vload<4, float>(63 - t);  // another work-item's vector
    mine.vstore(1, other);
    mine.vstore(0, other * other);
    Vec<float, 4> back = mine.vload<4, float>(0) + mine.vload<4, float>(1);
    out.vstore(t, back);
  });
  auto out = device_array<float>({4 * block});
  k[{1, block}](to_device(a), out);
  std::vector<float> o = out.copy_to_host().to_vector();
  for (int t = 0; t < block; ++t)
    for (int l = 0; l < 4; ++l) {
      const float v = a[4 * (63 - t) + l];
      CHECK(std::bit_cast<uint32_t>(o[4 * t + l]) == std::bit_cast<uint32_t>(v * v + v));
    }
}

TEST_CASE("an N-body step with vload<4> gives the scalar kernel's result to the bit") {
  const int bodies = 192;
  std::vector<float> pos(4 * bodies);
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> d(-1.0f, 1.0f), m(0.5f, 2.0f);
  for (int i = 0; i < bodies; ++i) pos[4 * i] = d(rng), pos[4 * i + 1] = d(rng), pos[4 * i + 2] = d(rng), pos[4 * i + 3] = m(rng);
  auto dp = to_device(pos);
  auto a1 = device_array<float>({4 * bodies}), a2 = device_array<float>({4 * bodies});
  samples::nbody(true)[{bodies / 64, 64}](dp, a1);
  samples::nbody(false)[{bodies / 64, 64}](dp, a2);
  std::vector<float> v = a1.copy_to_host().to_vector(), s = a2.copy_to_host().to_vector();
  for (int i = 0; i < 4 * bodies; ++i) CHECK(std::bit_cast<uint32_t>(v[i]) == std::bit_cast<uint32_t>(s[i]));
  CHECK(std::isfinite(v[0]));
  CHECK(v[0] != 0.0f);
}

TEST_CASE("16-bit integer and half vectors of every operation (packed where the processor has it)") {
  const int n = 128;
  std::vector<int16_t> a(4 * n), b(4 * n);
  std::vector<half> h(4 * n), g(4 * n);
  std::mt19937 rng(13);
  std::uniform_real_distribution<float> d(-3.0f, 3.0f);
  for (int i = 0; i < 4 * n; ++i) {
    a[i] = static_cast<int16_t>(rng()), b[i] = static_cast<int16_t>(rng());
    h[i] = half(d(rng)), g[i] = half(d(rng));
  }
  b[5] = 0;
  Kernel k = kernel("packed16", [](Array<int16_t> x, Array<int16_t> y, Array<int16_t, 2> out, Array<half> p,
                                   Array<half> q, Array<half, 2> hout) {
    Int i = global_id(0);
    Vec<int16_t, 4> u = x.vload<4>(i), v = y.vload<4>(i);
    Vec<int16_t, 4> r[] = {u + v, u - v, u * v, u / v, u % v, u & v, u | v, u ^ v, u << (v & 15), u >> (v & 15), -u};
    for (int o = 0; o < 11; ++o)
      for (int l = 0; l < 4; ++l) out(o, 4 * i + l) = r[o][l];
    Vec<half, 4> s = p.vload<4>(i), t = q.vload<4>(i);
    Vec<half, 4> hr[] = {s + t, s - t, s * t, s / t, -s, s * t + s};
    for (int o = 0; o < 6; ++o)
      for (int l = 0; l < 4; ++l) hout(o, 4 * i + l) = hr[o][l];
  });
  auto out = device_array<int16_t>({11, 4 * n});
  auto hout = device_array<half>({6, 4 * n});
  k[{n / 64, 64}](to_device(a), to_device(b), out, to_device(h), to_device(g), hout);
  std::vector<int16_t> o = out.copy_to_host().to_vector();
  std::vector<half> ho = hout.copy_to_host().to_vector();
  auto w = [](int64_t v) { return static_cast<int16_t>(static_cast<uint16_t>(static_cast<uint64_t>(v))); };
  for (int i = 0; i < 4 * n; ++i) {
    const int64_t x = a[i], y = b[i];
    const int s = static_cast<int>(y & 15);
    const int16_t want[] = {w(x + y), w(x - y), w(x * y), w(y == 0 ? 0 : y == -1 ? -x : x / y),
                            w(y == 0 ? x : y == -1 ? 0 : x % y), w(x & y), w(x | y), w(x ^ y), w(x << s),
                            w(x >> s), w(-x)};
    INFO("element " << i << ": " << x << ", " << y);
    for (int op = 0; op < 11; ++op) CHECK(o[op * 4 * n + i] == want[op]);
    const half hs = h[i], ht = g[i];
    const half hwant[] = {hs + ht, hs - ht, hs * ht, hs / ht, half(-float(hs)), hs * ht + hs};
    for (int op = 0; op < 6; ++op)
      CHECK(std::bit_cast<uint16_t>(ho[op * 4 * n + i]) == std::bit_cast<uint16_t>(hwant[op]));
  }
}

TEST_CASE("vload and vstore along the last dimension of 2-D and 3-D C-order arrays") {
  // Rows of 22 floats: 5 whole vectors of 4 per row, the last 2 elements of a row not in one
  // (and rows starting at element offsets that are not multiples of 4).
  const int rows = 9, cols = 22, vectors = cols / 4;
  std::vector<float> a = random_floats(rows * cols, 11);
  Kernel k2 = kernel("rows_vec4", [](Array<float, 2> x, Array<float, 2> out) {
    Int r = global_id(1), j = global_id(0);
    If(r < x.shape(0) && j < x.shape(1) / 4, [&] { out.vstore(r, j, x.vload<4>(r, j) * 3.0f + 1.0f); });
  });
  auto out = device_array<float>({rows, cols});
  out.fill(-1.0f);
  k2[{{1, rows}, {8, 1}}](to_device(a, {rows, cols}), out);
  HostArray<float> o = out.copy_to_host();
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) {
      INFO("row " << r << " column " << c);
      CHECK(o(r, c) == (c < 4 * vectors ? a[r * cols + c] * 3.0f + 1.0f : -1.0f));
    }

  // 3-D: (2, 3, 8) int32 with two-lane vectors.
  std::vector<int32_t> b(2 * 3 * 8);
  for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<int32_t>(i * 7 - 40);
  Kernel k3 = kernel("cube_vec2", [](Array<int32_t, 3> x, Array<int32_t, 3> out) {
    Int i = group_id(0), j = local_id(1), v = local_id(0);
    Vec<int32_t, 2> p = x.vload<2>(i, j, v);
    out.vstore(i, j, 3 - v, Vec<int32_t, 2>(p.y(), p.x()) << 1);  // vectors reversed in the row, lanes swapped
  });
  auto out3 = device_array<int32_t>({2, 3, 8});
  k3[{{2}, {4, 3}}](to_device(b, {2, 3, 8}), out3);
  HostArray<int32_t> o3 = out3.copy_to_host();
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int v = 0; v < 4; ++v)
        for (int l = 0; l < 2; ++l) {
          INFO(i << ", " << j << ", vector " << v << ", lane " << l);
          CHECK(o3(i, j, 2 * (3 - v) + l) == b[(i * 3 + j) * 8 + 2 * v + (1 - l)] * 2);
        }
}

TEST_CASE("vector accesses on a 2-D shared tile, rows of a length that is not a multiple of the lanes") {
  const int block = 32;
  std::vector<float> a = random_floats(block * 4, 12);
  Kernel k = kernel("tile_rows", [](Array<float> x, Array<float> out) {
    auto tile = shared::array<float>({32, 6});  // rows of 6: every other row starts at an odd pair
    Int t = local_id(0);
    tile.vstore(t, 0, x.vload<2>(2 * t));
    tile.vstore(t, 1, x.vload<2>(2 * t + 1));
    tile.vstore(t, 2, Vec<float, 2>(0.5f));
    barrier(CLK_LOCAL_MEM_FENCE);
    Vec<float, 2> p = tile.vload<2, float>(31 - t, 1), q = tile.vload<2, float>(31 - t, 2);
    out.vstore(t, p + q);
  });
  auto out = device_array<float>({block * 2});
  k[{1, block}](to_device(a), out);
  std::vector<float> o = out.copy_to_host().to_vector();
  for (int t = 0; t < block; ++t)
    for (int l = 0; l < 2; ++l) CHECK(o[2 * t + l] == a[4 * (31 - t) + 2 + l] + 0.5f);
}

TEST_CASE("Var<Vec<T, N>> carries a vector through loops and branches") {
  const int n = 16, items = 64;
  std::vector<float> a = random_floats(items * n * 4, 13);
  Kernel k = kernel("vec_var", [](Array<float, 2> x, Array<float> out, Int n) {
    Int i = global_id(0);
    Var<Vec<float, 4>> sum;                       // zero lanes
    Var<Vec<float, 4>> big(Vec<float, 4>(-1e30f));
    For(0, n, [&](Int j) {
      Vec<float, 4> v = x.vload<4>(i, j);
      sum += v;
      If(v.x() > big[0], [&] { big = v; });        // the vector with the largest first lane
    });
    sum *= 0.5f;
    sum.set(3, sum[3] + big[0]);
    Var<Vec<float, 4>> copy = sum;                // a new variable with sum's value
    copy -= Vec<float, 4>(1.0f, 2.0f, 3.0f, 4.0f);
    Vec<float, 4> r = copy + big;                 // a vector Var as an operand
    out.vstore(i, r);
  });
  auto out = device_array<float>({items * 4});
  k[{1, items}](to_device(a, {items, n * 4}), out, n);
  std::vector<float> o = out.copy_to_host().to_vector();
  for (int i = 0; i < items; ++i) {
    float sum[4] = {0, 0, 0, 0}, big[4] = {-1e30f, -1e30f, -1e30f, -1e30f};
    for (int j = 0; j < n; ++j) {
      const float* v = &a[(i * n + j) * 4];
      for (int l = 0; l < 4; ++l) sum[l] += v[l];
      if (v[0] > big[0])
        for (int l = 0; l < 4; ++l) big[l] = v[l];
    }
    for (float& s : sum) s *= 0.5f;
    sum[3] = sum[3] + big[0];
    for (int l = 0; l < 4; ++l) {
      INFO("item " << i << " lane " << l);
      CHECK(std::bit_cast<uint32_t>(o[4 * i + l]) == std::bit_cast<uint32_t>((sum[l] - float(l + 1)) + big[l]));
    }
  }
}
