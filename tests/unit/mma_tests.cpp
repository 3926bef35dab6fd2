// ir::mma (rocjit/compiler/mma.hpp): the layout formulas against entries of the CDNA single-block
// MFMA register layout written out by hand, the layout being a bijection with its inverses for
// every shape, the definition against a plain matrix product of the tiles, the native table, and
// the mma op's text form and verifier errors.
#include <catch2/catch.hpp>

#include <bit>
#include <cfloat>
#include <cmath>
#include <random>
#include <set>
#include <vector>

#include "rocjit/compiler/error.hpp"
#include "rocjit/compiler/float16.hpp"
#include "rocjit/compiler/mma.hpp"
#include "rocjit/compiler/parser.hpp"
#include "rocjit/compiler/printer.hpp"

using namespace rocjit;
namespace mma = rocjit::ir::mma;
using Catch::Matchers::Contains;

TEST_CASE("mma layout: hand-written entries of the CDNA single-block register layout") {
  // v_mfma_f32_16x16x16f16: lane l holds A[l % 16][4 (l / 16) + i], B[4 (l / 16) + i][l % 16],
  // D[4 (l / 16) + i][l % 16].
  const mma::Shape s16{16, 16, 16};
  CHECK(mma::counts(s16).a == 4);
  CHECK(mma::counts(s16).c == 4);
  CHECK((mma::a_row(s16, 17, 2) == 1 && mma::a_col(s16, 17, 2) == 6));
  CHECK((mma::b_row(s16, 17, 2) == 6 && mma::b_col(s16, 17, 2) == 1));
  CHECK((mma::c_row(s16, 17, 2) == 6 && mma::c_col(s16, 17, 2) == 1));
  CHECK((mma::c_row(s16, 63, 3) == 15 && mma::c_col(s16, 63, 3) == 15));
  // v_mfma_f32_32x32x8f16: A[l % 32][4 (l / 32) + i]; D register i: row 8 (i / 4) + 4 (l / 32) + i % 4.
  const mma::Shape s32{32, 32, 8};
  CHECK(mma::counts(s32).c == 16);
  CHECK((mma::a_row(s32, 33, 1) == 1 && mma::a_col(s32, 33, 1) == 5));
  CHECK((mma::c_row(s32, 33, 5) == 13 && mma::c_col(s32, 33, 5) == 1));
  CHECK((mma::c_row(s32, 0, 15) == 27 && mma::c_row(s32, 32, 15) == 31));
  // v_mfma_f32_16x16x4f32 and v_mfma_f64_16x16x4f64: one element of A and B per lane.
  const mma::Shape f32{16, 16, 4};
  CHECK(mma::counts(f32).a == 1);
  CHECK((mma::a_row(f32, 50, 0) == 2 && mma::a_col(f32, 50, 0) == 3));
  CHECK((mma::b_row(f32, 50, 0) == 3 && mma::b_col(f32, 50, 0) == 2));
}

TEST_CASE("mma layout: every defined shape places each tile element in exactly one lane and element") {
  for (ir::Type in : {ir::Type::f16, ir::Type::f32, ir::Type::f64}) {
    const ir::Type acc = in == ir::Type::f64 ? ir::Type::f64 : ir::Type::f32;
    for (const mma::Shape& s : mma::defined_shapes(in, acc)) {
      INFO(mma::shape_name(s));
      const mma::Counts n = mma::counts(s);
      std::set<std::pair<unsigned, unsigned>> a, b, c;
      for (unsigned l = 0; l < mma::wave_lanes; ++l) {
        for (unsigned e = 0; e < n.a; ++e) {
          const unsigned r = mma::a_row(s, l, e), k = mma::a_col(s, l, e);
          REQUIRE((r < s.m && k < s.k));
          REQUIRE((mma::a_lane(s, r, k) == l && mma::a_element(s, r, k) == e));
          a.insert({r, k});
        }
        for (unsigned e = 0; e < n.b; ++e) {
          const unsigned k = mma::b_row(s, l, e), col = mma::b_col(s, l, e);
          REQUIRE((k < s.k && col < s.n));
          REQUIRE((mma::b_lane(s, k, col) == l && mma::b_element(s, k, col) == e));
          b.insert({k, col});
        }
        for (unsigned e = 0; e < n.c; ++e) {
          REQUIRE((mma::c_row(s, l, e) < s.m && mma::c_col(s, l, e) < s.n));
          c.insert({mma::c_row(s, l, e), mma::c_col(s, l, e)});
        }
      }
      CHECK(a.size() == s.m * s.k);
      CHECK(b.size() == s.k * s.n);
      CHECK(c.size() == s.m * s.n);
    }
  }
}

