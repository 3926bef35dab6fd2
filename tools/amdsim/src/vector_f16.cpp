// 16-bit float VALU instructions: f16 arithmetic (VOP1/VOP2/VOP3), the mixed-precision
// v_fma_mix / v_mad_mix family and packed f16 (VOP3P).
//
// Operands and results. An f16 source is the low half of its register, or the half a true16
// operand names (v1.h), or, in VOP3, the half op_sel picks; SDWA selects apply as for integer
// ops. Results are rounded to nearest even from the exact value (+ - * / sqrt through float, fma
// through double: both hold the exact result or round it harmlessly). A result goes to the half
// a true16 destination names, to the high half with op_sel[3], and otherwise to the low half: on
// GFX9 most 16-bit instructions zero the high half while fma/mad/div_fixup keep it (LLVM's
// GCNSubtarget::zeroesHigh16BitsOfDest); GFX10 and later keep it.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "valu.h"

namespace amdsim {
namespace {

using Op = const Inst&;

uint16_t to_half(double x) { return std::bit_cast<uint16_t>(static_cast<_Float16>(x)); }
float from_half(uint32_t h) { return f16_bits_to_f32(static_cast<uint16_t>(h)); }

// Source `operand` (1-based operand index) of an f16 instruction, as the 16 bits it reads.
uint32_t half_bits(const Wave& w, const Inst& i, int operand, int lane, bool first_source) {
  const Operand& o = i.ops[operand];
  uint32_t b;
  if (first_source && i.mod.dpp != DppKind::none) {
    b = dpp_values.lo[lane];
  } else {
    b = read32(w, o, lane, true);
    const bool reg = o.kind == Operand::vgpr || o.kind == Operand::sgpr;
    if (i.mod.sdwa && reg) b = sdwa_extract(b, first_source ? i.mod.src0_sel : i.mod.src1_sel, false);
    else if (reg && !o.hi16 && !o.lo16 && ((i.mod.op_sel >> (operand - 1)) & 1)) b >>= 16;
  }
  b &= 0xffff;
  if (o.abs) b &= 0x7fff;
  if (o.neg) b ^= 0x8000;
  return b;
}
float hsrc(const Wave& w, const Inst& i, int operand, int lane, bool first_source = false) {
  return from_half(half_bits(w, i, operand, lane, first_source));
}

// Whether this instruction keeps the destination's high half (see the file comment).
bool keeps_high(const Wave& w, const Inst& i) {
  if (w.program->processor().major >= 10) return true;
  return i.name == "v_fma_f16" || i.name == "v_mad_f16" || i.name == "v_div_fixup_f16" ||
         i.name == "v_fma_legacy_f16" || i.name == "v_mad_legacy_f16" || i.name == "v_div_fixup_legacy_f16";
}

void write_half_bits(Wave& w, const Inst& i, int lane, uint32_t h) {
  const Operand& d = i.ops[0];
  h &= 0xffff;
  if (i.mod.sdwa || d.hi16 || d.lo16 || d.kind != Operand::vgpr) {
    write_dst32(w, i, lane, h);
    return;
  }
  const uint32_t old = read32(w, d, lane);
  if ((i.mod.op_sel >> 3) & 1) write32(w, d, lane, (old & 0xffff) | (h << 16));
  else write32(w, d, lane, keeps_high(w, i) ? (old & 0xffff0000u) | h : h);
}
// A result computed exactly or rounded once in float or double, with clamp and omod.
void write_half(Wave& w, const Inst& i, int lane, double r) {
  if (i.mod.omod != 1.0f) r *= i.mod.omod;
  if (i.mod.clamp) r = std::isnan(r) ? 0.0 : std::fmin(std::fmax(r, 0.0), 1.0);
  write_half_bits(w, i, lane, to_half(r));
}

// V_DIV_FIXUP_F16: the quotient q of num / den with the special cases of IEEE division applied.
double div_fixup_h(float q, float den, float num) {
  const bool sign = std::signbit(num) != std::signbit(den);
  const double inf = std::numeric_limits<double>::infinity();
  if (std::isnan(num) || std::isnan(den)) return std::numeric_limits<double>::quiet_NaN();
  if (den == 0 && num == 0) return std::numeric_limits<double>::quiet_NaN();
  if (std::isinf(den) && std::isinf(num)) return std::numeric_limits<double>::quiet_NaN();
  if (den == 0 || std::isinf(num)) return sign ? -inf : inf;
  if (std::isinf(den) || num == 0) return sign ? -0.0 : 0.0;
  return sign ? -std::fabs(double(q)) : std::fabs(double(q));
}

#define VOP_F16_1(NAME, ...)                                                \
  add_handler(t, NAME, [](Wave& w, Op i) {                                   \
    for_lanes(w, i, [&](int l) {                                             \
      float a = hsrc(w, i, 1, l, true);                                      \
      write_half(w, i, l, double(__VA_ARGS__));                              \
    });                                                                      \
  })
#define VOP_F16_2(NAME, ...)                                                \
  add_handler(t, NAME, [](Wave& w, Op i) {                                   \
    for_lanes(w, i, [&](int l) {                                             \
      float a = hsrc(w, i, 1, l, true), b = hsrc(w, i, 2, l);                \
      write_half(w, i, l, double(__VA_ARGS__));                              \
    });                                                                      \
  })
#define VOP_F16_3(NAME, ...)                                                \
  add_handler(t, NAME, [](Wave& w, Op i) {                                   \
    for_lanes(w, i, [&](int l) {                                             \
      float a = hsrc(w, i, 1, l, true), b = hsrc(w, i, 2, l), c = hsrc(w, i, 3, l); \
      write_half(w, i, l, double(__VA_ARGS__));                              \
    });                                                                      \
  })

// v_fmac_f16 / v_mac_f16: dst = src0 * src1 + dst (fused or not).
template <bool Fused>
void mac_f16(Wave& w, Op i) {
  for_lanes(w, i, [&](int l) {
    const double a = hsrc(w, i, 1, l, true), b = hsrc(w, i, 2, l);
    const Operand& d = i.ops[0];
    uint32_t acc = read32(w, d, l, true);
    if (!d.hi16 && !d.lo16 && ((i.mod.op_sel >> 3) & 1)) acc >>= 16;
    const double c = from_half(acc & 0xffff);
    write_half(w, i, l, Fused ? std::fma(a, b, c) : double(float(from_half(to_half(a * b)))) + c);
  });
}

// v_fma_mix_f32 / v_fma_mixlo_f16 / v_fma_mixhi_f16 (and mad_mix): each source is f32, or f16
// when its op_sel_hi bit is set (op_sel then picks the f16's half). The fma is computed in
// double from the exact f32 values and rounded once to the result type.
double mix_source(const Wave& w, const Inst& i, int k, int lane) {
  const Operand& o = i.ops[1 + k];
  const uint32_t op_sel_hi = i.mod.has_op_sel_hi ? i.mod.op_sel_hi : 0;
  if ((op_sel_hi >> k) & 1) return hsrc(w, i, 1 + k, lane);  // op_sel bit k picks the half
  uint32_t b = read32(w, o, lane);
  if (o.abs) b &= 0x7fffffffu;
  if (o.neg) b ^= 0x80000000u;
  return bits_f32(b);
}
template <int Kind>  // 0: f32 result, 1: f16 to the low half, 2: f16 to the high half
void fma_mix(Wave& w, Op i) {
  for_lanes(w, i, [&](int l) {
    const double a = mix_source(w, i, 0, l), b = mix_source(w, i, 1, l), c = mix_source(w, i, 2, l);
    double r = std::fma(a, b, c);
    if (Kind == 0) {
      float f = static_cast<float>(r);
      write32(w, i.ops[0], l, f32_bits(fresult(w, i, f)));
      return;
    }
    if (i.mod.clamp) r = std::isnan(r) ? 0.0 : std::fmin(std::fmax(r, 0.0), 1.0);
    const uint32_t old = read32(w, i.ops[0], l), h = to_half(r);
    write32(w, i.ops[0], l, Kind == 1 ? (old & 0xffff0000u) | h : (old & 0xffff) | (h << 16));
  });
}

// Packed f16 (VOP3P): lane halves lo/hi of each source chosen by op_sel / op_sel_hi, negated by
// neg_lo / neg_hi; the results packed into the destination.
template <int Kind>  // 0 add, 1 mul, 2 fma, 3 min, 4 max
void packed_f16(Wave& w, Op i) {
  const int sources = Kind == 2 ? 3 : 2;
  const uint32_t op_sel_hi = i.mod.has_op_sel_hi ? i.mod.op_sel_hi : 0x7;
  for_lanes(w, i, [&](int l) {
    double lo[3], hi[3];
    for (int k = 0; k < sources; ++k) {
      const Operand& o = i.ops[1 + k];
      uint32_t v = read32(w, o, l, true);
      if (o.kind == Operand::imm && o.float_text) v = v & 0xffff;  // an inline f16 constant: low half only
      auto half = [&](bool high) { return from_half(high ? v >> 16 : v & 0xffff); };
      lo[k] = half((i.mod.op_sel >> k) & 1);
      hi[k] = half((op_sel_hi >> k) & 1);
      if ((i.mod.neg_lo >> k) & 1) lo[k] = -lo[k];
      if ((i.mod.neg_hi >> k) & 1) hi[k] = -hi[k];
    }
    auto f = [&](const double* x) -> double {
      switch (Kind) {
        case 0: return float(x[0] + x[1]);
        case 1: return float(x[0] * x[1]);
        case 2: return std::fma(x[0], x[1], x[2]);
        case 3: return fmin_amd(float(x[0]), float(x[1]));
        default: return fmax_amd(float(x[0]), float(x[1]));
      }
    };
    auto finish = [&](double r) {
      if (i.mod.clamp) r = std::isnan(r) ? 0.0 : std::fmin(std::fmax(r, 0.0), 1.0);
      return uint32_t(to_half(r));
    };
    write32(w, i.ops[0], l, finish(f(lo)) | finish(f(hi)) << 16);
  });
}

// Packed 16-bit integers (VOP3P): the halves of each source chosen by op_sel / op_sel_hi as for
// packed f16 (an inline constant is its 32-bit value, so op_sel_hi 0 repeats its low half);
// results wrap to 16 bits unless clamp saturates them (add, sub, mad).
enum class PackedInt { add_u, add_i, sub_u, sub_i, mul_lo, lshl, lshr, ashr, max_i, max_u, min_i, min_u, mad_u, mad_i };
template <PackedInt Kind>
void packed_i16(Wave& w, Op i) {
  constexpr bool mad = Kind == PackedInt::mad_u || Kind == PackedInt::mad_i;
  constexpr bool is_signed = Kind == PackedInt::add_i || Kind == PackedInt::sub_i || Kind == PackedInt::ashr ||
                             Kind == PackedInt::max_i || Kind == PackedInt::min_i || Kind == PackedInt::mad_i;
  const int sources = mad ? 3 : 2;
  const uint32_t op_sel_hi = i.mod.has_op_sel_hi ? i.mod.op_sel_hi : 0x7;
  for_lanes(w, i, [&](int l) {
    int64_t lo[3] = {}, hi[3] = {};
    for (int k = 0; k < sources; ++k) {
      const uint32_t v = read32(w, i.ops[1 + k], l, true);
      auto half = [&](bool high) -> int64_t {
        const uint16_t h = static_cast<uint16_t>(high ? v >> 16 : v);
        return is_signed ? int64_t{static_cast<int16_t>(h)} : int64_t{h};
      };
      lo[k] = half((i.mod.op_sel >> k) & 1);
      hi[k] = half((op_sel_hi >> k) & 1);
    }
    auto f = [&](const int64_t* x) -> uint32_t {
      int64_t r = 0;
      switch (Kind) {
        case PackedInt::add_u: case PackedInt::add_i: r = x[0] + x[1]; break;
        case PackedInt::sub_u: case PackedInt::sub_i: r = x[0] - x[1]; break;
        case PackedInt::mul_lo: r = x[0] * x[1]; break;
        case PackedInt::lshl: r = x[1] << (x[0] & 15); break;
        case PackedInt::lshr: r = (x[1] & 0xffff) >> (x[0] & 15); break;
        case PackedInt::ashr: r = x[1] >> (x[0] & 15); break;
        case PackedInt::max_i: case PackedInt::max_u: r = std::max(x[0], x[1]); break;
        case PackedInt::min_i: case PackedInt::min_u: r = std::min(x[0], x[1]); break;
        case PackedInt::mad_u: case PackedInt::mad_i: r = x[0] * x[1] + x[2]; break;
      }
      const bool saturating = Kind == PackedInt::add_u || Kind == PackedInt::add_i || Kind == PackedInt::sub_u ||
                              Kind == PackedInt::sub_i || mad;
      if (i.mod.clamp && saturating) r = is_signed ? std::clamp<int64_t>(r, -32768, 32767) : std::clamp<int64_t>(r, 0, 65535);
      return static_cast<uint32_t>(r) & 0xffffu;
    };
    write32(w, i.ops[0], l, f(lo) | f(hi) << 16);
  });
}

}  // namespace

void register_vector_f16(HandlerTable& t) {
  add_handler(t, "v_pk_add_u16", packed_i16<PackedInt::add_u>);
  add_handler(t, "v_pk_add_i16", packed_i16<PackedInt::add_i>);
  add_handler(t, "v_pk_sub_u16", packed_i16<PackedInt::sub_u>);
  add_handler(t, "v_pk_sub_i16", packed_i16<PackedInt::sub_i>);
  add_handler(t, "v_pk_mul_lo_u16", packed_i16<PackedInt::mul_lo>);
  add_handler(t, "v_pk_lshlrev_b16", packed_i16<PackedInt::lshl>);
  add_handler(t, "v_pk_lshrrev_b16", packed_i16<PackedInt::lshr>);
  add_handler(t, "v_pk_ashrrev_i16", packed_i16<PackedInt::ashr>);
  add_handler(t, "v_pk_max_i16", packed_i16<PackedInt::max_i>);
  add_handler(t, "v_pk_max_u16", packed_i16<PackedInt::max_u>);
  add_handler(t, "v_pk_min_i16", packed_i16<PackedInt::min_i>);
  add_handler(t, "v_pk_min_u16", packed_i16<PackedInt::min_u>);
  add_handler(t, "v_pk_mad_u16", packed_i16<PackedInt::mad_u>);
  add_handler(t, "v_pk_mad_i16", packed_i16<PackedInt::mad_i>);
  VOP_F16_2("v_add_f16", a + b);
  VOP_F16_2("v_sub_f16", a - b);
  VOP_F16_2("v_subrev_f16", b - a);
  VOP_F16_2("v_mul_f16", a * b);
  VOP_F16_2("v_min_f16", fmin_amd(a, b));
  VOP_F16_2("v_max_f16", fmax_amd(a, b));
  VOP_F16_2("v_min_num_f16", fmin_amd(a, b));
  VOP_F16_2("v_max_num_f16", fmax_amd(a, b));
  add_handler(t, "v_ldexp_f16", [](Wave& w, Op i) {  // the exponent is a signed integer operand
    for_lanes(w, i, [&](int l) {
      const float a = hsrc(w, i, 1, l, true);
      int32_t e = int32_t(src32(w, i, 2, l));
      write_half(w, i, l, std::ldexp(double(a), std::clamp(e, -1000, 1000)));
    });
  });
  VOP_F16_3("v_fma_f16", std::fma(double(a), double(b), double(c)));
  VOP_F16_3("v_fma_legacy_f16", std::fma(double(a), double(b), double(c)));
  VOP_F16_3("v_mad_f16", double(from_half(to_half(double(a) * b))) + c);
  VOP_F16_3("v_mad_legacy_f16", double(from_half(to_half(double(a) * b))) + c);
  VOP_F16_3("v_min3_f16", fmin_amd(fmin_amd(a, b), c));
  VOP_F16_3("v_max3_f16", fmax_amd(fmax_amd(a, b), c));
  VOP_F16_3("v_med3_f16", fmed3(a, b, c));
  VOP_F16_3("v_div_fixup_f16", div_fixup_h(a, b, c));
  VOP_F16_3("v_div_fixup_legacy_f16", div_fixup_h(a, b, c));
  add_handler(t, "v_fmac_f16", mac_f16<true>);
  add_handler(t, "v_mac_f16", mac_f16<false>);
  // v_fmamk_f16 dst, src0, K, src1 and v_fmaak_f16 dst, src0, src1, K: the operands in print order.
  VOP_F16_3("v_fmamk_f16", std::fma(double(a), double(b), double(c)));
  VOP_F16_3("v_fmaak_f16", std::fma(double(a), double(b), double(c)));
  VOP_F16_1("v_sqrt_f16", std::sqrt(a));
  VOP_F16_1("v_rcp_f16", 1.0f / a);
  VOP_F16_1("v_rsq_f16", float(1.0 / std::sqrt(double(a))));
  VOP_F16_1("v_exp_f16", std::exp2(a));
  VOP_F16_1("v_log_f16", std::log2(a));
  VOP_F16_1("v_sin_f16", std::sin(a * 6.283185307179586));
  VOP_F16_1("v_cos_f16", std::cos(a * 6.283185307179586));
  VOP_F16_1("v_trunc_f16", std::trunc(a));
  VOP_F16_1("v_ceil_f16", std::ceil(a));
  VOP_F16_1("v_floor_f16", std::floor(a));
  VOP_F16_1("v_rndne_f16", std::nearbyint(a));
  VOP_F16_1("v_fract_f16", std::isinf(a) ? std::nanf("") : std::fmin(a - std::floor(a), 0x1.ffcp-1f));
  VOP_F16_1("v_frexp_mant_f16", (std::isnan(a) || std::isinf(a)) ? a : [](float x) { int e; return std::frexp(x, &e); }(a));
  add_handler(t, "v_frexp_exp_i16_f16", [](Wave& w, Op i) {
    for_lanes(w, i, [&](int l) {
      const float a = hsrc(w, i, 1, l, true);
      int e = 0;
      if (!std::isnan(a) && !std::isinf(a)) std::frexp(a, &e);
      write_half_bits(w, i, l, uint32_t(int16_t(e)) & 0xffff);
    });
  });
  // Conversions between f16 and 16-bit integers (to integers: truncate, saturate, NaN -> 0).
  add_handler(t, "v_cvt_f16_i16", [](Wave& w, Op i) {
    for_lanes(w, i, [&](int l) { write_half(w, i, l, double(int16_t(src32(w, i, 1, l, true)))); });
  });
  add_handler(t, "v_cvt_f16_u16", [](Wave& w, Op i) {
    for_lanes(w, i, [&](int l) { write_half(w, i, l, double(uint16_t(src32(w, i, 1, l, true)))); });
  });
  add_handler(t, "v_cvt_i16_f16", [](Wave& w, Op i) {
    for_lanes(w, i, [&](int l) {
      const float a = hsrc(w, i, 1, l, true);
      const int32_t v = std::isnan(a) ? 0 : int32_t(std::clamp(std::trunc(a), -32768.0f, 32767.0f));
      write_half_bits(w, i, l, uint32_t(v) & 0xffff);
    });
  });
  add_handler(t, "v_cvt_u16_f16", [](Wave& w, Op i) {
    for_lanes(w, i, [&](int l) {
      const float a = hsrc(w, i, 1, l, true);
      const uint32_t v = std::isnan(a) ? 0 : uint32_t(std::clamp(std::trunc(a), 0.0f, 65535.0f));
      write_half_bits(w, i, l, v);
    });
  });
  add_handler(t, "v_pack_b32_f16", [](Wave& w, Op i) {
    for_lanes(w, i, [&](int l) { write32(w, i.ops[0], l, half_bits(w, i, 1, l, true) | half_bits(w, i, 2, l, false) << 16); });
  });
  add_handler(t, "v_fma_mix_f32", fma_mix<0>);
  add_handler(t, "v_fma_mixlo_f16", fma_mix<1>);
  add_handler(t, "v_fma_mixhi_f16", fma_mix<2>);
  add_handler(t, "v_mad_mix_f32", fma_mix<0>);
  add_handler(t, "v_mad_mixlo_f16", fma_mix<1>);
  add_handler(t, "v_mad_mixhi_f16", fma_mix<2>);
  add_handler(t, "v_pk_add_f16", packed_f16<0>);
  add_handler(t, "v_pk_mul_f16", packed_f16<1>);
  add_handler(t, "v_pk_fma_f16", packed_f16<2>);
  add_handler(t, "v_pk_min_f16", packed_f16<3>);
  add_handler(t, "v_pk_max_f16", packed_f16<4>);
  add_handler(t, "v_pk_min_num_f16", packed_f16<3>);
  add_handler(t, "v_pk_max_num_f16", packed_f16<4>);
}

}  // namespace amdsim
