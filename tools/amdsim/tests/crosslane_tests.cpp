// Compares (inactive lanes' bits cleared, v_cmpx writing EXEC, wave32 VCC_LO), cndmask,
// readlane/readfirstlane/writelane (EXEC ignored), DPP, ds_swizzle and ds_bpermute.
#include <cmath>
#include <limits>

#include "sim.hpp"

using namespace amdsim_test;

namespace {
uint64_t lanes_where(const Sim& sim, uint64_t exec, bool (*pred)(int)) {
  uint64_t m = 0;
  for (int l = 0; l < sim.wave_size; ++l)
    if (((exec >> l) & 1) && pred(l)) m |= 1ull << l;
  return m;
}
}  // namespace

SIM_TEST(compare_clears_inactive_lanes) {
  uint64_t exec = sim.wave32() ? 0x0ff0ff0full : 0x0ff0ff0f0ff0ff0full;
  sim.fill(0, [](int l) { return std::bit_cast<uint32_t>(float(l)); });
  sim.fillf(1, 20.0f);
  sim.w.set_exec(exec);
  sim.s(106) = 0xffffffffu, sim.s(107) = 0xffffffffu;  // VCC all ones before
  sim.run("v_cmp_lt_f32 " + sim.vcc_name() + ", v0, v1");
  CHECK(sim.vcc() == lanes_where(sim, exec, [](int l) { return l < 20; }));
  if (sim.wave32()) CHECK(sim.s(107) == 0xffffffffu);  // wave32 writes VCC_LO only
  // VOP3 form into an SGPR mask; integer compares signed vs unsigned.
  sim.fill(2, [](int l) { return uint32_t(l - 8); });  // negative for l < 8
  sim.w.set_s64(4, ~0ull);
  sim.run("v_cmp_gt_i32 " + sim.mask(4) + ", v2, 0\nv_cmp_gt_u32 " + sim.mask(8) + ", v2, 0");
  CHECK(sim.s64(4) == lanes_where(sim, exec, [](int l) { return l > 8; }));
  CHECK(sim.s64(8) == lanes_where(sim, exec, [](int l) { return l != 8; }));
  if (sim.wave32()) CHECK(sim.s(5) == 0xffffffffu);
  // NaN: neq (unordered or not equal) is true, lg (ordered and not equal) is false, u is true.
  sim.w.set_exec(sim.all());
  sim.fill(3, [](int l) { return l & 1 ? 0x7fc00000u : std::bit_cast<uint32_t>(1.0f); });
  sim.fillf(4, 2.0f);
  sim.run("v_cmp_neq_f32 " + sim.mask(10) + ", v3, v4\nv_cmp_lg_f32 " + sim.mask(12) + ", v3, v4\nv_cmp_u_f32 " +
          sim.mask(14) + ", v3, v4");
  uint64_t odd = sim.wave32() ? 0xaaaaaaaaull : 0xaaaaaaaaaaaaaaaaull;
  CHECK(sim.s64(10) == sim.all());
  CHECK(sim.s64(12) == (sim.all() & ~odd));
  CHECK(sim.s64(14) == odd);
}

SIM_TEST(cmpx_writes_exec) {
  uint64_t exec = sim.wave32() ? 0xffff00ffull : 0xffff00ffffff00ffull;
  sim.fill(0, [](int l) { return uint32_t(l); });
  sim.w.set_exec(exec);
  sim.run(sim.gfx11() ? "v_cmpx_gt_u32 v0, 3" : "v_cmpx_lt_u32 vcc, 3, v0");
  uint64_t expect = lanes_where(sim, exec, [](int l) { return l > 3; });
  CHECK(sim.w.exec() == expect);
  // Later VALU ops see the new EXEC.
  sim.fill(1, [](int) { return 0u; });
  sim.run("v_mov_b32 v1, 1");
  for (int l = 0; l < sim.wave_size; ++l) CHECK(sim.v(1, l) == ((expect >> l) & 1));
}

