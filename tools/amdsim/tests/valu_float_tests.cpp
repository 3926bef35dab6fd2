// VALU f32/f64: fma, min/max with NaN and signed zeros, LLVM's division sequences (div_scale,
// div_fmas, div_fixup) against IEEE a / b bit-exactly, conversions' saturation and NaN.
#include <cmath>
#include <limits>

#include "sim.hpp"

using namespace amdsim_test;

namespace {

uint32_t bits(float f) { return std::bit_cast<uint32_t>(f); }
uint64_t bits(double d) { return std::bit_cast<uint64_t>(d); }


}  // namespace

SIM_TEST(f32_fma_single_rounding) {
  float x = 1.0f + 0x1p-23f;
  sim.fillf(0, x), sim.fillf(1, x), sim.fillf(2, -1.0f);
  sim.run("v_fma_f32 v3, v0, v1, v2\nv_mul_f32 v4, v0, v1\nv_add_f32 v4, v4, v2");
  CHECK(sim.vf(3, 0) == 0x1p-22f + 0x1p-46f);  // fused: one rounding
  CHECK(sim.vf(4, 0) == 0x1p-22f);             // separate: the product rounds first
  // Random operands against the host's fmaf.
  uint32_t seed = 12345;
  auto next = [&] { seed = seed * 1664525u + 1013904223u; return seed; };
  for (int l = 0; l < 64; ++l) {
    sim.v(0, l) = (next() & 0x80ffffffu) | 0x3e000000u;
    sim.v(1, l) = (next() & 0x80ffffffu) | 0x40000000u;
    sim.v(2, l) = (next() & 0x80ffffffu) | 0x3f000000u;
  }
  sim.run("v_fma_f32 v3, v0, v1, v2\nv_fma_f32 v4, -v0, |v1|, v2");
  for (int l = 0; l < sim.wave_size; ++l) {
    CHECK(sim.v(3, l) == bits(std::fma(sim.vf(0, l), sim.vf(1, l), sim.vf(2, l))));
    CHECK(sim.v(4, l) == bits(std::fma(-sim.vf(0, l), std::fabs(sim.vf(1, l)), sim.vf(2, l))));
  }
}

SIM_TEST(f32_min_max_nan_and_signed_zero) {
  float qnan = std::numeric_limits<float>::quiet_NaN();
  // Lane pairs (a, b): NaN with a number either way, two NaNs, -0/+0 either way, ordinary.
  float a[] = {qnan, 2.0f, qnan, -0.0f, 0.0f, -3.0f};
  float b[] = {2.0f, qnan, qnan, 0.0f, -0.0f, 1.0f};
  for (int l = 0; l < 6; ++l) sim.v(0, l) = bits(a[l]), sim.v(1, l) = bits(b[l]);
  sim.run("v_min_f32 v2, v0, v1\nv_max_f32 v3, v0, v1");
  CHECK(sim.vf(2, 0) == 2.0f);  // IEEE mode: the NaN is dropped
  CHECK(sim.vf(3, 0) == 2.0f);
  CHECK(sim.vf(2, 1) == 2.0f);
  CHECK(sim.vf(3, 1) == 2.0f);
  CHECK(std::isnan(sim.vf(2, 2)));
  CHECK(std::isnan(sim.vf(3, 2)));
  CHECK(sim.v(2, 3) == 0x80000000u);  // min(-0, +0) = -0
  CHECK(sim.v(3, 3) == 0u);           // max(-0, +0) = +0
  CHECK(sim.v(2, 4) == 0x80000000u);
  CHECK(sim.v(3, 4) == 0u);
  CHECK(sim.vf(2, 5) == -3.0f);
  CHECK(sim.vf(3, 5) == 1.0f);
}

SIM_TEST(f32_division_sequence_is_ieee) {
  // (a, b): normal quotients, denormal quotients, near overflow, overflow, denormal divisor,
  // underflow to zero, zeros, infinities.
  std::vector<std::pair<float, float>> cases = {
      {1.0f, 3.0f},           {10.0f, 7.0f},        {-5.5f, 0.1f},         {1e-38f, 3e3f},
      {1.5e-39f, 7.0f},       {3e-45f, 2.0f},       {3.0e38f, 1.1f},       {3.4e38f, 0.5f},
      {1e38f, 1e-1f},         {1.0f, 1e-40f},       {1e-40f, 3e-41f},      {1e-30f, 1e30f},
      {0.0f, 5.0f},           {0.0f, 0.0f},         {1.0f, 0.0f},          {-1.0f, 0.0f},
      {INFINITY, 2.0f},       {2.0f, INFINITY},     {1.17549435e-38f, 3.0f}, {123456.7f, -0.000123f},
      {3.4028235e38f, 3.4028235e38f}, {7.0f, 7.0f}, {1e20f, 3e-20f},        {-2.5e-40f, -0.75f}};
  uint32_t seed = 99;
  auto next = [&] { seed = seed * 1664525u + 1013904223u; return seed; };
  while (cases.size() < 64) {
    float x = std::bit_cast<float>((next() & 0x807fffffu) | ((next() % 254 + 1) << 23));
    float y = std::bit_cast<float>((next() & 0x807fffffu) | ((next() % 254 + 1) << 23));
    cases.push_back({x, y});
  }
  for (int l = 0; l < 64; ++l) sim.v(0, l) = bits(cases[l].first), sim.v(1, l) = bits(cases[l].second);
  std::vector<float> a(64), b(64);
  for (int l = 0; l < 64; ++l) a[l] = cases[l].first, b[l] = cases[l].second;
  sim.run(div_f32(sim));
  for (int l = 0; l < sim.wave_size; ++l) {
    float q = a[l] / b[l];
    INFO("lane " << l << ": " << a[l] << " / " << b[l] << " = " << q << ", simulated " << sim.vf(0, l));
    if (std::isnan(q)) CHECK(std::isnan(sim.vf(0, l)));
    else CHECK(sim.v(0, l) == bits(q));
  }
}

