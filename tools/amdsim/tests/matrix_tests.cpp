// MFMA instructions: D = A . B + C in the single-block register layout (written out here, not
// taken from rocjit), with C and D in AGPRs or VGPRs, C an inline constant, f64 register pairs,
// packed i8; a partial EXEC mask and the broadcast modifiers are errors; v_accvgpr moves.
#include <cmath>

#include "sim.hpp"

using namespace amdsim_test;

namespace {

uint16_t half_bits(float f) { return std::bit_cast<uint16_t>(static_cast<_Float16>(f)); }

// Small exact values of the tiles.
float a_at(int i, int k) { return float((i + 2 * k) % 5 - 2); }
float b_at(int k, int j) { return float((3 * k + j) % 7 - 3) * 0.5f; }
float c_at(int i, int j) { return float(i - j) * 0.25f; }

// The gfx90a and gfx942 spellings of one instruction.
std::string spelled(const Sim& sim, const std::string& gfx90a, const std::string& gfx940) {
  return sim.proc.name == "gfx90a" ? gfx90a : gfx940;
}


}  // namespace

GFX9_TEST(mfma_16x16x16_f16_with_agpr_accumulators) {
  // Lane l: A[l % 16][4 (l / 16) + i] in v[0:1] (two halves per register, low half first),
  // B[4 (l / 16) + i][l % 16] in v[2:3], C and D[4 (l / 16) + i][l % 16] in a[0:3] and a[4:7].
  for (int l = 0; l < 64; ++l)
    for (int i = 0; i < 4; ++i) {
      const int g = l / 16, r = l % 16;
      uint32_t& va = sim.v(i / 2, l);
      uint32_t& vb = sim.v(2 + i / 2, l);
      const int shift = 16 * (i % 2);
      va = (va & ~(0xffffu << shift)) | uint32_t(half_bits(a_at(r, 4 * g + i))) << shift;
      vb = (vb & ~(0xffffu << shift)) | uint32_t(half_bits(b_at(4 * g + i, r))) << shift;
      sim.w.a[size_t(i) * 64 + l] = std::bit_cast<uint32_t>(c_at(4 * g + i, r));
    }
  sim.run(spelled(sim, "v_mfma_f32_16x16x16f16", "v_mfma_f32_16x16x16_f16") + " a[4:7], v[0:1], v[2:3], a[0:3]");
  for (int l = 0; l < 64; ++l)
    for (int i = 0; i < 4; ++i) {
      const int row = 4 * (l / 16) + i, col = l % 16;
      float want = c_at(row, col);
      for (int k = 0; k < 16; ++k) want = std::fma(a_at(row, k), b_at(k, col), want);
      INFO("lane " << l << " register " << i);
      REQUIRE(std::bit_cast<float>(sim.w.a[size_t(4 + i) * 64 + l]) == want);
    }
  // The same instruction with VGPR C and D, reading its C from the AGPRs first moved to v[8:11].
  sim.run("v_accvgpr_read_b32 v8, a0\nv_accvgpr_read_b32 v9, a1\nv_accvgpr_read_b32 v10, a2\n"
          "v_accvgpr_read_b32 v11, a3\n" +
          spelled(sim, "v_mfma_f32_16x16x16f16", "v_mfma_f32_16x16x16_f16") + " v[12:15], v[0:1], v[2:3], v[8:11]");
  for (int l = 0; l < 64; ++l)
    for (int i = 0; i < 4; ++i) REQUIRE(sim.v(12 + i, l) == sim.w.a[size_t(4 + i) * 64 + l]);
}

GFX9_TEST(mfma_32x32x2_f32_rows_in_blocks_of_eight) {
  // v_mfma_f32_32x32x2f32: A[l % 32][l / 32], B[l / 32][l % 32]; D register i is row
  // 8 (i / 4) + 4 (l / 32) + i % 4 of column l % 32. C is the inline constant 0.
  for (int l = 0; l < 64; ++l) {
    sim.v(0, l) = std::bit_cast<uint32_t>(a_at(l % 32, l / 32));
    sim.v(1, l) = std::bit_cast<uint32_t>(b_at(l / 32, l % 32));
  }
  sim.run(spelled(sim, "v_mfma_f32_32x32x2f32", "v_mfma_f32_32x32x2_f32") + " v[16:31], v0, v1, 0");
  for (int l = 0; l < 64; ++l)
    for (int i = 0; i < 16; ++i) {
      const int row = 8 * (i / 4) + 4 * (l / 32) + i % 4, col = l % 32;
      const float want = std::fma(a_at(row, 1), b_at(1, col), std::fma(a_at(row, 0), b_at(0, col), 0.0f));
      REQUIRE(sim.vf(16 + i, l) == want);
    }
}