TEST_CASE("ir::mma::interpret is C + A . B over the tiles, one fma per k in order") {
  for (const mma::Shape& s : mma::defined_shapes(ir::Type::f32, ir::Type::f32)) {
    const mma::Counts n = mma::counts(s);
    std::vector<float> A(s.m * s.k), B(s.k * s.n), C(s.m * s.n);
    for (size_t i = 0; i < A.size(); ++i) A[i] = float(i % 7) * 0.3f - 1.0f;
    for (size_t i = 0; i < B.size(); ++i) B[i] = float(i % 5) * 0.7f - 1.3f;
    for (size_t i = 0; i < C.size(); ++i) C[i] = float(i % 3) * 0.1f;
    std::vector<uint64_t> a(64 * n.a), b(64 * n.b), c(64 * n.c), out(64 * n.c);
    auto bits = [](float f) { return uint64_t(std::bit_cast<uint32_t>(f)); };
    for (unsigned l = 0; l < 64; ++l) {
      for (unsigned e = 0; e < n.a; ++e) a[l * n.a + e] = bits(A[mma::a_row(s, l, e) * s.k + mma::a_col(s, l, e)]);
      for (unsigned e = 0; e < n.b; ++e) b[l * n.b + e] = bits(B[mma::b_row(s, l, e) * s.n + mma::b_col(s, l, e)]);
      for (unsigned e = 0; e < n.c; ++e) c[l * n.c + e] = bits(C[mma::c_row(s, l, e) * s.n + mma::c_col(s, l, e)]);
    }
    mma::interpret(s, ir::Type::f32, ir::Type::f32, a.data(), b.data(), c.data(), out.data());
    for (unsigned l = 0; l < 64; ++l)
      for (unsigned e = 0; e < n.c; ++e) {
        const unsigned i = mma::c_row(s, l, e), j = mma::c_col(s, l, e);
        float want = C[i * s.n + j];
        for (unsigned k = 0; k < s.k; ++k) want = std::fma(A[i * s.k + k], B[k * s.n + j], want);
        REQUIRE(std::bit_cast<float>(uint32_t(out[l * n.c + e])) == want);
      }
  }
}

TEST_CASE("mma's native table: MFMA and WMMA processors, intrinsic names as LLVM spells them") {
  CHECK(mma::native("gfx90a", ir::Type::f16, ir::Type::f32, {16, 16, 16})->intrinsic == "mfma.f32.16x16x16f16");
  CHECK(mma::native("gfx942", ir::Type::bf16, ir::Type::f32, {32, 32, 8})->intrinsic == "mfma.f32.32x32x8bf16.1k");
  CHECK(mma::native("gfx942", ir::Type::i8, ir::Type::i32, {16, 16, 32})->intrinsic == "mfma.i32.16x16x32.i8");
  CHECK_FALSE(mma::native("gfx942", ir::Type::i8, ir::Type::i32, {16, 16, 16}));
  CHECK_FALSE(mma::native("gfx942", ir::Type::f16, ir::Type::f32, {16, 16, 32}));
  CHECK(mma::native("gfx950", ir::Type::f16, ir::Type::f32, {16, 16, 32})->instruction == "v_mfma_f32_16x16x32_f16");
  for (const char* p : {"gfx900", "gfx908", "gfx1030", "gfx1036", ""}) {
    CHECK(mma::native_shapes(p, ir::Type::f16, ir::Type::f32).empty());
    CHECK(mma::native_shapes(p, ir::Type::i8, ir::Type::i32).empty());
  }
  // WMMA: 16x16x16 for f16/bf16 -> f32 and i8 -> i32 on gfx11 and gfx12, nothing for f32 or f64.
  using Shapes = std::vector<mma::Shape>;
  for (const char* p : {"gfx1100", "gfx1101", "gfx1102", "gfx1103", "gfx1150", "gfx1151", "gfx1200", "gfx1201"}) {
    INFO(p);
    for (ir::Type in : {ir::Type::f16, ir::Type::bf16})
      CHECK(mma::native_shapes(p, in, ir::Type::f32) == Shapes{{16, 16, 16}});
    CHECK(mma::native_shapes(p, ir::Type::i8, ir::Type::i32) == Shapes{{16, 16, 16}});
    CHECK(mma::native_shapes(p, ir::Type::f32, ir::Type::f32).empty());
    CHECK(mma::native_shapes(p, ir::Type::f64, ir::Type::f64).empty());
  }
  CHECK(mma::native("gfx1100", ir::Type::bf16, ir::Type::f32, {16, 16, 16})->intrinsic == "wmma.f32.16x16x16.bf16");
  CHECK(mma::native("gfx1100", ir::Type::i8, ir::Type::i32, {16, 16, 16})->layout == mma::NativeLayout::wmma_gfx11);
  CHECK(mma::native("gfx1201", ir::Type::f16, ir::Type::f32, {16, 16, 16})->layout == mma::NativeLayout::wmma_gfx12);
  CHECK(mma::native("gfx942", ir::Type::f16, ir::Type::f32, {16, 16, 16})->layout == mma::NativeLayout::mfma);
  CHECK(mma::check(ir::Type::f16, ir::Type::f32, {16, 16, 8}) ==
        "mma has no shape 16x16x8 for f16 inputs (m x n x k; defined: 16x16x16, 32x32x8, 16x16x32, 32x32x16)");
  CHECK_THAT(mma::check(ir::Type::f16, ir::Type::f16, {16, 16, 16}), Contains("got f16 with f16"));
}

