// Scalar instructions: SALU (SOP1/SOP2/SOPC/SOPK), program control (SOPP) and scalar memory.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cfloat>

#include "inst.h"
#include "race.h"

namespace amdsim {
namespace {

using Op = const Inst&;

// Every scalar instruction counts one lane-instruction.
inline void count(Wave& w) { ++w.lane_instructions; }

uint32_t s0(Wave& w, Op i) { return sread32(w, i.ops[1]); }
uint32_t s1(Wave& w, Op i) { return sread32(w, i.ops[2]); }
uint64_t s0_64(Wave& w, Op i) { return sread64(w, i.ops[1]); }
uint64_t s1_64(Wave& w, Op i) { return sread64(w, i.ops[2]); }

// --- SOP2 / SOP1 families generated from small lambdas --------------------------------------

template <typename F>
void sop2_32(Wave& w, Op i, F f) {  // f(a, b, scc&) -> result
  uint32_t a = s0(w, i), b = s1(w, i);
  bool scc = w.scc_bit;
  uint32_t r = f(a, b, scc);
  swrite32(w, i.ops[0], r);
  w.scc_bit = scc;
  count(w);
}
template <typename F>
void sop2_64(Wave& w, Op i, F f) {
  uint64_t a = s0_64(w, i), b = s1_64(w, i);
  bool scc = w.scc_bit;
  uint64_t r = f(a, b, scc);
  swrite64(w, i.ops[0], r);
  w.scc_bit = scc;
  count(w);
}

#define SOP2_32(NAME, ...)                                                             \
  add_handler(t, NAME, [](Wave& w, Op i) {                                              \
    sop2_32(w, i, [](uint32_t a, uint32_t b, bool& scc) -> uint32_t { __VA_ARGS__; });         \
  })
#define SOP2_64(NAME, ...)                                                             \
  add_handler(t, NAME, [](Wave& w, Op i) {                                              \
    sop2_64(w, i, [](uint64_t a, uint64_t b, bool& scc) -> uint64_t { __VA_ARGS__; });         \
  })
// Shifts: 64-bit value, 32-bit shift amount.
#define SOP2_SHIFT64(NAME, ...)                                                        \
  add_handler(t, NAME, [](Wave& w, Op i) {                                              \
    uint64_t a = s0_64(w, i);                                                           \
    uint32_t b = s1(w, i) & 63;                                                         \
    uint64_t r = __VA_ARGS__;                                                                  \
    swrite64(w, i.ops[0], r);                                                           \
    w.scc_bit = r != 0;                                                                 \
    count(w);                                                                           \
  })

template <typename F>
void sopc_32(Wave& w, Op i, F f) {
  w.scc_bit = f(sread32(w, i.ops[0]), sread32(w, i.ops[1]));
  count(w);
}
#define SOPC(NAME, T, EXPR)                                                             \
  add_handler(t, NAME, [](Wave& w, Op i) {                                              \
    sopc_32(w, i, [](uint32_t x, uint32_t y) {                                          \
      T a = static_cast<T>(x), b = static_cast<T>(y);                                   \
      return EXPR;                                                                      \
    });                                                                                 \
  })

// s_*_saveexec: sdst = exec; exec = op(src, exec); scc = exec != 0.
#define SAVEEXEC(NAME, WIDE, EXPR)                                                      \
  add_handler(t, NAME, [](Wave& w, Op i) {                                              \
    uint64_t s = WIDE ? sread64(w, i.ops[1]) : sread32(w, i.ops[1]);                     \
    uint64_t e = w.exec();                                                              \
    if (WIDE) swrite64(w, i.ops[0], e); else swrite32(w, i.ops[0], uint32_t(e));         \
    uint64_t r = (EXPR) & w.lane_mask;                                                  \
    w.set_exec(r);                                                                      \
    w.scc_bit = r != 0;                                                                 \
    count(w);                                                                           \
  })

uint32_t bfe_u32(uint32_t a, uint32_t b) {
  uint32_t off = b & 31, width = (b >> 16) & 0x7f;
  if (width == 0) return 0;
  uint64_t v = uint64_t(a) >> off;
  return width >= 32 ? uint32_t(v) : uint32_t(v & ((1ull << width) - 1));
}
int32_t bfe_i32(uint32_t a, uint32_t b) {
  uint32_t off = b & 31, width = (b >> 16) & 0x7f;
  if (width == 0) return 0;
  uint32_t v = a >> off;
  if (width >= 32) return int32_t(v);
  uint32_t m = 1u << (width - 1);
  v &= (1u << width) - 1;
  return int32_t((v ^ m) - m);
}
uint64_t bfe_u64(uint64_t a, uint32_t b) {
  uint32_t off = b & 63, width = (b >> 16) & 0x7f;
  if (width == 0) return 0;
  uint64_t v = a >> off;
  return width >= 64 ? v : v & ((1ull << width) - 1);
}
int64_t bfe_i64(uint64_t a, uint32_t b) {
  uint32_t off = b & 63, width = (b >> 16) & 0x7f;
  if (width == 0) return 0;
  uint64_t v = a >> off;
  if (width >= 64) return int64_t(v);
  uint64_t m = 1ull << (width - 1);
  v &= (1ull << width) - 1;
  return int64_t((v ^ m) - m);
}

void branch(Wave& w, Op i, bool taken) {
  count(w);
  if (!taken) return;
  int64_t simm = i.ops.empty() ? 0 : static_cast<int16_t>(i.ops[0].ivalue);
  w.pc = uint64_t(int64_t(w.pc) + simm * 4);
}

void nop(Wave& w, Op) { count(w); }

// s_load_dword*: sdst, sbase, offset (immediate or SGPR) [offset:imm].
void s_load(Wave& w, Op i) {
  const Operand& dst = i.ops[0];
  uint64_t base = sread64(w, i.ops[1]);
  uint64_t offset = i.ops.size() > 2 ? (i.ops[2].kind == Operand::imm ? uint64_t(i.ops[2].ivalue) : sread32(w, i.ops[2])) : 0;
  offset += static_cast<uint64_t>(i.mod.offset);
  uint64_t address = base + offset;
  uint32_t n = dst.dwords;
  auto* p = static_cast<const uint8_t*>(global_address(w, i, address, 4ull * n, 0, false));
  uint32_t words[16];
  load_dwords_relaxed(p, words, std::min<uint32_t>(n, 16));
  // A scalar load reads for the wave: the checker counts it as its first active lane's.
  if (w.race) [[unlikely]]
    w.race->access(w, i, p, 4 * std::min<uint32_t>(n, 16), w.exec() ? std::countr_zero(w.exec()) : 0, RaceKind::read, nullptr, false);
  for (uint32_t k = 0; k < n && k < 16; ++k)
    if (dst.index + k < scalar_file_size && dst.index != null_reg) w.s[dst.index + k] = words[k];
  count(w);
}

// Hardware registers: only MODE matters functionally (round and denormal modes). The operand
// hwreg(HW_REG_MODE[, offset, size]) is printed symbolically: the field comes from the text.
// Returns false for another register.
bool mode_field(const Inst& i, uint32_t& offset, uint32_t& size) {
  const std::string& text = i.text;
  size_t h = text.find("hwreg(");
  if (h == std::string::npos || text.find("HW_REG_MODE", h) == std::string::npos) return false;
  offset = 0, size = 32;
  size_t comma = text.find(',', h);
  size_t close = text.find(')', h);
  if (comma != std::string::npos && comma < close) {
    offset = static_cast<uint32_t>(std::strtoul(text.c_str() + comma + 1, nullptr, 0));
    size_t comma2 = text.find(',', comma + 1);
    if (comma2 != std::string::npos && comma2 < close)
      size = static_cast<uint32_t>(std::strtoul(text.c_str() + comma2 + 1, nullptr, 0));
  }
  return true;
}
uint32_t field_mask(uint32_t offset, uint32_t size) { return size >= 32 ? ~0u : ((1u << size) - 1) << offset; }

void s_setreg(Wave& w, Op i, uint32_t value) {
  uint32_t offset, size;
  if (!mode_field(i, offset, size)) return;
  uint32_t reg = w.round_mode | (w.denorm_mode << 4);
  uint32_t mask = field_mask(offset, size);
  reg = (reg & ~mask) | ((value << offset) & mask);
  w.round_mode = reg & 0xf;
  w.denorm_mode = (reg >> 4) & 0xf;
}
uint32_t s_getreg(const Wave& w, Op i) {
  uint32_t offset, size;
  if (!mode_field(i, offset, size)) return 0;
  return ((w.round_mode | (w.denorm_mode << 4)) & field_mask(offset, size)) >> offset;
}

}  // namespace

void register_scalar(HandlerTable& t) {
  // SOP1
  add_handler(t, "s_mov_b32", [](Wave& w, Op i) { swrite32(w, i.ops[0], sread32(w, i.ops[1])), count(w); });
  add_handler(t, "s_mov_b64", [](Wave& w, Op i) { swrite64(w, i.ops[0], sread64(w, i.ops[1])), count(w); });
  add_handler(t, "s_movk_i32", [](Wave& w, Op i) { swrite32(w, i.ops[0], uint32_t(int32_t(int16_t(i.ops[1].ivalue)))), count(w); });
  add_handler(t, "s_cmov_b32", [](Wave& w, Op i) { if (w.scc_bit) swrite32(w, i.ops[0], sread32(w, i.ops[1])); count(w); });
  add_handler(t, "s_cmov_b64", [](Wave& w, Op i) { if (w.scc_bit) swrite64(w, i.ops[0], sread64(w, i.ops[1])); count(w); });
  add_handler(t, "s_cmovk_i32", [](Wave& w, Op i) { if (w.scc_bit) swrite32(w, i.ops[0], uint32_t(int32_t(int16_t(i.ops[1].ivalue)))); count(w); });
  add_handler(t, "s_not_b32", [](Wave& w, Op i) { uint32_t r = ~sread32(w, i.ops[1]); swrite32(w, i.ops[0], r); w.scc_bit = r != 0; count(w); });
  add_handler(t, "s_not_b64", [](Wave& w, Op i) { uint64_t r = ~sread64(w, i.ops[1]); swrite64(w, i.ops[0], r); w.scc_bit = r != 0; count(w); });
  add_handler(t, "s_brev_b32", [](Wave& w, Op i) {
    uint32_t x = sread32(w, i.ops[1]), r = 0;
    for (int b = 0; b < 32; ++b) r |= ((x >> b) & 1u) << (31 - b);
    swrite32(w, i.ops[0], r), count(w);
  });
  add_handler(t, "s_bcnt1_i32_b32", [](Wave& w, Op i) { uint32_t r = std::popcount(sread32(w, i.ops[1])); swrite32(w, i.ops[0], r); w.scc_bit = r != 0; count(w); });
  add_handler(t, "s_bcnt1_i32_b64", [](Wave& w, Op i) { uint32_t r = std::popcount(sread64(w, i.ops[1])); swrite32(w, i.ops[0], r); w.scc_bit = r != 0; count(w); });
  add_handler(t, "s_bcnt0_i32_b32", [](Wave& w, Op i) { uint32_t r = 32 - std::popcount(sread32(w, i.ops[1])); swrite32(w, i.ops[0], r); w.scc_bit = r != 0; count(w); });
  add_handler(t, "s_bcnt0_i32_b64", [](Wave& w, Op i) { uint32_t r = 64 - std::popcount(sread64(w, i.ops[1])); swrite32(w, i.ops[0], r); w.scc_bit = r != 0; count(w); });
  auto ff1_32 = [](Wave& w, Op i) { uint32_t x = sread32(w, i.ops[1]); swrite32(w, i.ops[0], x ? std::countr_zero(x) : ~0u); count(w); };
  auto ff1_64 = [](Wave& w, Op i) { uint64_t x = sread64(w, i.ops[1]); swrite32(w, i.ops[0], x ? std::countr_zero(x) : ~0u); count(w); };
  add_handler(t, "s_ff1_i32_b32", ff1_32);
  add_handler(t, "s_ctz_i32_b32", ff1_32);
  add_handler(t, "s_ff1_i32_b64", ff1_64);
  add_handler(t, "s_ctz_i32_b64", ff1_64);
  auto flbit_32 = [](Wave& w, Op i) { uint32_t x = sread32(w, i.ops[1]); swrite32(w, i.ops[0], x ? std::countl_zero(x) : ~0u); count(w); };
  auto flbit_64 = [](Wave& w, Op i) { uint64_t x = sread64(w, i.ops[1]); swrite32(w, i.ops[0], x ? std::countl_zero(x) : ~0u); count(w); };
  add_handler(t, "s_flbit_i32_b32", flbit_32);
  add_handler(t, "s_clz_i32_u32", flbit_32);
  add_handler(t, "s_flbit_i32_b64", flbit_64);
  add_handler(t, "s_clz_i32_u64", flbit_64);
  auto cls = [](Wave& w, Op i) {
    int32_t x = int32_t(sread32(w, i.ops[1]));
    uint32_t r = (x == 0 || x == -1) ? ~0u : std::countl_zero(uint32_t(x < 0 ? ~x : x));
    swrite32(w, i.ops[0], r), count(w);
  };
  add_handler(t, "s_flbit_i32", cls);
  add_handler(t, "s_cls_i32", cls);
  add_handler(t, "s_sext_i32_i8", [](Wave& w, Op i) { swrite32(w, i.ops[0], uint32_t(int32_t(int8_t(sread32(w, i.ops[1]))))), count(w); });
  add_handler(t, "s_sext_i32_i16", [](Wave& w, Op i) { swrite32(w, i.ops[0], uint32_t(int32_t(int16_t(sread32(w, i.ops[1]))))), count(w); });
  add_handler(t, "s_abs_i32", [](Wave& w, Op i) {
    int32_t x = int32_t(sread32(w, i.ops[1]));
    uint32_t r = x < 0 ? uint32_t(0) - uint32_t(x) : uint32_t(x);
    swrite32(w, i.ops[0], r), w.scc_bit = r != 0, count(w);
  });
  add_handler(t, "s_bitset0_b32", [](Wave& w, Op i) { w.s[i.ops[0].index] &= ~(1u << (sread32(w, i.ops[1]) & 31)); count(w); });
  add_handler(t, "s_bitset1_b32", [](Wave& w, Op i) { w.s[i.ops[0].index] |= 1u << (sread32(w, i.ops[1]) & 31); count(w); });
  add_handler(t, "s_getpc_b64", [](Wave& w, Op i) { swrite64(w, i.ops[0], w.code_base() + w.pc); count(w); });
  add_handler(t, "s_setpc_b64", [](Wave& w, Op i) { w.pc = sread64(w, i.ops[0]) - w.code_base(); count(w); });
  add_handler(t, "s_swappc_b64", [](Wave& w, Op i) {
    uint64_t target = sread64(w, i.ops[1]);
    swrite64(w, i.ops[0], w.code_base() + w.pc);
    w.pc = target - w.code_base();
    count(w);
  });
  SAVEEXEC("s_and_saveexec_b64", true, s & e);
  SAVEEXEC("s_or_saveexec_b64", true, s | e);
  SAVEEXEC("s_xor_saveexec_b64", true, s ^ e);
  SAVEEXEC("s_andn2_saveexec_b64", true, s & ~e);
  SAVEEXEC("s_orn2_saveexec_b64", true, s | ~e);
  SAVEEXEC("s_andn1_saveexec_b64", true, ~s & e);
  SAVEEXEC("s_orn1_saveexec_b64", true, ~s | e);
  SAVEEXEC("s_nand_saveexec_b64", true, ~(s & e));
  SAVEEXEC("s_nor_saveexec_b64", true, ~(s | e));
  SAVEEXEC("s_xnor_saveexec_b64", true, ~(s ^ e));
  SAVEEXEC("s_and_saveexec_b32", false, s & e);
  SAVEEXEC("s_or_saveexec_b32", false, s | e);
  SAVEEXEC("s_xor_saveexec_b32", false, s ^ e);
  SAVEEXEC("s_andn2_saveexec_b32", false, s & ~e);
  SAVEEXEC("s_orn2_saveexec_b32", false, s | ~e);
  SAVEEXEC("s_andn1_saveexec_b32", false, ~s & e);
  SAVEEXEC("s_orn1_saveexec_b32", false, ~s | e);
  SAVEEXEC("s_nand_saveexec_b32", false, ~(s & e));
  SAVEEXEC("s_nor_saveexec_b32", false, ~(s | e));
  SAVEEXEC("s_xnor_saveexec_b32", false, ~(s ^ e));

  // SOP2
  SOP2_32("s_add_u32", { uint64_t r = uint64_t(a) + b; scc = r >> 32; return uint32_t(r); });
  SOP2_32("s_sub_u32", { scc = b > a; return a - b; });
  SOP2_32("s_add_i32", { uint32_t r = a + b; scc = ((~(a ^ b)) & (a ^ r)) >> 31; return r; });
  SOP2_32("s_sub_i32", { uint32_t r = a - b; scc = ((a ^ b) & (a ^ r)) >> 31; return r; });
  SOP2_32("s_addc_u32", { uint64_t r = uint64_t(a) + b + (scc ? 1 : 0); scc = r >> 32; return uint32_t(r); });
  SOP2_32("s_subb_u32", { uint64_t r = uint64_t(a) - b - (scc ? 1 : 0); scc = (r >> 32) != 0; return uint32_t(r); });
  SOP2_32("s_min_i32", { scc = int32_t(a) < int32_t(b); return scc ? a : b; });
  SOP2_32("s_min_u32", { scc = a < b; return scc ? a : b; });
  SOP2_32("s_max_i32", { scc = int32_t(a) > int32_t(b); return scc ? a : b; });
  SOP2_32("s_max_u32", { scc = a > b; return scc ? a : b; });
  SOP2_32("s_cselect_b32", { return scc ? a : b; });
  SOP2_64("s_cselect_b64", { return scc ? a : b; });
  SOP2_32("s_and_b32", { uint32_t r = a & b; scc = r != 0; return r; });
  SOP2_32("s_or_b32", { uint32_t r = a | b; scc = r != 0; return r; });
  SOP2_32("s_xor_b32", { uint32_t r = a ^ b; scc = r != 0; return r; });
  SOP2_32("s_andn2_b32", { uint32_t r = a & ~b; scc = r != 0; return r; });
  SOP2_32("s_orn2_b32", { uint32_t r = a | ~b; scc = r != 0; return r; });
  SOP2_32("s_nand_b32", { uint32_t r = ~(a & b); scc = r != 0; return r; });
  SOP2_32("s_nor_b32", { uint32_t r = ~(a | b); scc = r != 0; return r; });
  SOP2_32("s_xnor_b32", { uint32_t r = ~(a ^ b); scc = r != 0; return r; });
  SOP2_64("s_and_b64", { uint64_t r = a & b; scc = r != 0; return r; });
  SOP2_64("s_or_b64", { uint64_t r = a | b; scc = r != 0; return r; });
  SOP2_64("s_xor_b64", { uint64_t r = a ^ b; scc = r != 0; return r; });
  SOP2_64("s_andn2_b64", { uint64_t r = a & ~b; scc = r != 0; return r; });
  SOP2_64("s_orn2_b64", { uint64_t r = a | ~b; scc = r != 0; return r; });
  SOP2_64("s_nand_b64", { uint64_t r = ~(a & b); scc = r != 0; return r; });
  SOP2_64("s_nor_b64", { uint64_t r = ~(a | b); scc = r != 0; return r; });
  SOP2_64("s_xnor_b64", { uint64_t r = ~(a ^ b); scc = r != 0; return r; });
  SOP2_32("s_lshl_b32", { uint32_t r = a << (b & 31); scc = r != 0; return r; });
  SOP2_32("s_lshr_b32", { uint32_t r = a >> (b & 31); scc = r != 0; return r; });
  SOP2_32("s_ashr_i32", { uint32_t r = uint32_t(int32_t(a) >> (b & 31)); scc = r != 0; return r; });
  SOP2_SHIFT64("s_lshl_b64", a << b);
  SOP2_SHIFT64("s_lshr_b64", a >> b);
  SOP2_SHIFT64("s_ashr_i64", uint64_t(int64_t(a) >> b));
  SOP2_32("s_lshl1_add_u32", { uint64_t r = (uint64_t(a) << 1) + b; scc = r >> 32; return uint32_t(r); });
  SOP2_32("s_lshl2_add_u32", { uint64_t r = (uint64_t(a) << 2) + b; scc = r >> 32; return uint32_t(r); });
  SOP2_32("s_lshl3_add_u32", { uint64_t r = (uint64_t(a) << 3) + b; scc = r >> 32; return uint32_t(r); });
  SOP2_32("s_lshl4_add_u32", { uint64_t r = (uint64_t(a) << 4) + b; scc = r >> 32; return uint32_t(r); });
  SOP2_32("s_bfm_b32", { uint32_t width = a & 31, off = b & 31; return ((1u << width) - 1) << off; });
  SOP2_32("s_mul_i32", { return uint32_t(int32_t(a) * int64_t(int32_t(b))); });
  SOP2_32("s_mul_hi_u32", { return uint32_t((uint64_t(a) * b) >> 32); });
  SOP2_32("s_mul_hi_i32", { return uint32_t(uint64_t(int64_t(int32_t(a)) * int32_t(b)) >> 32); });
  SOP2_32("s_bfe_u32", { uint32_t r = bfe_u32(a, b); scc = r != 0; return r; });
  SOP2_32("s_bfe_i32", { uint32_t r = uint32_t(bfe_i32(a, b)); scc = r != 0; return r; });
  add_handler(t, "s_bfe_u64", [](Wave& w, Op i) { uint64_t r = bfe_u64(s0_64(w, i), s1(w, i)); swrite64(w, i.ops[0], r); w.scc_bit = r != 0; count(w); });
  add_handler(t, "s_bfe_i64", [](Wave& w, Op i) { uint64_t r = uint64_t(bfe_i64(s0_64(w, i), s1(w, i))); swrite64(w, i.ops[0], r); w.scc_bit = r != 0; count(w); });
  add_handler(t, "s_bfm_b64", [](Wave& w, Op i) {
    uint32_t width = s0(w, i) & 63, off = s1(w, i) & 63;
    swrite64(w, i.ops[0], (width == 64 ? ~0ull : ((1ull << width) - 1)) << off), count(w);
  });
  SOP2_32("s_absdiff_i32", { int64_t d = int64_t(int32_t(a)) - int32_t(b); uint32_t r = uint32_t(d < 0 ? -d : d); scc = r != 0; return r; });
  SOP2_32("s_pack_ll_b32_b16", { return (a & 0xffff) | (b << 16); });
  SOP2_32("s_pack_lh_b32_b16", { return (a & 0xffff) | (b & 0xffff0000u); });
  SOP2_32("s_pack_hh_b32_b16", { return (a >> 16) | (b & 0xffff0000u); });
  SOP2_32("s_pack_hl_b32_b16", { return (a >> 16) | (b << 16); });

  // SOPK
  add_handler(t, "s_addk_i32", [](Wave& w, Op i) {
    uint32_t a = sread32(w, i.ops[0]), b = uint32_t(int32_t(int16_t(i.ops[1].ivalue)));
    uint32_t r = a + b;
    w.scc_bit = ((~(a ^ b)) & (a ^ r)) >> 31;
    swrite32(w, i.ops[0], r), count(w);
  });
  add_handler(t, "s_mulk_i32", [](Wave& w, Op i) {
    swrite32(w, i.ops[0], uint32_t(int64_t(int32_t(sread32(w, i.ops[0]))) * int16_t(i.ops[1].ivalue))), count(w);
  });

  // SOPC
  SOPC("s_cmp_eq_i32", int32_t, a == b);
  SOPC("s_cmp_lg_i32", int32_t, a != b);
  SOPC("s_cmp_gt_i32", int32_t, a > b);
  SOPC("s_cmp_ge_i32", int32_t, a >= b);
  SOPC("s_cmp_lt_i32", int32_t, a < b);
  SOPC("s_cmp_le_i32", int32_t, a <= b);
  SOPC("s_cmp_eq_u32", uint32_t, a == b);
  SOPC("s_cmp_lg_u32", uint32_t, a != b);
  SOPC("s_cmp_gt_u32", uint32_t, a > b);
  SOPC("s_cmp_ge_u32", uint32_t, a >= b);
  SOPC("s_cmp_lt_u32", uint32_t, a < b);
  SOPC("s_cmp_le_u32", uint32_t, a <= b);
  SOPC("s_bitcmp0_b32", uint32_t, ((a >> (b & 31)) & 1) == 0);
  SOPC("s_bitcmp1_b32", uint32_t, ((a >> (b & 31)) & 1) == 1);
  add_handler(t, "s_cmp_eq_u64", [](Wave& w, Op i) { w.scc_bit = sread64(w, i.ops[0]) == sread64(w, i.ops[1]); count(w); });
  add_handler(t, "s_cmp_lg_u64", [](Wave& w, Op i) { w.scc_bit = sread64(w, i.ops[0]) != sread64(w, i.ops[1]); count(w); });
  add_handler(t, "s_bitcmp0_b64", [](Wave& w, Op i) { w.scc_bit = ((sread64(w, i.ops[0]) >> (sread32(w, i.ops[1]) & 63)) & 1) == 0; count(w); });
  add_handler(t, "s_bitcmp1_b64", [](Wave& w, Op i) { w.scc_bit = ((sread64(w, i.ops[0]) >> (sread32(w, i.ops[1]) & 63)) & 1) == 1; count(w); });
  // SOPK compares: the immediate is 16 bits (signed for _i32, unsigned for _u32).
  add_handler(t, "s_cmpk_eq_i32", [](Wave& w, Op i) { w.scc_bit = int32_t(sread32(w, i.ops[0])) == int16_t(i.ops[1].ivalue); count(w); });
  add_handler(t, "s_cmpk_lg_i32", [](Wave& w, Op i) { w.scc_bit = int32_t(sread32(w, i.ops[0])) != int16_t(i.ops[1].ivalue); count(w); });
  add_handler(t, "s_cmpk_gt_i32", [](Wave& w, Op i) { w.scc_bit = int32_t(sread32(w, i.ops[0])) > int16_t(i.ops[1].ivalue); count(w); });
  add_handler(t, "s_cmpk_lt_i32", [](Wave& w, Op i) { w.scc_bit = int32_t(sread32(w, i.ops[0])) < int16_t(i.ops[1].ivalue); count(w); });
  add_handler(t, "s_cmpk_eq_u32", [](Wave& w, Op i) { w.scc_bit = sread32(w, i.ops[0]) == uint16_t(i.ops[1].ivalue); count(w); });
  add_handler(t, "s_cmpk_lg_u32", [](Wave& w, Op i) { w.scc_bit = sread32(w, i.ops[0]) != uint16_t(i.ops[1].ivalue); count(w); });
  add_handler(t, "s_cmpk_gt_u32", [](Wave& w, Op i) { w.scc_bit = sread32(w, i.ops[0]) > uint16_t(i.ops[1].ivalue); count(w); });
  add_handler(t, "s_cmpk_lt_u32", [](Wave& w, Op i) { w.scc_bit = sread32(w, i.ops[0]) < uint16_t(i.ops[1].ivalue); count(w); });
  add_handler(t, "s_cmpk_ge_i32", [](Wave& w, Op i) { w.scc_bit = int32_t(sread32(w, i.ops[0])) >= int16_t(i.ops[1].ivalue); count(w); });
  add_handler(t, "s_cmpk_le_i32", [](Wave& w, Op i) { w.scc_bit = int32_t(sread32(w, i.ops[0])) <= int16_t(i.ops[1].ivalue); count(w); });
  add_handler(t, "s_cmpk_ge_u32", [](Wave& w, Op i) { w.scc_bit = sread32(w, i.ops[0]) >= uint16_t(i.ops[1].ivalue); count(w); });
  add_handler(t, "s_cmpk_le_u32", [](Wave& w, Op i) { w.scc_bit = sread32(w, i.ops[0]) <= uint16_t(i.ops[1].ivalue); count(w); });

  // SOPP: control flow.
  add_handler(t, "s_branch", [](Wave& w, Op i) { branch(w, i, true); });
  add_handler(t, "s_cbranch_scc0", [](Wave& w, Op i) { branch(w, i, !w.scc_bit); });
  add_handler(t, "s_cbranch_scc1", [](Wave& w, Op i) { branch(w, i, w.scc_bit); });
  add_handler(t, "s_cbranch_vccz", [](Wave& w, Op i) { branch(w, i, (w.vcc() & w.lane_mask) == 0); });
  add_handler(t, "s_cbranch_vccnz", [](Wave& w, Op i) { branch(w, i, (w.vcc() & w.lane_mask) != 0); });
  add_handler(t, "s_cbranch_execz", [](Wave& w, Op i) { branch(w, i, w.exec() == 0); });
  add_handler(t, "s_cbranch_execnz", [](Wave& w, Op i) { branch(w, i, w.exec() != 0); });
  add_handler(t, "s_endpgm", [](Wave& w, Op i) {
    w.status = Wave::Status::ended;
    w.end_pc = w.pc - i.size;
    count(w);
  });
  add_handler(t, "s_barrier", [](Wave& w, Op i) {
    w.status = Wave::Status::at_barrier;
    w.barrier_pc = w.pc - i.size;
    count(w);
  });
  // rocjit's race-checking markers (race.h); otherwise, as on hardware without thread trace, nothing.
  add_handler(t, "s_ttracedata", [](Wave& w, Op) {
    if (w.race) [[unlikely]] w.race->marker(w, w.s[m0]);
    count(w);
  });
  add_handler(t, "s_trap", [](Wave& w, Op i) { w.fail(i, "the kernel executed a trap (s_trap): it aborted, e.g. on a failed assertion"); });
  add_handler(t, "s_sethalt", [](Wave& w, Op i) { w.fail(i, "the kernel halted its wave (s_sethalt)"); });
  // No functional effect in a functional simulator: waits, hints, cache maintenance, messages.
  for (const char* n : {"s_waitcnt", "s_waitcnt_vscnt", "s_waitcnt_vmcnt", "s_waitcnt_expcnt", "s_waitcnt_lgkmcnt",
                        "s_waitcnt_depctr", "s_nop", "s_clause", "s_delay_alu", "s_sleep", "s_setprio", "s_sendmsg",
                        "s_icache_inv", "s_dcache_inv", "s_dcache_wb", "s_dcache_inv_vol", "s_dcache_wb_vol",
                        "buffer_gl0_inv", "buffer_gl1_inv", "buffer_wbl2", "buffer_inv", "buffer_invl2", "buffer_wbinvl1",
                        "buffer_wbinvl1_vol", "s_inst_prefetch", "s_code_end", "s_set_inst_prefetch_distance",
                        "s_wait_idle", "s_wait_event", "s_version"})
    add_handler(t, n, nop);
  add_handler(t, "s_setreg_imm32_b32", [](Wave& w, Op i) { s_setreg(w, i, uint32_t(i.ops[0].ivalue)); count(w); });
  add_handler(t, "s_setreg_b32", [](Wave& w, Op i) { s_setreg(w, i, sread32(w, i.ops.back())); count(w); });
  add_handler(t, "s_denorm_mode", [](Wave& w, Op i) { w.denorm_mode = uint32_t(i.ops[0].ivalue) & 0xf; count(w); });
  add_handler(t, "s_round_mode", [](Wave& w, Op i) { w.round_mode = uint32_t(i.ops[0].ivalue) & 0xf; count(w); });
  add_handler(t, "s_getreg_b32", [](Wave& w, Op i) {
    swrite32(w, i.ops[0], s_getreg(w, i)), count(w);
  });
  add_handler(t, "s_memtime", [](Wave& w, Op i) { swrite64(w, i.ops[0], w.instructions), count(w); });
  add_handler(t, "s_memrealtime", [](Wave& w, Op i) { swrite64(w, i.ops[0], w.instructions), count(w); });
  add_handler(t, "s_sendmsg_rtn_b64", [](Wave& w, Op i) { swrite64(w, i.ops[0], w.instructions), count(w); });
  add_handler(t, "s_sendmsg_rtn_b32", [](Wave& w, Op i) { swrite32(w, i.ops[0], 0), count(w); });

  // gfx9 VGPR index mode: M0[7:0] = index, M0[15:12] = which operands (gpr_idx(SRC0,SRC1,SRC2,DST)).
  add_handler(t, "s_set_gpr_idx_on", [](Wave& w, Op i) {
    uint32_t mode = 0;
    size_t at = i.text.find("gpr_idx(");
    if (at != std::string::npos) {
      std::string list = i.text.substr(at + 8, i.text.find(')', at) - at - 8);
      if (list.find("SRC0") != std::string::npos) mode |= 1;
      if (list.find("SRC1") != std::string::npos) mode |= 2;
      if (list.find("SRC2") != std::string::npos) mode |= 4;
      if (list.find("DST") != std::string::npos) mode |= 8;
    }
    w.s[m0] = (w.s[m0] & ~0xf0ffu) | (sread32(w, i.ops[0]) & 0xff) | (mode << 12);
    w.gpr_idx_on = true;
    count(w);
  });
  add_handler(t, "s_set_gpr_idx_off", [](Wave& w, Op) { w.gpr_idx_on = false; count(w); });
  add_handler(t, "s_set_gpr_idx_idx", [](Wave& w, Op i) {
    w.s[m0] = (w.s[m0] & ~0xffu) | (sread32(w, i.ops[0]) & 0xff);
    count(w);
  });

  // SMEM
  for (const char* n : {"s_load_dword", "s_load_dwordx2", "s_load_dwordx3", "s_load_dwordx4", "s_load_dwordx8",
                        "s_load_dwordx16"})
    add_handler(t, n, s_load);
}

}  // namespace amdsim
