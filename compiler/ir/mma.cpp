// Matrix-core operations: the shape and type rules, the native instruction table and the
// reference definition of mma (rocjit/compiler/mma.hpp).
#include "rocjit/compiler/mma.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

#include "rocjit/compiler/float16.hpp"

namespace rocjit::ir::mma {
namespace {

bool sixteen_bit_float(Type t) { return t == Type::f16 || t == Type::bf16; }

// The shapes rocjit defines for each input type and precision (mma.hpp, check()).
std::vector<Shape> shapes_for(Type input, Precision p) {
  if (p == Precision::xf32) return input == Type::f32 ? std::vector<Shape>{{16, 16, 8}, {32, 32, 4}} : std::vector<Shape>{};
  if (sixteen_bit_float(input) || input == Type::i8) return {{16, 16, 16}, {32, 32, 8}, {16, 16, 32}, {32, 32, 16}};
  if (input == Type::f32) return {{16, 16, 4}, {32, 32, 2}};
  if (input == Type::f64) return {{16, 16, 4}};
  return {};
}

// One row per native instruction: processors, input, accumulator, shape, intrinsic, instruction.
struct Row {
  std::vector<std::string_view> processors;
  Native native;
};

const std::vector<Row>& table() {
  static const std::vector<Row> rows = [] {
    const std::vector<std::string_view> cdna2_up{"gfx90a", "gfx940", "gfx941", "gfx942", "gfx950"};
    const std::vector<std::string_view> cdna3_up{"gfx940", "gfx941", "gfx942", "gfx950"};
    // xf32 (LLVM's xf32-insts): gfx940-gfx942 only; gfx950 dropped it (LLVM 22 cannot select
    // the intrinsics for gfx950 or gfx90a, and its assembler rejects the instructions there).
    const std::vector<std::string_view> cdna3_xf32{"gfx940", "gfx941", "gfx942"};
    constexpr NativeLayout mfma = NativeLayout::mfma;
    constexpr Precision xf32 = Precision::xf32;
    const std::vector<std::string_view> cdna4{"gfx950"};
    const std::vector<std::string_view> cdna2{"gfx90a"};
    const std::vector<std::string_view> rdna3{"gfx1100", "gfx1101", "gfx1102", "gfx1103",
                                              "gfx1150", "gfx1151", "gfx1152", "gfx1153"};
    const std::vector<std::string_view> rdna4{"gfx1200", "gfx1201"};
    constexpr NativeLayout gfx11 = NativeLayout::wmma_gfx11, gfx12 = NativeLayout::wmma_gfx12;
    return std::vector<Row>{
        {cdna2_up, {Type::f16, Type::f32, {16, 16, 16}, "mfma.f32.16x16x16f16", "v_mfma_f32_16x16x16_f16"}},
        {cdna2_up, {Type::f16, Type::f32, {32, 32, 8}, "mfma.f32.32x32x8f16", "v_mfma_f32_32x32x8_f16"}},
        {cdna2_up, {Type::bf16, Type::f32, {16, 16, 16}, "mfma.f32.16x16x16bf16.1k", "v_mfma_f32_16x16x16_bf16"}},
        {cdna2_up, {Type::bf16, Type::f32, {32, 32, 8}, "mfma.f32.32x32x8bf16.1k", "v_mfma_f32_32x32x8_bf16"}},
        {cdna2_up, {Type::f32, Type::f32, {16, 16, 4}, "mfma.f32.16x16x4f32", "v_mfma_f32_16x16x4_f32"}},
        {cdna2_up, {Type::f32, Type::f32, {32, 32, 2}, "mfma.f32.32x32x2f32", "v_mfma_f32_32x32x2_f32"}},
        {cdna2_up, {Type::f64, Type::f64, {16, 16, 4}, "mfma.f64.16x16x4f64", "v_mfma_f64_16x16x4_f64"}},
        {cdna2, {Type::i8, Type::i32, {16, 16, 16}, "mfma.i32.16x16x16i8", "v_mfma_i32_16x16x16_i8"}},
        {cdna2, {Type::i8, Type::i32, {32, 32, 8}, "mfma.i32.32x32x8i8", "v_mfma_i32_32x32x8_i8"}},
        {cdna3_up, {Type::i8, Type::i32, {16, 16, 32}, "mfma.i32.16x16x32.i8", "v_mfma_i32_16x16x32_i8"}},
        {cdna3_up, {Type::i8, Type::i32, {32, 32, 16}, "mfma.i32.32x32x16.i8", "v_mfma_i32_32x32x16_i8"}},
        {cdna3_xf32, {Type::f32, Type::f32, {16, 16, 8}, "mfma.f32.16x16x8.xf32", "v_mfma_f32_16x16x8_xf32", mfma, xf32}},
        {cdna3_xf32, {Type::f32, Type::f32, {32, 32, 4}, "mfma.f32.32x32x4.xf32", "v_mfma_f32_32x32x4_xf32", mfma, xf32}},
        {cdna4, {Type::f16, Type::f32, {16, 16, 32}, "mfma.f32.16x16x32.f16", "v_mfma_f32_16x16x32_f16"}},
        {cdna4, {Type::f16, Type::f32, {32, 32, 16}, "mfma.f32.32x32x16.f16", "v_mfma_f32_32x32x16_f16"}},
        {cdna4, {Type::bf16, Type::f32, {16, 16, 32}, "mfma.f32.16x16x32.bf16", "v_mfma_f32_16x16x32_bf16"}},
        {cdna4, {Type::bf16, Type::f32, {32, 32, 16}, "mfma.f32.32x32x16.bf16", "v_mfma_f32_32x32x16_bf16"}},
        // WMMA, 16x16x16 only (rocjit's other shapes have no WMMA form); wave64.
        {rdna3, {Type::f16, Type::f32, {16, 16, 16}, "wmma.f32.16x16x16.f16", "v_wmma_f32_16x16x16_f16", gfx11}},
        {rdna3, {Type::bf16, Type::f32, {16, 16, 16}, "wmma.f32.16x16x16.bf16", "v_wmma_f32_16x16x16_bf16", gfx11}},
        {rdna3, {Type::i8, Type::i32, {16, 16, 16}, "wmma.i32.16x16x16.iu8", "v_wmma_i32_16x16x16_iu8", gfx11}},
        {rdna4, {Type::f16, Type::f32, {16, 16, 16}, "wmma.f32.16x16x16.f16", "v_wmma_f32_16x16x16_f16", gfx12}},
        {rdna4, {Type::bf16, Type::f32, {16, 16, 16}, "wmma.f32.16x16x16.bf16", "v_wmma_f32_16x16x16_bf16", gfx12}},
        {rdna4, {Type::i8, Type::i32, {16, 16, 16}, "wmma.i32.16x16x16.iu8", "v_wmma_i32_16x16x16_iu8", gfx12}},
    };
  }();
  return rows;
}

// An IR bit pattern of a float type as a double (exact).
double to_double(Type t, uint64_t v) {
  if (t == Type::f16) return static_cast<float>(half::from_bits(static_cast<uint16_t>(v)));
  if (t == Type::bf16) return static_cast<float>(bfloat16::from_bits(static_cast<uint16_t>(v)));
  if (t == Type::f32) return std::bit_cast<float>(static_cast<uint32_t>(v));
  return std::bit_cast<double>(v);
}

}  // namespace

std::string shape_name(Shape s) { return fmt::format("{}x{}x{}", s.m, s.n, s.k); }

std::string_view precision_name(Precision p) {
  switch (p) {
    case Precision::full: return "full";
    case Precision::xf32: return "xf32";
  }
  return "full";
}

uint32_t to_xf32(uint32_t bits) {
  const bool nan = (bits & 0x7f800000u) == 0x7f800000u && (bits & 0x007fffffu) != 0;
  return nan ? bits : bits & 0xffffe000u;
}

bool valid_types(Type input, Type accumulator, Precision p) {
  if (p == Precision::xf32) return input == Type::f32 && accumulator == Type::f32;
  if (sixteen_bit_float(input) || input == Type::f32) return accumulator == Type::f32;
  if (input == Type::f64) return accumulator == Type::f64;
  if (input == Type::i8) return accumulator == Type::i32;
  return false;
}

std::string check(Type input, Type accumulator, Shape s, Precision p) {
  if (p == Precision::xf32 && !valid_types(input, accumulator, p))
    return fmt::format("mma with xf32 inputs takes f32 A and B (mma::xf32) and an f32 accumulator; got {} with {}",
                       type_name(input), type_name(accumulator));
  if (!valid_types(input, accumulator, p))
    return fmt::format("mma takes f16 or bf16 with f32, f32 with f32, f64 with f64, or i8 with i32 accumulators; "
                       "got {} with {}",
                       type_name(input), type_name(accumulator));
  std::vector<Shape> shapes = shapes_for(input, p);
  for (const Shape& d : shapes)
    if (d == s) return "";
  std::string list;
  for (const Shape& d : shapes) list += (list.empty() ? "" : ", ") + shape_name(d);
  return fmt::format("mma has no shape {} for {} inputs (m x n x k; defined: {})", shape_name(s),
                     p == Precision::xf32 ? std::string("xf32") : type_name(input), list);
}

std::vector<Shape> defined_shapes(Type input, Type accumulator, Precision p) {
  return valid_types(input, accumulator, p) ? shapes_for(input, p) : std::vector<Shape>{};
}

std::optional<Native> native(const std::string& processor, Type input, Type accumulator, Shape s, Precision p) {
  for (const Row& r : table()) {
    if (r.native.input != input || r.native.accumulator != accumulator || !(r.native.shape == s) ||
        r.native.precision != p)
      continue;
    for (std::string_view p : r.processors)
      if (p == processor) return r.native;
  }
  return std::nullopt;
}

std::vector<Shape> native_shapes(const std::string& processor, Type input, Type accumulator, Precision p) {
  std::vector<Shape> shapes;
  for (const Shape& s : defined_shapes(input, accumulator, p))
    if (native(processor, input, accumulator, s, p)) shapes.push_back(s);
  return shapes;
}

std::string_view model_name(Model m) {
  switch (m) {
    case Model::fma_chain: return "fma_chain";
    case Model::cdna2: return "cdna2";
    case Model::cdna3: return "cdna3";
  }
  return "fma_chain";
}

Model model_of(std::string_view processor) {
  if (processor == "gfx90a") return Model::cdna2;
  if (processor == "gfx940" || processor == "gfx941" || processor == "gfx942" || processor == "gfx950")
    return Model::cdna3;
  return Model::fma_chain;
}

std::optional<Model> model_named(std::string_view name) {
  for (Model m : {Model::fma_chain, Model::cdna2, Model::cdna3})
    if (name == model_name(m)) return m;
  if (name.starts_with("gfx") || name == "host") return model_of(name);
  return std::nullopt;
}

Numerics numerics(Model model, Type input) {
  if (!sixteen_bit_float(input)) return {};
  switch (model) {
    case Model::fma_chain: return {};
    case Model::cdna2: return {2, true};
    case Model::cdna3: return {4, false};
  }
  return {};
}

std::vector<unsigned> step_order(Model model, Type input, Shape s) {
  std::vector<unsigned> order;
  const unsigned per_lane = counts(s).a;  // consecutive k one lane holds
  if (numerics(model, input).group == 1 || per_lane <= 4) {
    for (unsigned kk = 0; kk < s.k; ++kk) order.push_back(kk);
    return order;
  }
  for (unsigned pass = 0; pass < per_lane / 4; ++pass)
    for (unsigned block = 0; block < s.k / per_lane; ++block)
      for (unsigned e = 0; e < 4; ++e) order.push_back(block * per_lane + 4 * pass + e);
  return order;
}

namespace {

// An exact sum of finite doubles: a two's-complement fixed-point integer of 64-bit limbs whose
// bit 0 weighs 2^lsb, lsb the lowest place of any term, wide enough for the largest term and the
// carries of up to 16 terms (at most 36 limbs: the range of doubles, 2^-1074 to 2^1024).
class ExactSum {
 public:
  ExactSum(const double* terms, unsigned count) {
    int low = 0, high = 0;
    bool any = false;
    for (unsigned i = 0; i < count; ++i) {
      if (terms[i] == 0 || !std::isfinite(terms[i])) continue;
      int exponent = 0;
      std::frexp(terms[i], &exponent);  // |t| < 2^exponent, its last place 2^(exponent - 53) at most
      low = any ? std::min(low, exponent - 53) : exponent - 53;
      high = any ? std::max(high, exponent) : exponent;
      any = true;
    }
    lsb_ = low;
    used_ = any ? static_cast<unsigned>((high - low + 5 + 1) / 64 + 2) : 1;  // + carries, sign
    for (unsigned i = 0; i < count; ++i)
      if (terms[i] != 0 && std::isfinite(terms[i])) add(terms[i]);
  }

