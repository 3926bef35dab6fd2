// Matrix-core operations (the op `mma`, dsl::mma): shapes, the fragment layout every target
// shares, the native instructions per processor, and the one definition of what mma computes.
//
// A fragment is a wave's share of a tile: each of the wave's 64 lanes holds `count` elements of
// it, in an IR vector (a scalar when count is 1). Where element e of lane l sits in the tile is
// the canonical layout below, which is the CDNA MFMA single-block register layout, so that on
// gfx90a, gfx942 and gfx950 a fragment is exactly an MFMA operand. gfx11 and gfx12 run WMMA on
// fragments moved into its layout and back; every other target (the host CPU, the interpreter,
// AMDGPU processors without matrix cores) computes the same function of the same lanes from
// ordinary operations. Wave32 processors run kernels that use mma in wave64.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rocjit/compiler/type.hpp"

namespace rocjit::ir::mma {

/// Lanes a fragment is spread over (kernels using mma run in 64-lane waves on every target).
inline constexpr unsigned wave_lanes = 64;

/// m x n += (m x k) . (k x n).
struct Shape {
  /// The extents.
  ///@{
  unsigned m = 16, n = 16, k = 16;
  ///@}
  bool operator==(const Shape&) const = default;  ///< extent by extent
};

/// "16x16x16".
std::string shape_name(Shape s);

/// The precision at which A and B take part: as their type (full), or, for f32 inputs, cut to
/// xf32 first (to_xf32(): f32's sign and exponent, 10 fraction bits; the products are then exact
/// in f32). gfx940-gfx942's `v_mfma_f32_*_xf32` compute that natively; every other target cuts
/// the inputs with ordinary operations.
enum class Precision : uint8_t {
  full,  ///< A and B as their type
  xf32,  ///< f32 A and B cut to xf32 (16x16x8, 32x32x4, f32 accumulators)
};
/// "full", "xf32".
std::string_view precision_name(Precision p);
/// The f32 bit pattern `bits` cut to xf32: rounded toward zero to 10 fraction bits (the low 13
/// bits cleared; subnormals too, infinities unchanged), a NaN returned as it is. docs/mma.md,
/// "Numerics", gives the source (truncation, not round to nearest).
uint32_t to_xf32(uint32_t bits);

/// Elements of each operand one lane holds: A (m x k), B (k x n), C (m x n).
struct Counts {
  /// Elements of A, of B and of C.
  ///@{
  unsigned a = 0, b = 0, c = 0;
  ///@}
};
/// The counts of shape `s`: each tile's elements divided over the wave_lanes lanes.
constexpr Counts counts(Shape s) {
  return {s.m * s.k / wave_lanes, s.k * s.n / wave_lanes, s.m * s.n / wave_lanes};
}

/// The element types mma takes: A and B of `input`, C (the accumulator) of `accumulator`.
/// f16 or bf16 with f32; f32 with f32; f64 with f64; i8 with i32. Precision::xf32: f32 with f32.
bool valid_types(Type input, Type accumulator, Precision p = Precision::full);

/// Why (input, accumulator, shape) at precision `p` is not an mma rocjit defines, or "" when it
/// is. The shapes: 16-bit floats 16x16x16, 32x32x8, 16x16x32, 32x32x16; f32 16x16x4, 32x32x2;
/// f64 16x16x4; i8 16x16x16, 32x32x8, 16x16x32, 32x32x16; xf32 (f32 inputs) 16x16x8, 32x32x4.
std::string check(Type input, Type accumulator, Shape s, Precision p = Precision::full);

/// Every shape rocjit defines for (input, accumulator, p), in the order check() lists them.
std::vector<Shape> defined_shapes(Type input, Type accumulator, Precision p = Precision::full);

/// The canonical layout: where element `e` of lane `lane` of each fragment sits in its tile.
///@{
constexpr unsigned a_row(Shape s, unsigned lane, unsigned) { return lane % s.m; }
constexpr unsigned a_col(Shape s, unsigned lane, unsigned e) { return lane / s.m * counts(s).a + e; }
constexpr unsigned b_row(Shape s, unsigned lane, unsigned e) { return lane / s.n * counts(s).b + e; }
constexpr unsigned b_col(Shape s, unsigned lane, unsigned) { return lane % s.n; }
/// C: rows in groups of 4 per lane; a lane's elements 4g..4g+3 are rows 4 * (64 / n) * g +
/// 4 * (lane / n) + (0..3) of column lane % n.
constexpr unsigned c_row(Shape s, unsigned lane, unsigned e) {
  return e / 4 * (4 * wave_lanes / s.n) + lane / s.n * 4 + e % 4;
}
constexpr unsigned c_col(Shape s, unsigned lane, unsigned) { return lane % s.n; }
///@}

/// The lane and element of A(row, col) and B(row, col) (the inverse of the layout above).
///@{
constexpr unsigned a_lane(Shape s, unsigned row, unsigned col) { return row + s.m * (col / counts(s).a); }
constexpr unsigned a_element(Shape s, unsigned, unsigned col) { return col % counts(s).a; }
constexpr unsigned b_lane(Shape s, unsigned row, unsigned col) { return col + s.n * (row / counts(s).b); }
constexpr unsigned b_element(Shape s, unsigned row, unsigned) { return row % counts(s).b; }
///@}

/// The register layout of a native instruction's operands.
enum class NativeLayout : uint8_t {
  mfma,        ///< CDNA MFMA: the canonical layout itself, no data moves
  wmma_gfx11,  ///< RDNA3 WMMA, wave64: A rows / B columns whole in lanes 0-15 (replicated), C row 4r + l/16
  wmma_gfx12,  ///< RDNA4 WMMA, wave64: A and B as the canonical layout, C row r + 8((l/16) mod 2) + 4(l/32)
};

/// A matrix-core instruction that computes one mma exactly: its LLVM intrinsic name (without
/// "llvm.amdgcn.") and machine instruction, and how A and B are passed (lanes packed into
/// integers for i8 and, before LLVM's bf16 vectors, into i16 for bf16). WMMA operands are not in
/// the canonical layout: the AMDGPU lowering moves them there and back with cross-lane reads.
struct Native {
  /// The element types of A and B, and of C.
  ///@{
  Type input, accumulator;
  ///@}
  Shape shape;                    ///< the shape it computes
  std::string_view intrinsic;     ///< "mfma.f32.16x16x16f16"
  std::string_view instruction;   ///< "v_mfma_f32_16x16x16_f16"
  NativeLayout layout = NativeLayout::mfma;  ///< its operands' register layout
  Precision precision = Precision::full;     ///< the precision of A and B it computes at
};

/// The native instruction for (input, accumulator, shape, p) on `processor` ("gfx942"), if any.
std::optional<Native> native(const std::string& processor, Type input, Type accumulator, Shape s,
                             Precision p = Precision::full);
/// The shapes `processor` computes natively for (input, accumulator, p); empty for the host and
/// processors without matrix cores.
std::vector<Shape> native_shapes(const std::string& processor, Type input, Type accumulator,
                                 Precision p = Precision::full);

/// A numerics model of mma: how the products of one C element are summed and rounded. Each is
/// defined here once (docs/mma.md, "Numerics", states them with their sources); every executor
/// implements the model it is given. i8 (exact products, wrapping i32 sums) and f32/f64 inputs
/// (a chain of fmas in k order) are the same under every model; the models differ for f16 and
/// bf16 inputs (f32 accumulators) only. xf32 is f32 with A and B cut by to_xf32() first,
/// under every model (its products are exact in f32, so the chain rounds once per step):
/// - fma_chain: C plus the products in k order, one fma (one rounding) per product; subnormal
///   inputs and results kept.
/// - cdna2 (gfx90a): subnormal A, B and C values are read as zeros of their sign; the products
///   are summed in pairs of consecutive k in step order (step_order()), each step
///   acc = RN_f32(acc + p0 + p1) with one rounding of the exact sum, and a step whose rounded
///   result is subnormal gives a zero of its sign.
/// - cdna3 (gfx940-gfx950): subnormals kept; groups of four consecutive k in step order, each
///   step acc = RN_f32(acc + p0 + p1 + p2 + p3), one rounding of the exact sum.
/// RN is round to nearest, ties to even; an exact zero sum is -0 only when every term is -0;
/// a NaN term or +inf plus -inf gives the quiet NaN 0x7fc00000, another infinity that infinity.
enum class Model : uint8_t {
  fma_chain,  ///< rocjit's first definition; WMMA processors (no characterisation published)
  cdna2,      ///< gfx90a
  cdna3,      ///< gfx940, gfx941, gfx942, gfx950
};

/// "fma_chain", "cdna2", "cdna3".
std::string_view model_name(Model m);
/// The model a processor's matrix instructions follow: gfx90a cdna2, gfx940-gfx950 cdna3,
/// every other processor (WMMA, no matrix cores) and the host fma_chain.
Model model_of(std::string_view processor);
/// A model by name, or by a processor name (its model_of); nullopt for anything else.
std::optional<Model> model_named(std::string_view name);

/// How `model` sums products of `input`: `group` products per rounding (1: an fma chain) and
/// whether subnormal inputs and step results are flushed to zero.
struct Numerics {
  unsigned group = 1;  ///< products summed exactly with the accumulator before one rounding
  bool flush = false;  ///< subnormal A, B, C and step results become zeros of their sign
};
Numerics numerics(Model model, Type input);

/// The order of k in which `model` sums the products of shape `s`: k order, except that under a
/// model with groups (group > 1) a shape whose A fragment has 8 elements per lane (16x16x32,
/// 32x32x16) runs as two passes of 4 elements per lane, as two MFMAs of half the k do on
/// gfx90a and gfx942: first every lane's elements 0..3 (k = 8b + 0..3 for lane block b), then
/// its elements 4..7. Groups are consecutive runs of this order.
std::vector<unsigned> step_order(Model model, Type input, Shape s);

/// The exact sum of `count` finite or infinite doubles rounded once to f32 (round to nearest,
/// ties to even; the zero, NaN and infinity rules of Model); `flush`: a subnormal result becomes
/// a zero of its sign. The one rounding step of the models with groups.
float round_sum_f32(const double* terms, unsigned count, bool flush);

/// What mma computes, for one wave: c[l * counts.c + e] (lane l's element e, as IR bit patterns
/// of `accumulator`) += the dot product of row c_row of A and column c_col of B, where A and B are
/// the wave's fragments a[l * counts.a + e] and b[l * counts.b + e] of `input` (at `precision`:
/// xf32 cuts each A and B element with to_xf32() first), under `model`
/// (README, "mma"; fma_chain: products and the running sum in the accumulator's type, k in order,
/// each step one fused multiply-add, f16 and bf16 products exact in f32; i8 products and sums
/// wrap in i32). The interpreter calls it; the CPU device computes the same steps inline
/// (its rounding of a group through round_sum_f32), AMDGPU processors without matrix cores
/// compute fma_chain with cross-lane reads, and amdsim's MFMA and WMMA instructions implement
/// their processor's model independently.
void interpret(Shape s, Type input, Type accumulator, const uint64_t* a, const uint64_t* b, const uint64_t* c,
               uint64_t* out, Model model = Model::fma_chain, Precision precision = Precision::full);

}  // namespace rocjit::ir::mma
