// gfx90a SDWA (dst_sel, src_sel, dst_unused PAD/SEXT/PRESERVE, sext sources), gfx90a/gfx942
// packed f32 (v_pk_mov/add/mul/fma_f32 with op_sel, op_sel_hi, neg_lo, neg_hi), f16
// conversions and 16-bit integer operations; gfx1100 kernels compiled for wave64 launched whole.
#include <rocjit/rocjit.hpp>
#include <sample_kernels.hpp>

#include <cmath>
#include <limits>
#include <map>

#include "sim.hpp"

using namespace amdsim_test;

namespace {

uint32_t bits(float f) { return std::bit_cast<uint32_t>(f); }


}  // namespace

TEST_CASE("SDWA selects, destination bytes and unused bits", "[gfx90a]") {
  Sim sim("gfx90a");
  sim.fill(0, [](int l) { return 0x80c3a100u | ((0xf0u + uint32_t(l)) & 0xff); });  // byte1 = 0xa1
  sim.fill(1, [](int l) { return 0x00070000u + uint32_t(l) * 0x10000u + 0x1234u; });  // word1 = 7 + lane
  sim.fill(3, [](int) { return 0x11223344u; });
  sim.fill(4, [](int) { return 0x11223344u; });
  sim.fill(5, [](int) { return 0x11223344u; });
  uint64_t exec = ~0ull & ~(1ull << 7);
  sim.w.set_exec(exec);
  sim.run(
      // byte1 of v0 + word1 of v1, whole dword
      "v_add_u32_sdwa v2, v0, v1 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:BYTE_1 src1_sel:WORD_1\n"
      // the same sum into byte 2 only, the other bytes kept
      "v_add_u32_sdwa v3, v0, v1 dst_sel:BYTE_2 dst_unused:UNUSED_PRESERVE src0_sel:BYTE_1 src1_sel:WORD_1\n"
      // into word 1, the low word zero
      "v_add_u32_sdwa v4, v0, v1 dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:BYTE_1 src1_sel:WORD_1\n"
      // byte 0 of v0 (0xf0 + lane: bit 7 set) into byte 1, the bits above sign-extended, below zero
      "v_mov_b32_sdwa v5, v0 dst_sel:BYTE_1 dst_unused:UNUSED_SEXT src0_sel:BYTE_0\n"
      // a sign-extended source byte: (int8)(0xf0 + lane) + word1 of v1
      "v_add_u32_sdwa v6, sext(v0), v1 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:BYTE_0 src1_sel:WORD_1\n"
      // the high word of v1 into the low word of v7, the high word kept
      "v_mov_b32_sdwa v7, v1 dst_sel:WORD_0 dst_unused:UNUSED_PRESERVE src0_sel:WORD_1\n"
      // byte 3 of v0 (0x80) ORed with v1 whole
      "v_or_b32_sdwa v8, v0, v1 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:BYTE_3 src1_sel:DWORD");
  for (int l = 0; l < 64; ++l) {
    INFO("lane " << l);
    bool active = (exec >> l) & 1;
    uint32_t sum = 0xa1u + 7u + uint32_t(l);
    uint32_t byte0 = (0xf0u + uint32_t(l)) & 0xff;
    if (!active) {
      CHECK(sim.v(3, l) == 0x11223344u);
      CHECK(sim.v(5, l) == 0x11223344u);
      continue;
    }
    CHECK(sim.v(2, l) == sum);
    CHECK(sim.v(3, l) == (0x11003344u | (sum & 0xff) << 16));
    CHECK(sim.v(4, l) == (sum & 0xffff) << 16);
    CHECK(sim.v(5, l) == ((byte0 & 0x80) ? 0xffff0000u | byte0 << 8 : byte0 << 8));
    CHECK(sim.v(6, l) == uint32_t(int32_t(int8_t(byte0)) + int32_t(7 + l)));
    CHECK(sim.v(7, l) == (0x00000000u | (7u + uint32_t(l))));
    CHECK(sim.v(8, l) == (0x80u | sim.v(1, l)));
  }
  // f16 in the high word converted through src0_sel:WORD_1 (LLVM's fpext of a high half).
  sim.w.set_exec(~0ull);
  sim.fill(9, [](int) { return 0x3e00bc00u; });  // hi 1.5, lo -1.0
  sim.run("v_cvt_f32_f16_sdwa v10, v9 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1\n"
          "v_cvt_f32_f16_e32 v11, v9");
  CHECK(sim.vf(10, 0) == 1.5f);
  CHECK(sim.vf(11, 0) == -1.0f);
}