  // The sum rounded to f32, to nearest even (0.0f when it is exactly zero; the caller signs zeros).
  float round_f32() {
    const bool negative = (w_[used_ - 1] >> 63) != 0;
    if (negative) {  // two's complement negation: the magnitude
      uint64_t carry = 1;
      for (unsigned i = 0; i < used_; ++i) {
        w_[i] = ~w_[i] + carry;
        carry = (carry && w_[i] == 0) ? 1 : 0;
      }
    }
    int top = -1;  // the highest set bit
    for (int i = static_cast<int>(used_) - 1; i >= 0 && top < 0; --i)
      if (w_[i]) top = i * 64 + 63 - std::countl_zero(w_[i]);
    if (top < 0) return 0.0f;
    auto bit_at = [&](int i) -> uint64_t { return i < 0 ? 0 : (w_[i / 64] >> (i % 64)) & 1; };
    const int exponent = top + lsb_;                    // the leading bit's weight
    const int ulp = std::max(exponent - 23, -149);      // f32's last place there (subnormals: 2^-149)
    const int q = ulp - lsb_;                           // its bit index (may be negative: exact)
    uint64_t mantissa = 0;
    for (int i = top; i >= q; --i) mantissa = mantissa << 1 | bit_at(i);
    const bool round = bit_at(q - 1) != 0;
    bool sticky = false;  // any bit below q - 1
    for (int i = 0; i < q - 1 && !sticky;) {
      if (i % 64 == 0 && i + 64 <= q - 1) {
        sticky = w_[i / 64] != 0;
        i += 64;
      } else {
        sticky = bit_at(i) != 0;
        ++i;
      }
    }
    if (round && (sticky || (mantissa & 1))) ++mantissa;
    // mantissa * 2^ulp, exact in f32 below 2^128; at or above it overflows to infinity.
    const float r = ulp + static_cast<int>(std::bit_width(mantissa)) - 1 >= 128
                        ? std::numeric_limits<float>::infinity()
                        : static_cast<float>(std::ldexp(static_cast<double>(mantissa), ulp));
    return negative ? -r : r;
  }