GFX9_TEST(mfma_f64_and_i8) {
  // v_mfma_f64_16x16x4f64: one f64 of A and B per lane (register pairs), D four f64 pairs.
  for (int l = 0; l < 64; ++l) {
    sim.set_v64(0, l, std::bit_cast<uint64_t>(double(a_at(l % 16, l / 16)) / 3.0));
    sim.set_v64(2, l, std::bit_cast<uint64_t>(double(b_at(l / 16, l % 16)) / 7.0));
  }
  sim.run(spelled(sim, "v_mfma_f64_16x16x4f64", "v_mfma_f64_16x16x4_f64") + " v[8:15], v[0:1], v[2:3], 0");
  for (int l = 0; l < 64; ++l)
    for (int i = 0; i < 4; ++i) {
      const int row = 4 * (l / 16) + i, col = l % 16;
      double want = 0;
      for (int k = 0; k < 4; ++k) want = std::fma(double(a_at(row, k)) / 3.0, double(b_at(k, col)) / 7.0, want);
      REQUIRE(sim.vd(8 + 2 * i, l) == want);
    }
  // i8: four signed bytes per register, products and sums wrapping in i32. gfx90a has 16x16x16
  // (one register of A and B), gfx942 16x16x32 (a pair).
  const bool k32 = sim.proc.name != "gfx90a";
  const int k = k32 ? 32 : 16, per = k / 4;
  auto ai = [](int i, int kk) { return int8_t((i * 37 + kk * 11) % 255 - 127); };
  auto bi = [](int kk, int j) { return int8_t((kk * 13 + j * 29) % 255 - 127); };
  for (int l = 0; l < 64; ++l)
    for (int e = 0; e < per; ++e) {
      uint32_t& va = sim.v(20 + e / 4, l);
      uint32_t& vb = sim.v(22 + e / 4, l);
      const int shift = 8 * (e % 4);
      va = (va & ~(0xffu << shift)) | uint32_t(uint8_t(ai(l % 16, per * (l / 16) + e))) << shift;
      vb = (vb & ~(0xffu << shift)) | uint32_t(uint8_t(bi(per * (l / 16) + e, l % 16))) << shift;
    }
  sim.run(k32 ? "v_mfma_i32_16x16x32_i8 v[24:27], v[20:21], v[22:23], 0"
              : "v_mfma_i32_16x16x16i8 v[24:27], v20, v22, 0");
  for (int l = 0; l < 64; ++l)
    for (int i = 0; i < 4; ++i) {
      const int row = 4 * (l / 16) + i, col = l % 16;
      int32_t want = 0;
      for (int kk = 0; kk < k; ++kk) want += int32_t(ai(row, kk)) * int32_t(bi(kk, col));
      REQUIRE(int32_t(sim.v(24 + i, l)) == want);
    }
}

GFX9_TEST(mfma_needs_every_lane_and_no_broadcast_modifiers) {
  sim.w.set_exec(0x00000000ffffffffull);
  CHECK_THROWS_WITH(sim.run(spelled(sim, "v_mfma_f32_16x16x4f32", "v_mfma_f32_16x16x4_f32") + " v[4:7], v0, v1, 0"),
                    Catch::Matchers::Contains("MFMA needs every lane of the wave active"));
  sim.w.set_exec(~0ull);
  CHECK_THROWS_WITH(
      sim.run(spelled(sim, "v_mfma_f32_16x16x4f32", "v_mfma_f32_16x16x4_f32") + " v[4:7], v0, v1, 0 cbsz:1 abid:1"),
      Catch::Matchers::Contains("cbsz/abid/blgp"));
}

