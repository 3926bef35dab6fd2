// Wave operations in wave-uniform control flow that differs between the waves of a group: an If
// on the wave index local_id(0) / wave_size(), loops whose trip counts are the wave's, a vote's
// result as a condition, and a Return() taken by whole waves. The CPU runs such control wave by
// wave; the GPU simply runs each wave's own path. Checked against C++ models on 1-D groups with a
// partial last wave and on 2-D groups whose rows are whole waves; other 2-D groups are refused at
// launch with the reason.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "e2e.hpp"

using namespace rocjit;
using namespace rocjit::dsl;
using rocjit::testing::device_wave_size;

namespace {

// The model's view of one work-item: its linear id t in a group of n, and its wave [begin, end).
struct Lane {
  int t, begin, end;
};

Kernel wave_index_kernel() {
  return kernel("wave_index_control", [](Array<int32_t> in, Array<int32_t> out) {
    Int t = local_id(0) + local_size(0) * local_id(1);
    Int g = group_id(0) * local_size(0) * local_size(1) + t;
    Int wid = local_id(0) / wave_size();
    Int v = in(g);
    // An If on the wave index: even waves reduce, odd waves scan.
    If(wid % 2 == 0, [&] { out(4 * g + 0) = wave::reduce_add(v); }).Else([&] {
      out(4 * g + 0) = wave::exclusive_scan_add(v);
    });
    // A loop whose trip count is the wave's: wid + 1 rounds of a wave maximum.
    Var<int32_t> acc = 0;
    For(0, wid + 1, [&](Int k) { acc = acc + wave::reduce_max(v + k); });
    out(4 * g + 1) = acc;
    // A vote as a condition, and a While whose condition is a wave reduction's result.
    If(wave::any(v > 40), [&] { out(4 * g + 2) = wave::count(v > 40); }).Else([&] { out(4 * g + 2) = -1; });
    Var<int32_t> m = v;
    Var<int32_t> rounds = 0;
    Var<int32_t> big = wave::reduce_max(v);
    While([&] { return big > 10; }, [&] {
      m = m / 2;
      rounds = rounds + 1;
      big = wave::reduce_max(m);
    });
    out(4 * g + 3) = rounds * 1000 + m;
  }, {.max_block_size = 256});
}

}  // namespace

TEST_CASE("wave operations under control on the wave index, a loop count and a vote that differ between waves") {
  const int w = device_wave_size();
  Kernel k = wave_index_kernel();
  // 1-D groups of 200 (a partial last wave for both sizes), and 2-D groups whose rows are whole
  // waves (64 x 3: one or two waves per row).
  for (auto [bx, by] : {std::pair{200, 1}, std::pair{64, 3}}) {
    const int n = bx * by, groups = 2;
    std::vector<int32_t> in(n * groups);
    for (int i = 0; i < n * groups; ++i) in[i] = (i * 37 + i / 50) % 61 - 7;
    auto dout = device_array<int32_t>({4 * n * groups});
    k[{{groups}, {bx, by}}](to_device(in), dout);
    std::vector<int32_t> out = dout.copy_to_host().to_vector();
    for (int g = 0; g < groups; ++g)
      for (int t = 0; t < n; ++t) {
        INFO("group " << g << " block " << bx << "x" << by << " item " << t << " wave size " << w);
        const int begin = t / w * w, end = std::min(n, begin + w);
        const int wid = (t % bx) / w;
        auto v = [&](int i) { return in[g * n + i]; };
        const int* o = &out[4 * (g * n + t)];
        int sum = 0, before = 0, above = 0, big = 0;
        for (int i = begin; i < end; ++i) {
          sum += v(i);
          if (i < t) before += v(i);
          above += v(i) > 40;
          big = std::max(big, v(i));
        }
        REQUIRE(o[0] == (wid % 2 == 0 ? sum : before));
        int acc = 0;
        for (int r = 0; r <= wid; ++r) acc += big + r;
        REQUIRE(o[1] == acc);
        REQUIRE(o[2] == (above > 0 ? above : -1));
        std::vector<int> m(in.begin() + g * n + begin, in.begin() + g * n + end);
        int rounds = 0;
        while (*std::max_element(m.begin(), m.end()) > 10) {
          for (int& x : m) x /= 2;
          ++rounds;
        }
        REQUIRE(o[3] == rounds * 1000 + m[t - begin]);
      }
  }
}

