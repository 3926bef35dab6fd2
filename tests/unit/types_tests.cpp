// The 8- and 16-bit types: rocjit::half and rocjit::bfloat16 on the host (rounding checked against
// GCC's _Float16 and against the bit rule of bfloat16), the DSL's promotion rules and the errors
// for what the types do not allow.
#include <catch2/catch.hpp>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>

#include "rocjit/compiler/ir.hpp"
#include "rocjit/compiler/parser.hpp"
#include "rocjit/compiler/visitor.hpp"
#include "rocjit/rocjit.hpp"

using namespace rocjit;
using namespace rocjit::dsl;
using Catch::Matchers::Contains;

namespace {

uint16_t gcc_half(double d) { return std::bit_cast<uint16_t>(static_cast<_Float16>(d)); }

// bfloat16 of a float by the bit rule: add 0x7fff plus the kept part's lowest bit, drop 16 bits.
uint16_t bfloat_of_float(float f) {
  const uint32_t b = std::bit_cast<uint32_t>(f);
  if (std::isnan(f)) return static_cast<uint16_t>((b >> 16) | 0x40);
  return static_cast<uint16_t>((b + 0x7fff + ((b >> 16) & 1)) >> 16);
}

// The type of the last op a kernel recorded before its final store.
ir::Type stored_type(const Kernel& k) {
  ir::Type t = ir::Type::none;
  ir::walk(k.ir().body, [&](const ir::Op& op) {
    if (op.kind == ir::OpKind::binary) t = op.type;
  });
  return t;
}

}  // namespace

TEST_CASE("half rounds to nearest even like _Float16, from doubles, floats and every integer") {
  std::mt19937_64 rng(1);
  for (int i = 0; i < 200000; ++i) {
    const double d = std::bit_cast<double>(rng());
    if (std::isnan(d)) continue;
    // Scale into and around binary16's range, where the interesting roundings are.
    int e = 0;
    const double x = std::ldexp(std::frexp(d, &e), static_cast<int>(rng() % 60) - 40);
    INFO(x);
    REQUIRE(half(x).bits() == gcc_half(x));
    REQUIRE(half(static_cast<float>(x)).bits() == gcc_half(static_cast<float>(x)));
  }
  for (int64_t v : {int64_t{0}, int64_t{1}, int64_t{-1}, int64_t{2049}, int64_t{2051}, int64_t{65519}, int64_t{65520},
                    int64_t{-65520}, std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()})
    CHECK(half(v).bits() == gcc_half(static_cast<double>(v)));
  // Values the two formats cannot hold: overflow to infinity, NaN stays NaN, the sign of zero kept.
  CHECK(half(1e6).bits() == 0x7c00);
  CHECK(half(-1e6).bits() == 0xfc00);
  CHECK(std::isnan(float(half(std::nan("")))));
  CHECK(half(-0.0).bits() == 0x8000);
  CHECK(float(half::from_bits(0x0001)) == 0x1p-24f);
  CHECK(float(std::numeric_limits<half>::max()) == 65504.0f);
}