// --- WMMA (gfx1100, wave32 and wave64) ----------------------------------------------------------
// The RDNA3 register layout, written out here: lane l holds row l % 16 of A and column l % 16 of
// B with the 16 k values packed in k order (two 16-bit values per register, low half first; four
// i8 per register, low byte first), lanes 16 and up repeating lanes 0..15; C/D register r of
// lane l is element [(W / 16) r + l / 16][l % 16] (W the wave size): 8 registers in wave32, 4 in
// wave64. 16-bit C/D values sit in the half op_sel[2] names.

namespace {

uint16_t bf16_bits(float f) { return uint16_t(std::bit_cast<uint32_t>(f) >> 16); }  // exact for the values used
float bf16_value(uint16_t h) { return std::bit_cast<float>(uint32_t(h) << 16); }
float half_value(uint16_t h) { return float(std::bit_cast<_Float16>(h)); }

// Values with more significant bits than the 16-bit types keep when summed, so the order of the
// fmas and the single final rounding of 16-bit outputs both show.
float wa(int i, int k) { return float((i * 7 + k * 3) % 11 - 5) * 0.375f; }
float wb(int k, int j) { return float((k * 5 + j * 9) % 13 - 6) * 0.3125f; }
float wc(int i, int j) { return float(i * 16 + j) * 0.0078125f - 1.0f; }

// Packs A (rows) and B (columns) into v[0:7] and v[8:15], 16-bit elements, in every lane.
void put_ab16(Sim& sim, bool bf16) {
  auto bits = [&](float f) { return bf16 ? bf16_bits(f) : half_bits(f); };
  for (int l = 0; l < sim.wave_size; ++l)
    for (int k = 0; k < 16; k += 2) {
      const int r = l % 16;
      sim.v(k / 2, l) = uint32_t(bits(wa(r, k))) | uint32_t(bits(wa(r, k + 1))) << 16;
      sim.v(8 + k / 2, l) = uint32_t(bits(wb(k, r))) | uint32_t(bits(wb(k + 1, r))) << 16;
    }
}

int c_row(const Sim& sim, int r, int l) { return sim.wave_size / 16 * r + l / 16; }

}  // namespace

static void wmma_f32_forms(Sim& sim) {
  const int nd = 256 / sim.wave_size;
  const std::string d = nd == 8 ? "v[16:23]" : "v[16:19]";
  for (bool bf16 : {false, true}) {
    INFO((bf16 ? "bf16" : "f16") << " wave" << sim.wave_size);
    put_ab16(sim, bf16);
    for (int l = 0; l < sim.wave_size; ++l)
      for (int r = 0; r < nd; ++r) sim.v(16 + r, l) = std::bit_cast<uint32_t>(wc(c_row(sim, r, l), l % 16));
    sim.run(std::string(bf16 ? "v_wmma_f32_16x16x16_bf16 " : "v_wmma_f32_16x16x16_f16 ") + d + ", v[0:7], v[8:15], " + d);
    auto in = [&](float f) { return bf16 ? bf16_value(bf16_bits(f)) : half_value(half_bits(f)); };
    for (int l = 0; l < sim.wave_size; ++l)
      for (int r = 0; r < nd; ++r) {
        const int row = c_row(sim, r, l), col = l % 16;
        float want = wc(row, col);
        for (int k = 0; k < 16; ++k) want = std::fma(in(wa(row, k)), in(wb(k, col)), want);
        INFO("lane " << l << " register " << r);
        REQUIRE(sim.vf(16 + r, l) == want);
      }
  }
}

