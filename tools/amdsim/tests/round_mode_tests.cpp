// MODE.FP_ROUND (bits 1:0 for f32, 3:2 for f64/f16: 0 nearest even, 1 toward +inf, 2 toward -inf,
// 3 toward zero), set with s_setreg_imm32_b32 hwreg(HW_REG_MODE, ...) or gfx11's s_round_mode,
// rounds f32/f64 arithmetic, fma, LLVM's division sequence and conversions; v_rndne stays
// nearest-even. The host default (nearest) is back after every instruction.
#include <rocjit/rocjit.hpp>

#include <cfenv>
#include <cmath>
#include <map>

#include "sim.hpp"

using namespace amdsim_test;

namespace {

uint32_t bits(float f) { return std::bit_cast<uint32_t>(f); }
uint64_t bits(double d) { return std::bit_cast<uint64_t>(d); }

const int host_modes[4] = {FE_TONEAREST, FE_UPWARD, FE_DOWNWARD, FE_TOWARDZERO};

// The reference: the host's IEEE operation in the given direction. Volatile operands and result
// keep the compiler from folding it or moving it across the fesetround calls.
template <typename F>
auto rounded(int mode, F f) {
  std::fesetround(host_modes[mode]);
  volatile auto r = f();
  std::fesetround(FE_TONEAREST);
  return r;
}

std::string set_f32_mode(int mode) { return "s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 2), " + std::to_string(mode) + "\n"; }

}  // namespace

SIM_TEST(round_mode_f32_add_sub_mul) {
  const float ulp_frac = 0x1.8p-24f;  // 0.75 ulp of 1.0
  // Lane 0: 1 + 0.75 ulp; lane 1: -1 - 0.75 ulp.
  sim.v(0, 0) = bits(1.0f), sim.v(1, 0) = bits(ulp_frac);
  sim.v(0, 1) = bits(-1.0f), sim.v(1, 1) = bits(-ulp_frac);
  const float up = 1.0f + 0x1p-23f;
  // Expected per mode (nearest, +inf, -inf, zero) for lanes 0 and 1.
  const float lane0[4] = {up, up, 1.0f, 1.0f};
  const float lane1[4] = {-up, -1.0f, -up, -1.0f};
  for (int mode = 0; mode < 4; ++mode) {
    INFO("mode " << mode);
    sim.run(set_f32_mode(mode) + "v_add_f32 v2, v0, v1\nv_sub_f32 v3, v0, -v1");
    CHECK(sim.vf(2, 0) == lane0[mode]);
    CHECK(sim.vf(2, 1) == lane1[mode]);
    CHECK(sim.vf(3, 0) == lane0[mode]);
    CHECK(sim.vf(3, 1) == lane1[mode]);
    CHECK(sim.w.round_mode == uint32_t(mode));
    CHECK(std::fegetround() == FE_TONEAREST);  // the host's mode is restored
  }
  // Random products, quotients and fmas against the host in each direction.
  uint32_t seed = 99;
  auto next = [&] { seed = seed * 1664525u + 1013904223u; return seed; };
  for (int l = 0; l < 64; ++l) {
    sim.v(10, l) = (next() & 0x807fffffu) | 0x3f000000u;
    sim.v(11, l) = (next() & 0x807fffffu) | 0x40800000u;
    sim.v(12, l) = (next() & 0x807fffffu) | 0x3e800000u;
  }
  for (int mode = 0; mode < 4; ++mode) {
    INFO("mode " << mode);
    sim.run(set_f32_mode(mode) + "v_mul_f32 v13, v10, v11\nv_fma_f32 v14, v10, v11, v12\nv_add_f32 v15, v10, v12");
    for (int l = 0; l < sim.wave_size; ++l) {
      volatile float a = sim.vf(10, l), b = sim.vf(11, l), c = sim.vf(12, l);
      CHECK(sim.v(13, l) == bits(rounded(mode, [&] { return a * b; })));
      CHECK(sim.v(14, l) == bits(rounded(mode, [&] { return std::fma(float(a), float(b), float(c)); })));
      CHECK(sim.v(15, l) == bits(rounded(mode, [&] { return a + c; })));
    }
  }
}

