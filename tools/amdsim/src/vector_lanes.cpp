// Vector compares (V_CMP/V_CMPX for every type) and cross-lane instructions (readlane,
// writelane, readfirstlane, mbcnt).
#include <fmt/format.h>

#include <bit>
#include <cmath>

#include "valu.h"

namespace amdsim {
namespace {

using Op = const Inst&;

enum Cond { F, LT, EQ, LE, GT, LG, GE, O, U, NGE, NLG, NGT, NLE, NEQ, NLT, T, NE };

template <typename V>
bool compare(Cond c, V a, V b) {
  bool unordered = false;
  if constexpr (std::is_floating_point_v<V>) unordered = std::isnan(a) || std::isnan(b);
  switch (c) {
    case F: return false;
    case LT: return a < b;
    case EQ: return a == b;
    case LE: return a <= b;
    case GT: return a > b;
    case LG: return a < b || a > b;
    case GE: return a >= b;
    case O: return !unordered;
    case U: return unordered;
    case NGE: return !(a >= b);
    case NLG: return !(a < b || a > b);
    case NGT: return !(a > b);
    case NLE: return !(a <= b);
    case NEQ: return !(a == b);
    case NLT: return !(a < b);
    case T: return true;
    case NE: return a != b;
  }
  return false;
}

enum Type { f32, f64, i32, u32, i64, u64, f16, i16, u16 };

template <Type Ty>
bool lane_compare(const Wave& w, const Inst& i, Cond c, int a_op, int l) {
  if constexpr (Ty == f32) {
    return compare(c, fsrc(w, i, a_op, l, a_op == 1 || a_op == 0), fsrc(w, i, a_op + 1, l));
  } else if constexpr (Ty == f64) {
    return compare(c, dsrc(w, i, a_op, l), dsrc(w, i, a_op + 1, l));
  } else if constexpr (Ty == i32) {
    return compare(c, int32_t(src32(w, i, a_op, l, true)), int32_t(src32(w, i, a_op + 1, l)));
  } else if constexpr (Ty == u32) {
    return compare(c, src32(w, i, a_op, l, true), src32(w, i, a_op + 1, l));
  } else if constexpr (Ty == i64) {
    return compare(c, int64_t(read64(w, i.ops[a_op], l, false)), int64_t(read64(w, i.ops[a_op + 1], l, false)));
  } else if constexpr (Ty == u64) {
    return compare(c, read64(w, i.ops[a_op], l, false), read64(w, i.ops[a_op + 1], l, false));
  } else if constexpr (Ty == f16) {
    auto h = [&](int k) {
      uint32_t b = read32(w, i.ops[k], l, true) & 0xffff;
      if (i.ops[k].abs) b &= 0x7fff;
      if (i.ops[k].neg) b ^= 0x8000;
      return f16_bits_to_f32(uint16_t(b));
    };
    return compare(c, h(a_op), h(a_op + 1));
  } else if constexpr (Ty == i16) {
    // src32 applies SDWA selects: v_cmp_lt_i16_sdwa vcc, sext(v3), v5 src0_sel:BYTE_0 compares
    // the sign-extended low byte, not the low half-word.
    return compare(c, int16_t(src32(w, i, a_op, l, true)), int16_t(src32(w, i, a_op + 1, l)));
  } else {
    return compare(c, uint16_t(src32(w, i, a_op, l, true)), uint16_t(src32(w, i, a_op + 1, l)));
  }
}

// V_CMP: dst mask, src0, src1. Inactive lanes' bits are cleared.
template <Cond C, Type Ty>
void v_cmp(Wave& w, Op i) {
  uint64_t r = 0;
  for_lanes(w, i, [&](int l) {
    if (lane_compare<Ty>(w, i, C, 1, l)) r |= 1ull << l;
  });
  write64(w, i.ops[0], 0, r);
}

// V_CMPX: writes EXEC (and on gfx9 also the destination mask). gfx10+ prints no destination.
template <Cond C, Type Ty>
void v_cmpx(Wave& w, Op i) {
  uint64_t r = 0;
  int a = i.ops.size() >= 3 ? 1 : 0;
  for_lanes(w, i, [&](int l) {
    if (lane_compare<Ty>(w, i, C, a, l)) r |= 1ull << l;
  });
  if (a == 1) write64(w, i.ops[0], 0, r);
  w.set_exec(r);
}

template <Type Ty>
void add_compares(HandlerTable& t, const char* type) {
  auto both = [&](const char* cond, Handler cmp, Handler cmpx) {
    add_handler(t, std::string("v_cmp_") + cond + "_" + type, cmp);
    add_handler(t, std::string("v_cmpx_") + cond + "_" + type, cmpx);
  };
#define COND(NAME, C) both(NAME, v_cmp<C, Ty>, v_cmpx<C, Ty>)
  COND("f", F); COND("lt", LT); COND("eq", EQ); COND("le", LE); COND("gt", GT); COND("ge", GE); COND("t", T);
  COND("tru", T);
  if constexpr (Ty == f32 || Ty == f64 || Ty == f16) {
    COND("lg", LG); COND("o", O); COND("u", U); COND("nge", NGE); COND("nlg", NLG); COND("ngt", NGT);
    COND("nle", NLE); COND("neq", NEQ); COND("nlt", NLT);
  } else {
    COND("ne", NE); COND("lg", NE);
  }
#undef COND
}

// V_CMP_CLASS_F16 / V_CMPX_CLASS_F16: the f16 source's class (taken from its bits, so f16
// subnormals count as subnormal) tested against the mask: bit 0 signalling NaN, 1 quiet NaN,
// 2 -inf, 3 -normal, 4 -subnormal, 5 -0, 6 +0, 7 +subnormal, 8 +normal, 9 +inf.
bool class_f16(const Wave& w, const Inst& i, int src, int l) {
  uint32_t h = read32(w, i.ops[src], l, true) & 0xffff;
  if (i.ops[src].abs) h &= 0x7fff;
  if (i.ops[src].neg) h ^= 0x8000;
  const bool negative = (h >> 15) != 0;
  const uint32_t exponent = (h >> 10) & 0x1f, fraction = h & 0x3ff;
  int bit;
  if (exponent == 31) bit = fraction ? ((fraction >> 9) & 1 ? 1 : 0) : (negative ? 2 : 9);
  else if (exponent == 0) bit = fraction ? (negative ? 4 : 7) : (negative ? 5 : 6);
  else bit = negative ? 3 : 8;
  return (read32(w, i.ops[src + 1], l) >> bit) & 1;
}

void v_cmp_class_f16(Wave& w, Op i) {
  uint64_t r = 0;
  for_lanes(w, i, [&](int l) {
    if (class_f16(w, i, 1, l)) r |= 1ull << l;
  });
  write64(w, i.ops[0], 0, r);
}

void v_cmpx_class_f16(Wave& w, Op i) {
  uint64_t r = 0;
  const int s = i.ops.size() >= 3 ? 1 : 0;
  for_lanes(w, i, [&](int l) {
    if (class_f16(w, i, s, l)) r |= 1ull << l;
  });
  if (s == 1) write64(w, i.ops[0], 0, r);
  w.set_exec(r);
}

void movrel(Wave& w, const Inst& i, bool relative_dst, bool relative_src) {
  uint32_t index = w.s[m0];
  Operand dst = i.ops[0], src = i.ops[1];
  uint32_t registers = uint32_t(w.v.size() / 64);
  if (relative_dst) dst.index = static_cast<uint16_t>(dst.index + index);
  if (relative_src && src.kind == Operand::vgpr) src.index = static_cast<uint16_t>(src.index + index);
  if (index >= registers || dst.index >= registers || (src.kind == Operand::vgpr && src.index >= registers))
    w.fail(i, fmt::format("M0 = {} moves a VGPR index past the register file", index));
  for_lanes(w, i, [&](int l) { write32(w, dst, l, read32(w, src, l)); });
}

}  // namespace

void register_vector_compare(HandlerTable& t) {
  add_compares<f32>(t, "f32");
  add_compares<f64>(t, "f64");
  add_compares<f16>(t, "f16");
  add_handler(t, "v_cmp_class_f16", v_cmp_class_f16);
  add_handler(t, "v_cmpx_class_f16", v_cmpx_class_f16);
  add_compares<i32>(t, "i32");
  add_compares<u32>(t, "u32");
  add_compares<i64>(t, "i64");
  add_compares<u64>(t, "u64");
  add_compares<i16>(t, "i16");
  add_compares<u16>(t, "u16");
}

void register_vector_lanes(HandlerTable& t) {
  // Cross-lane reads ignore EXEC.
  add_handler(t, "v_readlane_b32", [](Wave& w, Op i) {
    uint32_t lane = sread32(w, i.ops[2]) & uint32_t(w.wave_size - 1);
    swrite32(w, i.ops[0], read32(w, i.ops[1], int(lane)));
    ++w.lane_instructions;
  });
  add_handler(t, "v_readfirstlane_b32", [](Wave& w, Op i) {
    uint64_t e = w.exec();
    int lane = e ? std::countr_zero(e) : 0;
    swrite32(w, i.ops[0], read32(w, i.ops[1], lane));
    ++w.lane_instructions;
  });
  add_handler(t, "v_writelane_b32", [](Wave& w, Op i) {
    uint32_t lane = sread32(w, i.ops[2]) & uint32_t(w.wave_size - 1);
    write32(w, i.ops[0], int(lane), sread32(w, i.ops[1]));
    ++w.lane_instructions;
  });
  add_handler(t, "v_mbcnt_lo_u32_b32", [](Wave& w, Op i) {
    for_lanes(w, i, [&](int l) {
      uint32_t mask = read32(w, i.ops[1], l);
      uint32_t below = l >= 32 ? ~0u : uint32_t((1ull << l) - 1);
      write32(w, i.ops[0], l, uint32_t(std::popcount(mask & below)) + read32(w, i.ops[2], l));
    });
  });
  add_handler(t, "v_mbcnt_hi_u32_b32", [](Wave& w, Op i) {
    for_lanes(w, i, [&](int l) {
      uint32_t mask = read32(w, i.ops[1], l);
      uint32_t below = l <= 32 ? 0u : uint32_t(((1ull << l) - 1) >> 32);
      write32(w, i.ops[0], l, uint32_t(std::popcount(mask & below)) + read32(w, i.ops[2], l));
    });
  });
  // Accumulation registers (gfx90a/gfx942): moves only.
  add_handler(t, "v_accvgpr_write_b32", [](Wave& w, Op i) {
    for_lanes(w, i, [&](int l) { write32(w, i.ops[0], l, read32(w, i.ops[1], l)); });
  });
  add_handler(t, "v_accvgpr_read_b32", [](Wave& w, Op i) {
    for_lanes(w, i, [&](int l) { write32(w, i.ops[0], l, read32(w, i.ops[1], l)); });
  });
  add_handler(t, "v_accvgpr_mov_b32", [](Wave& w, Op i) {
    for_lanes(w, i, [&](int l) { write32(w, i.ops[0], l, read32(w, i.ops[1], l)); });
  });
  add_handler(t, "v_nop", [](Wave& w, Op) { ++w.lane_instructions; });
  // M0-relative VGPR moves: movrels reads VGPR[src + M0], movreld writes VGPR[dst + M0].
  add_handler(t, "v_movrels_b32", [](Wave& w, Op i) { movrel(w, i, false, true); });
  add_handler(t, "v_movreld_b32", [](Wave& w, Op i) { movrel(w, i, true, false); });
  add_handler(t, "v_movrelsd_b32", [](Wave& w, Op i) { movrel(w, i, true, true); });
}

}  // namespace amdsim