static void wmma_16bit_outputs(Sim& sim) {
  const int nd = 256 / sim.wave_size;
  const std::string d = nd == 8 ? "v[16:23]" : "v[16:19]";
  for (bool bf16 : {false, true})
    for (int hi : {0, 1}) {
      INFO((bf16 ? "bf16" : "f16") << " op_sel " << hi << " wave" << sim.wave_size);
      put_ab16(sim, bf16);
      auto bits = [&](float f) { return bf16 ? bf16_bits(f) : half_bits(f); };
      auto value = [&](uint16_t h) { return bf16 ? bf16_value(h) : half_value(h); };
      // C in the chosen half; the other half holds a marker that must survive.
      for (int l = 0; l < sim.wave_size; ++l)
        for (int r = 0; r < nd; ++r) {
          const uint32_t c = bits(wc(c_row(sim, r, l), l % 16));
          sim.v(16 + r, l) = hi ? (c << 16 | 0xbeefu) : (0xbeefu << 16 | c);
        }
      const std::string name = bf16 ? "v_wmma_bf16_16x16x16_bf16 " : "v_wmma_f16_16x16x16_f16 ";
      sim.run(name + d + ", v[0:7], v[8:15], " + d + (hi ? " op_sel:[0,0,1]" : ""));
      for (int l = 0; l < sim.wave_size; ++l)
        for (int r = 0; r < nd; ++r) {
          const int row = c_row(sim, r, l), col = l % 16;
          float sum = value(bits(wc(row, col)));
          for (int k = 0; k < 16; ++k) sum = std::fma(value(bits(wa(row, k))), value(bits(wb(k, col))), sum);
          // One rounding of the f32 sum (to nearest even; these sums are finite).
          const uint16_t want = bf16 ? [&] {
            uint32_t x = std::bit_cast<uint32_t>(sum);
            return uint16_t((x + 0x7fffu + ((x >> 16) & 1)) >> 16);
          }()
                                     : half_bits(sum);
          const uint32_t got = sim.v(16 + r, l);
          INFO("lane " << l << " register " << r);
          REQUIRE(uint16_t(hi ? got >> 16 : got) == want);
          REQUIRE(uint16_t(hi ? got : got >> 16) == 0xbeefu);
        }
    }
  // The single rounding shows: sum 1 + 2^-11 + 2^-11 in f16 is 1 + 2^-10 (two roundings of
  // 1 + 2^-11 would each round to even, giving 1).
  for (int l = 0; l < sim.wave_size; ++l) {
    for (int k = 0; k < 8; ++k) {
      sim.v(k, l) = k == 0 ? (uint32_t(half_bits(1.0f)) | uint32_t(half_bits(1.0f)) << 16) : 0;
      sim.v(8 + k, l) = k == 0 ? (uint32_t(half_bits(0x1p-11f)) | uint32_t(half_bits(0x1p-11f)) << 16) : 0;
    }
    for (int r = 0; r < nd; ++r) sim.v(16 + r, l) = half_bits(1.0f);
  }
  sim.run("v_wmma_f16_16x16x16_f16 " + d + ", v[0:7], v[8:15], " + d);
  for (int l = 0; l < sim.wave_size; ++l) REQUIRE(uint16_t(sim.v(16, l)) == half_bits(1.0f + 0x1p-10f));
}

static void wmma_iu8(Sim& sim) {
  const int nd = 256 / sim.wave_size;
  const std::string d = nd == 8 ? "v[16:23]" : "v[16:19]";
  auto ab = [](int i, int k) { return uint8_t((i * 37 + k * 11 + 200) % 256); };
  auto bb = [](int k, int j) { return uint8_t((k * 13 + j * 29 + 100) % 256); };
  for (int l = 0; l < sim.wave_size; ++l)
    for (int k = 0; k < 16; ++k) {
      const int r = l % 16, shift = 8 * (k % 4);
      uint32_t& va = sim.v(k / 4, l);
      uint32_t& vb = sim.v(4 + k / 4, l);
      va = (va & ~(0xffu << shift)) | uint32_t(ab(r, k)) << shift;
      vb = (vb & ~(0xffu << shift)) | uint32_t(bb(k, r)) << shift;
    }
  for (unsigned signs : {0u, 1u, 2u, 3u}) {
    INFO("neg_lo " << signs << " wave" << sim.wave_size);
    for (int l = 0; l < sim.wave_size; ++l)
      for (int r = 0; r < nd; ++r) sim.v(16 + r, l) = uint32_t(0x7fffff00 + c_row(sim, r, l) * 16 + l % 16);
    const std::string mods = signs ? " neg_lo:[" + std::to_string(signs & 1) + "," + std::to_string(signs >> 1) + ",0]" : "";
    sim.run("v_wmma_i32_16x16x16_iu8 " + d + ", v[0:3], v[4:7], " + d + mods);
    for (int l = 0; l < sim.wave_size; ++l)
      for (int r = 0; r < nd; ++r) {
        const int row = c_row(sim, r, l), col = l % 16;
        uint32_t want = uint32_t(0x7fffff00 + row * 16 + col);  // sums past 2^31 wrap
        for (int k = 0; k < 16; ++k) {
          const int64_t x = (signs & 1) ? int8_t(ab(row, k)) : ab(row, k);
          const int64_t y = (signs & 2) ? int8_t(bb(k, col)) : bb(k, col);
          want += uint32_t(x * y);
        }
        INFO("lane " << l << " register " << r);
        REQUIRE(sim.v(16 + r, l) == want);
      }
  }
}