namespace {
std::string kernel_with(const std::string& body) {
  return "kernel @m(@x: array<f32, 1, C>) max_block_size(64) {\n"
         "  %1 = const 0.0 : f16\n  %2 = vector %1, %1, %1, %1 : f16x4\n"
         "  %3 = const 0.0 : f32\n  %4 = vector %3, %3, %3, %3 : f32x4\n" +
         body + "}\n";
}
}  // namespace

TEST_CASE("the mma op's text form round-trips and the verifier names what is wrong") {
  const std::string good = kernel_with("  %5 = mma 16, 16, 16, %4, %2, %2 : f32x4\n");
  CHECK(ir::print(ir::parse(good, "m.rjir"), {.locations = false}) == good);
  CHECK_THROWS_WITH(ir::parse(kernel_with("  %5 = mma 8, 8, 8, %4, %2, %2 : f32x4\n"), "m.rjir"),
                    Contains("mma has no shape 8x8x8"));
  CHECK_THROWS_WITH(ir::parse(kernel_with("  %5 = mma 32, 32, 8, %4, %2, %2 : f32x4\n"), "m.rjir"),
                    Contains("mma 32x32x8: C must be f32x16"));
  CHECK_THROWS_WITH(ir::parse(kernel_with("  %5 = mma 16, 16, 16, %4, %2, %1 : f32x4\n"), "m.rjir"),
                    Contains("B must be f16x4"));
  CHECK_THROWS_WITH(ir::parse(kernel_with("  %5 = mma 16, 16, 16, %4, %2, %2 : f32\n"), "m.rjir"),
                    Contains("produces C's type f32x4"));
  CHECK_THROWS_WITH(ir::parse(kernel_with("  %5 = mma 16, 16, 16, %4, %2 : f32x4\n"), "m.rjir"),
                    Contains("expected 3 operands for 'mma', got 2"));
  // A vector of more than 4 lanes exists only as an mma fragment: no loads of it.
  CHECK_THROWS_WITH(ir::parse("kernel @v(@x: array<f32, 1, C>) max_block_size(64) {\n  %1 = const 0 : i32\n"
                              "  %2 = load @x[%1] : f32x8\n}\n",
                              "v.rjir"),
                    Contains("vectors have 2 to 4 lanes"));
}

// ---- numerics models (ir::mma::Model; docs/mma.md, "Numerics") -----------------------------------