 private:
  void add(double x) {
    int exponent = 0;
    const double fraction = std::frexp(std::fabs(x), &exponent);             // |x| = fraction * 2^exponent
    const auto mantissa = static_cast<uint64_t>(std::ldexp(fraction, 53));  // exact, < 2^53
    const auto shift = static_cast<unsigned>(exponent - 53 - lsb_);          // the place of its bit 0
    const unsigned limb = shift / 64, bit = shift % 64;
    const uint64_t lo = mantissa << bit, hi = bit == 0 ? 0 : mantissa >> (64 - bit);
    if (x > 0) {
      uint64_t carry = 0;
      for (unsigned i = limb; i < used_; ++i) {
        const uint64_t addend = i == limb ? lo : i == limb + 1 ? hi : 0;
        const unsigned __int128 t = static_cast<unsigned __int128>(w_[i]) + addend + carry;
        w_[i] = static_cast<uint64_t>(t);
        carry = static_cast<uint64_t>(t >> 64);
        if (i > limb && carry == 0) break;
      }
    } else {
      uint64_t borrow = 0;
      for (unsigned i = limb; i < used_; ++i) {
        const uint64_t sub = i == limb ? lo : i == limb + 1 ? hi : 0;
        const uint64_t t = w_[i] - sub - borrow;
        borrow = (w_[i] < sub || (w_[i] == sub && borrow)) ? 1 : 0;
        w_[i] = t;
        if (i > limb && borrow == 0) break;
      }
    }
  }