SIM_TEST(cndmask_selects_per_lane) {
  sim.fill(0, [](int) { return 111u; });
  sim.fill(1, [](int) { return 222u; });
  sim.fill(2, [](int) { return 0xdeadu; });
  uint64_t sel = sim.wave32() ? 0x12345678ull : 0x123456789abcdef0ull;
  if (sim.wave32()) sim.s(106) = uint32_t(sel);
  else sim.w.set_s64(106, sel);
  uint64_t exec = sim.all() & ~0x3ull;
  sim.w.set_exec(exec);
  sim.run("v_cndmask_b32 v2, v0, v1, " + sim.vcc_name());
  for (int l = 0; l < sim.wave_size; ++l)
    CHECK(sim.v(2, l) == (l < 2 ? 0xdeadu : ((sel >> l) & 1) ? 222u : 111u));
  // VOP3 with an SGPR mask and float modifiers: -|v| on the selected operand.
  sim.w.set_exec(sim.all());
  sim.fillf(3, -1.5f);
  sim.w.set_s64(20, ~0ull);
  sim.run("v_cndmask_b32 v4, 0, -|v3|, " + sim.mask(20));
  CHECK(sim.vf(4, 0) == -1.5f);
  CHECK(sim.v(4, 0) == std::bit_cast<uint32_t>(-1.5f));
}

SIM_TEST(readlane_writelane_ignore_exec) {
  sim.fill(0, [](int l) { return 1000u + l; });
  sim.w.set_exec(0);
  sim.s(8) = 7;
  sim.run("v_readlane_b32 s0, v0, 5\nv_readlane_b32 s1, v0, s8\nv_readfirstlane_b32 s2, v0");
  CHECK(sim.s(0) == 1005u);
  CHECK(sim.s(1) == 1007u);
  CHECK(sim.s(2) == 1000u);  // EXEC = 0: lane 0
  sim.w.set_exec(0b101000);
  sim.run("v_readfirstlane_b32 s2, v0");
  CHECK(sim.s(2) == 1003u);
  sim.w.set_exec(0);
  sim.s(3) = 0xabcdu;
  sim.run("v_writelane_b32 v0, s3, 9");
  CHECK(sim.v(0, 9) == 0xabcdu);
  CHECK(sim.v(0, 8) == 1008u);
  // The lane select wraps at the wave size.
  sim.s(8) = uint32_t(sim.wave_size + 2);
  sim.run("v_readlane_b32 s4, v0, s8");
  CHECK(sim.s(4) == 1002u);
}

SIM_TEST(dpp_row_shr_quad_perm_bound_ctrl) {
  sim.fill(0, [](int l) { return 100u + l; });
  sim.fill(1, [](int) { return 7u; });
  sim.run("v_mov_b32_dpp v1, v0 row_shr:1 row_mask:0xf bank_mask:0xf");
  for (int l = 0; l < sim.wave_size; ++l) CHECK(sim.v(1, l) == ((l & 15) == 0 ? 7u : 100u + l - 1));
  // bound_ctrl: out-of-row sources read 0.
  sim.run("v_mov_b32_dpp v2, v0 row_shr:3 row_mask:0xf bank_mask:0xf bound_ctrl:1");
  for (int l = 0; l < sim.wave_size; ++l) CHECK(sim.v(2, l) == ((l & 15) < 3 ? 0u : 100u + l - 3));
  sim.run("v_mov_b32_dpp v3, v0 quad_perm:[3,2,1,0] row_mask:0xf bank_mask:0xf");
  for (int l = 0; l < sim.wave_size; ++l) CHECK(sim.v(3, l) == 100u + ((l & ~3) | (3 - (l & 3))));
  // row_mask: rows 1 and 3 (lanes 16-31, 48-63) are not written.
  sim.fill(4, [](int) { return 9u; });
  std::string add = sim.gfx11() ? "v_add_nc_u32_dpp" : "v_add_u32_dpp";
  sim.run(add + " v4, v0, v0 row_shl:1 row_mask:0x5 bank_mask:0xf bound_ctrl:1");
  for (int l = 0; l < sim.wave_size; ++l) {
    bool row_on = ((l >> 4) & 1) == 0;
    uint32_t src = (l & 15) == 15 ? 0u : 100u + l + 1;
    CHECK(sim.v(4, l) == (row_on ? src + 100u + l : 9u));
  }
  // A source lane outside EXEC reads as invalid: without bound_ctrl the lane keeps its value.
  sim.w.set_exec(sim.all() & ~0x2ull);
  sim.fill(5, [](int) { return 5u; });
  sim.run("v_mov_b32_dpp v5, v0 row_shr:1 row_mask:0xf bank_mask:0xf");
  CHECK(sim.v(5, 2) == 5u);   // its source, lane 1, is inactive
  CHECK(sim.v(5, 1) == 5u);   // inactive itself
  CHECK(sim.v(5, 3) == 102u);
}