SIM_TEST(f64_arithmetic_and_division) {
  uint64_t seed = 7;
  auto next = [&] { seed = seed * 6364136223846793005ull + 1442695040888963407ull; return seed; };
  std::vector<double> a(64), b(64), c(64);
  for (int l = 0; l < 64; ++l) {
    a[l] = std::bit_cast<double>((next() & 0x800fffffffffffffull) | ((next() % 2000 + 24) << 52));
    b[l] = std::bit_cast<double>((next() & 0x800fffffffffffffull) | ((next() % 2000 + 24) << 52));
    c[l] = std::bit_cast<double>((next() & 0x800fffffffffffffull) | ((next() % 60 + 1000) << 52));
  }
  a[0] = 1.0, b[0] = 3.0;
  a[1] = 1e-300, b[1] = 1e10;     // denormal quotient
  a[2] = 1.7e308, b[2] = 0.9;     // overflow
  a[3] = 4.9e-324, b[3] = 0.5;    // smallest denormal / 0.5
  a[4] = 1.0, b[4] = 0.0;
  a[5] = 1.0 + 0x1p-52, b[5] = 1.0 - 0x1p-53, c[5] = -1.0;
  for (int l = 0; l < 64; ++l) sim.set_v64(0, l, bits(a[l])), sim.set_v64(2, l, bits(b[l])), sim.set_v64(12, l, bits(c[l]));
  sim.run("v_add_f64 v[14:15], v[0:1], v[2:3]\nv_mul_f64 v[16:17], v[0:1], v[2:3]\n"
          "v_fma_f64 v[18:19], v[0:1], v[2:3], v[12:13]\nv_add_f64 v[20:21], v[0:1], -v[2:3]");
  for (int l = 0; l < sim.wave_size; ++l) {
    CHECK(sim.v64(14, l) == bits(a[l] + b[l]));
    CHECK(sim.v64(16, l) == bits(a[l] * b[l]));
    CHECK(sim.v64(18, l) == bits(std::fma(a[l], b[l], c[l])));
    CHECK(sim.v64(20, l) == bits(a[l] - b[l]));
  }
  sim.run(div_f64(sim));
  for (int l = 0; l < sim.wave_size; ++l) {
    INFO("lane " << l << ": " << a[l] << " / " << b[l]);
    CHECK(sim.v64(0, l) == bits(a[l] / b[l]));
  }
}

SIM_TEST(conversions_saturate) {
  float in[] = {3e9f, -3e9f, std::numeric_limits<float>::quiet_NaN(), -1.5f, 2.5f, -0.0f, 2147483520.0f,
                INFINITY, -INFINITY, 4294967040.0f, 5e9f, -1.0f};
  for (int l = 0; l < 12; ++l) sim.v(0, l) = bits(in[l]);
  sim.run("v_cvt_i32_f32 v1, v0\nv_cvt_u32_f32 v2, v0");
  uint32_t i32[] = {0x7fffffffu, 0x80000000u, 0, uint32_t(-1), 2, 0, 2147483520u, 0x7fffffffu, 0x80000000u,
                    0x7fffffffu, 0x7fffffffu, uint32_t(-1)};
  uint32_t u32[] = {3000000000u, 0, 0, 0, 2, 0, 2147483520u, 0xffffffffu, 0, 4294967040u, 0xffffffffu, 0};
  for (int l = 0; l < 12; ++l) {
    INFO("lane " << l << " input " << in[l]);
    CHECK(sim.v(1, l) == i32[l]);
    CHECK(sim.v(2, l) == u32[l]);
  }
  // Integer to float rounds to nearest even; f64 <-> f32.
  sim.v(3, 0) = 16777217u, sim.v(3, 1) = 0xffffffffu;
  sim.run("v_cvt_f32_u32 v4, v3\nv_cvt_f32_i32 v5, v3\nv_cvt_f64_i32 v[6:7], v3");
  CHECK(sim.vf(4, 0) == 16777216.0f);
  CHECK(sim.vf(4, 1) == 4294967296.0f);
  CHECK(sim.vf(5, 1) == -1.0f);
  CHECK(sim.vd(6, 1) == -1.0);
  sim.set_v64(8, 0, bits(1e300)), sim.set_v64(8, 1, bits(-2.7e9)), sim.set_v64(8, 2, bits(1.0 + 0x1p-30));
  sim.run("v_cvt_f32_f64 v10, v[8:9]\nv_cvt_i32_f64 v11, v[8:9]");
  CHECK(sim.vf(10, 0) == INFINITY);
  CHECK(sim.v(11, 0) == 0x7fffffffu);
  CHECK(sim.v(11, 1) == 0x80000000u);
  CHECK(sim.vf(10, 2) == 1.0f);
  CHECK(sim.v(11, 2) == 1u);
}
