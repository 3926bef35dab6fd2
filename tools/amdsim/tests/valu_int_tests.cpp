// VALU integer: carry masks, 64-bit multiply-add, shifts, bit fields, alignbit, mbcnt, and the
// rule that a VALU op writes only EXEC lanes.
#include "sim.hpp"

using namespace amdsim_test;

SIM_TEST(valu_add_co_carry_mask) {
  // Lane l: v0 = 0xffffffff - l, v1 = 1 + (l & 1): v0 + v1 carries iff v1 > l (lanes 0 and 1).
  sim.fill(0, [](int l) { return 0xffffffffu - uint32_t(l); });
  sim.fill(1, [](int l) { return 1u + (l & 1); });
  sim.run("v_add_co_u32 v2, " + sim.vcc_name() + ", v0, v1");
  CHECK(sim.vcc() == 0b11);
  for (int l = 0; l < sim.wave_size; ++l) CHECK(sim.v(2, l) == sim.v(0, l) + sim.v(1, l));
  // Carry-in from VCC: the high halves of a 64-bit add (v4 = 10 + l, v5 = 20).
  sim.fill(4, [](int l) { return 10 + l; });
  sim.fill(5, [](int) { return 20; });
  std::string addc = sim.gfx11() ? "v_add_co_ci_u32 v3, " + sim.vcc_name() + ", v4, v5, " + sim.vcc_name()
                                 : "v_addc_co_u32 v3, vcc, v4, v5, vcc";
  sim.run(addc);
  for (int l = 0; l < sim.wave_size; ++l) CHECK(sim.v(3, l) == uint32_t(30 + l + (l < 2)));
  CHECK(sim.vcc() == 0);
  // Carry out to an SGPR pair from the VOP3 form, with a carry-in of all ones: 0xffffffff + 0 + 1.
  sim.fill(6, [](int) { return 0xffffffffu; });
  sim.fill(7, [](int) { return 0u; });
  sim.w.set_s64(20, ~0ull);
  std::string addc3 = sim.gfx11() ? "v_add_co_ci_u32 v8, " + sim.mask(10) + ", v6, v7, " + sim.mask(20)
                                  : "v_addc_co_u32 v8, s[10:11], v6, v7, s[20:21]";
  sim.run(addc3);
  CHECK(sim.s64(10) == sim.all());
  CHECK(sim.v(8, 5) == 0u);
  // Borrow: 3 - (l & 7) borrows for l & 7 > 3.
  sim.fill(0, [](int) { return 3u; });
  sim.fill(1, [](int l) { return uint32_t(l & 7); });
  sim.run("v_sub_co_u32 v2, " + sim.vcc_name() + ", v0, v1");
  uint64_t borrow = 0;
  for (int l = 0; l < sim.wave_size; ++l) {
    if ((l & 7) > 3) borrow |= 1ull << l;
    CHECK(sim.v(2, l) == 3u - uint32_t(l & 7));
  }
  CHECK(sim.vcc() == borrow);
  CHECK(borrow == (sim.wave32() ? 0xf0f0f0f0ull : 0xf0f0f0f0f0f0f0f0ull));
}

SIM_TEST(valu_mad_u64_u32) {
  sim.fill(0, [](int l) { return 0xffffffffu - uint32_t(l); });
  sim.fill(1, [](int) { return 0xffffffffu; });
  for (int l = 0; l < 64; ++l) sim.set_v64(2, l, l == 0 ? 0xffffffffffffffffull : uint64_t(l));
  std::string carry = sim.gfx11() ? sim.mask(10) : "s[10:11]";
  sim.run("v_mad_u64_u32 v[4:5], " + carry + ", v0, v1, v[2:3]");
  uint64_t expect_carry = 0;
  for (int l = 0; l < sim.wave_size; ++l) {
    unsigned __int128 r = (unsigned __int128)(uint64_t(sim.v(0, l)) * 0xffffffffull) + sim.v64(2, l);
    CHECK(sim.v64(4, l) == uint64_t(r));
    if (r >> 64) expect_carry |= 1ull << l;
  }
  CHECK(expect_carry == 1);  // (2^32-1)^2 + 2^64-1 overflows; the others do not
  CHECK(sim.s64(10) == expect_carry);
  // The signed form: -2 * 3 + 1 = -5.
  sim.fill(0, [](int) { return uint32_t(-2); });
  sim.fill(1, [](int) { return 3u; });
  for (int l = 0; l < 64; ++l) sim.set_v64(2, l, 1);
  sim.run("v_mad_i64_i32 v[4:5], " + carry + ", v0, v1, v[2:3]");
  CHECK(sim.v64(4, 7) == uint64_t(-5));
  CHECK(sim.s64(10) == 0);
}