// v_pk_mov/add/mul/fma_f32 with op_sel, op_sel_hi, neg_lo, neg_hi.
GFX9_TEST(packed_f32) {
  {
    for (int l = 0; l < 64; ++l) {
      sim.v(0, l) = bits(1.5f + float(l)), sim.v(1, l) = bits(-2.0f);
      sim.v(2, l) = bits(0.25f), sim.v(3, l) = bits(10.0f * float(l));
    }
    sim.run("v_pk_mov_b32 v[4:5], v[0:1], v[2:3] op_sel:[1,0]\n"
            "v_pk_mov_b32 v[6:7], v[0:1], v[2:3] op_sel:[0,1]\n"
            "v_pk_add_f32 v[8:9], v[0:1], v[2:3]\n"
            "v_pk_add_f32 v[10:11], v[0:1], v[2:3] op_sel:[1,0] op_sel_hi:[0,1]\n"
            "v_pk_add_f32 v[12:13], v[0:1], v[2:3] neg_lo:[1,0] neg_hi:[0,1]\n"
            "v_pk_mul_f32 v[14:15], v[0:1], v[2:3] op_sel_hi:[1,0]");
    for (int l = 0; l < 64; ++l) {
      INFO("lane " << l);
      float x0 = 1.5f + float(l), x1 = -2.0f, y0 = 0.25f, y1 = 10.0f * float(l);
      CHECK(sim.vf(4, l) == x1);  // lo from src0's high dword
      CHECK(sim.vf(5, l) == y0);  // hi from src1's low dword
      CHECK(sim.vf(6, l) == x0);
      CHECK(sim.vf(7, l) == y1);
      CHECK(sim.vf(8, l) == x0 + y0);
      CHECK(sim.vf(9, l) == x1 + y1);
      CHECK(sim.vf(10, l) == x1 + y0);  // lo: src0.hi + src1.lo
      CHECK(sim.vf(11, l) == x0 + y1);  // hi: src0.lo + src1.hi
      CHECK(sim.vf(12, l) == -x0 + y0);
      CHECK(sim.vf(13, l) == x1 - y1);
      CHECK(sim.vf(14, l) == x0 * y0);
      CHECK(sim.vf(15, l) == x1 * y0);  // hi: src0.hi * src1.lo
    }
    // fma: one rounding per half.
    float e = 1.0f + 0x1p-23f;
    for (int l = 0; l < 64; ++l) {
      sim.v(0, l) = bits(e), sim.v(1, l) = bits(-e);
      sim.v(2, l) = bits(e), sim.v(3, l) = bits(e);
      sim.v(4, l) = bits(-1.0f), sim.v(5, l) = bits(1.0f);
    }
    sim.w.set_exec(~0ull & ~1ull);
    sim.fill(6, [](int) { return 0xdeadu; });
    sim.run("v_pk_fma_f32 v[6:7], v[0:1], v[2:3], v[4:5]\n"
            "v_pk_fma_f32 v[8:9], v[0:1], v[2:3], v[4:5] neg_lo:[0,0,1] neg_hi:[1,0,0]");
    CHECK(sim.v(6, 0) == 0xdeadu);  // inactive lane
    CHECK(sim.vf(6, 1) == 0x1p-22f + 0x1p-46f);
    CHECK(sim.vf(7, 1) == -(0x1p-22f + 0x1p-46f));
    CHECK(sim.vf(8, 1) == 2.0f + 0x1p-22f + 0x1p-46f);
    CHECK(sim.vf(9, 1) == 2.0f + 0x1p-22f + 0x1p-46f);
  }
}

