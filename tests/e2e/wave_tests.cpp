// Wave operations on the device under test (CPU: emulated wave64; the simulator: gfx942/gfx90a
// wave64 and gfx1100 wave32): every operation against a C++ model of its documented definition,
// with groups whose size is not a multiple of the wave size (a partial last wave) and 2-D groups.
// Floats are chosen so that sums are exact in any order except in the float test, which checks
// the documented tree and Hillis-Steele orders bit for bit.
#include <catch2/catch.hpp>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <vector>

#include "e2e.hpp"

using namespace rocjit;
using namespace rocjit::dsl;
using rocjit::testing::device_wave_size;

namespace {

// The lanes of the wave holding linear id `t` in a group of `n` work-items: [begin, end).
struct WaveSpan {
  int begin, end;
};
WaveSpan wave_of(int t, int n, int w) { return {t / w * w, std::min(n, t / w * w + w)}; }

}  // namespace

TEST_CASE("lane ids, shuffles, broadcast and read_first follow lanes of consecutive linear ids") {
  const int w = device_wave_size();
  REQUIRE((w == 32 || w == 64));
  Kernel k = kernel("shuffles", [](Array<int32_t> out, Array<int64_t> wide, Int delta) {
    Int t = local_id(0) + local_size(0) * (local_id(1) + local_size(1) * local_id(2));
    Int g = group_id(0) * local_size(0) * local_size(1) * local_size(2) + t;
    Int v = t * 7 + 1;
    out(8 * g + 0) = lane_id();
    out(8 * g + 1) = wave::shuffle(v, (lane_id() * 5 + 3) % 70);  // some sources past the wave
    out(8 * g + 2) = wave::shuffle_xor(v, 5);
    out(8 * g + 3) = wave::shuffle_up(v, delta);
    out(8 * g + 4) = wave::shuffle_down(v, delta);
    out(8 * g + 5) = wave::broadcast(v, 2);
    out(8 * g + 6) = wave::read_first(v);
    out(8 * g + 7) = cast<int32_t>(wave::shuffle(cast<float>(v) * 0.5f, lane_id() + 1) * 2.0f);
    wide(g) = wave::shuffle_xor(cast<int64_t>(v) * int64_t{1000000007}, 3);
  }, {.max_block_size = 256});
  // 1-D groups of 100 (a partial last wave for both sizes), a 2-D group of 12 x 9 and a 3-D
  // group of 5 x 4 x 7 (waves cross rows and planes).
  struct Shape {
    int bx, by, bz;
  };
  for (auto [bx, by, bz] : {Shape{100, 1, 1}, Shape{12, 9, 1}, Shape{5, 4, 7}}) {
    const int n = bx * by * bz, groups = 2;
    auto dout = device_array<int32_t>({8 * n * groups});
    auto dwide = device_array<int64_t>({n * groups});
    k[{{groups}, {bx, by, bz}}](dout, dwide, 3);
    std::vector<int32_t> out = dout.copy_to_host().to_vector();
    std::vector<int64_t> wide = dwide.copy_to_host().to_vector();
    for (int g = 0; g < groups; ++g)
      for (int t = 0; t < n; ++t) {
        INFO("group " << g << " block " << bx << "x" << by << "x" << bz << " item " << t << " wave size " << w);
        const WaveSpan s = wave_of(t, n, w);
        const int lane = t - s.begin;
        auto v = [&](int l) { return (s.begin + l) * 7 + 1; };
        auto from = [&](int src) { return src >= 0 && s.begin + src < s.end ? v(src) : v(lane); };
        const int* o = &out[8 * (g * n + t)];
        REQUIRE(o[0] == lane);
        REQUIRE(o[1] == from((lane * 5 + 3) % 70));
        REQUIRE(o[2] == from(lane ^ 5));
        REQUIRE(o[3] == from(lane - 3));
        REQUIRE(o[4] == from(lane + 3));
        REQUIRE(o[5] == from(2));
        REQUIRE(o[6] == v(0));
        REQUIRE(o[7] == from(lane + 1));
        const int src = s.begin + (lane ^ 3) < s.end ? (lane ^ 3) : lane;
        REQUIRE(wide[g * n + t] == int64_t{v(src)} * 1000000007);
      }
  }
}

