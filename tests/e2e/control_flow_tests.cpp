// Early exit and general loops on the device under test (CPU, simulator, HIP): Return() under
// divergent and uniform control (before barriers, inside loops), Continue() in For, While and the
// C-style For, loops counting down and halving, unroll requests; each against plain C++ and the
// reference interpreter.
#include <catch2/catch.hpp>

#include <cstdint>
#include <numeric>
#include <vector>

#include "e2e.hpp"

using namespace rocjit;
using namespace rocjit::dsl;

namespace {
uint32_t blocks(int64_t n, int64_t b) { return static_cast<uint32_t>((n + b - 1) / b); }
}  // namespace

TEST_CASE("Return() under a divergent If ends only the work-items past the end") {
  Kernel k = kernel("early_exit", [](Array<int32_t> out, Int n) {
    Int i = global_id(0);
    If(i >= n, [&] { Return(); });
    out(i) = i * 3;  // out has exactly n elements: without the Return this would go out of bounds
  });
  for (int n : {1, 63, 64, 100, 257}) {
    auto dout = device_array<int32_t>({n});
    k[{blocks(n, 64), 64}](dout, n);
    std::vector<int32_t> out = dout.copy_to_host().to_vector();
    for (int i = 0; i < n; ++i) REQUIRE(out[i] == i * 3);
  }
}

TEST_CASE("Return() inside a loop ends the work-item, not just the loop") {
  Kernel k = kernel("return_in_loop", [](Array<int32_t> out) {
    Int t = global_id(0);
    Var<int32_t> sum = 0;
    out(t) = -1;
    For(0, 100, [&](Int j) {
      If(j == t % 7, [&] {
        out(t) = sum;
        Return();
      });
      sum += j;
    });
    out(t) = 1000;  // never reached: every t % 7 < 100
  });
  auto dout = device_array<int32_t>({96});
  k[{3, 32}](dout);
  std::vector<int32_t> out = dout.copy_to_host().to_vector();
  for (int t = 0; t < 96; ++t) {
    int m = t % 7;
    REQUIRE(out[t] == m * (m - 1) / 2);
  }
}

TEST_CASE("a uniform Return() before barriers ends the whole group; the other groups reach them") {
  Kernel k = kernel("uniform_return", [](Array<int32_t> out, Int skip) {
    auto s = shared::array<int32_t>({32});
    Int t = local_id(0);
    out(global_id(0)) = -7;
    If(group_id(0) == skip, [&] { Return(); });  // uniform: a group id and a scalar argument
    s(t) = t * 10 + group_id(0);
    barrier();
    out(global_id(0)) = s(31 - t);
  }, {.max_block_size = 32});
  auto dout = device_array<int32_t>({4 * 32});
  k[{4, 32}](dout, 2);
  std::vector<int32_t> out = dout.copy_to_host().to_vector();
  for (int g = 0; g < 4; ++g)
    for (int t = 0; t < 32; ++t) REQUIRE(out[g * 32 + t] == (g == 2 ? -7 : (31 - t) * 10 + g));
}

TEST_CASE("Continue() skips the rest of a For body and a While body") {
  Kernel k = kernel("continue_loops", [](Array<int32_t> out) {
    Int t = global_id(0);
    Var<int32_t> odd = 0;
    For(0, t, [&](Int j) {
      If(j % 2 == 0, [&] { Continue(); });
      odd += j;
    });
    Var<int32_t> i = 0;
    Var<int32_t> not3 = 0;
    While([&] { return i < t; }, [&] {
      i += 1;
      If(i % 3 == 0, [&] { Continue(); });
      not3 += 1;
    });
    out(2 * t) = odd;
    out(2 * t + 1) = not3;
  });
  auto dout = device_array<int32_t>({2 * 70});
  k[{2, 35}](dout);
  std::vector<int32_t> out = dout.copy_to_host().to_vector();
  for (int t = 0; t < 70; ++t) {
    int odd = 0, not3 = 0;
    for (int j = 0; j < t; ++j)
      if (j % 2) odd += j;
    for (int i = 1; i <= t; ++i)
      if (i % 3) ++not3;
    REQUIRE(out[2 * t] == odd);
    REQUIRE(out[2 * t + 1] == not3);
  }
}