// f16 conversions: rounding, overflow, denormals, NaN, packing.
GFX9_TEST(f16_conversions) {
  {
    const float in[] = {1.0f + 0x1p-11f,        // tie: nearest even 1.0
                        1.0f + 0x1.8p-11f,      // above the tie: 1 + 2^-10
                        65519.0f,               // below the overflow threshold: 65504
                        65520.0f,               // overflows to inf
                        -70000.0f,              // -inf
                        0x1p-20f,               // an f16 denormal
                        0x1p-26f,               // below half the smallest denormal: +0
                        std::numeric_limits<float>::quiet_NaN(), -0.0f, 0.333333343f};
    const uint16_t expect[] = {0x3c00, 0x3c01, 0x7bff, 0x7c00, 0xfc00, 0x0010, 0x0000, 0x7e00, 0x8000, 0x3555};
    const int n = int(std::size(in));
    for (int l = 0; l < 64; ++l) sim.v(0, l) = bits(in[l % n]);
    sim.fill(1, [](int) { return 0xffff0000u; });
    sim.run("v_cvt_f16_f32_e32 v1, v0");
    for (int l = 0; l < n; ++l) {
      INFO("input " << in[l]);
      CHECK((sim.v(1, l) & 0xffff) == expect[l]);
    }
    // Back to f32: exact (f16 denormals become f32 normals).
    const uint16_t h[] = {0x3555, 0x0001, 0xfc00, 0x7bff, 0x8000, 0x03ff};
    const float back[] = {0.333251953125f, 0x1p-24f, -std::numeric_limits<float>::infinity(), 65504.0f, -0.0f,
                          0x1.ff8p-15f};
    for (int l = 0; l < 64; ++l) sim.v(2, l) = 0xabcd0000u | h[l % 6];  // the high half is ignored
    sim.run("v_cvt_f32_f16_e32 v3, v2\nv_cvt_f32_f16_e64 v4, -|v2|");
    for (int l = 0; l < 6; ++l) {
      CHECK(sim.v(3, l) == bits(back[l]));
      CHECK(sim.v(4, l) == bits(-std::fabs(back[l])));
    }
    // Packing with round toward zero: 1 + 0.75 ulp truncates; an overflow toward zero is the
    // largest finite value.
    sim.fill(5, [](int) { return bits(1.0f + 0x1.8p-11f); });
    sim.fill(6, [](int) { return bits(-65520.0f); });
    sim.run("v_cvt_pkrtz_f16_f32 v7, v5, v6");
    CHECK(sim.v(7, 0) == (0xfbffu << 16 | 0x3c00u));
  }
}

// 16-bit integer operations use the low halves and zero the high half.
GFX9_TEST(integer_16bit) {
  {
    sim.fill(0, [](int) { return 0x1234ffffu; });  // low half 0xffff (-1)
    sim.fill(1, [](int) { return 0xabcd0002u; });  // low half 2
    sim.fill(2, [](int) { return 0x55558000u; });  // low half 0x8000 (-32768)
    sim.fill(3, [](int) { return 0x00000011u; });  // shift 17: uses the low 4 bits (1)
    sim.fill(4, [](int) { return 0x00000003u; });
    sim.run("v_add_u16_e32 v10, v0, v1\n"          // 0xffff + 2 wraps to 1
            "v_sub_u16_e32 v11, v1, v0\n"          // 2 - 0xffff = 3
            "v_subrev_u16_e32 v12, v1, v0\n"       // 0xffff - 2
            "v_mul_lo_u16_e32 v13, v0, v1\n"       // 0xfffe
            "v_lshlrev_b16_e32 v14, v3, v2\n"      // 0x8000 << 1 = 0
            "v_lshrrev_b16_e32 v15, v4, v2\n"      // 0x1000
            "v_ashrrev_i16_e32 v16, v4, v2\n"      // 0xf000
            "v_max_i16_e32 v17, v2, v1\n"          // 2
            "v_min_i16_e32 v18, v2, v1\n"          // 0x8000
            "v_max_u16_e32 v19, v2, v1\n"          // 0x8000
            "v_min_u16_e32 v20, v0, v1\n"          // 2
            "v_mad_u16 v21, v0, v1, v4\n"          // 0xffff * 2 + 3 = 0x1
            "v_lshlrev_b16_e32 v22, v4, v1\n"      // 2 << 3 = 16
            "v_min3_i16 v23, v0, v1, v2\n"         // min(-1, 2, -32768) = 0x8000
            "v_max3_i16 v24, v0, v1, v2\n"         // 2
            "v_min3_u16 v25, v0, v1, v2\n"         // 2
            "v_max3_u16 v26, v0, v1, v2\n"         // 0xffff
            "v_med3_i16 v27, v0, v1, v2\n"         // med(-1, 2, -32768) = 0xffff
            "v_med3_u16 v28, v0, v1, v2\n"         // med(0xffff, 2, 0x8000) = 0x8000
            "v_dot4_u32_u8 v29, v0, v1, v4\n"      // 0xff*2 + 0xff*0 + 0x34*0xcd + 0x12*0xab + 3
            "v_dot4_i32_i8 v30, v0, v1, v4\n"      // -1*2 + -1*0 + 0x34*-0x33 + 0x12*-0x55 + 3
            "v_dot2_u32_u16 v31, v0, v1, v4\n"     // 0xffff*2 + 0x1234*0xabcd + 3
            "v_dot2_i32_i16 v32, v0, v1, v4");     // -1*2 + 0x1234*-0x5433 + 3
    const uint32_t expect[] = {1, 3, 0xfffd, 0xfffe, 0, 0x1000, 0xf000, 2, 0x8000, 0x8000, 2, 1, 16,
                               0x8000, 2, 2, 0xffff, 0xffff, 0x8000,
                               0xff * 2 + 0x34 * 0xcd + 0x12 * 0xab + 3,
                               uint32_t(-2 + 0x34 * -0x33 + 0x12 * -0x55 + 3),
                               uint32_t(0xffffu * 2 + 0x1234u * 0xabcdu + 3),
                               uint32_t(-2 + 0x1234 * -0x5433 + 3)};
    for (int r = 0; r < 23; ++r) {
      INFO("v" << 10 + r);
      CHECK(sim.v(10 + r, 0) == expect[r]);
      CHECK(sim.v(10 + r, 63) == expect[r]);
    }
  }
  {
    // With clamp they saturate (LLVM's usub.sat.i8 of seed-2029 kernel 2042 is v_sub_u16 clamp):
    // unsigned to [0, 0xffff], signed to [-32768, 32767].
    sim.run("v_sub_u16_e64 v40, v1, v0 clamp\n"     // 2 - 0xffff -> 0
            "v_add_u16_e64 v41, v0, v1 clamp\n"     // 0xffff + 2 -> 0xffff
            "v_subrev_u16_e64 v42, v0, v1 clamp\n"  // 2 - 0xffff -> 0
            "v_sub_u16_e64 v43, v1, v4 clamp\n"     // 2 - 3 -> 0
            "v_sub_u16_e64 v44, v0, v1 clamp\n"     // 0xffff - 2 = 0xfffd (no saturation)
            "v_add_i16 v45, v2, v0 clamp\n"         // -32768 + -1 -> -32768
            "v_sub_i16 v46, v1, v2 clamp\n"         // 2 - -32768 -> 32767
            "v_add_i16 v47, v2, v0\n"               // wraps: 0x7fff
            "v_mad_u16 v48, v0, v1, v4 clamp");     // 0xffff * 2 + 3 -> 0xffff
    const uint32_t expect[] = {0, 0xffff, 0, 0, 0xfffd, 0x8000, 0x7fff, 0x7fff, 0xffff};
    for (int r = 0; r < 9; ++r) {
      INFO("v" << 40 + r);
      CHECK(sim.v(40 + r, 0) == expect[r]);
      CHECK(sim.v(40 + r, 63) == expect[r]);
    }
  }
}

