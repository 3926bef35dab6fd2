// Private (per-work-item) memory: local::array indexed by run-time, data-dependent values, so the
// AMDGPU backend can neither promote it to registers nor to LDS and places it in scratch
// (gfx942 and gfx1100: scratch_* with architected/flat scratch; gfx90a: buffer_* through the
// private segment buffer). Each work-item's array must be its own; results are exact.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "e2e.hpp"

using namespace rocjit;
using namespace rocjit::dsl;

namespace {

constexpr int BINS = 64;

// A deterministic pseudo-random sequence (LCG), the same on every run.
std::vector<uint32_t> lcg(size_t n, uint32_t seed) {
  std::vector<uint32_t> v(n);
  for (auto& x : v) {
    seed = seed * 1664525u + 1013904223u;
    x = seed >> 7;
  }
  return v;
}

// Per work-item: bins(data(i, j) % 64) += j + 1 over the work-item's row, then the 64 bins out.
Kernel private_histogram() {
  return kernel("private_histogram", [](Array<uint32_t, 2> data, Array<int32_t, 2> out) {
    auto bins = local::array<int32_t>({BINS}, "bins");
    Int i = global_id(0);
    If(i < data.shape(0), [&] {
      For(0, BINS, [&](Int k) { bins(k) = 0; });
      For(0, data.shape(1), [&](Int j) {
        Int b = cast<int32_t>(data(i, j) % 64u);
        bins(b) = bins(b) + j + 1;
      });
      For(0, BINS, [&](Int k) { out(i, k) = bins(k); });
    });
  }, {.param_names = {"data", "out"}});
}

// Per work-item: a 2-D private table filled from the input row, read back through a permutation
// of (row, column) pairs taken from memory.
Kernel private_gather() {
  return kernel("private_gather", [](Array<float, 2> in, Array<int32_t, 2> perm, Array<float, 2> out) {
    auto table = local::array<float>({8, 16}, "table");
    Int i = global_id(0);
    If(i < in.shape(0), [&] {
      For(0, 128, [&](Int k) { table(k / 16, k % 16) = in(i, k) * 2.0f + 1.0f; });
      For(0, 128, [&](Int k) {
        Int p = perm(i, k);
        out(i, k) = table(p / 16, p % 16);
      });
    });
  }, {.param_names = {"in", "perm", "out"}});
}

// Per work-item: insertion sort of its row in a private f64 array (shifting elements by run-time
// positions), and a u64 table of xor-accumulated keys at data-dependent slots.
Kernel private_sort() {
  return kernel("private_sort", [](Array<double, 2> in, Array<double, 2> sorted, Array<uint64_t, 2> keys) {
    auto a = local::array<double>({32}, "a");
    auto t = local::array<uint64_t>({16}, "t");
    Int i = global_id(0);
    Int n = in.shape(1);
    If(i < in.shape(0), [&] {
      For(0, 16, [&](Int k) { t(k) = 0ull; });
      For(0, n, [&](Int k) {
        Double x = in(i, k);
        Var<int32_t> j = k - 1;
        While([&] { return j >= 0; }, [&] {
          If(a(j) <= x, [&] { Break(); });
          a(j + 1) = a(j);
          j -= 1;
        });
        a(j + 1) = x;
        Int slot = cast<int32_t>(floor(fabs(x))) % 16;
        t(slot) = t(slot) ^ (cast<uint64_t>(k + 1) << 40 | cast<uint64_t>(slot));
      });
      For(0, n, [&](Int k) { sorted(i, k) = a(k); });
      For(0, 16, [&](Int k) { keys(i, k) = t(k); });
    });
  }, {.param_names = {"in", "sorted", "keys"}});
}

// Per work-item: a 6 KiB private table, past the 12-bit offset field of MUBUF and scratch
// instructions, read at constant and data-dependent positions.
Kernel private_large() {
  return kernel("private_large", [](Array<int32_t> base, Array<int32_t, 2> idx, Array<int32_t> out) {
    auto t = local::array<int32_t>({1536}, "t");
    Int i = global_id(0);
    If(i < base.shape(0), [&] {
      For(0, 1536, [&](Int k) { t(k) = base(i) * 3 + k * 7; });
      Var<int32_t> acc = t(1500) + t(1535) * 2;
      For(0, idx.shape(1), [&](Int j) { acc += t(idx(i, j)) * (j + 1); });
      out(i) = acc;
    });
  }, {.param_names = {"base", "idx", "out"}});
}

}  // namespace

TEST_CASE("private arrays indexed by data: per-work-item histograms") {
  const int items = 100, per_item = 37;  // two partial waves on wave64, four on wave32
  auto data = lcg(size_t(items) * per_item, 7);
  std::vector<int32_t> expected(size_t(items) * BINS, 0);
  for (int i = 0; i < items; ++i)
    for (int j = 0; j < per_item; ++j) expected[size_t(i) * BINS + data[size_t(i) * per_item + j] % 64] += j + 1;
  DeviceArray<uint32_t> d = to_device(std::span<const uint32_t>(data), {items, per_item});
  DeviceArray<int32_t> out = device_array<int32_t>({items, BINS});
  private_histogram()[{2, 64}](d, out);
  CHECK(out.copy_to_host().to_vector() == expected);
}