namespace {

float f32_of(uint64_t bits) { return std::bit_cast<float>(static_cast<uint32_t>(bits)); }

// One mma of shape s under `model` on tiles given as floats (A and B converted exactly to the
// 16-bit `input`, C as f32): D as a row-major m x n tile.
std::vector<float> run_model(mma::Model model, ir::Type input, mma::Shape s, const std::vector<float>& A,
                             const std::vector<float>& B, const std::vector<float>& C) {
  const mma::Counts n = mma::counts(s);
  auto narrow = [&](float f) -> uint64_t {
    if (input == ir::Type::f16) {
      const half h(f);
      REQUIRE(float(h) == f);  // the cases are exact in the input type
      return h.bits();
    }
    const bfloat16 h(f);
    REQUIRE(float(h) == f);
    return h.bits();
  };
  std::vector<uint64_t> a(64 * n.a), b(64 * n.b), c(64 * n.c), out(64 * n.c);
  for (unsigned l = 0; l < 64; ++l) {
    for (unsigned e = 0; e < n.a; ++e) a[l * n.a + e] = narrow(A[mma::a_row(s, l, e) * s.k + mma::a_col(s, l, e)]);
    for (unsigned e = 0; e < n.b; ++e) b[l * n.b + e] = narrow(B[mma::b_row(s, l, e) * s.n + mma::b_col(s, l, e)]);
    for (unsigned e = 0; e < n.c; ++e)
      c[l * n.c + e] = std::bit_cast<uint32_t>(C[mma::c_row(s, l, e) * s.n + mma::c_col(s, l, e)]);
  }
  mma::interpret(s, input, ir::Type::f32, a.data(), b.data(), c.data(), out.data(), model);
  std::vector<float> d(s.m * s.n);
  for (unsigned l = 0; l < 64; ++l)
    for (unsigned e = 0; e < n.c; ++e) d[mma::c_row(s, l, e) * s.n + mma::c_col(s, l, e)] = f32_of(out[l * n.c + e]);
  return d;
}

// Row 0 of A and column 0 of B set from `a` and `b` (k values), everything else zero; C(0, 0) = c.
struct Case {
  mma::Shape s;
  std::vector<float> A, B, C;
  Case(mma::Shape shape, const std::vector<std::pair<float, float>>& products, float c)
      : s(shape), A(s.m * s.k, 0.0f), B(s.k * s.n, 0.0f), C(s.m * s.n, 0.0f) {
    for (size_t kk = 0; kk < products.size(); ++kk) {
      A[kk] = products[kk].first;
      B[kk * s.n] = products[kk].second;
    }
    C[0] = c;
  }
  float d00(mma::Model model, ir::Type input) const { return run_model(model, input, s, A, B, C)[0]; }
};

uint32_t bits_of(float f) { return std::bit_cast<uint32_t>(f); }

}  // namespace

TEST_CASE("mma numerics models: names, processors and what each changes") {
  CHECK(mma::model_name(mma::Model::fma_chain) == "fma_chain");
  CHECK(mma::model_of("gfx90a") == mma::Model::cdna2);
  for (const char* p : {"gfx940", "gfx941", "gfx942", "gfx950"}) CHECK(mma::model_of(p) == mma::Model::cdna3);
  for (const char* p : {"gfx1100", "gfx1200", "gfx1030", "gfx900", "host"}) CHECK(mma::model_of(p) == mma::Model::fma_chain);
  CHECK(mma::model_named("cdna2") == mma::Model::cdna2);
  CHECK(mma::model_named("gfx942") == mma::Model::cdna3);
  CHECK(mma::model_named("native") == std::nullopt);
  CHECK((mma::numerics(mma::Model::cdna2, ir::Type::bf16).group == 2 && mma::numerics(mma::Model::cdna2, ir::Type::bf16).flush));
  CHECK((mma::numerics(mma::Model::cdna3, ir::Type::f16).group == 4 && !mma::numerics(mma::Model::cdna3, ir::Type::f16).flush));
  for (mma::Model m : {mma::Model::fma_chain, mma::Model::cdna2, mma::Model::cdna3})
    for (ir::Type t : {ir::Type::f32, ir::Type::f64, ir::Type::i8}) {
      CHECK(mma::numerics(m, t).group == 1);
      CHECK(!mma::numerics(m, t).flush);
    }
  // Step order: k order, except 8-element-per-lane shapes under a model with groups.
  const std::vector<unsigned> k32 = mma::step_order(mma::Model::cdna3, ir::Type::f16, {16, 16, 32});
  const std::vector<unsigned> want32{0,  1,  2,  3,  8,  9,  10, 11, 16, 17, 18, 19, 24, 25, 26, 27,
                                     4,  5,  6,  7,  12, 13, 14, 15, 20, 21, 22, 23, 28, 29, 30, 31};
  CHECK(k32 == want32);
  const std::vector<unsigned> k16 = mma::step_order(mma::Model::cdna2, ir::Type::bf16, {32, 32, 16});
  CHECK(k16 == std::vector<unsigned>{0, 1, 2, 3, 8, 9, 10, 11, 4, 5, 6, 7, 12, 13, 14, 15});
  const std::vector<unsigned> chain = mma::step_order(mma::Model::fma_chain, ir::Type::f16, {16, 16, 32});
  for (unsigned kk = 0; kk < 32; ++kk) CHECK(chain[kk] == kk);
  CHECK(mma::step_order(mma::Model::cdna3, ir::Type::f16, {16, 16, 16}) ==
        mma::step_order(mma::Model::fma_chain, ir::Type::f16, {16, 16, 16}));
}