  int lsb_ = 0;
  unsigned used_ = 1;
  uint64_t w_[36] = {};
};

}  // namespace

float round_sum_f32(const double* terms, unsigned count, bool flush) {
  bool nan = false, plus_inf = false, minus_inf = false, all_minus_zero = count > 0;
  for (unsigned i = 0; i < count; ++i) {
    const double t = terms[i];
    if (std::isnan(t)) nan = true;
    else if (std::isinf(t)) (t > 0 ? plus_inf : minus_inf) = true;
    if (!(t == 0 && std::signbit(t))) all_minus_zero = false;
  }
  if (nan || (plus_inf && minus_inf)) return std::bit_cast<float>(0x7fc00000u);
  if (plus_inf || minus_inf) return plus_inf ? INFINITY : -INFINITY;
  const float r = ExactSum(terms, count).round_f32();
  if (r == 0) return all_minus_zero ? -0.0f : 0.0f;
  if (flush && std::fabs(r) < std::numeric_limits<float>::min()) return std::copysign(0.0f, r);
  return r;
}

namespace {

// A subnormal f16, bf16 or f32 value (as a double) read as a zero of its sign.
double flushed(Type t, double x) {
  const double smallest_normal = t == Type::f16 ? 0x1p-14 : 0x1p-126;  // bf16 and f32 share f32's range
  return std::fabs(x) < smallest_normal ? std::copysign(0.0, x) : x;
}

}  // namespace

void interpret(Shape s, Type input, Type accumulator, const uint64_t* a, const uint64_t* b, const uint64_t* c,
               uint64_t* out, Model model, Precision precision) {
  const Counts n = counts(s);
  const Numerics numbers = numerics(model, input);
  const std::vector<unsigned> order = step_order(model, input, s);
  for (unsigned lane = 0; lane < wave_lanes; ++lane) {
    for (unsigned e = 0; e < n.c; ++e) {
      const unsigned row = c_row(s, lane, e), col = c_col(s, lane, e);
      const uint64_t* av = a;
      const uint64_t* bv = b;
      // xf32: every A and B element cut by to_xf32 (then an f32 fma chain, as for f32).
      auto cut = [&](uint64_t v) -> uint64_t {
        return precision == Precision::xf32 ? to_xf32(static_cast<uint32_t>(v)) : v;
      };
      auto a_at = [&](unsigned kk) { return cut(av[a_lane(s, row, kk) * n.a + a_element(s, row, kk)]); };
      auto b_at = [&](unsigned kk) { return cut(bv[b_lane(s, kk, col) * n.b + b_element(s, kk, col)]); };
      const uint64_t acc = c[lane * n.c + e];
      uint64_t r = 0;
      if (accumulator == Type::i32) {
        uint32_t sum = static_cast<uint32_t>(acc);
        for (unsigned kk = 0; kk < s.k; ++kk) {
          const auto x = static_cast<int8_t>(a_at(kk)), y = static_cast<int8_t>(b_at(kk));
          sum += static_cast<uint32_t>(int32_t{x} * int32_t{y});
        }
        r = sum;
      } else if (accumulator == Type::f32 && numbers.group > 1) {
        // Groups of `group` products (exact in double) summed exactly with the accumulator and
        // rounded once (round_sum_f32), in step order.
        auto value = [&](Type t, uint64_t bits) {
          const double x = to_double(t, bits);
          return numbers.flush ? flushed(t, x) : x;
        };
        float sum = static_cast<float>(value(Type::f32, acc));
        for (size_t g = 0; g < order.size(); g += numbers.group) {
          double terms[1 + 8];
          terms[0] = sum;
          for (unsigned i = 0; i < numbers.group; ++i)
            terms[1 + i] = value(input, a_at(order[g + i])) * value(input, b_at(order[g + i]));
          sum = round_sum_f32(terms, 1 + numbers.group, numbers.flush);
        }
        r = std::bit_cast<uint32_t>(sum);
      } else if (accumulator == Type::f32) {
        float sum = std::bit_cast<float>(static_cast<uint32_t>(acc));
        for (unsigned kk = 0; kk < s.k; ++kk)
          sum = std::fma(static_cast<float>(to_double(input, a_at(kk))), static_cast<float>(to_double(input, b_at(kk))),
                         sum);
        r = std::bit_cast<uint32_t>(sum);
      } else {
        double sum = std::bit_cast<double>(acc);
        for (unsigned kk = 0; kk < s.k; ++kk) sum = std::fma(to_double(input, a_at(kk)), to_double(input, b_at(kk)), sum);
        r = std::bit_cast<uint64_t>(sum);
      }
      out[lane * n.c + e] = r;
    }
  }
}

}  // namespace rocjit::ir::mma