TEST_CASE("private arrays indexed by data: a 2-D table read through a permutation") {
  const int items = 70, n = 128;
  std::vector<float> in(size_t(items) * n);
  std::vector<int32_t> perm(size_t(items) * n);
  for (int i = 0; i < items; ++i) {
    for (int k = 0; k < n; ++k) {
      in[size_t(i) * n + k] = float(i * 1000 + k) * 0.5f;
      perm[size_t(i) * n + k] = k;
    }
    // A different permutation per work-item: a rotation by i, then swaps from the LCG.
    std::rotate(perm.begin() + size_t(i) * n, perm.begin() + size_t(i) * n + (i % n), perm.begin() + size_t(i + 1) * n);
    auto r = lcg(n, uint32_t(i) + 11);
    for (int k = n - 1; k > 0; --k) std::swap(perm[size_t(i) * n + k], perm[size_t(i) * n + r[k] % uint32_t(k + 1)]);
  }
  std::vector<float> expected(in.size());
  for (int i = 0; i < items; ++i)
    for (int k = 0; k < n; ++k) expected[size_t(i) * n + k] = in[size_t(i) * n + perm[size_t(i) * n + k]] * 2.0f + 1.0f;
  DeviceArray<float> din = to_device(std::span<const float>(in), {items, n});
  DeviceArray<int32_t> dperm = to_device(std::span<const int32_t>(perm), {items, n});
  DeviceArray<float> out = device_array<float>({items, n});
  private_gather()[{3, 32}](din, dperm, out);
  CHECK(out.copy_to_host().to_vector() == expected);
}

TEST_CASE("private arrays indexed by data: f64 insertion sort and u64 slots") {
  const int items = 80, n = 29;
  auto r = lcg(size_t(items) * n, 3);
  std::vector<double> in(r.size());
  for (size_t k = 0; k < r.size(); ++k) in[k] = (double(r[k] % 20000) - 10000.0) / 256.0;
  std::vector<double> expected_sorted(in.size());
  std::vector<uint64_t> expected_keys(size_t(items) * 16, 0);
  for (int i = 0; i < items; ++i) {
    std::vector<double> row(in.begin() + size_t(i) * n, in.begin() + size_t(i + 1) * n);
    for (int k = 0; k < n; ++k) {
      int slot = int(std::floor(std::fabs(row[k]))) % 16;
      expected_keys[size_t(i) * 16 + slot] ^= uint64_t(k + 1) << 40 | uint64_t(slot);
    }
    std::sort(row.begin(), row.end());
    std::copy(row.begin(), row.end(), expected_sorted.begin() + size_t(i) * n);
  }
  DeviceArray<double> din = to_device(std::span<const double>(in), {items, n});
  DeviceArray<double> sorted = device_array<double>({items, n});
  DeviceArray<uint64_t> keys = device_array<uint64_t>({items, 16});
  private_sort()[{2, 48}](din, sorted, keys);
  CHECK(sorted.copy_to_host().to_vector() == expected_sorted);
  CHECK(keys.copy_to_host().to_vector() == expected_keys);
}

TEST_CASE("private arrays indexed by data: 6 KiB per work-item, beyond the instruction offset field") {
  const int items = 96, m = 12;
  auto r = lcg(size_t(items) * m, 21);
  std::vector<int32_t> base(items), idx(size_t(items) * m), expected(items);
  for (int i = 0; i < items; ++i) {
    base[i] = i * 11 - 300;
    auto t = [&](int k) { return base[i] * 3 + k * 7; };
    int32_t acc = t(1500) + t(1535) * 2;
    for (int j = 0; j < m; ++j) {
      idx[size_t(i) * m + j] = int32_t(r[size_t(i) * m + j] % 1536);
      acc += t(idx[size_t(i) * m + j]) * (j + 1);
    }
    expected[i] = acc;
  }
  DeviceArray<int32_t> dbase = to_device(base);
  DeviceArray<int32_t> didx = to_device(std::span<const int32_t>(idx), {items, m});
  DeviceArray<int32_t> out = device_array<int32_t>({items});
  private_large()[{2, 64}](dbase, didx, out);
  CHECK(out.copy_to_host().to_vector() == expected);
}

// A small private array indexed by data: LLVM keeps it in VGPRs and picks elements with selects
// here (index-mode moves, s_set_gpr_idx_on / v_movrel, are covered by amdsim-tests and by
// rocjit-smith --local-dynamic).
TEST_CASE("small private arrays indexed by data stay in registers") {
  Kernel k = kernel("private_registers", [](Array<int32_t> keys, Array<int32_t> out) {
    Int i = global_id(0);
    If(i < keys.shape(0), [&] {
      auto a = local::array<int32_t>({16}, "a");
      for (int j = 0; j < 16; ++j) a(j) = i * 10 + j;  // unrolled: constant indices
      Int w = keys(i) & 15, r = (keys(i) >> 3) & 15;
      a(w) = a(w) + 1000;                              // data-dependent read and write
      out(i) = a(r) * 3 + a(15 - r);
    });
  });
  const int n = 200;
  std::vector<int32_t> keys(n);
  for (int i = 0; i < n; ++i) keys[i] = (i * 37 + 11) & 127;
  auto dk = to_device(keys);
  auto dout = device_array<int32_t>({n});
  k[{(n + 63) / 64, 64}](dk, dout);
  std::vector<int32_t> out = dout.copy_to_host().to_vector();
  for (int i = 0; i < n; ++i) {
    int32_t a[16];
    for (int j = 0; j < 16; ++j) a[j] = i * 10 + j;
    int w = keys[i] & 15, r = (keys[i] >> 3) & 15;
    a[w] += 1000;
    INFO("i = " << i);
    CHECK(out[i] == a[r] * 3 + a[15 - r]);
  }
}