TEST_CASE("round_sum_f32 rounds the exact sum once: ties to even, sticky bits, subnormals, overflow, zeros") {
  auto sum = [](std::vector<double> t, bool flush = false) { return mma::round_sum_f32(t.data(), unsigned(t.size()), flush); };
  CHECK(sum({1.0, 0x1p-24}) == 1.0f);                              // a tie: to the even 1
  CHECK(sum({1.0 + 0x1p-23, 0x1p-24}) == 1.0f + 0x1p-22f);         // a tie: to the even 1 + 2^-22
  CHECK(sum({1.0, 0x1p-24, 0x1p-24}) == 1.0f + 0x1p-23f);          // two half-ulps together: one ulp
  CHECK(sum({1.0, 0x1p-24, 0x1p-90}) == 1.0f + 0x1p-23f);          // just above the tie (sticky)
  CHECK(sum({1.0, 0x1p-24, -0x1p-90}) == 1.0f);                    // just below it
  CHECK(sum({0x1p100, -0x1p100, 0x1p-140}) == 0x1p-140f);          // cancellation down to a subnormal
  CHECK(sum({0x1p100, -0x1p100, 0x1p-140}, true) == 0.0f);         // flushed
  CHECK(std::signbit(sum({-0x1p-140, 0.0}, true)));                // to a zero of its sign
  CHECK(sum({0x1p-149, 0x1p-150}) == 0x1p-148f);                   // subnormal tie: to even
  CHECK(sum({0x1p-150}) == 0.0f);                                  // half the smallest subnormal: to 0
  CHECK(sum({0x1p-150, 0x1p-200}) == 0x1p-149f);
  CHECK(sum({double(FLT_MAX), 0x1p102}) == FLT_MAX);               // below the midpoint to 2^128
  CHECK(std::isinf(sum({double(FLT_MAX), 0x1p103})));              // the tie: to the even 2^128
  CHECK(sum({-double(FLT_MAX), -double(FLT_MAX)}) == -INFINITY);
  CHECK(bits_of(sum({-0.0, -0.0})) == 0x80000000u);                // every term -0: -0
  CHECK(bits_of(sum({0.0, -0.0})) == 0u);
  CHECK(bits_of(sum({1.0, -1.0})) == 0u);
  CHECK(sum({INFINITY, -1e300}) == INFINITY);
  CHECK(bits_of(sum({INFINITY, -INFINITY})) == 0x7fc00000u);
  CHECK(bits_of(sum({1.0, std::nan("")})) == 0x7fc00000u);
  // Terms whose double sum is exact (a span under 53 bits): the f32 of that sum, rounded once.
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  auto f16 = [&] {
    float x = float(half(u(rng)));
    return std::fabs(x) < 0x1p-6f ? 0.5f : x;
  };
  for (int i = 0; i < 20000; ++i) {
    const float c = u(rng);
    std::vector<double> t{double(std::ldexp(std::fabs(c) < 0x1p-8f ? 0.25f : c, -int(rng() % 8)))};
    for (int j = 0; j < 4; ++j) t.push_back(double(f16()) * double(f16()));
    const double exact = t[0] + t[1] + t[2] + t[3] + t[4];
    REQUIRE(bits_of(sum(t)) == bits_of(float(exact)));
  }
}