TEST_CASE("valu_lshl_add_u64 gfx942", "[gfx942]") {
  Sim sim("gfx942");
  for (int l = 0; l < 64; ++l) sim.set_v64(0, l, 0x0000000180000000ull + l), sim.set_v64(2, l, 0xffffffff00000000ull);
  sim.run("v_lshl_add_u64 v[4:5], v[0:1], 3, v[2:3]");
  for (int l = 0; l < 64; ++l) CHECK(sim.v64(4, l) == ((0x0000000180000000ull + l) << 3) + 0xffffffff00000000ull);
  // The shift amount from a VGPR (0..4 per lane).
  sim.fill(6, [](int l) { return uint32_t(l % 5); });
  sim.run("v_lshl_add_u64 v[4:5], v[0:1], v6, v[2:3]");
  for (int l = 0; l < 64; ++l) CHECK(sim.v64(4, l) == ((0x0000000180000000ull + l) << (l % 5)) + 0xffffffff00000000ull);
}

SIM_TEST(valu_shifts_bitfields_alignbit) {
  sim.fill(0, [](int l) { return 0x80000000u | uint32_t(l); });
  sim.fill(1, [](int l) { return uint32_t(32 + l); });  // shift amounts use the low 5 bits
  sim.run("v_lshlrev_b32 v2, v1, v0\nv_lshrrev_b32 v3, v1, v0\nv_ashrrev_i32 v4, v1, v0");
  for (int l = 0; l < sim.wave_size; ++l) {
    uint32_t x = 0x80000000u | uint32_t(l), sh = uint32_t(l) & 31;
    CHECK(sim.v(2, l) == x << sh);
    CHECK(sim.v(3, l) == x >> sh);
    CHECK(sim.v(4, l) == uint32_t(int32_t(x) >> sh));
  }
  sim.fill(0, [](int) { return 0x12345678u; });
  sim.fill(1, [](int l) { return uint32_t(l & 31); });  // offset
  sim.fill(2, [](int) { return 8u; });                 // width
  sim.run("v_bfe_u32 v3, v0, v1, v2\nv_bfe_i32 v4, v0, v1, v2");
  for (int l = 0; l < sim.wave_size; ++l) {
    uint32_t off = uint32_t(l & 31);
    uint32_t field = (0x12345678u >> off) & 0xff;
    if (off > 24) field = 0x12345678u >> off;  // the field runs past bit 31: zeros come in
    CHECK(sim.v(3, l) == field);
    uint32_t sfield = off > 24 ? field : uint32_t(int32_t(int8_t(field)));
    CHECK(sim.v(4, l) == sfield);
  }
  // Width 0 gives 0.
  sim.run("v_bfe_u32 v3, v0, 4, 0");
  CHECK(sim.v(3, 3) == 0u);
  // alignbit: ({v0, v1} >> (v2 & 31)) & 0xffffffff.
  sim.fill(0, [](int) { return 0xaabbccddu; });
  sim.fill(1, [](int) { return 0x11223344u; });
  sim.fill(2, [](int l) { return uint32_t(l * 4); });
  sim.run("v_alignbit_b32 v3, v0, v1, v2");
  for (int l = 0; l < sim.wave_size; ++l) {
    uint64_t both = 0xaabbccdd11223344ull;
    CHECK(sim.v(3, l) == uint32_t(both >> ((l * 4) & 31)));
  }
  sim.run("v_alignbyte_b32 v4, v0, v1, 3");
  CHECK(sim.v(4, 0) == 0xbbccdd11u);
  // 24-bit and high multiplies.
  sim.fill(0, [](int) { return 0xff800000u; });  // 24-bit: 0x800000 = -2^23 signed
  sim.fill(1, [](int) { return 2u; });
  sim.run("v_mul_u32_u24 v2, v0, v1\nv_mul_i32_i24 v3, v0, v1\nv_mul_hi_u32 v4, v0, v0\nv_mul_lo_u32 v5, v0, v0");
  CHECK(sim.v(2, 0) == 0x01000000u);
  CHECK(sim.v(3, 0) == uint32_t(-(1 << 24)));
  CHECK(sim.v(4, 0) == uint32_t((0xff800000ull * 0xff800000ull) >> 32));
  CHECK(sim.v(5, 0) == uint32_t(0xff800000ull * 0xff800000ull));
}