TEST_CASE("the hardware half conversions (F16C, _Float16) give the software reference's bits") {
  // Widening: every binary16 pattern, NaN payloads and signalling NaNs included.
  for (uint32_t b = 0; b < 65536; ++b) {
    const auto h = static_cast<uint16_t>(b);
    INFO(b);
    REQUIRE(std::bit_cast<uint32_t>(rocjit::detail::half_value(h)) == std::bit_cast<uint32_t>(rocjit::detail::half_value_reference(h)));
  }
  // Rounding: around every midpoint between neighbouring binary16 values (the ties, a float's and
  // a double's ulp either side) and a sweep of floats through and beyond binary16's range.
  auto same = [](double x) {
    INFO(x);
    REQUIRE(rocjit::detail::half_bits(x) == rocjit::detail::half_bits_reference(x));
  };
  for (uint32_t b = 0; b < 0x7c00; ++b) {
    const double lo = rocjit::detail::half_value_reference(static_cast<uint16_t>(b));
    const double hi = rocjit::detail::half_value_reference(static_cast<uint16_t>(b + 1));
    const double mid = (lo + hi) / 2;
    for (double x : {mid, std::nextafter(mid, 0.0), std::nextafter(mid, 1e9),
                     static_cast<double>(std::nextafter(static_cast<float>(mid), 0.0f)),
                     static_cast<double>(std::nextafter(static_cast<float>(mid), 1e9f)), lo}) {
      same(x);
      same(-x);
    }
  }
  for (uint32_t f = 0x30000000u; f < 0x48000000u; f += 997) same(std::bit_cast<float>(f));
  // bfloat16 from floats by the bit rule, against the reference: every 251st float pattern (all
  // exponents, subnormals and the largest finite values that round to infinity included).
  for (uint64_t f = 0; f <= 0xffffffffu; f += 251) {
    const float x = std::bit_cast<float>(static_cast<uint32_t>(f));
    if (std::isnan(x)) continue;
    INFO(f);
    REQUIRE(rocjit::detail::bfloat16_bits(x) == rocjit::detail::bfloat16_bits_reference(x));
  }
  for (double x : {std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(), std::nan(""),
                   -std::nan(""), 1e300, -1e300, 65520.0, 65519.99, 0x1p-25, 0x1p-26, -0x1p-25})
    CHECK(rocjit::detail::half_bits(x) == rocjit::detail::half_bits_reference(x));
}

TEST_CASE("bfloat16 rounds to nearest even as the bit rule does, once from doubles and 64-bit integers") {
  std::mt19937 rng(2);
  for (int i = 0; i < 200000; ++i) {
    const float f = std::bit_cast<float>(static_cast<uint32_t>(rng()));
    INFO(f);
    REQUIRE((std::isnan(f) ? std::isnan(float(bfloat16(f))) : bfloat16(f).bits() == bfloat_of_float(f)));
  }
  // A double just above a bfloat16 midpoint, by less than a float's precision: rounding through
  // float would tie to even (down), the single rounding goes up.
  const double above = 1.0 + 0x1p-8 + 0x1p-40;
  CHECK(bfloat16(above).bits() == bfloat16(1.0 + 0x1p-7).bits());
  CHECK(bfloat16(static_cast<double>(static_cast<float>(above))).bits() == bfloat16(1.0).bits());
  // The same for an integer: 2^62 + 2^54 + 1 is past the midpoint 2^62 + 2^54.
  const int64_t big = (int64_t{1} << 62) + (int64_t{1} << 54) + 1;
  CHECK(float(bfloat16(big)) == std::ldexp(1.0f + 0x1p-7f, 62));
  CHECK(float(bfloat16(-big)) == -std::ldexp(1.0f + 0x1p-7f, 62));
  CHECK(float(std::numeric_limits<bfloat16>::max()) == std::bit_cast<float>(0x7f7f0000u));
}

TEST_CASE("host arithmetic on half and bfloat16 is correctly rounded, comparisons are IEEE") {
  const half a(1.0), b = half::from_bits(0x1400);  // 1 and 2^-10 (one ulp of 1)
  CHECK((a + b).bits() == 0x3c01);
  CHECK((a + half(0x1p-11)).bits() == 0x3c00);  // a tie: to even
  CHECK((a * half(3.0)) == half(3.0));
  CHECK(half(std::nan("")) != half(std::nan("")));
  CHECK(half(-0.0) == half(0.0));
  CHECK(half(1.0) < half(2.0));
  CHECK(float(-bfloat16(2.5)) == -2.5f);
}

