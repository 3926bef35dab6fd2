// Vector ALU instructions (VOP1, VOP2, VOP3, VOPD halves): integer, f32, f64 and conversions.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cfloat>
#include <cfenv>
#include <climits>
#include <cmath>
#include <cstdlib>

#include "valu.h"

namespace amdsim {

// --- DPP / SDWA -----------------------------------------------------------------------------

int dpp_source(const Modifiers& m, int lane, int wave_size) {
  int row = lane & ~15, in_row = lane & 15;
  switch (m.dpp) {
    case DppKind::quad_perm: return (lane & ~3) | ((m.dpp_value >> (2 * (lane & 3))) & 3);
    case DppKind::row_shl: return in_row + int(m.dpp_value) < 16 ? lane + int(m.dpp_value) : -1;
    case DppKind::row_shr: return in_row - int(m.dpp_value) >= 0 ? lane - int(m.dpp_value) : -1;
    case DppKind::row_ror: return row | ((in_row - int(m.dpp_value)) & 15);
    case DppKind::wave_shl: return lane + 1 < wave_size ? lane + 1 : -1;
    case DppKind::wave_shr: return lane - 1 >= 0 ? lane - 1 : -1;
    case DppKind::wave_rol: return (lane + 1) % wave_size;
    case DppKind::wave_ror: return (lane + wave_size - 1) % wave_size;
    case DppKind::row_mirror: return row | (15 - in_row);
    case DppKind::row_half_mirror: return (lane & ~7) | (7 - (lane & 7));
    case DppKind::row_bcast15: return row > 0 ? row - 1 : -1;
    case DppKind::row_bcast31: return lane >= 32 ? 31 : -1;
    case DppKind::row_share: return row | int(m.dpp_value & 15);
    case DppKind::row_xmask: return row | (in_row ^ int(m.dpp_value & 15));
    case DppKind::dpp8: return (lane & ~7) | int((m.dpp_value >> (3 * (lane & 7))) & 7);
    case DppKind::none: return lane;
  }
  return lane;
}

uint64_t prepare_lanes(Wave& w, const Inst& i, bool wide) {
  const Modifiers& m = i.mod;
  uint64_t exec = w.exec(), mask = 0;
  const Operand& src = i.ops[1];
  for (uint64_t e = exec; e; e &= e - 1) {
    int lane = std::countr_zero(e);
    if (m.dpp != DppKind::dpp8) {
      int row = (lane >> 4) & 3, bank = (lane >> 2) & 3;
      if (!((m.row_mask >> row) & 1) || !((m.bank_mask >> bank) & 1)) continue;
    }
    int from = dpp_source(m, lane, w.wave_size);
    bool readable = from >= 0 && from < w.wave_size && (m.fetch_inactive || ((exec >> from) & 1));
    if (!readable) {
      if (!m.bound_ctrl) continue;  // the lane keeps its old value
      dpp_values.lo[lane] = dpp_values.hi[lane] = 0;
    } else {
      dpp_values.lo[lane] = read32(w, src, from);
      dpp_values.hi[lane] = wide && src.kind == Operand::vgpr ? w.v[size_t(src.index + 1) * 64 + from] : 0;
    }
    mask |= 1ull << lane;
  }
  return mask;
}

uint32_t sdwa_extract(uint32_t v, SdwaSel sel, bool sign) {
  switch (sel) {
    case SdwaSel::byte0: return sign ? uint32_t(int32_t(int8_t(v))) : v & 0xff;
    case SdwaSel::byte1: return sign ? uint32_t(int32_t(int8_t(v >> 8))) : (v >> 8) & 0xff;
    case SdwaSel::byte2: return sign ? uint32_t(int32_t(int8_t(v >> 16))) : (v >> 16) & 0xff;
    case SdwaSel::byte3: return sign ? uint32_t(int32_t(int8_t(v >> 24))) : v >> 24;
    case SdwaSel::word0: return sign ? uint32_t(int32_t(int16_t(v))) : v & 0xffff;
    case SdwaSel::word1: return sign ? uint32_t(int32_t(int16_t(v >> 16))) : v >> 16;
    case SdwaSel::dword: return v;
  }
  return v;
}

void write_dst32(Wave& w, const Inst& i, int lane, uint32_t value) {
  const Operand& d = i.ops[0];
  if (!i.mod.sdwa || i.mod.dst_sel == SdwaSel::dword || d.kind != Operand::vgpr) {
    write32(w, d, lane, value);
    return;
  }
  uint32_t old = read32(w, d, lane);
  int shift = 0, bits = 8;
  switch (i.mod.dst_sel) {
    case SdwaSel::byte0: shift = 0; break;
    case SdwaSel::byte1: shift = 8; break;
    case SdwaSel::byte2: shift = 16; break;
    case SdwaSel::byte3: shift = 24; break;
    case SdwaSel::word0: shift = 0, bits = 16; break;
    case SdwaSel::word1: shift = 16, bits = 16; break;
    default: break;
  }
  uint32_t field_mask = (bits == 32 ? ~0u : ((1u << bits) - 1)) << shift;
  uint32_t field = (value << shift) & field_mask;
  uint32_t rest;
  if (i.mod.dst_preserve) rest = old & ~field_mask;
  else if (i.mod.dst_sext && (field >> (shift + bits - 1)) & 1) rest = ~field_mask & ~((1u << shift) - 1);
  else rest = 0;
  write32(w, d, lane, field | rest);
}

namespace {

using Op = const Inst&;

// --- Float helpers ---------------------------------------------------------------------------

double dmax_amd(double a, double b) {
  if (std::isnan(a)) return std::isnan(b) ? std::numeric_limits<double>::quiet_NaN() : b;
  if (std::isnan(b)) return a;
  if (a == 0 && b == 0) return std::signbit(a) ? b : a;
  return a > b ? a : b;
}
double dmin_amd(double a, double b) {
  if (std::isnan(a)) return std::isnan(b) ? std::numeric_limits<double>::quiet_NaN() : b;
  if (std::isnan(b)) return a;
  if (a == 0 && b == 0) return std::signbit(a) ? a : b;
  return a < b ? a : b;
}
int fexp32(float x) { return int((f32_bits(x) >> 23) & 0xff); }
int fexp64(double x) { return int((f64_bits(x) >> 52) & 0x7ff); }

// Float to integer conversions: round toward zero, saturate, NaN -> 0.
int32_t f_to_i32(double x) {
  if (std::isnan(x)) return 0;
  if (x >= 2147483647.0) return INT32_MAX;
  if (x <= -2147483648.0) return INT32_MIN;
  return int32_t(x);
}
uint32_t f_to_u32(double x) {
  if (std::isnan(x) || x <= 0) return 0;
  if (x >= 4294967295.0) return UINT32_MAX;
  return uint32_t(x);
}

float sin_rev(float x) { return float(std::sin(double(x) * 6.283185307179586)); }
float cos_rev(float x) { return float(std::cos(double(x) * 6.283185307179586)); }

bool class_test(double x, bool is_signaling, uint32_t mask) {
  int bit;
  if (std::isnan(x)) bit = is_signaling ? 0 : 1;
  else if (std::isinf(x)) bit = x < 0 ? 2 : 9;
  else if (x == 0) bit = std::signbit(x) ? 5 : 6;
  else if (std::fpclassify(x) == FP_SUBNORMAL) bit = x < 0 ? 4 : 7;
  else bit = x < 0 ? 3 : 8;
  return (mask >> bit) & 1;
}

// --- Generic shapes ----------------------------------------------------------------------------

#define VOP_U32_1(NAME, ...)                                                          \
  add_handler(t, NAME, [](Wave& w, Op i) {                                             \
    for_lanes(w, i, [&](int l) {                                                       \
      uint32_t a = src32(w, i, 1, l, true);                                            \
      write_dst32(w, i, l, (__VA_ARGS__));                                                    \
    });                                                                                \
  })
#define VOP_U32_2(NAME, ...)                                                          \
  add_handler(t, NAME, [](Wave& w, Op i) {                                             \
    for_lanes(w, i, [&](int l) {                                                       \
      uint32_t a = src32(w, i, 1, l, true), b = src32(w, i, 2, l);                     \
      write_dst32(w, i, l, (__VA_ARGS__));                                                    \
    });                                                                                \
  })
#define VOP_U32_3(NAME, ...)                                                          \
  add_handler(t, NAME, [](Wave& w, Op i) {                                             \
    for_lanes(w, i, [&](int l) {                                                       \
      uint32_t a = src32(w, i, 1, l, true), b = src32(w, i, 2, l), c = src32(w, i, 3, l); \
      write_dst32(w, i, l, (__VA_ARGS__));                                                    \
    });                                                                                \
  })
#define VOP_F32_1(NAME, ...)                                                          \
  add_handler(t, NAME, [](Wave& w, Op i) {                                             \
    for_lanes(w, i, [&](int l) {                                                       \
      float a = flush_in32(w, fsrc(w, i, 1, l, true));                                 \
      write_dst32(w, i, l, f32_bits(fresult(w, i, (__VA_ARGS__))));                           \
    });                                                                                \
  })
#define VOP_F32_2(NAME, ...)                                                          \
  add_handler(t, NAME, [](Wave& w, Op i) {                                             \
    for_lanes(w, i, [&](int l) {                                                       \
      float a = flush_in32(w, fsrc(w, i, 1, l, true)), b = flush_in32(w, fsrc(w, i, 2, l)); \
      write_dst32(w, i, l, f32_bits(fresult(w, i, (__VA_ARGS__))));                           \
    });                                                                                \
  })
#define VOP_F32_3(NAME, ...)                                                          \
  add_handler(t, NAME, [](Wave& w, Op i) {                                             \
    for_lanes(w, i, [&](int l) {                                                       \
      float a = flush_in32(w, fsrc(w, i, 1, l, true)), b = flush_in32(w, fsrc(w, i, 2, l)), \
            c = flush_in32(w, fsrc(w, i, 3, l));                                       \
      write_dst32(w, i, l, f32_bits(fresult(w, i, (__VA_ARGS__))));                           \
    });                                                                                \
  })
#define VOP_F64_1(NAME, ...)                                                          \
  add_handler(t, NAME, [](Wave& w, Op i) {                                             \
    for_lanes(w, i, [&](int l) {                                                       \
      double a = dsrc(w, i, 1, l, true);                                               \
      write64(w, i.ops[0], l, f64_bits(dresult(i, (__VA_ARGS__))));                           \
    }, true);                                                                          \
  })
#define VOP_F64_2(NAME, ...)                                                          \
  add_handler(t, NAME, [](Wave& w, Op i) {                                             \
    for_lanes(w, i, [&](int l) {                                                       \
      double a = dsrc(w, i, 1, l, true), b = dsrc(w, i, 2, l);                         \
      write64(w, i.ops[0], l, f64_bits(dresult(i, (__VA_ARGS__))));                           \
    }, true);                                                                          \
  })
#define VOP_F64_3(NAME, ...)                                                          \
  add_handler(t, NAME, [](Wave& w, Op i) {                                             \
    for_lanes(w, i, [&](int l) {                                                       \
      double a = dsrc(w, i, 1, l, true), b = dsrc(w, i, 2, l), c = dsrc(w, i, 3, l);   \
      write64(w, i.ops[0], l, f64_bits(dresult(i, (__VA_ARGS__))));                           \
    }, true);                                                                          \
  })

// Integer ops with a carry (or borrow) out to an SGPR mask: dst, sdst, src0, src1 [, carry-in].
template <int Kind>  // 0 add, 1 sub, 2 subrev, 3 addc, 4 subb, 5 subbrev
void carry_op(Wave& w, Op i) {
  uint64_t out = 0;
  bool has_in = Kind >= 3;
  uint64_t in = has_in ? read64(w, i.ops[4], 0, false) : 0;
  for_lanes(w, i, [&](int l) {
    uint64_t a = src32(w, i, 2, l, true), b = src32(w, i, 3, l);
    uint64_t c = has_in ? (in >> l) & 1 : 0;
    uint64_t r;
    bool carry;
    switch (Kind) {
      case 0: case 3: r = a + b + c; carry = r >> 32; break;
      case 1: case 4: r = a - b - c; carry = b + c > a; break;
      default: r = b - a - c; carry = a + c > b; break;
    }
    write32(w, i.ops[0], l, uint32_t(r));
    if (carry) out |= 1ull << l;
  });
  write64(w, i.ops[1], 0, out);
}

// 16-bit integer adds and subtracts (and v_mad_u16) wrap, or with clamp saturate: to [0, 0xffff]
// for _u16, to [-32768, 32767] for _i16 (LLVM selects usub.sat/uadd.sat/sadd.sat as these).
uint32_t u16_result(int64_t r, bool clamp) { return uint32_t(clamp ? std::clamp<int64_t>(r, 0, 0xffff) : r) & 0xffff; }
uint32_t i16_result(int64_t r, bool clamp) { return uint32_t(clamp ? std::clamp<int64_t>(r, -32768, 32767) : r) & 0xffff; }

// v_add_u32 etc. on gfx9 take an optional clamp; without it they wrap.
template <bool Sub, bool Rev>
void add_nc(Wave& w, Op i) {
  for_lanes(w, i, [&](int l) {
    uint64_t a = src32(w, i, 1, l, true), b = src32(w, i, 2, l);
    uint64_t r = Sub ? (Rev ? b - a : a - b) : a + b;
    if (i.mod.clamp) {
      if (!Sub && r > UINT32_MAX) r = UINT32_MAX;
      if (Sub && (Rev ? a > b : b > a)) r = 0;
    }
    write_dst32(w, i, l, uint32_t(r));
  });
}

void v_cndmask(Wave& w, Op i) {
  uint64_t mask = read64(w, i.ops[3], 0, false);
  for_lanes(w, i, [&](int l) {
    bool pick = (mask >> l) & 1;
    uint32_t a = src32(w, i, 1, l, true), b = src32(w, i, 2, l);
    // VOP3 abs/neg apply to float selects.
    if (i.ops[1].abs) a &= 0x7fffffffu;
    if (i.ops[1].neg) a ^= 0x80000000u;
    if (i.ops[2].abs) b &= 0x7fffffffu;
    if (i.ops[2].neg) b ^= 0x80000000u;
    write_dst32(w, i, l, pick ? b : a);
  });
}

void v_mad_u64_u32(Wave& w, Op i) {
  uint64_t carry = 0;
  for_lanes(w, i, [&](int l) {
    unsigned __int128 r = (unsigned __int128)(uint64_t(read32(w, i.ops[2], l)) * uint64_t(read32(w, i.ops[3], l))) +
                          read64(w, i.ops[4], l, false);
    write64(w, i.ops[0], l, uint64_t(r));
    if (r >> 64) carry |= 1ull << l;
  });
  write64(w, i.ops[1], 0, carry);
}
void v_mad_i64_i32(Wave& w, Op i) {
  uint64_t carry = 0;
  for_lanes(w, i, [&](int l) {
    __int128 r = (__int128)(int64_t(int32_t(read32(w, i.ops[2], l))) * int64_t(int32_t(read32(w, i.ops[3], l)))) +
                 (__int128)int64_t(read64(w, i.ops[4], l, false));
    write64(w, i.ops[0], l, uint64_t(r));
    if (r > INT64_MAX || r < INT64_MIN) carry |= 1ull << l;
  });
  write64(w, i.ops[1], 0, carry);
}

// Division helpers (ISA pseudo-code: V_DIV_SCALE, V_DIV_FMAS, V_DIV_FIXUP).
void v_div_scale_f32(Wave& w, Op i) {
  uint64_t vcc = 0;
  for_lanes(w, i, [&](int l) {
    float s0 = fsrc(w, i, 2, l), s1 = fsrc(w, i, 3, l), s2 = fsrc(w, i, 4, l);
    float d = s0;
    bool flag = false;
    auto denorm = [](double x) { return x != 0 && std::fabs(x) < double(FLT_MIN); };
    if (s2 == 0 || s1 == 0) {
      d = std::numeric_limits<float>::quiet_NaN();
    } else if (fexp32(s2) - fexp32(s1) >= 96) {
      flag = true;
      if (s0 == s1) d = std::ldexp(s0, 64);
    } else if (std::fpclassify(s1) == FP_SUBNORMAL) {
      d = std::ldexp(s0, 64);
    } else if (denorm(1.0 / double(s1)) && denorm(double(s2) / s1)) {
      flag = true;
      if (s0 == s1) d = std::ldexp(s0, -64);  // the denominator scales down: quotient normal, result scaled back by div_fmas
    } else if (denorm(1.0 / double(s1))) {
      d = std::ldexp(s0, -64);
    } else if (denorm(double(s2) / s1)) {
      flag = true;
      if (s0 == s2) d = std::ldexp(s0, 64);
    } else if (fexp32(s2) <= 23) {
      d = std::ldexp(s0, 64);
    }
    write32(w, i.ops[0], l, f32_bits(d));
    if (flag) vcc |= 1ull << l;
  });
  write64(w, i.ops[1], 0, vcc);
}
void v_div_scale_f64(Wave& w, Op i) {
  uint64_t vcc = 0;
  for_lanes(w, i, [&](int l) {
    double s0 = dsrc(w, i, 2, l), s1 = dsrc(w, i, 3, l), s2 = dsrc(w, i, 4, l);
    double d = s0;
    bool flag = false;
    auto denorm = [](long double x) { return x != 0 && std::fabs(x) < (long double)DBL_MIN; };
    if (s2 == 0 || s1 == 0) {
      d = std::numeric_limits<double>::quiet_NaN();
    } else if (fexp64(s2) - fexp64(s1) >= 768) {
      flag = true;
      if (s0 == s1) d = std::ldexp(s0, 128);
    } else if (std::fpclassify(s1) == FP_SUBNORMAL) {
      d = std::ldexp(s0, 128);
    } else if (denorm(1.0L / s1) && denorm((long double)s2 / s1)) {
      flag = true;
      if (s0 == s1) d = std::ldexp(s0, -128);  // as in f32: the denominator scales down
    } else if (denorm(1.0L / s1)) {
      d = std::ldexp(s0, -128);
    } else if (denorm((long double)s2 / s1)) {
      flag = true;
      if (s0 == s2) d = std::ldexp(s0, 128);
    } else if (fexp64(s2) <= 53) {
      d = std::ldexp(s0, 128);
    }
    write64(w, i.ops[0], l, f64_bits(d));
    if (flag) vcc |= 1ull << l;
  });
  write64(w, i.ops[1], 0, vcc);
}
void v_div_fmas_f32(Wave& w, Op i) {
  uint64_t vcc = w.vcc();
  for_lanes(w, i, [&](int l) {
    float a = fsrc(w, i, 1, l), b = fsrc(w, i, 2, l), c = fsrc(w, i, 3, l);
    float r;
    // The scale is part of the one rounding: a quotient scaled back into the denormal range must
    // not be rounded twice (fma in double is exact enough for f32 operands).
    if ((vcc >> l) & 1) r = float(std::ldexp(std::fma(double(a), double(b), double(c)), fexp32(c) > 127 ? 64 : -64));
    else r = std::fma(a, b, c);
    write32(w, i.ops[0], l, f32_bits(fresult(w, i, r)));
  });
}
void v_div_fmas_f64(Wave& w, Op i) {
  uint64_t vcc = w.vcc();
  for_lanes(w, i, [&](int l) {
    double a = dsrc(w, i, 1, l), b = dsrc(w, i, 2, l), c = dsrc(w, i, 3, l);
    double r;
    if ((vcc >> l) & 1)
      r = double(std::ldexp(std::fma((long double)a, (long double)b, (long double)c), fexp64(c) > 1023 ? 128 : -128));
    else r = std::fma(a, b, c);
    write64(w, i.ops[0], l, f64_bits(dresult(i, r)));
  }, true);
}
template <typename T>
T div_fixup(T q, T den, T num, int exp_num, int exp_den, int max_exp, int underflow_gap) {
  bool sign = std::signbit(den) != std::signbit(num);
  const T inf = std::numeric_limits<T>::infinity();
  if (std::isnan(num)) return std::numeric_limits<T>::quiet_NaN();
  if (std::isnan(den)) return std::numeric_limits<T>::quiet_NaN();
  if (den == 0 && num == 0) return std::numeric_limits<T>::quiet_NaN();
  if (std::isinf(den) && std::isinf(num)) return std::numeric_limits<T>::quiet_NaN();
  if (den == 0 || std::isinf(num)) return sign ? -inf : inf;
  if (std::isinf(den) || num == 0) return sign ? T(-0.0) : T(0.0);
  if (exp_num - exp_den < -underflow_gap) return sign ? T(-0.0) : T(0.0);
  if (exp_den == max_exp) return sign ? -inf : inf;
  // A NaN quotient with ordinary operands comes from an overflow inside the Newton-Raphson
  // steps (inf - inf): the quotient overflows.
  if (std::isnan(q)) return sign ? -inf : inf;
  return sign ? -std::fabs(q) : std::fabs(q);
}
void v_div_fixup_f32(Wave& w, Op i) {
  for_lanes(w, i, [&](int l) {
    float q = fsrc(w, i, 1, l), den = fsrc(w, i, 2, l), num = fsrc(w, i, 3, l);
    write32(w, i.ops[0], l, f32_bits(fresult(w, i, div_fixup<float>(q, den, num, fexp32(num), fexp32(den), 255, 150))));
  });
}
void v_div_fixup_f64(Wave& w, Op i) {
  for_lanes(w, i, [&](int l) {
    double q = dsrc(w, i, 1, l), den = dsrc(w, i, 2, l), num = dsrc(w, i, 3, l);
    write64(w, i.ops[0], l, f64_bits(dresult(i, div_fixup<double>(q, den, num, fexp64(num), fexp64(den), 2047, 1075))));
  }, true);
}

float frexp_mant32(float a) {
  if (std::isnan(a) || std::isinf(a)) return a;
  int e;
  return std::frexp(a, &e);
}
int32_t frexp_exp32(float a) {
  if (std::isnan(a) || std::isinf(a)) return 0;
  int e;
  std::frexp(a, &e);
  return e;
}
double frexp_mant64(double a) {
  if (std::isnan(a) || std::isinf(a)) return a;
  int e;
  return std::frexp(a, &e);
}
int32_t frexp_exp64(double a) {
  if (std::isnan(a) || std::isinf(a)) return 0;
  int e;
  std::frexp(a, &e);
  return e;
}
float fract32(float a) {
  if (std::isinf(a)) return std::numeric_limits<float>::quiet_NaN();
  return std::fmin(a - std::floor(a), 0x1.fffffep-1f);
}
double fract64(double a) {
  if (std::isinf(a)) return std::numeric_limits<double>::quiet_NaN();
  return std::fmin(a - std::floor(a), 0x1.fffffffffffffp-1);
}
int ldexp_exponent(uint32_t b) {  // the exponent operand is a signed 32-bit integer
  int32_t e = int32_t(b);
  return std::clamp(e, -100000, 100000);
}

// Bit field extract with the offset and width from operands (V_BFE_*).
uint32_t vbfe_u32(uint32_t a, uint32_t off, uint32_t width) {
  off &= 31, width &= 31;
  if (width == 0) return 0;
  return off + width < 32 ? (a >> off) & ((1u << width) - 1) : a >> off;
}
int32_t vbfe_i32(uint32_t a, uint32_t off, uint32_t width) {
  off &= 31, width &= 31;
  if (width == 0) return 0;
  if (off + width < 32) {
    uint32_t v = (a << (32 - off - width));
    return int32_t(v) >> (32 - width);
  }
  return int32_t(a) >> off;
}

// Leading bits equal to the sign bit, the sign bit included (ISA: V_FFBH_I32(0x40000000) = 1,
// V_CLS_I32(0xfffffffe) = 31), as s_flbit_i32 / s_cls_i32 count them.
uint32_t ffbh_i32(uint32_t x) {
  int32_t v = int32_t(x);
  if (v == 0 || v == -1) return ~0u;
  return std::countl_zero(uint32_t(v < 0 ? ~v : v));
}

// f32 -> f16 with round-to-nearest-even; f16 -> f32.
uint32_t cvt_f16_f32(float a) { return f32_to_f16_bits(a); }

template <int Kind>  // 0 add, 1 mul, 2 fma
void packed_f32(Wave& w, const Inst& i) {
  int sources = Kind == 2 ? 3 : 2;
  uint32_t op_sel_hi = i.mod.has_op_sel_hi ? i.mod.op_sel_hi : 0x7;
  for_lanes(w, i, [&](int l) {
    float lo[3], hi[3];
    for (int k = 0; k < sources; ++k) {
      uint64_t v = read64(w, i.ops[1 + k], l, false);
      if (i.ops[1 + k].kind == Operand::imm && !i.ops[1 + k].float_text) v = uint32_t(v) | (v << 32);
      if (i.ops[1 + k].kind == Operand::imm && i.ops[1 + k].float_text) {
        uint32_t f = read32(w, i.ops[1 + k], l);
        v = uint64_t(f) << 32 | f;
      }
      lo[k] = bits_f32(uint32_t(v >> (32 * ((i.mod.op_sel >> k) & 1))));
      hi[k] = bits_f32(uint32_t(v >> (32 * ((op_sel_hi >> k) & 1))));
      if ((i.mod.neg_lo >> k) & 1) lo[k] = -lo[k];
      if ((i.mod.neg_hi >> k) & 1) hi[k] = -hi[k];
    }
    auto f = [&](const float* x) {
      return Kind == 0 ? x[0] + x[1] : Kind == 1 ? x[0] * x[1] : std::fma(x[0], x[1], x[2]);
    };
    write64(w, i.ops[0], l, uint64_t(f32_bits(fresult(w, i, f(hi)))) << 32 | f32_bits(fresult(w, i, f(lo))));
  }, true);
}

}  // namespace

void register_vector(HandlerTable& t) {
  // --- Moves and bit operations ------------------------------------------------------------
  VOP_U32_1("v_mov_b32", a);
  VOP_U32_1("v_mov_fed_b32", a);
  VOP_U32_1("v_not_b32", ~a);
  VOP_U32_1("v_bfrev_b32", [](uint32_t x) { uint32_t r = 0; for (int k = 0; k < 32; ++k) r |= ((x >> k) & 1u) << (31 - k); return r; }(a));
  VOP_U32_1("v_ffbh_u32", a ? uint32_t(std::countl_zero(a)) : ~0u);
  VOP_U32_1("v_clz_i32_u32", a ? uint32_t(std::countl_zero(a)) : ~0u);
  VOP_U32_1("v_ffbl_b32", a ? uint32_t(std::countr_zero(a)) : ~0u);
  VOP_U32_1("v_ctz_i32_b32", a ? uint32_t(std::countr_zero(a)) : ~0u);
  VOP_U32_1("v_ffbh_i32", ffbh_i32(a));
  VOP_U32_1("v_cls_i32", ffbh_i32(a));
  add_handler(t, "v_mov_b64", [](Wave& w, Op i) {
    for_lanes(w, i, [&](int l) { write64(w, i.ops[0], l, src64(w, i, 1, l, false, true)); }, true);
  });
  VOP_U32_2("v_and_b32", a & b);
  VOP_U32_2("v_or_b32", a | b);
  VOP_U32_2("v_xor_b32", a ^ b);
  VOP_U32_2("v_xnor_b32", ~(a ^ b));
  VOP_U32_2("v_lshlrev_b32", b << (a & 31));
  VOP_U32_2("v_lshrrev_b32", b >> (a & 31));
  VOP_U32_2("v_ashrrev_i32", uint32_t(int32_t(b) >> (a & 31)));
  VOP_U32_2("v_lshl_b32", a << (b & 31));
  VOP_U32_2("v_lshr_b32", a >> (b & 31));
  VOP_U32_2("v_ashr_i32", uint32_t(int32_t(a) >> (b & 31)));
  VOP_U32_2("v_bfm_b32", ((1u << (a & 31)) - 1) << (b & 31));
  VOP_U32_2("v_bcnt_u32_b32", uint32_t(std::popcount(a)) + b);
  VOP_U32_2("v_min_i32", uint32_t(std::min(int32_t(a), int32_t(b))));
  VOP_U32_2("v_max_i32", uint32_t(std::max(int32_t(a), int32_t(b))));
  VOP_U32_2("v_min_u32", std::min(a, b));
  VOP_U32_2("v_max_u32", std::max(a, b));
  VOP_U32_2("v_mul_lo_u32", a * b);
  VOP_U32_2("v_mul_lo_i32", a * b);
  VOP_U32_2("v_mul_hi_u32", uint32_t((uint64_t(a) * b) >> 32));
  VOP_U32_2("v_mul_hi_i32", uint32_t(uint64_t(int64_t(int32_t(a)) * int32_t(b)) >> 32));
  VOP_U32_2("v_mul_u32_u24", (a & 0xffffff) * (b & 0xffffff));
  VOP_U32_2("v_mul_hi_u32_u24", uint32_t((uint64_t(a & 0xffffff) * (b & 0xffffff)) >> 32));
  VOP_U32_2("v_mul_i32_i24", uint32_t((int32_t(a << 8) >> 8) * (int32_t(b << 8) >> 8)));
  VOP_U32_2("v_mul_hi_i32_i24", uint32_t(uint64_t(int64_t(int32_t(a << 8) >> 8) * int64_t(int32_t(b << 8) >> 8)) >> 32));
  VOP_U32_3("v_mad_u32_u24", (a & 0xffffff) * (b & 0xffffff) + c);
  VOP_U32_3("v_mad_i32_i24", uint32_t((int32_t(a << 8) >> 8) * (int32_t(b << 8) >> 8)) + c);
  VOP_U32_3("v_add3_u32", a + b + c);
  VOP_U32_3("v_lshl_add_u32", (a << (b & 31)) + c);
  VOP_U32_3("v_add_lshl_u32", (a + b) << (c & 31));
  VOP_U32_3("v_lshl_or_b32", (a << (b & 31)) | c);
  VOP_U32_3("v_and_or_b32", (a & b) | c);
  VOP_U32_3("v_or3_b32", a | b | c);
  VOP_U32_3("v_xor3_b32", a ^ b ^ c);
  VOP_U32_3("v_xad_u32", (a ^ b) + c);
  VOP_U32_3("v_bfe_u32", vbfe_u32(a, b, c));
  VOP_U32_3("v_bfe_i32", uint32_t(vbfe_i32(a, b, c)));
  VOP_U32_3("v_bfi_b32", (a & b) | (~a & c));
  VOP_U32_3("v_alignbit_b32", uint32_t(((uint64_t(a) << 32) | b) >> (c & 31)));
  VOP_U32_3("v_alignbyte_b32", uint32_t(((uint64_t(a) << 32) | b) >> (8 * (c & 3))));
  VOP_U32_3("v_min3_i32", uint32_t(std::min({int32_t(a), int32_t(b), int32_t(c)})));
  VOP_U32_3("v_max3_i32", uint32_t(std::max({int32_t(a), int32_t(b), int32_t(c)})));
  VOP_U32_3("v_min3_u32", std::min({a, b, c}));
  VOP_U32_3("v_max3_u32", std::max({a, b, c}));
  // gfx11: D = max(min(S0, S1), S2) and D = min(max(S0, S1), S2).
  VOP_U32_3("v_minmax_i32", uint32_t(std::max(std::min(int32_t(a), int32_t(b)), int32_t(c))));
  VOP_U32_3("v_maxmin_i32", uint32_t(std::min(std::max(int32_t(a), int32_t(b)), int32_t(c))));
  VOP_U32_3("v_minmax_u32", std::max(std::min(a, b), c));
  VOP_U32_3("v_maxmin_u32", std::min(std::max(a, b), c));
  VOP_U32_3("v_med3_i32", uint32_t(std::max(std::min(int32_t(a), int32_t(b)), std::min(std::max(int32_t(a), int32_t(b)), int32_t(c)))));
  VOP_U32_3("v_med3_u32", std::max(std::min(a, b), std::min(std::max(a, b), c)));
  VOP_U32_3("v_sad_u32", uint32_t(a > b ? a - b : b - a) + c);
  // Dot products of packed bytes and half-words, accumulated into a 32-bit value (no clamp).
  VOP_U32_3("v_dot4_u32_u8", [](uint32_t x, uint32_t y, uint32_t acc) {
    for (int k = 0; k < 4; ++k) acc += ((x >> 8 * k) & 0xff) * ((y >> 8 * k) & 0xff);
    return acc;
  }(a, b, c));
  VOP_U32_3("v_dot4_i32_i8", [](uint32_t x, uint32_t y, uint32_t acc) {
    for (int k = 0; k < 4; ++k) acc += uint32_t(int32_t(int8_t(x >> 8 * k)) * int32_t(int8_t(y >> 8 * k)));
    return acc;
  }(a, b, c));
  VOP_U32_3("v_dot2_u32_u16", [](uint32_t x, uint32_t y, uint32_t acc) {
    for (int k = 0; k < 2; ++k) acc += ((x >> 16 * k) & 0xffff) * ((y >> 16 * k) & 0xffff);
    return acc;
  }(a, b, c));
  VOP_U32_3("v_dot2_i32_i16", [](uint32_t x, uint32_t y, uint32_t acc) {
    for (int k = 0; k < 2; ++k) acc += uint32_t(int32_t(int16_t(x >> 16 * k)) * int32_t(int16_t(y >> 16 * k)));
    return acc;
  }(a, b, c));
  VOP_U32_3("v_perm_b32", [](uint32_t s0, uint32_t s1, uint32_t sel) {
    uint64_t v = (uint64_t(s0) << 32) | s1;
    uint32_t r = 0;
    for (int k = 0; k < 4; ++k) {
      uint32_t s = (sel >> (8 * k)) & 0xff, byte;
      if (s < 8) byte = (v >> (8 * s)) & 0xff;
      else if (s == 8) byte = ((s1 >> 15) & 1) * 0xff;
      else if (s == 9) byte = ((s1 >> 31) & 1) * 0xff;
      else if (s == 10) byte = ((s0 >> 15) & 1) * 0xff;
      else if (s == 11) byte = ((s0 >> 31) & 1) * 0xff;
      else if (s == 12) byte = 0;
      else byte = 0xff;
      r |= byte << (8 * k);
    }
    return r;
  }(a, b, c));
  add_handler(t, "v_add_u32", add_nc<false, false>);
  add_handler(t, "v_sub_u32", add_nc<true, false>);
  add_handler(t, "v_subrev_u32", add_nc<true, true>);
  add_handler(t, "v_add_co_u32", carry_op<0>);
  add_handler(t, "v_sub_co_u32", carry_op<1>);
  add_handler(t, "v_subrev_co_u32", carry_op<2>);
  add_handler(t, "v_addc_co_u32", carry_op<3>);
  add_handler(t, "v_subb_co_u32", carry_op<4>);
  add_handler(t, "v_subbrev_co_u32", carry_op<5>);
  add_handler(t, "v_cndmask_b32", v_cndmask);
  add_handler(t, "v_mad_u64_u32", v_mad_u64_u32);
  add_handler(t, "v_mad_i64_i32", v_mad_i64_i32);
  add_handler(t, "v_add_i32", [](Wave& w, Op i) {
    for_lanes(w, i, [&](int l) {
      int64_t r = int64_t(int32_t(src32(w, i, 1, l, true))) + int32_t(src32(w, i, 2, l));
      if (i.mod.clamp) r = std::clamp<int64_t>(r, INT32_MIN, INT32_MAX);
      write_dst32(w, i, l, uint32_t(r));
    });
  });
  add_handler(t, "v_sub_i32", [](Wave& w, Op i) {
    for_lanes(w, i, [&](int l) {
      int64_t r = int64_t(int32_t(src32(w, i, 1, l, true))) - int32_t(src32(w, i, 2, l));
      if (i.mod.clamp) r = std::clamp<int64_t>(r, INT32_MIN, INT32_MAX);
      write_dst32(w, i, l, uint32_t(r));
    });
  });

  // v_swap_b32 / v_swap_b16 (gfx9+, gfx11 true16 halves): both operands are read, then written.
  auto swap = [](Wave& w, Op i) {
    for_lanes(w, i, [&](int l) {
      const uint32_t a = read32(w, i.ops[0], l), b = read32(w, i.ops[1], l);
      write32(w, i.ops[0], l, b);
      write32(w, i.ops[1], l, a);
    });
  };
  add_handler(t, "v_swap_b32", swap);
  add_handler(t, "v_swap_b16", swap);

  // v_bitop3 (gfx950): any function of three bit vectors, given as the 8-entry truth table
  // bitop3:T; bit (a << 2 | b << 1 | c) of T is the result for input bits a, b, c.
  auto bitop3 = [](Wave& w, Op i) {
    const size_t at = i.text.find("bitop3:");
    const uint32_t table = at == std::string::npos ? 0 : uint32_t(std::strtoul(i.text.c_str() + at + 7, nullptr, 0));
    const bool b16 = i.name == "v_bitop3_b16";
    for_lanes(w, i, [&](int l) {
      const uint32_t a = src32(w, i, 1, l, true), b = src32(w, i, 2, l), c = src32(w, i, 3, l);
      uint32_t r = 0;
      for (uint32_t k = 0; k < 8; ++k)
        if ((table >> k) & 1) r |= ((k & 4) ? a : ~a) & ((k & 2) ? b : ~b) & ((k & 1) ? c : ~c);
      write_dst32(w, i, l, b16 ? r & 0xffff : r);
    });
  };
  add_handler(t, "v_bitop3_b32", bitop3);
  add_handler(t, "v_bitop3_b16", bitop3);

  // 16-bit integer (true16 halves on gfx11; low halves elsewhere)
  VOP_U32_1("v_mov_b16", a & 0xffff);
  VOP_U32_1("v_not_b16", ~a & 0xffff);
  VOP_U32_2("v_and_b16", (a & b) & 0xffff);
  VOP_U32_2("v_or_b16", (a | b) & 0xffff);
  VOP_U32_2("v_xor_b16", (a ^ b) & 0xffff);
  VOP_U32_2("v_add_u16", u16_result(int64_t(a & 0xffff) + (b & 0xffff), i.mod.clamp));
  VOP_U32_2("v_sub_u16", u16_result(int64_t(a & 0xffff) - (b & 0xffff), i.mod.clamp));
  VOP_U32_2("v_subrev_u16", u16_result(int64_t(b & 0xffff) - (a & 0xffff), i.mod.clamp));
  VOP_U32_2("v_add_i16", i16_result(int64_t(int16_t(a)) + int16_t(b), i.mod.clamp));
  VOP_U32_2("v_sub_i16", i16_result(int64_t(int16_t(a)) - int16_t(b), i.mod.clamp));
  VOP_U32_2("v_mul_lo_u16", (a * b) & 0xffff);
  VOP_U32_2("v_lshlrev_b16", (b << (a & 15)) & 0xffff);
  VOP_U32_2("v_lshrrev_b16", ((b & 0xffff) >> (a & 15)) & 0xffff);
  VOP_U32_2("v_ashrrev_i16", uint32_t(int16_t(b) >> (a & 15)) & 0xffff);
  VOP_U32_2("v_max_u16", std::max(a & 0xffff, b & 0xffff));
  VOP_U32_2("v_min_u16", std::min(a & 0xffff, b & 0xffff));
  VOP_U32_2("v_max_i16", uint32_t(std::max(int16_t(a), int16_t(b))) & 0xffff);
  VOP_U32_2("v_min_i16", uint32_t(std::min(int16_t(a), int16_t(b))) & 0xffff);
  VOP_U32_3("v_mad_u16", u16_result(int64_t(a & 0xffff) * (b & 0xffff) + (c & 0xffff), i.mod.clamp));
  VOP_U32_3("v_min3_i16", uint32_t(std::min({int16_t(a), int16_t(b), int16_t(c)})) & 0xffff);
  VOP_U32_3("v_max3_i16", uint32_t(std::max({int16_t(a), int16_t(b), int16_t(c)})) & 0xffff);
  VOP_U32_3("v_min3_u16", std::min({a & 0xffff, b & 0xffff, c & 0xffff}));
  VOP_U32_3("v_max3_u16", std::max({a & 0xffff, b & 0xffff, c & 0xffff}));
  VOP_U32_3("v_med3_i16", uint32_t(std::max(std::min(int16_t(a), int16_t(b)),
                                            std::min(std::max(int16_t(a), int16_t(b)), int16_t(c)))) & 0xffff);
  VOP_U32_3("v_med3_u16", std::max(std::min(a & 0xffff, b & 0xffff), std::min(std::max(a & 0xffff, b & 0xffff), c & 0xffff)));
  // gfx9's gfx8-compatible forms (no op_sel; the high half is zeroed as in v_mad_u16 here). The
  // low 16 bits of a product and sum do not depend on signedness.
  VOP_U32_3("v_mad_legacy_u16", (a * b + c) & 0xffff);
  VOP_U32_3("v_mad_legacy_i16", (a * b + c) & 0xffff);
  add_handler(t, "v_cndmask_b16", v_cndmask);

  // 64-bit integer
  add_handler(t, "v_lshlrev_b64", [](Wave& w, Op i) {
    for_lanes(w, i, [&](int l) { write64(w, i.ops[0], l, read64(w, i.ops[2], l, false) << (read32(w, i.ops[1], l) & 63)); }, true);
  });
  add_handler(t, "v_lshrrev_b64", [](Wave& w, Op i) {
    for_lanes(w, i, [&](int l) { write64(w, i.ops[0], l, read64(w, i.ops[2], l, false) >> (read32(w, i.ops[1], l) & 63)); }, true);
  });
  add_handler(t, "v_ashrrev_i64", [](Wave& w, Op i) {
    for_lanes(w, i, [&](int l) { write64(w, i.ops[0], l, uint64_t(int64_t(read64(w, i.ops[2], l, false)) >> (read32(w, i.ops[1], l) & 63))); }, true);
  });
  add_handler(t, "v_lshl_add_u64", [](Wave& w, Op i) {
    for_lanes(w, i, [&](int l) {
      write64(w, i.ops[0], l, (read64(w, i.ops[1], l, false) << (read32(w, i.ops[2], l) & 7)) + read64(w, i.ops[3], l, false));
    }, true);
  });

  // --- f32 -----------------------------------------------------------------------------------
  VOP_F32_2("v_add_f32", a + b);
  VOP_F32_2("v_sub_f32", a - b);
  VOP_F32_2("v_subrev_f32", b - a);
  VOP_F32_2("v_mul_f32", a * b);
  VOP_F32_2("v_mul_legacy_f32", (a == 0 || b == 0) ? 0.0f : a * b);
  VOP_F32_2("v_min_f32", fmin_amd(a, b));
  VOP_F32_2("v_max_f32", fmax_amd(a, b));
  VOP_F32_2("v_min_num_f32", fmin_amd(a, b));
  VOP_F32_2("v_max_num_f32", fmax_amd(a, b));
  VOP_F32_2("v_ldexp_f32", std::ldexp(a, ldexp_exponent(f32_bits(b))));
  VOP_F32_3("v_fma_f32", std::fma(a, b, c));
  VOP_F32_3("v_fmamk_f32", std::fma(a, b, c));
  VOP_F32_3("v_fmaak_f32", std::fma(a, b, c));
  VOP_F32_3("v_mad_f32", a * b + c);
  VOP_F32_3("v_madmk_f32", a * b + c);
  VOP_F32_3("v_madak_f32", a * b + c);
  VOP_F32_3("v_fma_legacy_f32", (a == 0 || b == 0) ? c : std::fma(a, b, c));
  VOP_F32_3("v_min3_f32", fmin_amd(fmin_amd(a, b), c));
  VOP_F32_3("v_max3_f32", fmax_amd(fmax_amd(a, b), c));
  VOP_F32_3("v_med3_f32", fmed3(a, b, c));
  VOP_F32_3("v_minmax_f32", fmax_amd(fmin_amd(a, b), c));
  VOP_F32_3("v_maxmin_f32", fmin_amd(fmax_amd(a, b), c));
  // Accumulating forms: D = fma(S0, S1, D).
  add_handler(t, "v_fmac_f32", [](Wave& w, Op i) {
    for_lanes(w, i, [&](int l) {
      float a = flush_in32(w, fsrc(w, i, 1, l, true)), b = flush_in32(w, fsrc(w, i, 2, l));
      float c = flush_in32(w, bits_f32(read32(w, i.ops[0], l)));
      write_dst32(w, i, l, f32_bits(fresult(w, i, std::fma(a, b, c))));
    });
  });
  add_handler(t, "v_mac_f32", [](Wave& w, Op i) {
    for_lanes(w, i, [&](int l) {
      float a = flush_in32(w, fsrc(w, i, 1, l, true)), b = flush_in32(w, fsrc(w, i, 2, l));
      float c = flush_in32(w, bits_f32(read32(w, i.ops[0], l)));
      write_dst32(w, i, l, f32_bits(fresult(w, i, a * b + c)));
    });
  });
  add_handler(t, "v_fmac_legacy_f32", [](Wave& w, Op i) {
    for_lanes(w, i, [&](int l) {
      float a = fsrc(w, i, 1, l, true), b = fsrc(w, i, 2, l), c = bits_f32(read32(w, i.ops[0], l));
      write_dst32(w, i, l, f32_bits(fresult(w, i, (a == 0 || b == 0) ? c : std::fma(a, b, c))));
    });
  });
  VOP_F32_1("v_rcp_f32", float(1.0 / double(a)));
  VOP_F32_1("v_rcp_iflag_f32", float(1.0 / double(a)));
  VOP_F32_1("v_rsq_f32", float(1.0 / std::sqrt(double(a))));
  VOP_F32_1("v_sqrt_f32", std::sqrt(a));
  VOP_F32_1("v_exp_f32", std::exp2(a));
  VOP_F32_1("v_log_f32", std::log2(a));
  VOP_F32_1("v_sin_f32", sin_rev(a));
  VOP_F32_1("v_cos_f32", cos_rev(a));
  VOP_F32_1("v_trunc_f32", std::trunc(a));
  VOP_F32_1("v_ceil_f32", std::ceil(a));
  VOP_F32_1("v_floor_f32", std::floor(a));
  VOP_F32_1("v_rndne_f32", __builtin_roundevenf(a));  // nearest even whatever the MODE rounding
  VOP_F32_1("v_fract_f32", fract32(a));
  VOP_F32_1("v_frexp_mant_f32", frexp_mant32(a));
  add_handler(t, "v_frexp_exp_i32_f32", [](Wave& w, Op i) {
    for_lanes(w, i, [&](int l) { write_dst32(w, i, l, uint32_t(frexp_exp32(fsrc(w, i, 1, l, true)))); });
  });
  add_handler(t, "v_cmp_class_f32", [](Wave& w, Op i) {
    uint64_t r = 0;
    for_lanes(w, i, [&](int l) {
      uint32_t bits = src32(w, i, 1, l, true);
      float a = fsrc(w, i, 1, l, true);
      bool signaling = std::isnan(a) && !((bits >> 22) & 1);
      if (class_test(a, signaling, src32(w, i, 2, l))) r |= 1ull << l;
    });
    write64(w, i.ops[0], 0, r);
  });
  add_handler(t, "v_cmpx_class_f32", [](Wave& w, Op i) {
    uint64_t r = 0;
    size_t s = i.ops.size() == 3 ? 1 : 0;
    for_lanes(w, i, [&](int l) {
      uint32_t bits = read32(w, i.ops[s], l);
      float a = bits_f32(bits);
      bool signaling = std::isnan(a) && !((bits >> 22) & 1);
      if (class_test(a, signaling, read32(w, i.ops[s + 1], l))) r |= 1ull << l;
    });
    if (s) write64(w, i.ops[0], 0, r);
    w.set_exec(r);
  });
  add_handler(t, "v_div_scale_f32", v_div_scale_f32);
  add_handler(t, "v_div_fmas_f32", v_div_fmas_f32);
  add_handler(t, "v_div_fixup_f32", v_div_fixup_f32);

  // --- Conversions ----------------------------------------------------------------------------
  add_handler(t, "v_cvt_f32_i32", [](Wave& w, Op i) {
    for_lanes(w, i, [&](int l) { write_dst32(w, i, l, f32_bits(fresult(w, i, float(int32_t(src32(w, i, 1, l, true)))))); });
  });
  add_handler(t, "v_cvt_f32_u32", [](Wave& w, Op i) {
    for_lanes(w, i, [&](int l) { write_dst32(w, i, l, f32_bits(fresult(w, i, float(src32(w, i, 1, l, true))))); });
  });
  VOP_U32_1("v_cvt_f32_ubyte0", f32_bits(float(a & 0xff)));
  VOP_U32_1("v_cvt_f32_ubyte1", f32_bits(float((a >> 8) & 0xff)));
  VOP_U32_1("v_cvt_f32_ubyte2", f32_bits(float((a >> 16) & 0xff)));
  VOP_U32_1("v_cvt_f32_ubyte3", f32_bits(float(a >> 24)));
  add_handler(t, "v_cvt_i32_f32", [](Wave& w, Op i) {
    for_lanes(w, i, [&](int l) { write_dst32(w, i, l, uint32_t(f_to_i32(fsrc(w, i, 1, l, true)))); });
  });
  add_handler(t, "v_cvt_u32_f32", [](Wave& w, Op i) {
    for_lanes(w, i, [&](int l) { write_dst32(w, i, l, f_to_u32(fsrc(w, i, 1, l, true))); });
  });
  add_handler(t, "v_cvt_rpi_i32_f32", [](Wave& w, Op i) {
    for_lanes(w, i, [&](int l) { write_dst32(w, i, l, uint32_t(f_to_i32(std::floor(double(fsrc(w, i, 1, l, true)) + 0.5)))); });
  });
  add_handler(t, "v_cvt_flr_i32_f32", [](Wave& w, Op i) {
    for_lanes(w, i, [&](int l) { write_dst32(w, i, l, uint32_t(f_to_i32(std::floor(fsrc(w, i, 1, l, true))))); });
  });
  add_handler(t, "v_cvt_f64_i32", [](Wave& w, Op i) {
    for_lanes(w, i, [&](int l) { write64(w, i.ops[0], l, f64_bits(double(int32_t(src32(w, i, 1, l, true))))); }, true);
  });
  add_handler(t, "v_cvt_f64_u32", [](Wave& w, Op i) {
    for_lanes(w, i, [&](int l) { write64(w, i.ops[0], l, f64_bits(double(src32(w, i, 1, l, true)))); }, true);
  });
  add_handler(t, "v_cvt_i32_f64", [](Wave& w, Op i) {
    for_lanes(w, i, [&](int l) { write32(w, i.ops[0], l, uint32_t(f_to_i32(dsrc(w, i, 1, l, true)))); }, true);
  });
  add_handler(t, "v_cvt_u32_f64", [](Wave& w, Op i) {
    for_lanes(w, i, [&](int l) { write32(w, i.ops[0], l, f_to_u32(dsrc(w, i, 1, l, true))); }, true);
  });
  add_handler(t, "v_cvt_f32_f64", [](Wave& w, Op i) {
    for_lanes(w, i, [&](int l) { write32(w, i.ops[0], l, f32_bits(fresult(w, i, float(dsrc(w, i, 1, l, true))))); }, true);
  });
  add_handler(t, "v_cvt_f64_f32", [](Wave& w, Op i) {
    for_lanes(w, i, [&](int l) { write64(w, i.ops[0], l, f64_bits(dresult(i, double(fsrc(w, i, 1, l, true))))); });
  });
  add_handler(t, "v_cvt_f16_f32", [](Wave& w, Op i) {
    for_lanes(w, i, [&](int l) { write_dst32(w, i, l, cvt_f16_f32(fsrc(w, i, 1, l, true))); });
  });
  add_handler(t, "v_cvt_f32_f16", [](Wave& w, Op i) {
    for_lanes(w, i, [&](int l) {
      uint32_t h = src32(w, i, 1, l, true) & 0xffff;
      if (i.ops[1].abs) h &= 0x7fff;
      if (i.ops[1].neg) h ^= 0x8000;
      write_dst32(w, i, l, f32_bits(fresult(w, i, f16_bits_to_f32(uint16_t(h)))));
    });
  });
  add_handler(t, "v_cvt_pkrtz_f16_f32", [](Wave& w, Op i) {
    for_lanes(w, i, [&](int l) {
      int old = std::fegetround();
      std::fesetround(FE_TOWARDZERO);
      uint32_t lo = cvt_f16_f32(fsrc(w, i, 1, l, true)), hi = cvt_f16_f32(fsrc(w, i, 2, l));
      std::fesetround(old);
      write_dst32(w, i, l, lo | (hi << 16));
    });
  });

  // --- f64 -----------------------------------------------------------------------------------
  VOP_F64_2("v_add_f64", a + b);
  VOP_F64_2("v_mul_f64", a * b);
  VOP_F64_2("v_min_f64", dmin_amd(a, b));
  VOP_F64_2("v_max_f64", dmax_amd(a, b));
  VOP_F64_3("v_fma_f64", std::fma(a, b, c));
  add_handler(t, "v_fmac_f64", [](Wave& w, Op i) {
    for_lanes(w, i, [&](int l) {
      double a = dsrc(w, i, 1, l, true), b = dsrc(w, i, 2, l), c = bits_f64(read64(w, i.ops[0], l, true));
      write64(w, i.ops[0], l, f64_bits(dresult(i, std::fma(a, b, c))));
    }, true);
  });
  add_handler(t, "v_ldexp_f64", [](Wave& w, Op i) {
    for_lanes(w, i, [&](int l) {
      write64(w, i.ops[0], l, f64_bits(dresult(i, std::ldexp(dsrc(w, i, 1, l, true), ldexp_exponent(read32(w, i.ops[2], l))))));
    }, true);
  });
  VOP_F64_1("v_rcp_f64", 1.0 / a);
  VOP_F64_1("v_rsq_f64", 1.0 / std::sqrt(a));
  VOP_F64_1("v_sqrt_f64", std::sqrt(a));
  VOP_F64_1("v_trunc_f64", std::trunc(a));
  VOP_F64_1("v_ceil_f64", std::ceil(a));
  VOP_F64_1("v_floor_f64", std::floor(a));
  VOP_F64_1("v_rndne_f64", __builtin_roundeven(a));
  VOP_F64_1("v_fract_f64", fract64(a));
  VOP_F64_1("v_frexp_mant_f64", frexp_mant64(a));
  add_handler(t, "v_frexp_exp_i32_f64", [](Wave& w, Op i) {
    for_lanes(w, i, [&](int l) { write32(w, i.ops[0], l, uint32_t(frexp_exp64(dsrc(w, i, 1, l, true)))); }, true);
  });
  add_handler(t, "v_cmp_class_f64", [](Wave& w, Op i) {
    uint64_t r = 0;
    for_lanes(w, i, [&](int l) {
      uint64_t bits = read64(w, i.ops[1], l, true);
      double a = bits_f64(bits);
      bool signaling = std::isnan(a) && !((bits >> 51) & 1);
      if (class_test(a, signaling, read32(w, i.ops[2], l))) r |= 1ull << l;
    });
    write64(w, i.ops[0], 0, r);
  });
  add_handler(t, "v_div_scale_f64", v_div_scale_f64);
  add_handler(t, "v_div_fmas_f64", v_div_fmas_f64);
  add_handler(t, "v_div_fixup_f64", v_div_fixup_f64);
  add_handler(t, "v_trig_preop_f64", [](Wave& w, Op i) {
    // 2/pi as a 1201-bit fraction, segment selected by S1[4:0]: computed from a long double
    // approximation would not be exact; the bits come from the ISA manual's table.
    static const uint64_t two_over_pi[] = {
        0xa2f9836e4e441529ull, 0xfc2757d1f534ddc0ull, 0xdb6295993c439041ull, 0xfe5163abdebbc561ull,
        0xb7246e3a424dd2e0ull, 0x06492eea09d1921cull, 0xfe1deb1cb129a73eull, 0xe88235f52ebb4484ull,
        0xe99c7026b45f7e41ull, 0x3991d639835339f4ull, 0x9c845f8bbdf9283bull, 0x1ff897ffde05980full,
        0xef2f118b5a0a6d1full, 0x6d367ecf27cb09b7ull, 0x4f463f669e5fea2dull, 0x7527bac7ebe5f17bull,
        0x3d0739f78a5292eaull, 0x6bfb5fb11f8d5d08ull, 0x56033046fc7b6babull, 0xf0cfbc209af4361dull};
    for_lanes(w, i, [&](int l) {
      double a = dsrc(w, i, 1, l, true);
      uint32_t seg = read32(w, i.ops[2], l) & 31;
      // ISA: the segment starts (exponent - 1077) bits further for exponents above 1077.
      uint32_t shift = seg * 53 + (fexp64(a) > 1077 ? uint32_t(fexp64(a) - 1077) : 0u);
      // Extract 53 bits starting at bit `shift` of the fraction.
      uint64_t bits = 0;
      for (int k = 0; k < 53; ++k) {
        uint32_t pos = shift + uint32_t(k);
        uint32_t word = pos / 64, bit = 63 - pos % 64;
        uint64_t b = word < 20 ? (two_over_pi[word] >> bit) & 1 : 0;
        bits = (bits << 1) | b;
      }
      // ISA: the scale is 2^(-53 - shift), times 2^128 for exponents of 1968 and up (ocml scales
      // such arguments by 2^-128 first, so the product of the two stays in range).
      int scale = -int(shift) - 53 + (fexp64(a) >= 1968 ? 128 : 0);
      double r = std::ldexp(double(bits), scale);
      write64(w, i.ops[0], l, f64_bits(r));
    }, true);
  });
  add_handler(t, "v_cvt_f64_f16", [](Wave& w, Op i) {
    for_lanes(w, i, [&](int l) { write64(w, i.ops[0], l, f64_bits(f16_bits_to_f32(uint16_t(src32(w, i, 1, l, true))))); });
  });

  // VOP3P packed 32-bit (gfx90a/gfx942): each half picks a dword of each source by op_sel (low
  // half) and op_sel_hi (high half); neg_lo/neg_hi negate per half.
  add_handler(t, "v_pk_mov_b32", [](Wave& w, Op i) {
    for_lanes(w, i, [&](int l) {
      uint64_t a = read64(w, i.ops[1], l, false), b = read64(w, i.ops[2], l, false);
      uint32_t lo = uint32_t(a >> (32 * (i.mod.op_sel & 1))), hi = uint32_t(b >> (32 * ((i.mod.op_sel >> 1) & 1)));
      write64(w, i.ops[0], l, uint64_t(hi) << 32 | lo);
    }, true);
  });
  add_handler(t, "v_pk_add_f32", packed_f32<0>);
  add_handler(t, "v_pk_mul_f32", packed_f32<1>);
  add_handler(t, "v_pk_fma_f32", packed_f32<2>);

  register_vector_compare(t);
  register_vector_lanes(t);
  register_vector_f16(t);
  register_vector_matrix(t);
}

}  // namespace amdsim