SIM_TEST(valu_mbcnt_lane_ids) {
  // mbcnt(-1) is the lane id; with a mask, the count of mask bits below the lane.
  if (sim.wave32()) {
    sim.run("v_mbcnt_lo_u32_b32 v0, -1, 0");
  } else {
    sim.run("v_mbcnt_lo_u32_b32 v0, -1, 0\nv_mbcnt_hi_u32_b32 v0, -1, v0");
  }
  for (int l = 0; l < sim.wave_size; ++l) CHECK(sim.v(0, l) == uint32_t(l));
  sim.s(4) = 0x55555555u, sim.s(5) = 0xffffffffu;
  sim.fill(1, [](int) { return 100u; });
  if (sim.wave32()) sim.run("v_mbcnt_lo_u32_b32 v2, s4, v1");
  else sim.run("v_mbcnt_lo_u32_b32 v2, s4, v1\nv_mbcnt_hi_u32_b32 v2, s5, v2");
  for (int l = 0; l < sim.wave_size; ++l) {
    uint32_t below = std::popcount(uint64_t(0xffffffff55555555ull) & ((1ull << l) - 1));
    CHECK(sim.v(2, l) == 100u + below);
  }
}

SIM_TEST(valu_writes_only_exec_lanes) {
  uint64_t exec = sim.wave32() ? 0x8000a5a1ull : 0x80000001a5a5a5a1ull;
  sim.fill(0, [](int l) { return uint32_t(l); });
  sim.fill(2, [](int) { return 0xdeadbeefu; });
  for (int l = 0; l < 64; ++l) sim.set_v64(4, l, 0x1111111122222222ull);
  sim.w.set_exec(exec);
  sim.run("v_add_u32 v2, 5, v0\nv_lshlrev_b64 v[4:5], 4, v[4:5]");
  for (int l = 0; l < sim.wave_size; ++l) {
    bool active = (exec >> l) & 1;
    CHECK(sim.v(2, l) == (active ? uint32_t(l + 5) : 0xdeadbeefu));
    CHECK(sim.v64(4, l) == (active ? 0x1111111122222222ull << 4 : 0x1111111122222222ull));
  }
  // EXEC = 0: nothing changes, but the instruction still runs (no skipping of SALU neighbours).
  sim.w.set_exec(0);
  sim.run("v_mov_b32 v2, 0\ns_mov_b32 s0, 42");
  CHECK(sim.v(2, 0) == 5u);
  CHECK(sim.v(2, 1) == 0xdeadbeefu);
  CHECK(sim.s(0) == 42u);
}

// gfx9 VGPR index mode: s_set_gpr_idx_on adds M0[7:0] to the selected operands of vector
// instructions only; scalar instructions in between are not indexed; s_set_gpr_idx_off ends it
// (it once stayed on after the off, as LLVM's indexed private-array reads left a later v_add
// reading the wrong registers: found by rocjit-smith).
TEST_CASE("valu_gpr_index_mode gfx942 gfx90a", "[gfx942][gfx90a]") {
  for (const char* processor : {"gfx942", "gfx90a"}) {
    Sim sim(processor);
    for (uint32_t r = 0; r < 12; ++r) sim.fill(r, [&](int l) { return r * 100 + uint32_t(l); });
    sim.w.s[4] = 6;
    sim.run("s_set_gpr_idx_on s4, gpr_idx(SRC0)\nv_mov_b32_e32 v13, v1\ns_lshl_b64 s[0:1], s[2:3], 3\n"
            "v_mov_b32_e32 v12, v0\ns_set_gpr_idx_off\nv_mov_b32_e32 v14, v2\n"
            "s_set_gpr_idx_on s4, gpr_idx(DST)\nv_mov_b32_e32 v1, v3\ns_set_gpr_idx_off");
    for (int l = 0; l < sim.wave_size; ++l) {
      CHECK(sim.v(13, l) == 700 + uint32_t(l));  // v[1 + 6]
      CHECK(sim.v(12, l) == 600 + uint32_t(l));  // v[0 + 6]
      CHECK(sim.v(14, l) == 200 + uint32_t(l));  // after s_set_gpr_idx_off: v2 itself
      CHECK(sim.v(7, l) == 300 + uint32_t(l));   // DST indexed: v[1 + 6] = v3
      CHECK(sim.v(1, l) == 100 + uint32_t(l));   // v1 untouched
    }
  }
}

// gfx11 M0-relative moves: v_movrels reads VGPR[src + M0], v_movreld writes VGPR[dst + M0].
TEST_CASE("valu_movrel gfx1100", "[gfx1100]") {
  Sim sim("gfx1100");
  for (uint32_t r = 0; r < 12; ++r) sim.fill(r, [&](int l) { return r * 100 + uint32_t(l); });
  sim.w.s[amdsim::m0] = 5;
  sim.run("v_movrels_b32 v20, v1\nv_movreld_b32 v2, v11\nv_movrelsd_b32 v0, v3");
  for (int l = 0; l < sim.wave_size; ++l) {
    CHECK(sim.v(20, l) == 600 + uint32_t(l));  // v[1 + 5]
    CHECK(sim.v(7, l) == 1100 + uint32_t(l));  // v[2 + 5] = v11
    CHECK(sim.v(5, l) == 800 + uint32_t(l));   // v[0 + 5] = v[3 + 5]
  }
}
