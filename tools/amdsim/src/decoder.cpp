// Decoding: LLVM's MC disassembler gives the instruction and its name; the MC instruction
// printer gives operands and modifiers in the ISA manuals' syntax, which is stable across LLVM
// releases (opcode numbers and operand tables are not, and are not installed).
#include "decoder.h"

#include <llvm/MC/MCAsmInfo.h>
#include <llvm/MC/MCContext.h>
#include <llvm/MC/MCDisassembler/MCDisassembler.h>
#include <llvm/MC/MCInst.h>
#include <llvm/MC/MCInstPrinter.h>
#include <llvm/MC/MCInstrInfo.h>
#include <llvm/MC/MCRegisterInfo.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/MCTargetOptions.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/ADT/StringExtras.h>
#include <llvm/ADT/StringRef.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/TargetParser/Triple.h>

#include <cctype>
#include <cmath>
#include <mutex>

namespace amdsim {
namespace {

void initialize_llvm() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeAMDGPUTargetInfo();
    LLVMInitializeAMDGPUTargetMC();
    LLVMInitializeAMDGPUDisassembler();
  });
}

// Is `part` an encoding family name: vi, si, ci, gfx9, gfx90a, gfx940, gfx10, gfx11, gfx12, ...?
bool is_encoding(const std::string& part) {
  if (part == "vi" || part == "si" || part == "ci") return true;
  if (!part.starts_with("gfx")) return false;
  return part.size() > 3 && std::isdigit(static_cast<unsigned char>(part[3]));
}