TEST_CASE("ballot, any, all and count see exactly the wave's lanes") {
  const int w = device_wave_size();
  Kernel k = kernel("votes", [](Array<uint64_t> bits, Array<int32_t> out) {
    Int t = local_id(0);
    Int g = global_id(0);
    bits(g) = wave::ballot(t % 3 == 0);
    out(3 * g) = cast<int32_t>(wave::any(t == 70));
    out(3 * g + 1) = cast<int32_t>(wave::all(t < 90));
    out(3 * g + 2) = wave::count(t % 3 == 0);
  }, {.max_block_size = 128});
  const int n = 100;
  auto dbits = device_array<uint64_t>({n});
  auto dout = device_array<int32_t>({3 * n});
  k[{1, n}](dbits, dout);
  std::vector<uint64_t> bits = dbits.copy_to_host().to_vector();
  std::vector<int32_t> out = dout.copy_to_host().to_vector();
  for (int t = 0; t < n; ++t) {
    const WaveSpan s = wave_of(t, n, w);
    uint64_t b = 0;
    bool any = false, all = true;
    for (int l = s.begin; l < s.end; ++l) {
      if (l % 3 == 0) b |= uint64_t{1} << (l - s.begin);
      any |= l == 70;
      all &= l < 90;
    }
    INFO("item " << t << " wave size " << w);
    REQUIRE(bits[t] == b);
    REQUIRE(out[3 * t] == int(any));
    REQUIRE(out[3 * t + 1] == int(all));
    REQUIRE(out[3 * t + 2] == std::popcount(b));
  }
}

TEST_CASE("integer reductions and scans over full and partial waves") {
  const int w = device_wave_size();
  Kernel k = kernel("int_reduce", [](Array<int32_t> in, Array<int32_t> out, Array<uint64_t> u) {
    Int g = global_id(0);
    Int v = in(g);
    out(8 * g + 0) = wave::reduce_add(v);
    out(8 * g + 1) = wave::reduce_min(v);
    out(8 * g + 2) = wave::reduce_max(v);
    out(8 * g + 3) = wave::reduce_and(v | 0x100);
    out(8 * g + 4) = wave::reduce_or(v & 0xff);
    out(8 * g + 5) = wave::reduce_xor(v);
    out(8 * g + 6) = wave::inclusive_scan_add(v);
    out(8 * g + 7) = wave::exclusive_scan_add(v);
    u(g) = wave::reduce_max(cast<uint64_t>(v) * uint64_t{0x100000001});
  }, {.max_block_size = 256});
  const int n = 180;  // 2 full waves and a partial one of 52 (wave64), or 5 and one of 20 (wave32)
  std::vector<int32_t> in(n);
  for (int i = 0; i < n; ++i) in[i] = (i * 37 + 11) % 101 - 50;
  auto din = to_device(in);
  auto dout = device_array<int32_t>({8 * n});
  auto du = device_array<uint64_t>({n});
  k[{1, n}](din, dout, du);
  std::vector<int32_t> out = dout.copy_to_host().to_vector();
  std::vector<uint64_t> u = du.copy_to_host().to_vector();
  for (int t = 0; t < n; ++t) {
    const WaveSpan s = wave_of(t, n, w);
    int sum = 0, mn = in[s.begin], mx = in[s.begin], a = -1, o = 0, x = 0, incl = 0, excl = 0;
    uint64_t umx = 0;
    for (int l = s.begin; l < s.end; ++l) {
      sum += in[l];
      mn = std::min(mn, in[l]);
      mx = std::max(mx, in[l]);
      a &= in[l] | 0x100;
      o |= in[l] & 0xff;
      x ^= in[l];
      if (l <= t) incl += in[l];
      if (l < t) excl += in[l];
      umx = std::max(umx, static_cast<uint64_t>(static_cast<int64_t>(in[l])) * 0x100000001u);
    }
    INFO("item " << t << " wave size " << w);
    const int32_t* r = &out[8 * t];
    REQUIRE(r[0] == sum);
    REQUIRE(r[1] == mn);
    REQUIRE(r[2] == mx);
    REQUIRE(r[3] == a);
    REQUIRE(r[4] == o);
    REQUIRE(r[5] == x);
    REQUIRE(r[6] == incl);
    REQUIRE(r[7] == excl);
    REQUIRE(u[t] == umx);
  }
}