TEST_CASE("a Return() taken by whole waves ends them; later code and other waves' wave operations go on") {
  const int w = device_wave_size();
  Kernel k = kernel("wave_return", [](Array<int32_t> out) {
    Int t = local_id(0);
    Int g = global_id(0);
    Int wid = t / wave_size();
    If(wid == 1, [&] {
      out(2 * g) = wave::reduce_min(t * 3 - 100);
      Return();
    }).Else([&] { out(2 * g) = wave::inclusive_scan_add(t); });
    out(2 * g + 1) = 7 + wid;  // every wave but wave 1
  }, {.max_block_size = 256});
  const int n = 3 * w - 5, groups = 3;
  auto dout = device_array<int32_t>({2 * n * groups});
  const std::vector<int32_t> fill(2 * n * groups, -5);
  dout.copy_to_device(fill);
  k[{groups, n}](dout);
  std::vector<int32_t> out = dout.copy_to_host().to_vector();
  for (int g = 0; g < groups; ++g)
    for (int t = 0; t < n; ++t) {
      INFO("group " << g << " item " << t << " wave size " << w);
      const int wid = t / w, i = g * n + t;
      if (wid == 1) {
        REQUIRE(out[2 * i] == w * 3 - 100);
        REQUIRE(out[2 * i + 1] == -5);
      } else {
        REQUIRE(out[2 * i] == (t - wid * w) * (t - wid * w + 1) / 2 + (t - wid * w + 1) * wid * w);
        REQUIRE(out[2 * i + 1] == 7 + wid);
      }
    }
}

TEST_CASE("control built from local_id(0) / wave_size() refuses 2-D groups whose rows are not whole waves") {
  const int w = device_wave_size();
  Kernel k = wave_index_kernel();
  const int n = 2 * (w + 4);
  auto din = to_device(std::vector<int32_t>(n, 1));
  auto dout = device_array<int32_t>({4 * n});
  using Catch::Matchers::Contains;
  auto launch = [&](Dim3 block) { k[{Dim3{1}, block}](din, dout); };
  REQUIRE_THROWS_AS(launch({w + 4, 2}), LaunchError);
  REQUIRE_THROWS_WITH(launch({w + 4, 2}), Contains("kernel 'wave_index_control'") &&
                                               Contains("local_id(0) / wave_size() at ") &&
                                               Contains("wave_control_tests.cpp") &&
                                               Contains("multiple of the wave size (" + std::to_string(w)) &&
                                               Contains("block (" + std::to_string(w + 4) + ", 2, 1) is neither"));
  // Rows of whole waves, and 1-D groups of any size, are fine.
  CHECK_NOTHROW(launch({w, 2}));
  CHECK_NOTHROW(launch({n}));
}

TEST_CASE("a wave vote or reduction is a While condition: each wave loops until its own vote fails") {
  // While(wave::any(x < n)) and While(wave::reduce_max(m) > 10 && k < 8): the loop runs as many
  // times as its wave needs, lanes that are done still take part (their x stops changing), with a
  // partial last wave.
  const int w = device_wave_size();
  Kernel k = kernel("vote_condition", [](Array<int32_t> in, Array<int32_t> out) {
    Int g = global_id(0);
    Int v = in(g);
    Var<int32_t> x = 0;
    Var<int32_t> trips = 0;
    While([&] { return wave::any(x < v); }, [&] {
      x = x + 3;
      trips = trips + 1;
    });
    Var<int32_t> m = v;
    Var<int32_t> halvings = 0;
    While([&] { return wave::reduce_max(m) > 10 && halvings < 8; }, [&] {
      m = m / 2;
      halvings = halvings + 1;
    });
    out(3 * g + 0) = x;
    out(3 * g + 1) = trips;
    out(3 * g + 2) = halvings * 1000 + m;
  }, {.max_block_size = 256});
  const int n = 200, groups = 2;
  std::vector<int32_t> in(n * groups);
  for (int i = 0; i < n * groups; ++i) in[i] = (i * 53 + i / 64 * 11) % 97 - 5;
  auto dout = device_array<int32_t>({3 * n * groups});
  k[{groups, n}](to_device(in), dout);
  std::vector<int32_t> out = dout.copy_to_host().to_vector();
  for (int g = 0; g < groups; ++g)
    for (int t = 0; t < n; ++t) {
      INFO("group " << g << " item " << t << " wave size " << w);
      const int begin = t / w * w, end = std::min(n, begin + w);
      int trips = 0;  // the wave loops until no lane has x < v
      for (int i = begin; i < end; ++i) {
        int v = in[g * n + i];
        trips = std::max(trips, v > 0 ? (v + 2) / 3 : 0);
      }
      int halvings = 0;
      auto wave_max = [&](int h) {
        int mx = INT32_MIN;
        for (int i = begin; i < end; ++i) {
          int m = in[g * n + i];
          for (int r = 0; r < h; ++r) m /= 2;
          mx = std::max(mx, m);
        }
        return mx;
      };
      while (wave_max(halvings) > 10 && halvings < 8) ++halvings;
      int m = in[g * n + t];
      for (int r = 0; r < halvings; ++r) m /= 2;
      const int* o = &out[3 * (g * n + t)];
      CHECK(o[0] == 3 * trips);
      CHECK(o[1] == trips);
      CHECK(o[2] == halvings * 1000 + m);
    }
}
