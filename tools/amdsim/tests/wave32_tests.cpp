// gfx1100 (wave32): VOPD dual issue (both halves read their sources before either writes) and
// true16 .l/.h operands.
#include "sim.hpp"

using namespace amdsim_test;

TEST_CASE("vopd dual issue gfx1100", "[gfx1100]") {
  Sim sim("gfx1100");
  REQUIRE(sim.wave_size == 32);
  sim.fill(1, [](int l) { return std::bit_cast<uint32_t>(float(l)); });
  sim.fillf(2, 0.5f);
  sim.fillf(4, 3.0f);
  sim.fill(7, [](int l) { return std::bit_cast<uint32_t>(float(-l)); });
  auto insts = sim.decode("v_dual_add_f32 v10, v1, v2 :: v_dual_mul_f32 v11, v4, v7");
  REQUIRE(insts.size() == 1);
  REQUIRE(insts[0].second != nullptr);
  CHECK(insts[0].name == "v_add_f32");
  CHECK(insts[0].second->name == "v_mul_f32");
  sim.w.set_exec(0x7fffffffu);
  sim.fill(10, [](int) { return 0xdeadu; });
  sim.fill(11, [](int) { return 0xdeadu; });
  sim.run("v_dual_add_f32 v10, v1, v2 :: v_dual_mul_f32 v11, v4, v7");
  for (int l = 0; l < 31; ++l) {
    CHECK(sim.vf(10, l) == float(l) + 0.5f);
    CHECK(sim.vf(11, l) == -3.0f * float(l));
  }
  CHECK(sim.v(10, 31) == 0xdeadu);  // lane 31 is inactive
  CHECK(sim.v(11, 31) == 0xdeadu);
  // A swap: Y reads X's destination, and must see the value from before the pair.
  sim.w.set_exec(0xffffffffu);
  sim.fill(0, [](int l) { return 100u + l; });
  sim.fill(1, [](int l) { return 200u + l; });
  sim.run("v_dual_mov_b32 v0, v1 :: v_dual_mov_b32 v1, v0");
  for (int l = 0; l < 32; ++l) {
    CHECK(sim.v(0, l) == 200u + l);
    CHECK(sim.v(1, l) == 100u + l);
  }
  // cndmask halves take their mask from VCC_LO (not printed by LLVM).
  sim.s(106) = 0x0000ffffu;
  sim.fill(2, [](int) { return 1u; });
  sim.fill(3, [](int) { return 2u; });
  sim.run("v_dual_cndmask_b32 v4, v2, v3 :: v_dual_mov_b32 v5, 9");
  for (int l = 0; l < 32; ++l) {
    CHECK(sim.v(4, l) == (l < 16 ? 2u : 1u));
    CHECK(sim.v(5, l) == 9u);
  }
}

TEST_CASE("true16 operands gfx1100", "[gfx1100]") {
  Sim sim("gfx1100");
  sim.fill(2, [](int l) { return 0xaaaa0000u | uint32_t(l); });         // .l = l
  sim.fill(3, [](int l) { return uint32_t(1000 + l) << 16 | 0xbbbbu; });  // .h = 1000 + l
  sim.fill(1, [](int) { return 0x11112222u; });
  sim.run("v_add_nc_u16 v1.h, v2.l, v3.h");
  for (int l = 0; l < 32; ++l) CHECK(sim.v(1, l) == (uint32_t(1000 + 2 * l) << 16 | 0x2222u));  // .l kept
  // v_swap_b16 exchanges two halves and keeps the other halves; inactive lanes keep everything.
  sim.fill(5, [](int l) { return 0x55550000u | uint32_t(l); });
  sim.fill(6, [](int l) { return uint32_t(2000 + l) << 16 | 0x6666u; });
  sim.w.set_exec(0x7fffffffu);
  sim.run("v_swap_b16 v5.l, v6.h");
  for (int l = 0; l < 31; ++l) {
    CHECK(sim.v(5, l) == (0x55550000u | uint32_t(2000 + l)));
    CHECK(sim.v(6, l) == (uint32_t(l) << 16 | 0x6666u));
  }
  CHECK(sim.v(5, 31) == 0x5555001fu);
  sim.w.set_exec(0xffffffffu);
  sim.fill(7, [](int l) { return 7000u + l; });
  sim.fill(8, [](int l) { return 8000u + l; });
  sim.run("v_swap_b32 v7, v8");
  for (int l = 0; l < 32; ++l) {
    CHECK(sim.v(7, l) == 8000u + l);
    CHECK(sim.v(8, l) == 7000u + l);
  }
  sim.fill(4, [](int) { return 0x33334444u; });
  sim.run("v_mov_b16 v4.h, v2.l");
  for (int l = 0; l < 32; ++l) CHECK(sim.v(4, l) == (uint32_t(l) << 16 | 0x4444u));
  // f32 -> f16 into a low half, and back from a high half.
  sim.fillf(7, 1.5f);
  sim.fill(6, [](int) { return 0x3c00ffffu; });  // .h = 1.0 in f16
  sim.run("v_cvt_f16_f32 v6.l, v7\nv_cvt_f32_f16 v8, v6.h\nv_cvt_f32_f16 v9, v6.l");
  for (int l = 0; l < 32; ++l) {
    CHECK(sim.v(6, l) == 0x3c003e00u);  // 1.5 in f16 is 0x3e00
    CHECK(sim.vf(8, l) == 1.0f);
    CHECK(sim.vf(9, l) == 1.5f);
  }
}