// rocjit-smith found both: the CPU device kept only bit 0 of every 1-byte wave operand (as for
// booleans), and LLVM 22 aborted on read_first and reductions of i8 for AMDGPU.
TEST_CASE("wave operations on 8- and 16-bit values") {
  const int w = device_wave_size();
  Kernel k = kernel("small_wave", [](Array<int32_t> in, Array<int32_t> out) {
    Int g = global_id(0);
    Value b = cast<uint8_t>(in(g));
    Value c = cast<int8_t>(in(g) - 100);
    Value h = cast<int16_t>(in(g) * 300);
    out(8 * g + 0) = cast<int32_t>(wave::shuffle_xor(b, 5));
    out(8 * g + 1) = cast<int32_t>(wave::read_first(b));
    out(8 * g + 2) = cast<int32_t>(wave::reduce_add(c));
    out(8 * g + 3) = cast<int32_t>(wave::reduce_max(c));
    out(8 * g + 4) = cast<int32_t>(wave::reduce_min(b));
    out(8 * g + 5) = cast<int32_t>(wave::read_first(h));
    out(8 * g + 6) = cast<int32_t>(wave::inclusive_scan_add(h));
    out(8 * g + 7) = cast<int32_t>(wave::reduce_xor(b));
  }, {.max_block_size = 256});
  const int n = 100;  // a full wave and a partial one (wave32: 3 full and one of 4)
  std::vector<int32_t> in(n);
  for (int i = 0; i < n; ++i) in[i] = (i * 73 + 29) % 251;
  auto din = to_device(in);
  auto dout = device_array<int32_t>({8 * n});
  k[{1, n}](din, dout);
  std::vector<int32_t> out = dout.copy_to_host().to_vector();
  for (int t = 0; t < n; ++t) {
    const WaveSpan s = wave_of(t, n, w);
    const int partner = t ^ 5;
    const int xor_value = partner >= s.begin && partner < s.end ? in[partner] : in[t];
    int8_t sum = 0, mx = INT8_MIN;
    uint8_t mn = 255, x = 0;
    int16_t scan = 0;
    for (int l = s.begin; l < s.end; ++l) {
      sum = static_cast<int8_t>(sum + static_cast<int8_t>(in[l] - 100));
      mx = std::max(mx, static_cast<int8_t>(in[l] - 100));
      mn = std::min(mn, static_cast<uint8_t>(in[l]));
      x ^= static_cast<uint8_t>(in[l]);
      if (l <= t) scan = static_cast<int16_t>(scan + static_cast<int16_t>(in[l] * 300));
    }
    INFO("item " << t << " wave size " << w);
    const int32_t* r = &out[8 * t];
    CHECK(r[0] == static_cast<uint8_t>(xor_value));
    CHECK(r[1] == static_cast<uint8_t>(in[s.begin]));
    CHECK(r[2] == sum);
    CHECK(r[3] == mx);
    CHECK(r[4] == mn);
    CHECK(r[5] == static_cast<int16_t>(in[s.begin] * 300));
    CHECK(r[6] == scan);
    CHECK(r[7] == x);
  }
}

