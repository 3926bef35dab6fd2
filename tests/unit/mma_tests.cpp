// ir::mma (rocjit/compiler/mma.hpp): the layout formulas against entries of the CDNA single-block
// MFMA register layout written out by hand, the layout being a bijection with its inverses for
// every shape, the definition against a plain matrix product of the tiles, the native table, and
// the mma op's text form and verifier errors.
#include <catch2/catch.hpp>

#include <bit>
#include <cmath>
#include <set>
#include <vector>

#include "rocjit/compiler/error.hpp"
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
