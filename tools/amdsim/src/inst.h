// Decoded instructions and the wave state they execute on: the simulator's internal vocabulary.
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "amdsim/amdsim.hpp"

namespace amdsim {

// Indices into the scalar register file: s0..s105, then the named registers at their GFX9
// encodings (GFX11's m0/null moved; the decoder maps names, not numbers).
enum ScalarIndex : uint16_t {
  flat_scratch_lo = 102,
  flat_scratch_hi = 103,
  xnack_mask_lo = 104,
  vcc_lo = 106,
  vcc_hi = 107,
  ttmp0 = 108,
  m0 = 124,
  null_reg = 125,
  exec_lo = 126,
  exec_hi = 127,
  scalar_file_size = 128,
};

// Aperture bases (high 32 bits) that generic (flat) addresses use for LDS and private memory.
// Host pointers on x86-64 never reach 2^60, so they cannot collide.
constexpr uint32_t shared_aperture_hi = 0x10000000u;
constexpr uint32_t private_aperture_hi = 0x20000000u;
constexpr uint64_t shared_aperture = uint64_t(shared_aperture_hi) << 32;
constexpr uint64_t private_aperture = uint64_t(private_aperture_hi) << 32;
// The scratch backing memory as the hardware addresses it: the base of the private segment
// buffer V# (gfx90a) and of flat_scratch_init. Bit 47 is set, so it fits a V#'s 48-bit base and
// no x86-64 user-space pointer (below 2^47) is ever mistaken for it. Each wave's slice starts at
// this base plus the wave's scratch offset (Wave::private_base).
constexpr uint64_t private_backing = uint64_t(1) << 47;

struct Operand {
  enum Kind : uint8_t { none, sgpr, vgpr, agpr, scc, imm, off } kind = none;
  uint16_t index = 0;   // register number (sgpr: ScalarIndex space)
  uint8_t dwords = 1;   // register tuple width
  bool neg = false, abs = false;
  bool literal = false;    // a 32-bit literal (f64 operands take it as the high word)
  bool float_text = false; // an inline constant printed as a float: its bits depend on the width
  double fvalue = 0;
  int64_t ivalue = 0;
  bool hi16 = false;       // true16 .h half
  bool lo16 = false;       // true16 .l half
  bool sext = false;       // SDWA sext(): sign-extend the selected part
  // A 32-bit literal read as a 64-bit integer is sign-extended only for signed (i64) operands;
  // for unsigned and bit operands (v_mov_b64, s_mov_b64, s_lshl_b64, v_cmp_lt_u64...) the
  // hardware zero-extends it (LLVM relies on it: llvm-project PR 70274 and its successors).
  bool zext64 = false;
  bool is_reg() const { return kind == sgpr || kind == vgpr || kind == agpr; }
};

enum class DppKind : uint8_t { none, quad_perm, row_shl, row_shr, row_ror, wave_shl, wave_rol, wave_shr, wave_ror,
                               row_mirror, row_half_mirror, row_bcast15, row_bcast31, row_share, row_xmask, dpp8 };
enum class SdwaSel : uint8_t { byte0, byte1, byte2, byte3, word0, word1, dword };

struct Modifiers {
  bool clamp = false;
  float omod = 1.0f;
  int64_t offset = 0;
  uint32_t offset0 = 0, offset1 = 0;
  bool offen = false, idxen = false, glc = false, gds = false;
  // DPP
  DppKind dpp = DppKind::none;
  uint32_t dpp_value = 0;  // quad_perm packed 2 bits per lane, shift amount, dpp8 selects (3 bits each)
  uint32_t row_mask = 0xf, bank_mask = 0xf;
  bool bound_ctrl = false, fetch_inactive = false;
  // SDWA
  bool sdwa = false;
  SdwaSel dst_sel = SdwaSel::dword, src0_sel = SdwaSel::dword, src1_sel = SdwaSel::dword;
  bool dst_preserve = false, dst_sext = false;
  // VOP3P / true16 op_sel
  uint32_t op_sel = 0, op_sel_hi = 0x7;
  bool has_op_sel_hi = false;
  uint32_t neg_lo = 0, neg_hi = 0;  // VOP3P per-half negation
  uint32_t swizzle = 0;  // ds_swizzle offset
  bool has_swizzle = false;
};

struct Wave;
struct Inst;
using Handler = void (*)(Wave&, const Inst&);

struct Inst {
  std::string name;  // handler key: lower case, encoding and form suffixes stripped, gfx11 renames folded
  std::string text;  // as printed by LLVM, for messages
  Handler handler = nullptr;
  uint16_t size = 0;
  bool valid = false;
  bool vop3 = false;  // _e64 form (integer ops may then write an SGPR carry)
  // The FLOAT_ROUND_MODE field of MODE that rounds this instruction's result: bits 1:0 (shift 0)
  // for f32 results, bits 3:2 (shift 2) for f64 and f16 results (by the first type in the name:
  // v_cvt_f32_f64 rounds to f32).
  uint8_t round_shift = 0;
  std::vector<Operand> ops;
  Modifiers mod;
  std::shared_ptr<Inst> second;  // VOPD: the Y half (this is the X half)
};

class RaceChecker;
struct RaceGroupShadow;

// A work-group's shared state.
struct Group {
  std::vector<uint8_t> lds;
  uint32_t id[3] = {0, 0, 0};
  uint32_t linear = 0;                      // x + y * grid.x + z * grid.x * grid.y
  uint32_t waves = 0;
  RaceGroupShadow* race_shadow = nullptr;   // the race checker's LDS shadow (check_races)
};

// One wave's architectural state.
struct Wave {
  const Program* program = nullptr;
  const KernelInfo* kernel = nullptr;
  Memory* memory = nullptr;
  Group* group = nullptr;
  int wave_size = 64;
  uint64_t lane_mask = ~0ull;  // all lanes of the wave size
  std::array<uint32_t, scalar_file_size> s{};
  bool scc_bit = false;
  std::vector<uint32_t> v;  // [register * 64 + lane]
  std::vector<uint32_t> a;  // accumulation registers (gfx90a/gfx942)
  uint64_t pc = 0;          // byte offset into the program image
  enum class Status { running, at_barrier, ended } status = Status::running;
  // Private memory: `private_size` bytes per lane.
  std::vector<uint8_t> scratch;
  uint32_t private_size = 0;
  // Where this wave's private slice starts in the scratch backing space (private_backing + the
  // scratch wave offset): MUBUF addresses through the private segment buffer, and on processors
  // without architected flat scratch FLAT_SCRATCH, are taken relative to it, so a kernel that
  // does not add its wave offset to the V# base or to flat_scratch_init faults.
  uint64_t private_base = private_backing;
  // No architected flat scratch (gfx90a): scratch_* and flat accesses to the private aperture are
  // relative to FLAT_SCRATCH, the SGPR pair flat_scratch_lo/hi the kernel's prologue sets up.
  bool flat_scratch_sgprs = false;
  // Read-only memory of this launch outside the device allocations (kernarg segment, dispatch packet).
  std::vector<std::pair<uint64_t, uint64_t>> launch_ranges;
  uint64_t lane_instructions = 0, instructions = 0;
  uint32_t denorm_mode = 0xf, round_mode = 0;
  // The numerics of f16/bf16 MFMA (Processor::matrix_numerics, matrix.cpp): 0 a chain of fmas,
  // 2 pairs with subnormals flushed (gfx90a), 4 groups of four (gfx942, gfx950).
  uint8_t matrix_group = 0;
  bool ieee = true;
  uint32_t wave_in_group = 0;
  // VGPR index mode (gfx9 s_set_gpr_idx_on): M0[7:0] is added to the VGPR operands M0[15:12]
  // selects (bit 0 SRC0, 1 SRC1, 2 SRC2, 3 DST) of every vector instruction until s_set_gpr_idx_off.
  bool gpr_idx_on = false;
  // Where the wave last waited at a barrier, and where it ended (s_barrier / s_endpgm PC offsets).
  uint64_t barrier_pc = 0, end_pc = 0;
  // The race checker (LaunchOptions::check_races; null otherwise): the barriers the wave passed,
  // those with a global fence, its wavebarriers, and whether rocjit's global-fence marker
  // precedes the next barrier.
  RaceChecker* race = nullptr;
  uint32_t barrier_epoch = 0, global_epoch = 0, wave_epoch = 0;
  bool global_fence_pending = false;
  // rocjit's atomic marker ran: the next memory instruction (then atomic_inst, its instruction
  // number) is an atomic access.
  bool atomic_pending = false;
  uint64_t atomic_inst = ~0ull;
  // rocjit's acquire and release markers (race_acquire | race_release) for the next atomic op,
  // and those of the atomic instruction atomic_inst.
  uint8_t order_pending = 0, atomic_order = 0;