TEST_CASE("dpp_row_bcast gfx942", "[gfx942]") {
  for (const char* p : {"gfx942", "gfx90a"}) {
    Sim sim(p);
    sim.fill(0, [](int l) { return uint32_t(l + 1); });
    sim.fill(1, [](int l) { return uint32_t(1000 * l); });
    // The atomic optimizer's reduction step: row r += lane 15 of row r-1 (rows 1..3: row_mask 0xa
    // writes rows 1 and 3, so the bcast of rows 0 and 2 lands there).
    sim.run("v_add_u32_dpp v1, v0, v1 row_bcast:15 row_mask:0xa bank_mask:0xf");
    for (int l = 0; l < 64; ++l) {
      int row = l >> 4;
      uint32_t expect = (row == 1 || row == 3) ? uint32_t(16 * row) + 1000u * l : 1000u * l;  // v0[16*row - 1] = 16*row
      CHECK(sim.v(1, l) == expect);
    }
    sim.run("v_mov_b32_dpp v2, v0 row_bcast:31 row_mask:0xc bank_mask:0xf");
    for (int l = 32; l < 64; ++l) CHECK(sim.v(2, l) == 32u);
    CHECK(sim.v(2, 31) == 0u);
  }
}

SIM_TEST(ds_swizzle_and_bpermute) {
  sim.fill(0, [](int l) { return 500u + l; });
  sim.run("ds_swizzle_b32 v1, v0 offset:swizzle(SWAP,1)");
  for (int l = 0; l < sim.wave_size; ++l) CHECK(sim.v(1, l) == 500u + (l ^ 1));
  sim.run("ds_swizzle_b32 v2, v0 offset:swizzle(BROADCAST,8,3)");
  for (int l = 0; l < sim.wave_size; ++l) CHECK(sim.v(2, l) == 500u + ((l & ~7) | 3));
  sim.run("ds_swizzle_b32 v3, v0 offset:swizzle(QUAD_PERM,1,0,3,2)");
  for (int l = 0; l < sim.wave_size; ++l) CHECK(sim.v(3, l) == 500u + ((l & ~3) | ((l & 3) ^ 1)));
  sim.run("ds_swizzle_b32 v4, v0 offset:swizzle(REVERSE,16)");
  for (int l = 0; l < sim.wave_size; ++l) CHECK(sim.v(4, l) == 500u + ((l & ~15) | (15 - (l & 15))));
  // bpermute: lane l reads lane (addr / 4) mod wave size.
  sim.fill(5, [&](int l) { return uint32_t(((sim.wave_size - 1 - l) + sim.wave_size) * 4); });
  sim.run("ds_bpermute_b32 v6, v5, v0");
  for (int l = 0; l < sim.wave_size; ++l) CHECK(sim.v(6, l) == 500u + (sim.wave_size - 1 - l));
  sim.run("ds_bpermute_b32 v7, v5, v0 offset:4");
  for (int l = 0; l < sim.wave_size; ++l) CHECK(sim.v(7, l) == 500u + ((2 * sim.wave_size - l) % sim.wave_size));
}

// v_cmp_class_f16 (rocjit-smith kernel 2032013975 stopped on it): the class from the f16 bits, so
// f16 subnormals are subnormal; |x| and -x apply first.
SIM_TEST(cmp_class_f16) {
  const uint32_t values[10] = {0x7c01, 0x7e00, 0xfc00, 0xbc00, 0x8001, 0x8000, 0x0000, 0x0001, 0x3c00, 0x7c00};
  sim.w.set_exec(sim.all());
  sim.fill(0, [&](int l) { return l < 10 ? values[l] : 0x3c00u; });
  sim.fill(1, [](int l) { return l < 10 ? 1u << l : 1u << 8; });          // each lane its own class
  sim.fill(2, [](int l) { return l < 10 ? 0x3ffu ^ (1u << l) : 0u; });    // every class but its own
  sim.fill(3, [](int l) { return l < 10 ? 1u << 8 : 0u; });               // +normal only
  auto r = [&](int v) { return "v" + std::to_string(v) + (sim.gfx11() ? ".l" : ""); };  // gfx11: 16-bit halves
  sim.run("v_cmp_class_f16_e64 " + sim.mask(4) + ", " + r(0) + ", " + r(1) + "\nv_cmp_class_f16_e64 " + sim.mask(8) +
          ", " + r(0) + ", " + r(2) + "\nv_cmp_class_f16_e64 " + sim.mask(12) + ", -" + r(0) + ", " + r(3));
  CHECK(sim.s64(4) == sim.all());
  CHECK(sim.s64(8) == 0);
  // Negated: -(-normal) is +normal (lane 3), -(+normal) is not (lane 8 and the lanes past 9).
  CHECK(sim.s64(12) == (1ull << 3));
}