namespace {

// A rocjit kernel compiled for gfx1100 in wave64 and launched with amdsim::launch.
struct Wave64 {
  std::vector<uint8_t> elf;
  std::shared_ptr<amdsim::Program> program;
  const amdsim::KernelInfo* kernel = nullptr;
  Wave64(const rocjit::Kernel& k, const std::string& name) {
    rocjit::CodeObject co = rocjit::compile(k, rocjit::Target::amdgpu("gfx1100", "+wavefrontsize64"));
    elf = co.elf;
    program = amdsim::Program::load(elf, amdsim::Processor::get("gfx1100"));
    kernel = program->kernel(name);
    REQUIRE(kernel != nullptr);
  }
};


}  // namespace

TEST_CASE("gfx1100 in wave64: reduce and histogram compiled with +wavefrontsize64", "[gfx1100]") {
  using namespace rocjit::samples;
  Wave64 red(reduce(), "reduce");
  CHECK(red.kernel->wavefront_size == 64u);
  const int n = 1000, groups = (n + BLOCK - 1) / BLOCK;
  amdsim::Memory memory;
  auto* in = static_cast<float*>(memory.allocate(n * 4));
  auto* partial = static_cast<float*>(memory.allocate(groups * 4));
  for (int i = 0; i < n; ++i) in[i] = float(i % 17) - 3.0f;
  auto args = array_arguments(*red.kernel, {{"in", {in, n}}, {"partial", {partial, groups}}}, {uint32_t(groups), 1, 1}, {BLOCK, 1, 1});
  amdsim::LaunchStats stats = amdsim::launch(*red.program, *red.kernel, {uint32_t(groups), 1, 1}, {BLOCK, 1, 1}, 0, args, memory);
  for (int g = 0; g < groups; ++g) {
    float expect = 0;  // small integers: every order of summation is exact
    for (int i = g * BLOCK; i < std::min(n, (g + 1) * BLOCK); ++i) expect += in[i];
    CHECK(partial[g] == expect);
  }
  CHECK(stats.work_groups == uint64_t(groups));

  Wave64 hist(histogram(), "histogram");
  CHECK(hist.kernel->wavefront_size == 64u);
  auto* data = static_cast<uint32_t*>(memory.allocate(n * 4));
  auto* h = static_cast<uint32_t*>(memory.allocate(HISTOGRAM_BINS * 4));
  std::vector<uint32_t> expect(HISTOGRAM_BINS, 0);
  for (int i = 0; i < n; ++i) data[i] = uint32_t(i * 7919 + 13) % 5000, ++expect[data[i] % HISTOGRAM_BINS];
  args = array_arguments(*hist.kernel, {{"data", {data, n}}, {"hist", {h, HISTOGRAM_BINS}}}, {3, 1, 1}, {BLOCK, 1, 1});
  amdsim::launch(*hist.program, *hist.kernel, {3, 1, 1}, {BLOCK, 1, 1}, 0, args, memory);
  for (int b = 0; b < HISTOGRAM_BINS; ++b) CHECK(h[b] == expect[b]);
}