SIM_TEST(round_mode_f32_division_sequence) {
  // LLVM's f32 division (div_scale, rcp, fma refinement, div_fmas, div_fixup) is correctly
  // rounded in the mode it runs in.
  std::string div = div_f32(sim);
  uint32_t seed = 5;
  auto next = [&] { seed = seed * 1664525u + 1013904223u; return seed; };
  for (int mode = 0; mode < 4; ++mode) {
    INFO("mode " << mode);
    float num[64], den[64];
    for (int l = 0; l < 64; ++l) {
      num[l] = std::bit_cast<float>((next() & 0x807fffffu) | 0x3f800000u);
      den[l] = std::bit_cast<float>((next() & 0x807fffffu) | 0x40400000u);
    }
    num[0] = 1.0f, den[0] = 3.0f;  // 1/3: nearest rounds up, -inf down
    num[1] = -2.0f, den[1] = 3.0f;
    for (int l = 0; l < 64; ++l) sim.v(0, l) = bits(num[l]), sim.v(1, l) = bits(den[l]);
    sim.run(set_f32_mode(mode) + div);
    for (int l = 0; l < sim.wave_size; ++l) {
      volatile float n = num[l], d = den[l];
      INFO(num[l] << " / " << den[l]);
      CHECK(sim.v(0, l) == bits(rounded(mode, [&] { return n / d; })));
    }
    if (mode == 2) CHECK(sim.vf(0, 0) < 1.0f / 3.0f);
    if (mode == 3) CHECK(sim.vf(0, 1) > -2.0f / 3.0f);
  }
}

SIM_TEST(round_mode_f64_field_is_separate) {
  // FP_ROUND[3:2] = toward zero for f64 (and f16); f32 stays nearest even.
  sim.set_v64(0, 0, bits(1.0)), sim.set_v64(2, 0, bits(0x1.8p-53));
  sim.v(4, 0) = bits(1.0f), sim.v(5, 0) = bits(0x1.8p-24f);
  sim.run("s_setreg_imm32_b32 hwreg(HW_REG_MODE, 2, 2), 3\n"
          "v_add_f64 v[6:7], v[0:1], v[2:3]\nv_add_f32 v8, v4, v5\nv_fma_f64 v[10:11], v[0:1], v[0:1], v[2:3]");
  CHECK(sim.w.round_mode == 0xcu);
  CHECK(sim.vd(6, 0) == 1.0);
  CHECK(sim.vd(10, 0) == 1.0);
  CHECK(sim.vf(8, 0) == 1.0f + 0x1p-23f);
  // Conversions round to their destination's type: f64 -> f32 by the f32 field, f32 -> f16 by
  // the f16 one, i32 -> f32 by the f32 field.
  sim.set_v64(12, 0, bits(1.0 + 0x1.8p-24));
  sim.v(14, 0) = bits(1.0f + 0x1.8p-11f);  // 1 + 0.75 ulp of f16
  sim.v(15, 0) = 16777217u;  // 2^24 + 1
  sim.run("v_cvt_f32_f64 v16, v[12:13]\nv_cvt_f16_f32 v17, v14\nv_cvt_f32_i32 v18, v15");
  CHECK(sim.vf(16, 0) == 1.0f + 0x1p-23f);  // f32: nearest
  CHECK((sim.v(17, 0) & 0xffff) == 0x3c00u); // f16: toward zero gives 1.0
  CHECK(sim.vf(18, 0) == 16777216.0f);
  sim.run("s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 4), 1\n"  // both fields toward +inf
          "v_cvt_f32_f64 v16, v[12:13]\nv_cvt_f16_f32 v17, v14\nv_cvt_f32_i32 v18, v15\nv_add_f64 v[6:7], v[0:1], v[2:3]");
  CHECK(sim.vf(16, 0) == 1.0f + 0x1p-23f);
  CHECK((sim.v(17, 0) & 0xffff) == 0x3c01u);
  CHECK(sim.vf(18, 0) == 16777218.0f);
  CHECK(sim.vd(6, 0) == 1.0 + 0x1p-52);
  // v_rndne rounds to nearest even in every mode; s_getreg reads the mode back.
  sim.v(20, 0) = bits(2.5f), sim.v(20, 1) = bits(-3.5f);
  sim.run("s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 4), 0xf\nv_rndne_f32 v21, v20\ns_getreg_b32 s2, hwreg(HW_REG_MODE, 0, 4)");
  CHECK(sim.vf(21, 0) == 2.0f);
  CHECK(sim.vf(21, 1) == -4.0f);
  CHECK(sim.s(2) == 0xfu);
  sim.run("s_getreg_b32 s3, hwreg(HW_REG_MODE, 2, 2)");
  CHECK(sim.s(3) == 0x3u);
  // Back to nearest even.
  sim.run("s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 4), 0\nv_add_f64 v[6:7], v[0:1], v[2:3]");
  CHECK(sim.vd(6, 0) == 1.0 + 0x1p-52);
  CHECK(std::fegetround() == FE_TONEAREST);
}