const std::unordered_map<std::string, std::string>& renames() {
  // GFX11 spellings -> the GFX9 names the handlers use.
  static const std::unordered_map<std::string, std::string> table = [] {
    std::unordered_map<std::string, std::string> t = {
        {"v_add_nc_u32", "v_add_u32"},        {"v_sub_nc_u32", "v_sub_u32"},
        {"v_add_nc_i32", "v_add_i32"},        {"v_sub_nc_i32", "v_sub_i32"},
        {"v_add_nc_u16", "v_add_u16"},        {"v_sub_nc_u16", "v_sub_u16"},
        {"v_add_nc_i16", "v_add_i16"},        {"v_sub_nc_i16", "v_sub_i16"},
        {"v_subrev_nc_u32", "v_subrev_u32"},  {"v_add_co_ci_u32", "v_addc_co_u32"},
        {"v_sub_co_ci_u32", "v_subb_co_u32"}, {"v_subrev_co_ci_u32", "v_subbrev_co_u32"},
        {"v_fmac_dx9_zero_f32", "v_fmac_legacy_f32"}, {"v_mul_dx9_zero_f32", "v_mul_legacy_f32"},
        {"v_fma_dx9_zero_f32", "v_fma_legacy_f32"},
        {"s_andn2_b32", "s_andn2_b32"},       {"s_and_not1_b32", "s_andn2_b32"},
        {"s_and_not1_b64", "s_andn2_b64"},    {"s_or_not1_b32", "s_orn2_b32"},
        {"s_or_not1_b64", "s_orn2_b64"},      {"s_and_not1_saveexec_b32", "s_andn2_saveexec_b32"},
        {"s_and_not1_saveexec_b64", "s_andn2_saveexec_b64"},
        {"s_and_not0_saveexec_b32", "s_andn1_saveexec_b32"},
        {"s_and_not0_saveexec_b64", "s_andn1_saveexec_b64"},
        {"s_or_not0_saveexec_b32", "s_orn1_saveexec_b32"},
        {"s_or_not1_saveexec_b32", "s_orn2_saveexec_b32"},
        {"s_and_not1_wrexec_b32", "s_andn2_wrexec_b32"},
        {"s_load_b32", "s_load_dword"},       {"s_load_b64", "s_load_dwordx2"},
        {"s_load_b96", "s_load_dwordx3"},     {"s_load_b128", "s_load_dwordx4"},
        {"s_load_b256", "s_load_dwordx8"},    {"s_load_b512", "s_load_dwordx16"},
        {"s_buffer_load_b32", "s_buffer_load_dword"},
        {"global_load_b32", "global_load_dword"},   {"global_load_b64", "global_load_dwordx2"},
        {"global_load_b96", "global_load_dwordx3"}, {"global_load_b128", "global_load_dwordx4"},
        {"global_store_b32", "global_store_dword"}, {"global_store_b64", "global_store_dwordx2"},
        {"global_store_b96", "global_store_dwordx3"}, {"global_store_b128", "global_store_dwordx4"},
        {"global_load_u8", "global_load_ubyte"},    {"global_load_i8", "global_load_sbyte"},
        {"global_load_u16", "global_load_ushort"},  {"global_load_i16", "global_load_sshort"},
        {"global_store_b8", "global_store_byte"},   {"global_store_b16", "global_store_short"},
        {"flat_load_b32", "flat_load_dword"},       {"flat_load_b64", "flat_load_dwordx2"},
        {"flat_load_b96", "flat_load_dwordx3"},     {"flat_load_b128", "flat_load_dwordx4"},
        {"flat_store_b32", "flat_store_dword"},     {"flat_store_b64", "flat_store_dwordx2"},
        {"flat_store_b96", "flat_store_dwordx3"},   {"flat_store_b128", "flat_store_dwordx4"},
        {"flat_load_u8", "flat_load_ubyte"},        {"flat_load_i8", "flat_load_sbyte"},
        {"flat_load_u16", "flat_load_ushort"},      {"flat_load_i16", "flat_load_sshort"},
        {"flat_store_b8", "flat_store_byte"},       {"flat_store_b16", "flat_store_short"},
        {"scratch_load_b32", "scratch_load_dword"}, {"scratch_load_b64", "scratch_load_dwordx2"},
        {"scratch_load_b96", "scratch_load_dwordx3"}, {"scratch_load_b128", "scratch_load_dwordx4"},
        {"scratch_store_b32", "scratch_store_dword"}, {"scratch_store_b64", "scratch_store_dwordx2"},
        {"scratch_store_b96", "scratch_store_dwordx3"}, {"scratch_store_b128", "scratch_store_dwordx4"},
        {"scratch_load_u8", "scratch_load_ubyte"},  {"scratch_load_i8", "scratch_load_sbyte"},
        {"scratch_load_u16", "scratch_load_ushort"}, {"scratch_load_i16", "scratch_load_sshort"},
        {"scratch_store_b8", "scratch_store_byte"}, {"scratch_store_b16", "scratch_store_short"},
        {"ds_load_b32", "ds_read_b32"},             {"ds_load_b64", "ds_read_b64"},
        {"ds_load_b96", "ds_read_b96"},             {"ds_load_b128", "ds_read_b128"},
        {"ds_load_2addr_b32", "ds_read2_b32"},      {"ds_load_2addr_b64", "ds_read2_b64"},
        {"ds_load_2addr_stride64_b32", "ds_read2st64_b32"}, {"ds_load_2addr_stride64_b64", "ds_read2st64_b64"},
        {"ds_store_b32", "ds_write_b32"},           {"ds_store_b64", "ds_write_b64"},
        {"ds_store_b96", "ds_write_b96"},           {"ds_store_b128", "ds_write_b128"},
        {"ds_store_2addr_b32", "ds_write2_b32"},    {"ds_store_2addr_b64", "ds_write2_b64"},
        {"ds_store_2addr_stride64_b32", "ds_write2st64_b32"}, {"ds_store_2addr_stride64_b64", "ds_write2st64_b64"},
        {"ds_load_u8", "ds_read_u8"},               {"ds_load_i8", "ds_read_i8"},
        {"ds_load_u16", "ds_read_u16"},             {"ds_load_i16", "ds_read_i16"},
        {"ds_store_b8", "ds_write_b8"},             {"ds_store_b16", "ds_write_b16"},
        {"ds_storexchg_rtn_b32", "ds_wrxchg_rtn_b32"},
        {"ds_add_f32", "ds_add_f32"},
    };
    // Atomics: gfx11 names carry a type suffix (global_atomic_add_u32 = global_atomic_add).
    for (std::string space : {"global", "flat", "buffer"}) {
      auto a = space + "_atomic_";
      for (auto [from, to] : std::initializer_list<std::pair<const char*, const char*>>{
               {"add_u32", "add"}, {"sub_u32", "sub"}, {"min_i32", "smin"}, {"max_i32", "smax"},
               {"min_u32", "umin"}, {"max_u32", "umax"}, {"and_b32", "and"}, {"or_b32", "or"},
               {"xor_b32", "xor"}, {"swap_b32", "swap"}, {"cmpswap_b32", "cmpswap"}, {"inc_u32", "inc"},
               {"dec_u32", "dec"}, {"add_u64", "add_x2"}, {"sub_u64", "sub_x2"}, {"min_i64", "smin_x2"},
               {"max_i64", "smax_x2"}, {"min_u64", "umin_x2"}, {"max_u64", "umax_x2"}, {"and_b64", "and_x2"},
               {"or_b64", "or_x2"}, {"xor_b64", "xor_x2"}, {"swap_b64", "swap_x2"}, {"cmpswap_b64", "cmpswap_x2"},
               {"min_f32", "fmin"}, {"max_f32", "fmax"}, {"min_num_f32", "fmin"}, {"max_num_f32", "fmax"}})
        t[a + from] = a + to;
    }
    for (auto [from, to] : std::initializer_list<std::pair<const char*, const char*>>{
             {"ds_min_i32", "ds_min_i32"}, {"ds_max_i32", "ds_max_i32"},
             {"ds_min_rtn_i32", "ds_min_rtn_i32"}, {"ds_max_rtn_i32", "ds_max_rtn_i32"},
             {"ds_add_rtn_u32", "ds_add_rtn_u32"},
             {"ds_storexchg_rtn_b64", "ds_wrxchg_rtn_b64"}})
      t[from] = to;
    return t;
  }();
  return table;
}

}  // namespace