TEST_CASE("mma numerics models on hand-made tiles: groups, pairs, pass order and flushed subnormals") {
  using M = mma::Model;
  const mma::Shape s16{16, 16, 16};
  // 1 + 2^-24 + 2^-24: the fma chain rounds each half-ulp away (ties to even), the cdna2 pairs
  // (1 + 2^-24, then 2^-24 + 0) too, cdna3's group of four keeps their sum.
  const float tiny = 0x1p-12f;  // a normal f16 and bf16; tiny * tiny = 2^-24
  for (ir::Type t : {ir::Type::f16, ir::Type::bf16}) {
    const Case group(s16, {{1.0f, 1.0f}, {tiny, tiny}, {tiny, tiny}}, 0.0f);
    CHECK(group.d00(M::fma_chain, t) == 1.0f);
    CHECK(group.d00(M::cdna2, t) == 1.0f);
    CHECK(group.d00(M::cdna3, t) == 1.0f + 0x1p-23f);
    // A pair: C = 1 with products 2^-24 and 2^-24 at k = 0, 1: cdna2 and cdna3 give 1 + 2^-23.
    const Case pair(s16, {{tiny, tiny}, {tiny, tiny}}, 1.0f);
    CHECK(pair.d00(M::fma_chain, t) == 1.0f);
    CHECK(pair.d00(M::cdna2, t) == 1.0f + 0x1p-23f);
    CHECK(pair.d00(M::cdna3, t) == 1.0f + 0x1p-23f);
    // The same products at k = 1, 2 straddle two pairs: cdna2 rounds each away.
    const Case straddle(s16, {{0.0f, 0.0f}, {tiny, tiny}, {tiny, tiny}}, 1.0f);
    CHECK(straddle.d00(M::cdna2, t) == 1.0f);
    CHECK(straddle.d00(M::cdna3, t) == 1.0f + 0x1p-23f);
  }
  // Subnormal inputs: cdna2 reads them as zeros; the others keep them.
  const Case sub_f16(s16, {{0x1p-15f, 1024.0f}}, 0.0f);  // 2^-15 is an f16 subnormal; the product 2^-5
  CHECK(sub_f16.d00(M::fma_chain, ir::Type::f16) == 0x1p-5f);
  CHECK(sub_f16.d00(M::cdna3, ir::Type::f16) == 0x1p-5f);
  CHECK(sub_f16.d00(M::cdna2, ir::Type::f16) == 0.0f);
  const Case sub_bf16(s16, {{0x1p-130f, 0x1p10f}}, 0.0f);  // a bf16 subnormal; the product 2^-120 is normal
  CHECK(sub_bf16.d00(M::fma_chain, ir::Type::bf16) == 0x1p-120f);
  CHECK(sub_bf16.d00(M::cdna3, ir::Type::bf16) == 0x1p-120f);
  CHECK(sub_bf16.d00(M::cdna2, ir::Type::bf16) == 0.0f);
  // A subnormal result of normal inputs (2^-100 * 2^-30): cdna2 flushes it, the others keep it.
  const Case sub_out(s16, {{0x1p-100f, 0x1p-30f}}, 0.0f);
  CHECK(sub_out.d00(M::fma_chain, ir::Type::bf16) == 0x1p-130f);
  CHECK(sub_out.d00(M::cdna3, ir::Type::bf16) == 0x1p-130f);
  CHECK(sub_out.d00(M::cdna2, ir::Type::bf16) == 0.0f);
  // A subnormal C: cdna2 reads it as zero.
  const Case sub_c(s16, {}, 0x1p-130f);
  CHECK(sub_c.d00(M::fma_chain, ir::Type::f16) == 0x1p-130f);
  CHECK(sub_c.d00(M::cdna3, ir::Type::f16) == 0x1p-130f);
  CHECK(sub_c.d00(M::cdna2, ir::Type::f16) == 0.0f);
  // Pass order of 16x16x32: 2^24 at k = 0, 1 at k = 4, -2^24 at k = 8. In k order the 1 meets
  // 2^24 and is rounded away (a tie, to even); cdna3 adds k = 0..3 and 8..11 first (the first
  // 16x16x16 half), cancelling, then 4..7: exactly 1.
  const mma::Shape s32{16, 16, 32};
  std::vector<std::pair<float, float>> p(9, {0.0f, 0.0f});
  p[0] = {4096.0f, 4096.0f};
  p[4] = {1.0f, 1.0f};
  p[8] = {-4096.0f, 4096.0f};
  const Case order(s32, p, 0.0f);
  CHECK(order.d00(M::fma_chain, ir::Type::f16) == 0.0f);
  CHECK(order.d00(M::cdna3, ir::Type::f16) == 1.0f);
  CHECK(order.d00(M::cdna2, ir::Type::f16) == 1.0f);
  // f32 inputs are an fma chain under every model (bit for bit the same).
  for (const mma::Shape& s : mma::defined_shapes(ir::Type::f32, ir::Type::f32)) {
    const mma::Counts n = mma::counts(s);
    std::vector<uint64_t> a(64 * n.a), b(64 * n.b), c(64 * n.c), o1(64 * n.c), o2(64 * n.c);
    for (size_t i = 0; i < a.size(); ++i) a[i] = std::bit_cast<uint32_t>(float(i % 13) * 0.37f - 2.0f);
    for (size_t i = 0; i < b.size(); ++i) b[i] = std::bit_cast<uint32_t>(float(i % 11) * 0.29f - 1.0f);
    for (size_t i = 0; i < c.size(); ++i) c[i] = std::bit_cast<uint32_t>(0x1p-130f * float(i % 3));
    mma::interpret(s, ir::Type::f32, ir::Type::f32, a.data(), b.data(), c.data(), o1.data(), M::fma_chain);
    mma::interpret(s, ir::Type::f32, ir::Type::f32, a.data(), b.data(), c.data(), o2.data(), M::cdna2);
    CHECK(o1 == o2);
  }
}