TEST_CASE("float reductions and scans add in the documented order, bit for bit") {
  const int w = device_wave_size();
  Kernel k = kernel("float_reduce", [](Array<float> in, Array<float> out, Array<double> d) {
    Int g = global_id(0);
    Float v = in(g);
    out(4 * g + 0) = wave::reduce_add(v);
    out(4 * g + 1) = wave::inclusive_scan_add(v);
    out(4 * g + 2) = wave::exclusive_scan_add(v);
    out(4 * g + 3) = wave::reduce_min(v);
    d(g) = wave::reduce_add(cast<double>(v) * 1e-3);
  }, {.max_block_size = 128});
  const int n = 90;
  std::vector<float> in(n);
  for (int i = 0; i < n; ++i) in[i] = 1.0f / static_cast<float>(i + 1) * (i % 2 ? -1.0f : 3.0f);
  auto din = to_device(in);
  auto dout = device_array<float>({4 * n});
  auto dd = device_array<double>({n});
  k[{1, n}](din, dout, dd);
  std::vector<float> out = dout.copy_to_host().to_vector();
  std::vector<double> d = dd.copy_to_host().to_vector();
  for (int b = 0; b < n; b += w) {
    const int e = std::min(n, b + w), m = e - b;
    // The tree in lane order: lane l adds lane l + k's partial where it exists; lane 0's result.
    std::vector<float> x(in.begin() + b, in.begin() + e), next(m);
    std::vector<double> y(m);
    for (int l = 0; l < m; ++l) y[l] = static_cast<double>(in[b + l]) * 1e-3;
    for (int k = 1; k < w; k <<= 1)
      for (int l = 0; l + k < m; ++l) {
        x[l] = x[l] + x[l + k];
        y[l] = y[l] + y[l + k];
      }
    // Hillis-Steele.
    std::vector<float> s(in.begin() + b, in.begin() + e);
    for (int k = 1; k < w; k <<= 1) {
      for (int l = 0; l < m; ++l) next[l] = l >= k ? s[l - k] + s[l] : s[l];
      s.swap(next);
    }
    const float mn = *std::min_element(in.begin() + b, in.begin() + e);
    for (int l = 0; l < m; ++l) {
      INFO("item " << b + l << " wave size " << w);
      REQUIRE(std::bit_cast<uint32_t>(out[4 * (b + l)]) == std::bit_cast<uint32_t>(x[0]));
      REQUIRE(std::bit_cast<uint32_t>(out[4 * (b + l) + 1]) == std::bit_cast<uint32_t>(s[l]));
      REQUIRE(std::bit_cast<uint32_t>(out[4 * (b + l) + 2]) == std::bit_cast<uint32_t>(l ? s[l - 1] : 0.0f));
      REQUIRE(out[4 * (b + l) + 3] == mn);
      REQUIRE(std::bit_cast<uint64_t>(d[b + l]) == std::bit_cast<uint64_t>(y[0]));
    }
  }
}

TEST_CASE("a block reduction: wave sums through shared memory, then one more wave reduce") {
  const int w = device_wave_size();
  constexpr int BLOCK = 256;
  Kernel k = kernel("block_sum", [](Array<int32_t> in, Array<int32_t> out) {
    auto partial = shared::array<int32_t>({BLOCK});
    Int t = local_id(0);
    Int s = wave::reduce_add(in(global_id(0)));
    If(lane_id() == 0, [&] { partial(t / wave_size()) = s; });
    barrier();
    Int waves = ceil_div(local_size(0), wave_size());
    Int mine = select(t < waves, partial(min(t, waves - 1)), 0);
    Int total = wave::reduce_add(mine);  // every wave repeats the last step (uniform control flow)
    If(t == 0, [&] { out(group_id(0)) = total; });
  }, {.max_block_size = BLOCK});
  const int groups = 3;
  std::vector<int32_t> in(BLOCK * groups);
  for (int i = 0; i < BLOCK * groups; ++i) in[i] = i % 17 - 8 + i / 100;
  auto din = to_device(in);
  auto dout = device_array<int32_t>({groups});
  k[{groups, BLOCK}](din, dout);
  std::vector<int32_t> out = dout.copy_to_host().to_vector();
  for (int g = 0; g < groups; ++g) {
    int ref = 0;
    for (int i = 0; i < BLOCK; ++i) ref += in[g * BLOCK + i];
    INFO("group " << g << " wave size " << w);
    REQUIRE(out[g] == ref);
  }
}