std::string normalize_name(const std::string& llvm_name) {
  std::string n = llvm::StringRef(llvm_name).lower();
  if (n.starts_with("v_dual_")) n = "v_" + n.substr(7);  // VOPD halves are VOP2/VOP1 operations
  for (bool changed = true; changed;) {
    changed = false;
    // Strip encoding suffixes (possibly several: _gfx6_gfx7, _gfx10_gfx11).
    for (;;) {
      size_t us = n.rfind('_');
      if (us == std::string::npos) break;
      std::string part = n.substr(us + 1);
      if (!is_encoding(part)) break;
      n.resize(us);
      changed = true;
    }
  // Strip form suffixes: the printed operands say what the form means.
  static const char* forms[] = {"_e32", "_e64", "_sdwa", "_dpp8", "_dpp", "_e64_dpp", "_e32_dpp", "_imm", "_sgpr_imm",
                                "_sgpr", "_saddr", "_offen", "_offset", "_idxen", "_bothen", "_addr64", "_rtn",
                                "_st", "_sv", "_svs", "_vs", "_ve", "_fake16", "_t16", "_vi", "_real", "_nortn", "_ci",
                                "_opsel", "_vcd", "_acd", "_mac"};
  for (bool again = true; again;) {
    again = false;
    for (const char* f : forms) {
      if (n.ends_with(f)) {
        // "_rtn" is part of DS names (ds_add_rtn_u32 keeps it); only strip it as a suffix of
        // global/flat/buffer atomics, whose return is the GLC bit.
        if (std::string(f) == "_rtn" && n.starts_with("ds_")) continue;
        n.resize(n.size() - std::strlen(f));
        again = true;
        changed = true;
      }
    }
  }
  }
  // WMMA's wave-size forms and its tied (two-address) form run alike. (Only WMMA's: other
  // opcodes with "_w32"/"_w64", such as DPP carry forms, keep their names.)
  if (n.starts_with("v_wmma_"))
    for (bool again = true; again;) {
      again = false;
      for (const char* f : {"_w32", "_w64", "_twoaddr"})
        if (n.ends_with(f)) n.resize(n.size() - std::strlen(f)), again = true;
    }
  // LLVM names some true16 / fake16 opcodes with the base name twice
  // ("V_ALIGNBIT_B32V_ALIGNBIT_B32_fake16_e64_gfx11", "V_CVT_F16_F32V_CVT_F16_F32_t16_e32_gfx11").
  if (n.size() % 2 == 0 && n.compare(0, n.size() / 2, n, n.size() / 2, n.size() / 2) == 0) n.resize(n.size() / 2);
  if (auto it = renames().find(n); it != renames().end()) n = it->second;
  return n;
}

