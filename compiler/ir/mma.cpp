// Matrix-core operations: the shape and type rules, the native instruction table and the
// reference definition of mma (rocjit/compiler/mma.hpp).
#include "rocjit/compiler/mma.hpp"

#include <fmt/format.h>

#include <bit>
#include <cmath>

#include "rocjit/compiler/float16.hpp"

namespace rocjit::ir::mma {
namespace {

bool sixteen_bit_float(Type t) { return t == Type::f16 || t == Type::bf16; }

// The shapes rocjit defines for each input type (mma.hpp, check()).
std::vector<Shape> shapes_for(Type input) {
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

bool valid_types(Type input, Type accumulator) {
  if (sixteen_bit_float(input) || input == Type::f32) return accumulator == Type::f32;
  if (input == Type::f64) return accumulator == Type::f64;
  if (input == Type::i8) return accumulator == Type::i32;
  return false;
}

std::string check(Type input, Type accumulator, Shape s) {
  if (!valid_types(input, accumulator))
    return fmt::format("mma takes f16 or bf16 with f32, f32 with f32, f64 with f64, or i8 with i32 accumulators; "
                       "got {} with {}",
                       type_name(input), type_name(accumulator));
  std::vector<Shape> shapes = shapes_for(input);
  for (const Shape& d : shapes)
    if (d == s) return "";
  std::string list;
  for (const Shape& d : shapes) list += (list.empty() ? "" : ", ") + shape_name(d);
  return fmt::format("mma has no shape {} for {} inputs (m x n x k; defined: {})", shape_name(s), type_name(input), list);
}

std::vector<Shape> defined_shapes(Type input, Type accumulator) {
  return valid_types(input, accumulator) ? shapes_for(input) : std::vector<Shape>{};
}

std::optional<Native> native(const std::string& processor, Type input, Type accumulator, Shape s) {
  for (const Row& r : table()) {
    if (r.native.input != input || r.native.accumulator != accumulator || !(r.native.shape == s)) continue;
    for (std::string_view p : r.processors)
      if (p == processor) return r.native;
  }
  return std::nullopt;
}

std::vector<Shape> native_shapes(const std::string& processor, Type input, Type accumulator) {
  std::vector<Shape> shapes;
  for (const Shape& s : defined_shapes(input, accumulator))
    if (native(processor, input, accumulator, s)) shapes.push_back(s);
  return shapes;
}

void interpret(Shape s, Type input, Type accumulator, const uint64_t* a, const uint64_t* b, const uint64_t* c,
               uint64_t* out) {
  const Counts n = counts(s);
  for (unsigned lane = 0; lane < wave_lanes; ++lane) {
    for (unsigned e = 0; e < n.c; ++e) {
      const unsigned row = c_row(s, lane, e), col = c_col(s, lane, e);
      const uint64_t* av = a;
      const uint64_t* bv = b;
      auto a_at = [&](unsigned kk) { return av[a_lane(s, row, kk) * n.a + a_element(s, row, kk)]; };
      auto b_at = [&](unsigned kk) { return bv[b_lane(s, kk, col) * n.b + b_element(s, kk, col)]; };
      const uint64_t acc = c[lane * n.c + e];
      uint64_t r = 0;
      if (accumulator == Type::i32) {
        uint32_t sum = static_cast<uint32_t>(acc);
        for (unsigned kk = 0; kk < s.k; ++kk) {
          const auto x = static_cast<int8_t>(a_at(kk)), y = static_cast<int8_t>(b_at(kk));
          sum += static_cast<uint32_t>(int32_t{x} * int32_t{y});
        }
        r = sum;
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