// Packed 16-bit integers (LLVM's <2 x i16> arithmetic): halves chosen by op_sel/op_sel_hi,
// wrapping or (clamp) saturating results, shifts by the low four bits.
GFX9_TEST(packed_16_bit_integers) {
  sim.fill(0, [](int l) { return 0x8001ffc0u + uint32_t(l); });  // hi 0x8001 (-32767), lo 0xffc0 + lane
  sim.fill(1, [](int l) { return 0x00030020u + (uint32_t(l) << 16); });  // hi 3 + lane, lo 0x20
  sim.run(
      "v_pk_add_u16 v2, v0, v1\n"
      "v_pk_sub_i16 v3, v0, v1\n"
      "v_pk_sub_i16 v4, v0, v1 clamp\n"
      "v_pk_mul_lo_u16 v5, v0, v1\n"
      "v_pk_lshlrev_b16 v6, v1, v0\n"
      "v_pk_ashrrev_i16 v7, v1, v0\n"
      "v_pk_lshrrev_b16 v8, v1, v0\n"
      "v_pk_max_i16 v9, v0, v1\n"
      "v_pk_min_u16 v10, v0, v1\n"
      "v_pk_mad_i16 v11, v0, v1, v0\n"
      "v_pk_add_u16 v12, v0, 1 op_sel_hi:[1,0]\n"       // the constant 1 in both halves
      "v_pk_add_u16 v13, v0, v1 op_sel:[1,0] op_sel_hi:[0,1]");  // swapped halves of v0
  for (int l = 0; l < 64; ++l) {
    INFO("lane " << l);
    const uint32_t alo = 0xffc0u + uint32_t(l), ahi = 0x8001u, blo = 0x20u, bhi = 3u + uint32_t(l);
    auto pack = [](int64_t lo, int64_t hi) { return uint32_t(lo & 0xffff) | uint32_t(hi & 0xffff) << 16; };
    auto s16 = [](uint32_t h) { return int64_t{int16_t(uint16_t(h))}; };
    CHECK(sim.v(2, l) == pack(alo + blo, ahi + bhi));
    CHECK(sim.v(3, l) == pack(s16(alo) - s16(blo), s16(ahi) - s16(bhi)));
    CHECK(sim.v(4, l) == pack(std::max<int64_t>(s16(alo) - s16(blo), -32768), std::max<int64_t>(s16(ahi) - s16(bhi), -32768)));
    CHECK(sim.v(5, l) == pack(alo * blo, ahi * bhi));
    CHECK(sim.v(6, l) == pack(int64_t{alo} << (blo & 15), int64_t{ahi} << (bhi & 15)));
    CHECK(sim.v(7, l) == pack(s16(alo) >> (blo & 15), s16(ahi) >> (bhi & 15)));
    CHECK(sim.v(8, l) == pack(alo >> (blo & 15), ahi >> (bhi & 15)));
    CHECK(sim.v(9, l) == pack(std::max(s16(alo), s16(blo)), std::max(s16(ahi), s16(bhi))));
    CHECK(sim.v(10, l) == pack(std::min(alo, blo), std::min(ahi, bhi)));
    CHECK(sim.v(11, l) == pack(s16(alo) * s16(blo) + s16(alo), s16(ahi) * s16(bhi) + s16(ahi)));
    CHECK(sim.v(12, l) == pack(alo + 1, ahi + 1));
    CHECK(sim.v(13, l) == pack(ahi + blo, alo + bhi));
  }
}