TEST_CASE("the C-style For halves, counts down, and runs `next` after a Continue()") {
  Kernel k = kernel("c_style_for", [](Array<int32_t> out, Int n) {
    Int t = global_id(0);
    Var<int32_t> halvings = 0;
    For(n + t, [](Int s) { return s > 0; }, [](Int s) { return s / 2; }, [&](Int) { halvings += 1; });
    Var<int32_t> skipped = 0;
    For(t, [](Int s) { return s >= 0; }, [](Int s) { return s - 3; }, [&](Int s) {
      If(s % 2 == 1, [&] { Continue(); });  // `next` still runs: the loop ends
      skipped += s;
    });
    Var<int64_t> down = 0;
    For(Long(10), [](Long s) { return s > -10; }, [](Long s) { return s - 4; }, [&](Long s) { down = down * 3 + s; });
    out(3 * t) = halvings;
    out(3 * t + 1) = skipped;
    out(3 * t + 2) = cast<int32_t>(down % 1000003);
  });
  const int n = 5;
  auto dout = device_array<int32_t>({3 * 64});
  k[{1, 64}](dout, n);
  std::vector<int32_t> out = dout.copy_to_host().to_vector();
  int64_t down = 0;
  for (int64_t s = 10; s > -10; s -= 4) down = down * 3 + s;
  for (int t = 0; t < 64; ++t) {
    int halvings = 0, skipped = 0;
    for (int s = n + t; s > 0; s /= 2) ++halvings;
    for (int s = t; s >= 0; s -= 3)
      if (s % 2 != 1) skipped += s;
    REQUIRE(out[3 * t] == halvings);
    REQUIRE(out[3 * t + 1] == skipped);
    REQUIRE(out[3 * t + 2] == static_cast<int32_t>(down % 1000003));
  }
}

TEST_CASE("a shared-memory tree reduction written with the C-style halving For and barriers") {
  constexpr int BLOCK = 128;
  Kernel k = kernel("halving_reduce", [](Array<float> in, Array<float> out) {
    auto s = shared::array<float>({BLOCK});
    Int t = local_id(0);
    s(t) = in(global_id(0));
    barrier();
    For(BLOCK / 2, [](Int h) { return h > 0; }, [](Int h) { return h / 2; }, [&](Int h) {
      If(t < h, [&] { s(t) = s(t) + s(t + h); });
      barrier();
    });
    If(t == 0, [&] { out(group_id(0)) = s(0); });
  }, {.max_block_size = BLOCK});
  std::vector<float> in(3 * BLOCK);
  std::iota(in.begin(), in.end(), 0.0f);
  auto din = to_device(in);
  auto dout = device_array<float>({3});
  k[{3, BLOCK}](din, dout);
  std::vector<float> out = dout.copy_to_host().to_vector();
  for (int g = 0; g < 3; ++g) {
    float ref = 0;
    for (int i = 0; i < BLOCK; ++i) ref += in[g * BLOCK + i];
    REQUIRE(out[g] == ref);
  }
}

TEST_CASE("unroll requests keep the loops' results") {
  Kernel k = kernel("unrolled", [](Array<int32_t> out, Int n) {
    Int t = global_id(0);
    Var<int32_t> a = 0, b = 0, c = 0;
    For(0, n + t, 1, [&](Int j) { a += j * j; }, {.unroll = 4});
    For(0, 17, [&](Int j) { b += j ^ t; }, {.unroll = 1});
    Var<int32_t> i = 0;
    While([&] { return i < t; }, [&] { c += i; i += 1; }, {.unroll = 8});
    out(3 * t) = a;
    out(3 * t + 1) = b;
    out(3 * t + 2) = c;
  });
  auto dout = device_array<int32_t>({3 * 40});
  k[{1, 40}](dout, 3);
  std::vector<int32_t> out = dout.copy_to_host().to_vector();
  for (int t = 0; t < 40; ++t) {
    int a = 0, b = 0, c = 0;
    for (int j = 0; j < 3 + t; ++j) a += j * j;
    for (int j = 0; j < 17; ++j) b += j ^ t;
    for (int i = 0; i < t; ++i) c += i;
    REQUIRE(out[3 * t] == a);
    REQUIRE(out[3 * t + 1] == b);
    REQUIRE(out[3 * t + 2] == c);
  }
}