TEST_CASE("s_round_mode sets both round fields", "[gfx1100]") {
  Sim sim("gfx1100");
  sim.v(0, 0) = bits(1.0f), sim.v(1, 0) = bits(0x1.8p-24f);
  sim.v(0, 1) = bits(-1.0f), sim.v(1, 1) = bits(-0x1.8p-24f);
  sim.set_v64(2, 0, bits(1.0)), sim.set_v64(4, 0, bits(-0x1.8p-53));
  sim.run("s_round_mode 0xa\nv_add_f32 v6, v0, v1\nv_add_f64 v[8:9], v[2:3], v[4:5]");  // -inf for both
  CHECK(sim.w.round_mode == 0xau);
  CHECK(sim.vf(6, 0) == 1.0f);
  CHECK(sim.vf(6, 1) == -1.0f - 0x1p-23f);
  CHECK(sim.vd(8, 0) == 1.0 - 0x1p-52);  // 1 - 0.75 ulp(below 1) rounds down to 1 - 2^-52
  sim.run("s_round_mode 0x0\nv_add_f32 v6, v0, v1");
  CHECK(sim.vf(6, 0) == 1.0f + 0x1p-23f);
}

TEST_CASE("the kernel descriptor's FLOAT_ROUND_MODE rounds the kernel's f32 and f64 arithmetic", "[launch]") {
  using namespace rocjit::dsl;
  auto k = rocjit::kernel("round_add", [](Array<float> x, Array<float> y, Array<float> s, Array<double> a, Array<double> b,
                                  Array<double> t) {
    Int i = global_id(0);
    If(i < x.shape(0), [&] {
      s(i) = x(i) + y(i);
      t(i) = a(i) + b(i);
    });
  }, {.param_names = {"x", "y", "s", "a", "b", "t"}});
  for (std::string p : {"gfx942", "gfx90a", "gfx1100"}) {
    INFO(p);
    rocjit::CodeObject co = rocjit::compile(k, rocjit::Target::amdgpu(p));
    auto program = amdsim::Program::load(co.elf, amdsim::Processor::get(p));
    const amdsim::KernelInfo* info = program->kernel("round_add");
    REQUIRE(info != nullptr);
    const int n = 2;
    amdsim::Memory memory;
    auto* x = static_cast<float*>(memory.allocate(n * 4));
    auto* y = static_cast<float*>(memory.allocate(n * 4));
    auto* s = static_cast<float*>(memory.allocate(n * 4));
    auto* a = static_cast<double*>(memory.allocate(n * 8));
    auto* b = static_cast<double*>(memory.allocate(n * 8));
    auto* t = static_cast<double*>(memory.allocate(n * 8));
    x[0] = 1.0f, y[0] = 0x1.8p-24f, x[1] = -1.0f, y[1] = -0x1.8p-24f;  // +-(1 + 0.75 ulp)
    a[0] = 1.0, b[0] = 0x1.8p-53, a[1] = -1.0, b[1] = -0x1.8p-53;
    auto args = array_arguments(*info, {{"x", {x, n}}, {"y", {y, n}}, {"s", {s, n}}, {"a", {a, n}}, {"b", {b, n}}, {"t", {t, n}}},
                           {1, 1, 1}, {64, 1, 1});
    // rsrc1 is the descriptor's dword at byte 48: FLOAT_ROUND_MODE_32 in bits 13:12,
    // FLOAT_ROUND_MODE_16_64 in bits 15:14. LLVM sets both to nearest even.
    uint32_t rsrc1;
    std::memcpy(&rsrc1, info->descriptor.data() + 48, 4);
    CHECK(((rsrc1 >> 12) & 0xf) == 0u);
    amdsim::launch(*program, *info, {1, 1, 1}, {64, 1, 1}, 0, args, memory);
    CHECK(s[0] == 1.0f + 0x1p-23f);
    CHECK(s[1] == -1.0f - 0x1p-23f);
    CHECK(t[0] == 1.0 + 0x1p-52);
    CHECK(t[1] == -1.0 - 0x1p-52);
    // f32 toward zero, f64 toward +inf.
    amdsim::KernelInfo rounded_info = *info;
    rsrc1 = (rsrc1 & ~0xf000u) | (3u << 12) | (1u << 14);
    std::memcpy(rounded_info.descriptor.data() + 48, &rsrc1, 4);
    amdsim::launch(*program, rounded_info, {1, 1, 1}, {64, 1, 1}, 0, args, memory);
    CHECK(s[0] == 1.0f);
    CHECK(s[1] == -1.0f);
    CHECK(t[0] == 1.0 + 0x1p-52);
    CHECK(t[1] == -1.0);
    CHECK(std::fegetround() == FE_TONEAREST);
  }
}
