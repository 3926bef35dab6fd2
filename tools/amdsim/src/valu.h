// Shared machinery of vector ALU handlers: the lane loop with DPP, SDWA and output modifiers.
#pragma once

#include <bit>
#include <cmath>
#include <limits>

#include "inst.h"

namespace amdsim {

// Source lane of `lane` for a DPP control, or -1 when the source is out of range.
int dpp_source(const Modifiers& m, int lane, int wave_size);

// Per-instruction scratch for cross-lane sources (DPP reads src0 of other lanes before any write).
struct LaneValues {
  uint32_t lo[64], hi[64];
  uint64_t valid = 0;
};
inline thread_local LaneValues dpp_values;

// Lanes the instruction writes: EXEC, minus lanes disabled by DPP row/bank masks or by an
// invalid source without bound_ctrl. Gathers DPP sources into dpp_values.
uint64_t prepare_lanes(Wave& w, const Inst& i, bool wide);

template <typename F>
inline void for_lanes(Wave& w, const Inst& i, F body, bool wide = false) {
  uint64_t mask = i.mod.dpp == DppKind::none ? w.exec() : prepare_lanes(w, i, wide);
  w.lane_instructions += std::popcount(mask);
  for (; mask; mask &= mask - 1) body(std::countr_zero(mask));
}

uint32_t sdwa_extract(uint32_t v, SdwaSel sel, bool sign);

// Source k (0-based among sources; the instruction's operand index is given) of a 32-bit op.
inline uint32_t src32(const Wave& w, const Inst& i, int operand, int lane, bool first_source = false) {
  if (first_source && i.mod.dpp != DppKind::none) return dpp_values.lo[lane];
  uint32_t v = read32(w, i.ops[operand], lane);
  if (i.mod.sdwa && (i.ops[operand].kind == Operand::vgpr || i.ops[operand].kind == Operand::sgpr))
    v = sdwa_extract(v, first_source ? i.mod.src0_sel : i.mod.src1_sel, i.ops[operand].sext);
  return v;
}
inline uint64_t src64(const Wave& w, const Inst& i, int operand, int lane, bool f64, bool first_source = false) {
  if (first_source && i.mod.dpp != DppKind::none) return uint64_t(dpp_values.hi[lane]) << 32 | dpp_values.lo[lane];
  return read64(w, i.ops[operand], lane, f64);
}

// Float sources with abs/neg input modifiers.
inline float fsrc(const Wave& w, const Inst& i, int operand, int lane, bool first_source = false) {
  uint32_t b = src32(w, i, operand, lane, first_source);
  const Operand& o = i.ops[operand];
  if (o.abs) b &= 0x7fffffffu;
  if (o.neg) b ^= 0x80000000u;
  return bits_f32(b);
}
inline double dsrc(const Wave& w, const Inst& i, int operand, int lane, bool first_source = false) {
  uint64_t b = src64(w, i, operand, lane, true, first_source);
  const Operand& o = i.ops[operand];
  if (o.abs) b &= 0x7fffffffffffffffull;
  if (o.neg) b ^= 0x8000000000000000ull;
  return bits_f64(b);
}

// Flush-to-zero by the wave's denormal mode (FLOAT_DENORM_MODE_32: bit 0 = keep input
// denormals, bit 1 = keep output denormals in the HSA encoding 0..3 = flush src+dst .. none).
inline float flush_in32(const Wave& w, float x) {
  if ((w.denorm_mode & 0x3) == 3 || std::fpclassify(x) != FP_SUBNORMAL) return x;
  if ((w.denorm_mode & 0x3) == 1) return x;  // flush dst only
  return std::copysign(0.0f, x);
}
inline float flush_out32(const Wave& w, float x) {
  if ((w.denorm_mode & 0x3) == 3 || std::fpclassify(x) != FP_SUBNORMAL) return x;
  if ((w.denorm_mode & 0x3) == 2) return x;  // flush src only
  return std::copysign(0.0f, x);
}

// Output modifiers (omod, clamp) on a float result.
inline float fresult(const Wave& w, const Inst& i, float r) {
  if (i.mod.omod != 1.0f) r *= i.mod.omod;
  if (i.mod.clamp) r = std::isnan(r) ? 0.0f : std::fmin(std::fmax(r, 0.0f), 1.0f);
  return flush_out32(w, r);
}
inline double dresult(const Inst& i, double r) {
  if (i.mod.omod != 1.0f) r *= i.mod.omod;
  if (i.mod.clamp) r = std::isnan(r) ? 0.0 : std::fmin(std::fmax(r, 0.0), 1.0);
  return r;
}

// AMDGPU min/max: NaN operands are ignored (IEEE mode returns the other operand), and -0 < +0.
inline float fmax_amd(float a, float b) {
  if (std::isnan(a)) return std::isnan(b) ? std::numeric_limits<float>::quiet_NaN() : b;
  if (std::isnan(b)) return a;
  if (a == 0 && b == 0) return std::signbit(a) ? b : a;
  return a > b ? a : b;
}
inline float fmin_amd(float a, float b) {
  if (std::isnan(a)) return std::isnan(b) ? std::numeric_limits<float>::quiet_NaN() : b;
  if (std::isnan(b)) return a;
  if (a == 0 && b == 0) return std::signbit(a) ? a : b;
  return a < b ? a : b;
}
// V_MED3: the median, or the minimum when an operand is NaN (shared by f32 and f16).
inline float fmed3(float a, float b, float c) {
  if (std::isnan(a) || std::isnan(b) || std::isnan(c)) return fmin_amd(fmin_amd(a, b), c);
  return fmax_amd(fmin_amd(a, b), fmin_amd(fmax_amd(a, b), c));
}

// Writes a 32-bit result, honouring an SDWA destination select.
void write_dst32(Wave& w, const Inst& i, int lane, uint32_t value);

void register_vector_compare(HandlerTable&);
void register_vector_lanes(HandlerTable&);
void register_vector_f16(HandlerTable&);
void register_vector_matrix(HandlerTable&);

}  // namespace amdsim