// ---- xf32 (ir::mma::Precision::xf32; docs/mma.md, "Numerics") ----------------------------------

TEST_CASE("xf32: to_xf32 cuts toward zero to 10 fraction bits, keeps NaN, infinities, zeros and their signs") {
  // 1 + 2^-11 + 2^-20 is above the midpoint between 1 and 1 + 2^-10: round to nearest would give
  // 1 + 2^-10, truncation gives 1.
  CHECK(mma::to_xf32(bits_of(1.0f + 0x1p-11f + 0x1p-20f)) == bits_of(1.0f));
  CHECK(mma::to_xf32(bits_of(-(1.0f + 0x1p-10f + 0x1p-11f))) == bits_of(-(1.0f + 0x1p-10f)));
  CHECK(mma::to_xf32(bits_of(1.0f + 0x1p-10f)) == bits_of(1.0f + 0x1p-10f));  // exact in xf32
  CHECK(mma::to_xf32(bits_of(FLT_MAX)) == bits_of(0x1.ffcp127f));               // never up to infinity
  CHECK(mma::to_xf32(bits_of(0x1p-140f)) == bits_of(0.0f));                     // subnormal below 2^-136
  CHECK(mma::to_xf32(bits_of(-0x1p-140f)) == bits_of(-0.0f));
  CHECK(mma::to_xf32(bits_of(0x1p-136f + 0x1p-140f)) == bits_of(0x1p-136f));
  CHECK(mma::to_xf32(bits_of(INFINITY)) == bits_of(INFINITY));
  CHECK(mma::to_xf32(0x7f800001u) == 0x7f800001u);  // a NaN whose payload is below xf32's bits stays a NaN
  CHECK(mma::to_xf32(0xffc00000u) == 0xffc00000u);
  CHECK(mma::precision_name(mma::Precision::xf32) == "xf32");
}