static void wmma_errors(Sim& sim) {
  const std::string d = sim.wave_size == 32 ? "v[16:23]" : "v[16:19]";
  const std::string inst = "v_wmma_f32_16x16x16_f16 " + d + ", v[0:7], v[8:15], " + d;
  put_ab16(sim, false);
  sim.w.set_exec(sim.all() >> 1);
  CHECK_THROWS_WITH(sim.run(inst), Catch::Matchers::Contains("WMMA needs every lane of the wave active"));
  sim.w.set_exec(sim.all());
  // A copy of row 4 in lane 20 (and, in wave64, lane 52) that differs from lane 4's.
  for (int lane : sim.wave_size == 64 ? std::vector<int>{20, 52} : std::vector<int>{20}) {
    put_ab16(sim, false);
    sim.v(3, lane) ^= 0x10000u;
    CHECK_THROWS_WITH(sim.run(inst), Catch::Matchers::Contains("WMMA operand A (register 3 of the tuple) differs "
                                                               "between lane 4 and lane " + std::to_string(lane)) &&
                                         Catch::Matchers::Contains("at PC offset 0x0"));
  }
  put_ab16(sim, false);
  sim.v(9, 31) += 1;
  CHECK_THROWS_WITH(sim.run(inst), Catch::Matchers::Contains("WMMA operand B (register 1 of the tuple) differs "
                                                             "between lane 15 and lane 31"));
  put_ab16(sim, false);
  CHECK_THROWS_WITH(sim.run("v_wmma_i32_16x16x16_iu8 " + d + ", v[0:3], v[4:7], " + d + " clamp"),
                    Catch::Matchers::Contains("clamp"));
  CHECK_THROWS_WITH(sim.run(inst + " neg_lo:[1,0,0]"), Catch::Matchers::Contains("neg_lo/neg_hi"));
  sim.run(inst);  // the same registers, whole again: no error
}