  uint64_t exec() const {
    return wave_size == 32 ? s[exec_lo] : (uint64_t(s[exec_hi]) << 32 | s[exec_lo]);
  }
  void set_exec(uint64_t e) {
    s[exec_lo] = uint32_t(e);
    if (wave_size == 64) s[exec_hi] = uint32_t(e >> 32);
  }
  uint64_t vcc() const { return wave_size == 32 ? s[vcc_lo] : (uint64_t(s[vcc_hi]) << 32 | s[vcc_lo]); }
  uint32_t& vreg(uint32_t r, int lane) { return v[size_t(r) * 64 + lane]; }
  // 64-bit view of a scalar pair.
  uint64_t s64(uint32_t i) const { return uint64_t(s[i + 1]) << 32 | s[i]; }
  void set_s64(uint32_t i, uint64_t x) {
    s[i] = uint32_t(x);
    s[i + 1] = uint32_t(x >> 32);
  }
  [[noreturn]] void fail(const Inst& inst, const std::string& what) const;
  // The PC-relative virtual address space of the program (s_getpc, s_setpc).
  uint64_t code_base() const { return reinterpret_cast<uint64_t>(program->image()); }
};

// --- Operand access (shared by every handler family) -----------------------------------------

inline uint32_t f32_bits(float f) { return std::bit_cast<uint32_t>(f); }
inline float bits_f32(uint32_t b) { return std::bit_cast<float>(b); }
inline uint64_t f64_bits(double d) { return std::bit_cast<uint64_t>(d); }
inline double bits_f64(uint64_t b) { return std::bit_cast<double>(b); }
uint16_t f32_to_f16_bits(float f);
float f16_bits_to_f32(uint16_t h);

// The 32-bit value of operand `op` in `lane`, as the instruction's 32-bit (float or integer) type
// sees it. `fp16` says the operand is a 16-bit float (inline constants differ).
uint32_t read32(const Wave& w, const Operand& op, int lane, bool fp16 = false);
// 64-bit: integer operands sign-extend literals; f64 operands take a literal as the high word.
uint64_t read64(const Wave& w, const Operand& op, int lane, bool f64);
void write32(Wave& w, const Operand& op, int lane, uint32_t value);
void write64(Wave& w, const Operand& op, int lane, uint64_t value);
// Scalar operand (no lane): sgpr, literal, inline constant, scc.
inline uint32_t sread32(const Wave& w, const Operand& op) { return read32(w, op, 0); }
inline uint64_t sread64(const Wave& w, const Operand& op, bool f64 = false) { return read64(w, op, 0, f64); }
void swrite32(Wave& w, const Operand& op, uint32_t value);
void swrite64(Wave& w, const Operand& op, uint64_t value);

// Registration of instruction handlers by name (one function per family file).
struct HandlerTable;
void add_handler(HandlerTable& table, const std::string& name, Handler h);
void register_scalar(HandlerTable&);
void register_vector(HandlerTable&);
void register_memory(HandlerTable&);
Handler find_handler(const std::string& name);
// Runs a VOPD pair (`x` with x.second): sources of both halves are read before either writes.
void execute_dual(Wave& w, const Inst& x);
// Runs one decoded instruction (a VOPD pair included) under the wave's round mode: the host's
// rounding follows MODE.FP_ROUND when it is not round-to-nearest-even for the instruction's type.
void execute_rounded(Wave& w, const Inst& inst);
void execute_indexed(Wave& w, const Inst& inst);
inline void execute_inst(Wave& w, const Inst& inst) {
  if (w.gpr_idx_on) [[unlikely]] return execute_indexed(w, inst);
  if (w.round_mode != 0) [[unlikely]] return execute_rounded(w, inst);
  if (inst.second) execute_dual(w, inst);
  else inst.handler(w, inst);
}
const HandlerTable& handlers();
std::vector<std::string> implemented_names();

// Memory checks: throws a memory fault naming the instruction, lane and address.
void* global_address(Wave& w, const Inst& inst, uint64_t address, uint64_t bytes, int lane, bool write);

// Memory other waves (other host threads: work-groups run in parallel) may touch is read and
// written with relaxed host atomics, one per piece the ISA makes single-copy atomic: each
// naturally aligned 1-, 2-, 4- or 8-byte access is one access (CDNA2/CDNA3/RDNA3 ISA manuals,
// "Memory Model"; LLVM's AMDGPU memory model lowers `load/store atomic i64` to plain
// global_load/store_dwordx2 relying on it). Wider accesses (dwordx3, dwordx4) are atomic per
// aligned 8-byte piece, as the hardware guarantees nothing more. Unaligned pieces go byte by byte.
// `dwords` 32-bit words at `p` into `out` / from `in`.
void load_dwords_relaxed(const uint8_t* p, uint32_t* out, uint32_t dwords);
void store_dwords_relaxed(uint8_t* p, const uint32_t* in, uint32_t dwords);
uint8_t* lds_address(Wave& w, const Inst& inst, uint64_t address, uint64_t bytes, int lane);
uint8_t* private_address(Wave& w, const Inst& inst, uint64_t offset, uint64_t bytes, int lane);
// A lane's scratch_* offset or private-aperture flat offset, resolved against FLAT_SCRATCH when
// the processor has no architected flat scratch.
uint8_t* flat_scratch_address(Wave& w, const Inst& inst, uint64_t offset, uint64_t bytes, int lane);

}  // namespace amdsim