TEST_CASE("xf32: shapes, type rules, native instructions on gfx940-gfx942 only, interpret cuts A and B") {
  using Shapes = std::vector<mma::Shape>;
  constexpr auto xf32 = mma::Precision::xf32;
  CHECK(mma::defined_shapes(ir::Type::f32, ir::Type::f32, xf32) == Shapes{{16, 16, 8}, {32, 32, 4}});
  CHECK(mma::defined_shapes(ir::Type::f16, ir::Type::f32, xf32).empty());
  CHECK(mma::check(ir::Type::f32, ir::Type::f32, {16, 16, 8}, xf32).empty());
  CHECK(mma::check(ir::Type::f32, ir::Type::f32, {16, 16, 4}, xf32) ==
        "mma has no shape 16x16x4 for xf32 inputs (m x n x k; defined: 16x16x8, 32x32x4)");
  CHECK_THAT(mma::check(ir::Type::f32, ir::Type::f64, {16, 16, 8}, xf32), Contains("got f32 with f64"));
  CHECK_THAT(mma::check(ir::Type::f32, ir::Type::f32, {16, 16, 8}), Contains("no shape 16x16x8 for f32"));
  for (const char* p : {"gfx940", "gfx941", "gfx942"}) {
    INFO(p);
    CHECK(mma::native_shapes(p, ir::Type::f32, ir::Type::f32, xf32) == Shapes{{16, 16, 8}, {32, 32, 4}});
    CHECK(mma::native(p, ir::Type::f32, ir::Type::f32, {16, 16, 8}, xf32)->intrinsic == "mfma.f32.16x16x8.xf32");
    CHECK(mma::native(p, ir::Type::f32, ir::Type::f32, {32, 32, 4}, xf32)->instruction == "v_mfma_f32_32x32x4_xf32");
    // The full-precision f32 forms are not the xf32 ones.
    CHECK(mma::native(p, ir::Type::f32, ir::Type::f32, {16, 16, 4})->precision == mma::Precision::full);
  }
  for (const char* p : {"gfx90a", "gfx950", "gfx1100", "gfx1201", "gfx1030", ""})
    CHECK(mma::native_shapes(p, ir::Type::f32, ir::Type::f32, xf32).empty());
  // interpret: A(0, 0) = 1 + 2^-11 + 2^-20, B(0, 0) = 1, others 0, C = 0: D(0, 0) = 1 (cut), and
  // the same tile at full precision (16x16x8 is not an f32 shape; compare with the cut value).
  const mma::Shape s{16, 16, 8};
  const mma::Counts n = mma::counts(s);
  std::vector<uint64_t> a(64 * n.a, 0), b(64 * n.b, 0), c(64 * n.c, 0), out(64 * n.c);
  a[mma::a_lane(s, 0, 0) * n.a + mma::a_element(s, 0, 0)] = bits_of(1.0f + 0x1p-11f + 0x1p-20f);
  b[mma::b_lane(s, 0, 0) * n.b + mma::b_element(s, 0, 0)] = bits_of(1.0f);
  a[mma::a_lane(s, 0, 7) * n.a + mma::a_element(s, 0, 7)] = bits_of(-3.0f - 0x1p-9f);  // k = 7: exact in xf32
  b[mma::b_lane(s, 7, 0) * n.b + mma::b_element(s, 7, 0)] = bits_of(0.5f + 0x1p-15f);  // cut to 0.5
  for (mma::Model m : {mma::Model::fma_chain, mma::Model::cdna2, mma::Model::cdna3}) {
    mma::interpret(s, ir::Type::f32, ir::Type::f32, a.data(), b.data(), c.data(), out.data(), m, xf32);
    // D(0, 0) is lane 0's element 0 (c_row(s, 0, 0) = 0, c_col = 0).
    CHECK(f32_of(out[0]) == std::fma(-3.0f - 0x1p-9f, 0.5f, 1.0f));
  }
}

TEST_CASE("xf32: the text form round-trips and the verifier checks the types") {
  auto text = [](const std::string& body) {
    return "kernel @xk(@x: array<f32, 1, C>) max_block_size(64) {\n"
           "  %1 = const 0.0 : f32\n  %2 = vector %1, %1 : f32x2\n  %3 = vector %1, %1, %1, %1 : f32x4\n"
           "  %4 = const 0.0 : f64\n  %5 = vector %4, %4, %4, %4 : f64x4\n" +
           body + "}\n";
  };
  const std::string good = text("  %6 = mma 16, 16, 8, xf32, %3, %2, %2 : f32x4\n");
  CHECK(ir::print(ir::parse(good, "x.rjir"), {.locations = false}) == good);
  CHECK_THROWS_WITH(ir::parse(text("  %6 = mma 16, 16, 8, %3, %2, %2 : f32x4\n"), "x.rjir"),
                    Contains("no shape 16x16x8 for f32"));
  CHECK_THROWS_WITH(ir::parse(text("  %6 = mma 16, 16, 4, xf32, %3, %1, %1 : f32x4\n"), "x.rjir"),
                    Contains("no shape 16x16x4 for xf32"));
  CHECK_THROWS_WITH(ir::parse(text("  %6 = mma 16, 16, 8, xf32, %5, %2, %2 : f64x4\n"), "x.rjir"),
                    Contains("xf32") && Contains("got f32 with f64"));
}
