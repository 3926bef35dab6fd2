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