TEST_CASE("promotion: same types stay, the wider float wins, f16 with bf16 is f32, literals adapt") {
  auto type_of_sum = [](auto a, auto b) {
    using A = decltype(a);
    using B = decltype(b);
    Kernel k = kernel("promote", [](Array<A> x, Array<B> y, Array<double> out) {
      Value s = x(0) + y(0);
      out(0) = cast<double>(s);
    });
    return ir::type_name(stored_type(k));
  };
  CHECK(type_of_sum(int8_t{}, int8_t{}) == "i8");
  CHECK(type_of_sum(int8_t{}, int16_t{}) == "i16");
  CHECK(type_of_sum(uint8_t{}, int16_t{}) == "i16");
  CHECK(type_of_sum(uint16_t{}, int16_t{}) == "u16");
  CHECK(type_of_sum(int8_t{}, int32_t{}) == "i32");
  CHECK(type_of_sum(half{}, half{}) == "f16");
  CHECK(type_of_sum(half{}, bfloat16{}) == "f32");
  CHECK(type_of_sum(half{}, float{}) == "f32");
  CHECK(type_of_sum(bfloat16{}, double{}) == "f64");
  CHECK(type_of_sum(int32_t{}, half{}) == "f16");
  Kernel literal = kernel("literal", [](Array<half> x, Array<int8_t> y) {
    x(0) = x(0) * 2.5;  // the literal takes f16
    y(0) = y(0) + 1;    // fits i8
  });
  int f16_mul = 0, i8_add = 0;
  ir::walk(literal.ir().body, [&](const ir::Op& op) {
    if (op.kind == ir::OpKind::binary && op.type == ir::Type::f16) ++f16_mul;
    if (op.kind == ir::OpKind::binary && op.type == ir::Type::i8) ++i8_add;
  });
  CHECK(f16_mul == 1);
  CHECK(i8_add == 1);
}

TEST_CASE("narrowing to a 16- or 8-bit type needs cast<T>, atomics need 32 or 64 bits, each a clear error") {
  auto narrowing = [] {
    return kernel("narrow16", [](Array<half> x, Array<float> y) { x(0) = y(0); });
  };
  CHECK_THROWS_WITH(narrowing(), Contains("narrow16") && Contains("cast<half>") && Contains("types_tests.cpp"));
  auto literal = [] { return kernel("literal8", [](Array<int8_t> x) { Int8 v = 300; x(0) = v; }); };
  CHECK_THROWS_WITH(literal(), Contains("does not fit i8") && Contains("types_tests.cpp"));
  auto atomic16 = [] {
    return kernel("atomic16", [](Array<int16_t> x) { atomic::add(x, {0}, int16_t{1}); });
  };
  CHECK_THROWS_WITH(atomic16(), Contains("atomic16") && Contains("32- and 64-bit elements") &&
                                    Contains("types_tests.cpp"));
  auto text = "kernel @a(@x: array<u8, 1, C>) max_block_size(64) {\n  %1 = const 1 : u8\n  %2 = const 0 : i32\n"
              "  %3 = atomic.add @x[%2], %1 : u8\n}\n";
  CHECK_THROWS_WITH(ir::parse(text), Contains("atomics work on 32- and 64-bit elements"));
}

TEST_CASE("half and bfloat16 scalars pass to kernels; other scalars convert when exact") {
  Kernel k = kernel("scalars", [](Array<half> x, Half a, BFloat16 b, Int8 c) {
    x(0) = a + cast<half>(b) + cast<half>(c);
  });
  auto x = device_array<half>({1});
  k[{1, 1}](x, half(1.5), bfloat16(2.0), int8_t{3});
  CHECK(float(x.copy_to_host().to_vector()[0]) == 6.5f);
  k[{1, 1}](x, 0.25, 1, 2);  // exact in f16, bf16 and i8
  CHECK(float(x.copy_to_host().to_vector()[0]) == 3.25f);
  CHECK_THROWS_WITH((k[{1, 1}](x, 0.1, 1, 2)), Contains("cannot hold exactly") && Contains("half"));
  CHECK_THROWS_WITH((k[{1, 1}](x, 1.0, 1, 300)), Contains("int8_t"));
}
