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
/// f16 or bf16 with f32; f32 with f32; f64 with f64; i8 with i32.
bool valid_types(Type input, Type accumulator);

/// Why (input, accumulator, shape) is not an mma rocjit defines, or "" when it is. The shapes:
/// 16-bit floats 16x16x16, 32x32x8, 16x16x32, 32x32x16; f32 16x16x4, 32x32x2; f64 16x16x4;
/// i8 16x16x16, 32x32x8, 16x16x32, 32x32x16.
std::string check(Type input, Type accumulator, Shape s);

/// Every shape rocjit defines for (input, accumulator), in the order check() lists them.
std::vector<Shape> defined_shapes(Type input, Type accumulator);

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
};

/// The native instruction for (input, accumulator, shape) on `processor` ("gfx942"), if any.
std::optional<Native> native(const std::string& processor, Type input, Type accumulator, Shape s);
/// The shapes `processor` computes natively for (input, accumulator); empty for the host and
/// processors without matrix cores.
std::vector<Shape> native_shapes(const std::string& processor, Type input, Type accumulator);

/// What mma computes, for one wave: c[l * counts.c + e] (lane l's element e, as IR bit patterns
/// of `accumulator`) += the dot product of row c_row of A and column c_col of B, where A and B are
/// the wave's fragments a[l * counts.a + e] and b[l * counts.b + e] of `input`. The numerics
/// (README, "mma"): products and the running sum in the accumulator's type, k in order, each
/// step one fused multiply-add (f16 and bf16 products are exact in f32); i8 products and sums
/// wrap in i32. Every executor follows this definition: the interpreter and the CPU device call
/// it, AMDGPU processors without matrix cores compute its steps with cross-lane reads, and
/// amdsim's MFMA and WMMA instructions use the same numerics.
void interpret(Shape s, Type input, Type accumulator, const uint64_t* a, const uint64_t* b, const uint64_t* c,
               uint64_t* out);

}  // namespace rocjit::ir::mma