// --- Operand text ---------------------------------------------------------------------------

namespace {

std::string trim(llvm::StringRef s) { return s.trim(" \t").str(); }

// Splits at `sep` outside brackets and parentheses.
std::vector<std::string> split_top(const std::string& s, char sep) {
  std::vector<std::string> out;
  int depth = 0;
  std::string cur;
  for (char c : s) {
    if (c == '[' || c == '(') ++depth;
    if (c == ']' || c == ')') --depth;
    if (c == sep && depth == 0) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

bool parse_int(llvm::StringRef s, int64_t& v) {
  const bool neg = s.consume_front("-");
  uint64_t u = 0;
  if (s.consume_front_insensitive("0x")) {
    if (s.empty() || s.getAsInteger(16, u)) return false;
  } else if (s.empty() || !llvm::isDigit(s.front()) || s.getAsInteger(10, u)) {
    return false;
  }
  v = neg ? -static_cast<int64_t>(u) : static_cast<int64_t>(u);
  return true;
}

// "v[0:1]", "s5", "vcc_lo", ... into an operand; false if `t` is not a register.
bool parse_register(const std::string& t, Operand& op) {
  auto tuple = [&](char file, Operand::Kind kind) {
    if (t.size() < 2 || t[0] != file) return false;
    int64_t lo = 0, hi = 0;
    if (t[1] == '[') {
      size_t colon = t.find(':'), close = t.find(']');
      if (colon == std::string::npos || close == std::string::npos) return false;
      if (!parse_int(t.substr(2, colon - 2), lo) || !parse_int(t.substr(colon + 1, close - colon - 1), hi)) return false;
    } else {
      std::string num = t.substr(1);
      size_t dot = num.find('.');
      if (dot != std::string::npos) {
        op.hi16 = num.substr(dot + 1) == "h";
        op.lo16 = num.substr(dot + 1) == "l";
        num.resize(dot);
      }
      if (!parse_int(num, lo)) return false;
      hi = lo;
    }
    op.kind = kind;
    op.index = static_cast<uint16_t>(lo);
    op.dwords = static_cast<uint8_t>(hi - lo + 1);
    return true;
  };
  if (tuple('v', Operand::vgpr) || tuple('s', Operand::sgpr) || tuple('a', Operand::agpr)) return true;
  if (t.starts_with("ttmp")) {
    Operand o;
    std::string rest = "s" + t.substr(4);
    if (!parse_register(rest, o)) return false;
    op = o;
    op.index = static_cast<uint16_t>(ttmp0 + o.index);
    return true;
  }
  static const std::unordered_map<std::string, std::pair<uint16_t, uint8_t>> named = {
      {"vcc", {vcc_lo, 2}},         {"vcc_lo", {vcc_lo, 1}},   {"vcc_hi", {vcc_hi, 1}},
      {"exec", {exec_lo, 2}},       {"exec_lo", {exec_lo, 1}}, {"exec_hi", {exec_hi, 1}},
      {"m0", {m0, 1}},              {"null", {null_reg, 1}},   {"flat_scratch", {flat_scratch_lo, 2}},
      {"flat_scratch_lo", {flat_scratch_lo, 1}}, {"flat_scratch_hi", {flat_scratch_hi, 1}},
      {"xnack_mask", {xnack_mask_lo, 2}},
  };
  if (auto it = named.find(t); it != named.end()) {
    op.kind = Operand::sgpr;
    op.index = it->second.first;
    op.dwords = it->second.second;
    return true;
  }
  if (t == "scc" || t == "src_scc") {
    op.kind = Operand::scc;
    return true;
  }
  // The aperture registers are 64-bit values: the aperture's base (high dword = the aperture,
  // low dword 0) and its last byte. LLVM reads them with s_mov_b64 and uses the high dword; as a
  // 32-bit operand they give the low dword.
  static const std::unordered_map<std::string, int64_t> constants = {
      {"src_shared_base", int64_t(shared_aperture)},   {"src_shared_limit", int64_t(shared_aperture | 0xffffffffu)},
      {"src_private_base", int64_t(private_aperture)}, {"src_private_limit", int64_t(private_aperture | 0xffffffffu)},
      {"src_pops_exiting_wave_id", 0},
  };
  if (auto it = constants.find(t); it != constants.end()) {
    op.kind = Operand::imm;
    op.ivalue = it->second;
    return true;
  }
  return false;
}

bool parse_value(std::string t, Operand& op) {
  // Modifiers around the operand: -x, |x|, -|x|, neg(x), abs(x), sext(x).
  for (bool again = true; again;) {
    again = false;
    if (t.starts_with("neg(") && t.back() == ')') {
      op.neg = true, t = t.substr(4, t.size() - 5), again = true;
    } else if (t.starts_with("abs(") && t.back() == ')') {
      op.abs = true, t = t.substr(4, t.size() - 5), again = true;
    } else if (t.starts_with("sext(") && t.back() == ')') {
      op.sext = true, t = t.substr(5, t.size() - 6), again = true;
    } else if (t.size() > 2 && t.front() == '|' && t.back() == '|') {
      op.abs = true, t = t.substr(1, t.size() - 2), again = true;
    } else if (t.size() > 1 && t[0] == '-' && !std::isdigit(static_cast<unsigned char>(t[1]))) {
      op.neg = true, t = t.substr(1), again = true;
    }
  }
  if (t == "off") {
    op.kind = Operand::off;
    return true;
  }
  if (parse_register(t, op)) return true;
  if (t.starts_with("lit(") && t.back() == ')') {
    t = t.substr(4, t.size() - 5);
    op.literal = true;
  }
  int64_t v = 0;
  if (parse_int(t, v)) {
    op.kind = Operand::imm;
    op.ivalue = v;
    // Values outside the inline range were encoded as a 32-bit literal.
    if (!(v >= -16 && v <= 64)) op.literal = true;
    return true;
  }
  char* end = nullptr;
  double d = std::strtod(t.c_str(), &end);
  if (end && *end == 0 && t.find('.') != std::string::npos) {
    op.kind = Operand::imm;
    op.float_text = true;
    op.fvalue = d;
    return true;
  }
  return false;
}

SdwaSel parse_sel(const std::string& s) {
  static const std::unordered_map<std::string, SdwaSel> m = {
      {"BYTE_0", SdwaSel::byte0}, {"BYTE_1", SdwaSel::byte1}, {"BYTE_2", SdwaSel::byte2},
      {"BYTE_3", SdwaSel::byte3}, {"WORD_0", SdwaSel::word0}, {"WORD_1", SdwaSel::word1},
      {"DWORD", SdwaSel::dword}};
  auto it = m.find(s);
  return it == m.end() ? SdwaSel::dword : it->second;
}

uint32_t parse_bits(const std::string& list) {  // "[0,1,1]" -> bit mask
  uint32_t bits = 0;
  int i = 0;
  for (auto& part : split_top(list.substr(1, list.size() - 2), ',')) {
    if (trim(part) == "1") bits |= 1u << i;
    ++i;
  }
  return bits;
}

// "[3,2,1,0]" -> lane selects packed `bits` apiece (quad_perm: 2 bits x 4, dpp8: 3 bits x 8).
uint32_t pack_lanes(const std::string& list, int bits, size_t count) {
  auto parts = split_top(list.substr(1, list.size() - 2), ',');
  uint32_t packed = 0;
  for (size_t i = 0; i < parts.size() && i < count; ++i) {
    int64_t lane = 0;
    parse_int(trim(parts[i]), lane);
    packed |= static_cast<uint32_t>(lane & ((1 << bits) - 1)) << (bits * i);
  }
  return packed;
}

void parse_modifier(const std::string& m, Inst& inst) {
  Modifiers& mod = inst.mod;
  size_t colon = m.find(':');
  std::string key = colon == std::string::npos ? m : m.substr(0, colon);
  std::string value = colon == std::string::npos ? std::string() : m.substr(colon + 1);
  int64_t n = 0;
  parse_int(value, n);
  if (key == "clamp") mod.clamp = true;
  else if (key == "mul") mod.omod = static_cast<float>(n);
  else if (key == "div") mod.omod = 0.5f;
  else if (key == "offset") {
    if (value.starts_with("swizzle(")) mod.has_swizzle = true;  // raw value comes from the MCInst
    else mod.offset = n;
  } else if (key == "offset0") mod.offset0 = static_cast<uint32_t>(n);
  else if (key == "offset1") mod.offset1 = static_cast<uint32_t>(n);
  else if (key == "offen") mod.offen = true;
  else if (key == "idxen") mod.idxen = true;
  else if (key == "glc" || key == "sc0") mod.glc = true;
  else if (key == "gds") mod.gds = true;
  else if (key == "row_mask") mod.row_mask = static_cast<uint32_t>(n);
  else if (key == "bank_mask") mod.bank_mask = static_cast<uint32_t>(n);
  else if (key == "bound_ctrl") mod.bound_ctrl = true;  // printed only when set (0 and 1 both mean "write 0")
  else if (key == "fi") mod.fetch_inactive = n != 0;
  else if (key == "quad_perm") mod.dpp = DppKind::quad_perm, mod.dpp_value = pack_lanes(value, 2, 4);
  else if (key == "dpp8") mod.dpp = DppKind::dpp8, mod.dpp_value = pack_lanes(value, 3, 8);
  else if (key == "row_shl") mod.dpp = DppKind::row_shl, mod.dpp_value = static_cast<uint32_t>(n);
  else if (key == "row_shr") mod.dpp = DppKind::row_shr, mod.dpp_value = static_cast<uint32_t>(n);
  else if (key == "row_ror") mod.dpp = DppKind::row_ror, mod.dpp_value = static_cast<uint32_t>(n);
  else if (key == "wave_shl") mod.dpp = DppKind::wave_shl;
  else if (key == "wave_rol") mod.dpp = DppKind::wave_rol;
  else if (key == "wave_shr") mod.dpp = DppKind::wave_shr;
  else if (key == "wave_ror") mod.dpp = DppKind::wave_ror;
  else if (key == "row_mirror") mod.dpp = DppKind::row_mirror;
  else if (key == "row_half_mirror") mod.dpp = DppKind::row_half_mirror;
  else if (key == "row_bcast") mod.dpp = n == 15 ? DppKind::row_bcast15 : DppKind::row_bcast31;
  else if (key == "row_share") mod.dpp = DppKind::row_share, mod.dpp_value = static_cast<uint32_t>(n);
  else if (key == "row_xmask") mod.dpp = DppKind::row_xmask, mod.dpp_value = static_cast<uint32_t>(n);
  else if (key == "dst_sel") mod.sdwa = true, mod.dst_sel = parse_sel(value);
  else if (key == "src0_sel") mod.sdwa = true, mod.src0_sel = parse_sel(value);
  else if (key == "src1_sel") mod.sdwa = true, mod.src1_sel = parse_sel(value);
  else if (key == "dst_unused") {
    mod.sdwa = true;
    mod.dst_preserve = value == "UNUSED_PRESERVE";
    mod.dst_sext = value == "UNUSED_SEXT";
  } else if (key == "op_sel") mod.op_sel = parse_bits(value);
  else if (key == "op_sel_hi") mod.op_sel_hi = parse_bits(value), mod.has_op_sel_hi = true;
  else if (key == "neg_lo") mod.neg_lo = parse_bits(value);
  else if (key == "neg_hi") mod.neg_hi = parse_bits(value);
  // Everything else (cache policy bits, waitcnt fields, s_delay_alu fields) has no functional effect.
}

}  // namespace

void parse_operands(const std::string& text, Inst& inst) {
  // Separate modifiers (space-separated, after the operands) from comma-separated operands.
  auto pieces = split_top(text, ',');
  std::vector<std::string> operands;
  std::vector<std::string> modifiers;
  for (size_t i = 0; i < pieces.size(); ++i) {
    std::string p = trim(pieces[i]);
    if (p.empty()) continue;
    auto words = split_top(p, ' ');
    bool first = true;
    for (auto& w : words) {
      w = trim(w);
      if (w.empty()) continue;
      Operand probe;
      if (first && parse_value(w, probe)) {  // the first word after a comma is an operand if it parses as one
        operands.push_back(w);
      } else {
        modifiers.push_back(w);
      }
      first = false;
    }
  }
  for (auto& o : operands) {
    Operand op;
    parse_value(o, op);
    inst.ops.push_back(op);
  }
  for (auto& m : modifiers) parse_modifier(m, inst);
}

// --- The MC layer ---------------------------------------------------------------------------

struct Decoder::Impl {
  std::unique_ptr<llvm::MCRegisterInfo> mri;
  std::unique_ptr<llvm::MCAsmInfo> mai;
  std::unique_ptr<llvm::MCSubtargetInfo> sti;
  std::unique_ptr<llvm::MCInstrInfo> mii;
  std::unique_ptr<llvm::MCContext> context;
  std::unique_ptr<llvm::MCDisassembler> disassembler;
  std::unique_ptr<llvm::MCInstPrinter> printer;
  mutable std::mutex lock;  // MC objects are not thread-safe
};

Decoder::Decoder(const Processor& processor, int wave_size) : impl_(std::make_unique<Impl>()) {
  initialize_llvm();
  llvm::Triple triple("amdgcn-amd-amdhsa");
  std::string error;
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target) throw Error("amdsim: the AMDGPU target is not available in this LLVM: " + error);
  llvm::MCTargetOptions options;
  impl_->mri.reset(target->createMCRegInfo(triple));
  impl_->mai.reset(target->createMCAsmInfo(*impl_->mri, triple, options));
  std::string features = wave_size == 32 ? "+wavefrontsize32" : "+wavefrontsize64";
  impl_->sti.reset(target->createMCSubtargetInfo(triple, processor.name, features));
  impl_->mii.reset(target->createMCInstrInfo());
  if (!impl_->mri || !impl_->mai || !impl_->sti || !impl_->mii)
    throw Error("amdsim: LLVM could not create the MC layer for " + processor.name);
  impl_->context = std::make_unique<llvm::MCContext>(triple, impl_->mai.get(), impl_->mri.get(), impl_->sti.get());
  impl_->disassembler.reset(target->createMCDisassembler(*impl_->sti, *impl_->context));
  impl_->printer.reset(target->createMCInstPrinter(triple, 0, *impl_->mai, *impl_->mii, *impl_->mri));
  if (!impl_->disassembler || !impl_->printer)
    throw Error("amdsim: LLVM could not create the AMDGPU disassembler for " + processor.name);
}

Decoder::~Decoder() = default;

std::string Decoder::opcode_name(unsigned opcode) const { return normalize_name(impl_->mii->getName(opcode).str()); }

Inst Decoder::decode(std::span<const uint8_t> bytes, uint64_t address) const {
  std::lock_guard<std::mutex> g(impl_->lock);
  Inst inst;
  llvm::MCInst mc;
  uint64_t size = 0;
  auto status = impl_->disassembler->getInstruction(mc, size, llvm::ArrayRef<uint8_t>(bytes.data(), bytes.size()),
                                                    address, llvm::nulls());
  if (status != llvm::MCDisassembler::Success || size == 0) {
    inst.size = 4;
    inst.valid = false;
    uint32_t word = 0;
    std::memcpy(&word, bytes.data(), std::min<size_t>(4, bytes.size()));
    char buf[32];
    std::snprintf(buf, sizeof buf, ".long 0x%08x", word);
    inst.text = buf;
    inst.name = "<undecodable>";
    return inst;
  }
  inst.size = static_cast<uint16_t>(size);
  inst.valid = true;
  std::string text;
  llvm::raw_string_ostream os(text);
  impl_->printer->printInst(&mc, address, "", *impl_->sti, os);
  os.flush();
  inst.text = trim(text);
  for (char& c : inst.text)
    if (c == '\t') c = ' ';
  std::string llvm_name = impl_->mii->getName(mc.getOpcode()).str();
  // The ds_swizzle pattern is printed symbolically; take the raw offset from the MCInst.
  auto raw_immediates = [&] {
    std::vector<int64_t> imms;
    for (const auto& o : mc) if (o.isImm()) imms.push_back(o.getImm());
    return imms;
  };
  auto fill = [&](Inst& part, const std::string& name, const std::string& part_text) {
    part.name = normalize_name(name);
    part.vop3 = llvm::StringRef(llvm::StringRef(name).lower()).contains("_e64");
    size_t type = part.name.find("_f", 1);
    for (; type != std::string::npos; type = part.name.find("_f", type + 1))
      if (type + 2 < part.name.size() && std::isdigit(static_cast<unsigned char>(part.name[type + 2]))) break;
    if (type != std::string::npos && part.name.compare(type, 4, "_f32") != 0) part.round_shift = 2;
    part.size = inst.size;
    part.valid = true;
    size_t space = part_text.find(' ');
    std::string mnemonic = space == std::string::npos ? part_text : part_text.substr(0, space);
    if (space != std::string::npos) parse_operands(part_text.substr(space + 1), part);
    if (part.name.find("_i64") == std::string::npos)  // integer literals of unsigned/bit operands
      for (Operand& op : part.ops)
        if (op.kind == Operand::imm && op.literal && !op.float_text) op.zext64 = true;
    if (part.name == "v_cndmask_b32" && part.ops.size() == 3) {  // VOPD: the mask is VCC_LO, not printed
      Operand vcc;
      vcc.kind = Operand::sgpr;
      vcc.index = vcc_lo;
      part.ops.push_back(vcc);
    }
    if (part.mod.has_swizzle) {
      auto imms = raw_immediates();
      if (!imms.empty()) part.mod.swizzle = static_cast<uint32_t>(imms[0]);
    }
    part.text = part_text;
    (void)mnemonic;
  };
  size_t x = llvm_name.find("_X_");
  size_t sep = inst.text.find(" :: ");
  if (x != std::string::npos && sep != std::string::npos) {  // VOPD: two instructions in one
    std::string second_name = "V_" + llvm_name.substr(x + 3);
    std::string first_name = llvm_name.substr(0, x);
    std::string whole = inst.text;
    fill(inst, first_name, whole.substr(0, sep));
    inst.second = std::make_shared<Inst>();
    fill(*inst.second, second_name, whole.substr(sep + 4));
    inst.text = trim(text);
    for (char& c : inst.text)
      if (c == '\t') c = ' ';
    return inst;
  }
  fill(inst, llvm_name, inst.text);
  return inst;
}

}  // namespace amdsim