#define WMMA_TEST(name)                                                                         \
  TEST_CASE(#name " gfx1100 wave32", "[gfx1100]") { ::amdsim_test::Sim s("gfx1100", 32); name(s); } \
  TEST_CASE(#name " gfx1100 wave64", "[gfx1100]") { ::amdsim_test::Sim s("gfx1100", 64); name(s); }

WMMA_TEST(wmma_f32_forms)
WMMA_TEST(wmma_16bit_outputs)
WMMA_TEST(wmma_iu8)
WMMA_TEST(wmma_errors)

// ---- the processors' numerics models (rocjit's ir::mma::Model, docs/mma.md "Numerics") ---------

namespace {

// A 16x16xK f16 MFMA's operands from tiles given as functions: lane l holds A[l % 16][ka (l / 16)
// + i] packed two per register from v0 and B[ka (l / 16) + i][l % 16] from v(ka / 2); C(i, j) in
// v[8:11] (row 4 (l / 16) + r of column l % 16 in register 8 + r).
template <class FA, class FB, class FC>
void load_16x16(Sim& sim, int k, FA a, FB b, FC c) {
  const int ka = k / 4;
  for (int l = 0; l < 64; ++l) {
    for (int i = 0; i < ka; ++i) {
      const int g = l / 16, r = l % 16, shift = 16 * (i % 2);
      uint32_t& va = sim.v(i / 2, l);
      uint32_t& vb = sim.v(ka / 2 + i / 2, l);
      va = (va & ~(0xffffu << shift)) | uint32_t(half_bits(a(r, ka * g + i))) << shift;
      vb = (vb & ~(0xffffu << shift)) | uint32_t(half_bits(b(ka * g + i, r))) << shift;
    }
    for (int i = 0; i < 4; ++i) sim.v(8 + i, l) = std::bit_cast<uint32_t>(c(4 * (l / 16) + i, l % 16));
  }
}

// D(row, col) of a 16x16 result in v[12:15].
float d_at(Sim& sim, int row, int col) { return sim.vf(12 + row % 4, 16 * (row / 4) + col); }

}  // namespace

GFX9_TEST(mfma_f16_numerics_pairs_and_flushing_on_gfx90a_groups_of_four_on_gfx942) {
  // Row 0 of A and column 0 of B: products 1, 2^-24, 2^-24 at k = 0, 1, 2 and C = 0. gfx942 sums
  // the four products of k = 0..3 exactly before rounding once (1 + 2^-23); gfx90a rounds each
  // pair (1 + 2^-24 is a tie: 1; then 1 + 2^-24: 1). Row 1, column 1: C = 1 with products 2^-24
  // at k = 0, 1: one pair on both (1 + 2^-23). Row 2, column 2: an f16 subnormal (2^-15) times
  // 1024, which gfx90a reads as 0. Row 3, column 3: C = 2^-130 (an f32 subnormal), no products:
  // gfx90a flushes it. Row 4, column 4: 2^-14 * 2^-14 * ... a normal product whose sum with C =
  // -2^-28 + 2^-28 * (1 + 2^-10)... kept simple: 2^-8 * 2^-8 = 2^-16, C = 0 (normal everywhere).
  const float t = 0x1p-12f;
  auto a = [&](int i, int k) {
    if (i == 0) return k == 0 ? 1.0f : (k == 1 || k == 2) ? t : 0.0f;
    if (i == 1) return k < 2 ? t : 0.0f;
    if (i == 2) return k == 5 ? 0x1p-15f : 0.0f;
    if (i == 4) return k == 15 ? 0x1p-8f : 0.0f;
    return 0.0f;
  };
  auto b = [&](int k, int j) {
    if (j == 0) return k == 0 ? 1.0f : (k == 1 || k == 2) ? t : 0.0f;
    if (j == 1) return k < 2 ? t : 0.0f;
    if (j == 2) return k == 5 ? 1024.0f : 0.0f;
    if (j == 4) return k == 15 ? 0x1p-8f : 0.0f;
    return 0.0f;
  };
  auto c = [&](int i, int j) { return i == 1 && j == 1 ? 1.0f : i == 3 && j == 3 ? 0x1p-130f : 0.0f; };
  load_16x16(sim, 16, a, b, c);
  sim.run(spelled(sim, "v_mfma_f32_16x16x16f16", "v_mfma_f32_16x16x16_f16") + " v[12:15], v[0:1], v[2:3], v[8:11]");
  const bool cdna2 = sim.proc.name == "gfx90a";
  CHECK(d_at(sim, 0, 0) == (cdna2 ? 1.0f : 1.0f + 0x1p-23f));
  CHECK(d_at(sim, 1, 1) == 1.0f + 0x1p-23f);
  CHECK(d_at(sim, 2, 2) == (cdna2 ? 0.0f : 0x1p-5f));
  CHECK(d_at(sim, 3, 3) == (cdna2 ? 0.0f : 0x1p-130f));
  CHECK(d_at(sim, 4, 4) == 0x1p-16f);
  CHECK(d_at(sim, 5, 5) == 0.0f);
}

TEST_CASE("mfma_f16_numerics_gfx950_x32_forms_sum_elements_0_to_3_first", "[gfx950]") {
  // v_mfma_f32_16x16x32_f16: lane l holds A[l % 16][8 (l / 16) + i], i = 0..7. Products 2^24 at
  // k = 0, 1 at k = 4, -2^24 at k = 8: groups of four in k order would round the 1 away next to
  // 2^24 (a tie, to even); gfx950 is modelled as summing every lane's elements 0..3 first
  // (k = 0..3, 8..11, ...: the 2^24s cancel), then 4..7 (k = 4..7: the 1 stays).
  Sim sim("gfx950");
  auto a = [](int i, int k) { return i == 0 ? (k == 0 || k == 4 ? (k == 0 ? 4096.0f : 1.0f) : k == 8 ? -4096.0f : 0.0f) : 0.0f; };
  auto b = [](int k, int j) { return j == 0 && (k == 0 || k == 4 || k == 8) ? (k == 4 ? 1.0f : 4096.0f) : 0.0f; };
  load_16x16(sim, 32, a, b, [](int, int) { return 0.0f; });
  sim.run("v_mfma_f32_16x16x32_f16 v[12:15], v[0:3], v[4:7], v[8:11]");
  CHECK(d_at(sim, 0, 0) == 1.0f);
  CHECK(d_at(sim, 1, 0) == 0.0f);
}

// --- xf32 MFMA (gfx942) -------------------------------------------------------------------------
// v_mfma_f32_16x16x8_xf32 and v_mfma_f32_32x32x4_xf32: two f32 of A and of B per lane (a register
// pair each), lane l holding A[l % M][2 (l / M) + i] and B[2 (l / M) + i][l % M], D as the other
// f32 forms. Each A and B value is cut toward zero to 10 fraction bits (the low 13 bits cleared)
// before the f32 chain of fmas in k order.
namespace {

float cut13(float x) { return std::bit_cast<float>(std::bit_cast<uint32_t>(x) & 0xffffe000u); }

// Values using all 23 fraction bits: 1.5 + i/8 + a pattern below xf32's last place; some negative,
// one subnormal.
float xa(int i, int k) {
  if (i == 3 && k == 1) return -0x1.0ffffep-127f;  // subnormal: the cut keeps 2^-136 steps
  const float base = a_at(i, k) + 0.125f * float(i % 4);
  return std::bit_cast<float>(std::bit_cast<uint32_t>(base == 0 ? 0.75f : base) | uint32_t((i * 131 + k * 17) & 0x1fff));
}
float xb(int k, int j) {
  const float base = b_at(k, j) == 0 ? 1.25f : b_at(k, j);
  return std::bit_cast<float>(std::bit_cast<uint32_t>(base) | uint32_t((k * 977 + j * 41 + 1) & 0x1fff));
}

}  // namespace

TEST_CASE("mfma_xf32_gfx942_both_shapes_cut_a_and_b_then_chain_fmas", "[gfx942]") {
  Sim sim("gfx942");
  for (int m : {16, 32}) {
    INFO("M = N = " << m);
    const int k = m == 16 ? 8 : 4, nd = m * m / 64;
    for (int l = 0; l < 64; ++l) {
      for (int i = 0; i < 2; ++i) {
        sim.v(i, l) = std::bit_cast<uint32_t>(xa(l % m, 2 * (l / m) + i));
        sim.v(2 + i, l) = std::bit_cast<uint32_t>(xb(2 * (l / m) + i, l % m));
      }
      for (int r = 0; r < nd; ++r)
        sim.w.a[size_t(r) * 64 + l] = std::bit_cast<uint32_t>(c_at(8 * (r / 4) % m + 4 * (l / m) + r % 4, l % m));
    }
    sim.run(m == 16 ? "v_mfma_f32_16x16x8_xf32 a[16:19], v[0:1], v[2:3], a[0:3]"
                    : "v_mfma_f32_32x32x4_xf32 a[16:31], v[0:1], v[2:3], a[0:15]");
    int cut_visible = 0;
    for (int l = 0; l < 64; ++l)
      for (int r = 0; r < nd; ++r) {
        const int row = (m == 16 ? 4 * (l / 16) + r : 8 * (r / 4) + 4 * (l / 32) + r % 4), col = l % m;
        float want = c_at(row, col), full = want;
        for (int kk = 0; kk < k; ++kk) {
          want = std::fma(cut13(xa(row, kk)), cut13(xb(kk, col)), want);
          full = std::fma(xa(row, kk), xb(kk, col), full);
        }
        const float got = std::bit_cast<float>(sim.w.a[size_t(16 + r) * 64 + l]);
        INFO("lane " << l << " register " << r << " row " << row);
        REQUIRE(std::bit_cast<uint32_t>(got) == std::bit_cast<uint32_t>(want));
        cut_visible += got != full;
      }
    CHECK(cut_visible > 32);  // the inputs' low bits did not take part
  }
}

TEST_CASE("mfma_xf32_forms_are_not_gfx950_or_gfx90a_instructions", "[gfx950]") {
  for (const char* p : {"gfx950", "gfx90a"}) {
    INFO(p);
    Sim sim(p);
    // LLVM's assembler (xf32-insts is gfx940-gfx942's feature) rejects them.
    CHECK_THROWS_WITH(sim.run("v_mfma_f32_16x16x8_xf32 v[4:7], v[0:1], v[2:3], 0"),
                      Catch::Matchers::Contains("not supported on this GPU"));
  }
}
