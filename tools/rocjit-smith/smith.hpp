// rocjit-smith: random well-defined kernels, run on several executors and compared.
//
// A generated kernel is first a small AST (Program). It is then
//  - traced through the public DSL (rocjit::kernel with Var, If, For, While, Break, shared::array,
//    local::array, atomics, barrier) for the rocjit executors (cpu, sim:<processor>),
//  - printed as OpenCL C for PoCL,
//  - printed as a C++ test body (for reduced kernels).
// The AST is what the reducer shrinks.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace smith {

// i32 u32 i64 f32 f64 are the types of the kernel's inputs, outputs and arrays; b is only for
// conditions; the small types i8 u8 i16 u16 f16 are types of expressions and variables (reached
// from the wide types through casts and constants, and leaving through casts and widenings).
enum class Ty : uint8_t { i32, u32, i64, f32, f64, b, i8, u8, i16, u16, f16 };
inline constexpr int kValueTypes = 5;  // i32 u32 i64 f32 f64 (b is only for conditions)
inline bool is_small(Ty t) { return t == Ty::i8 || t == Ty::u8 || t == Ty::i16 || t == Ty::u16 || t == Ty::f16; }
inline bool is_float(Ty t) { return t == Ty::f32 || t == Ty::f64 || t == Ty::f16; }
inline bool is_int(Ty t) {
  return t == Ty::i32 || t == Ty::u32 || t == Ty::i64 || t == Ty::i8 || t == Ty::u8 || t == Ty::i16 || t == Ty::u16;
}
inline bool is_signed(Ty t) { return t == Ty::i32 || t == Ty::i64 || t == Ty::i8 || t == Ty::i16; }
inline int bits(Ty t) {
  switch (t) {
    case Ty::i8: case Ty::u8: return 8;
    case Ty::i16: case Ty::u16: case Ty::f16: return 16;
    case Ty::i64: case Ty::f64: return 64;
    default: return 32;
  }
}
const char* ty_name(Ty t);  // "i32" ...
// rocjit's promotion rules (README "Types and promotion"), written out independently: the type of
// `a op b` for two values (also comparisons and select), and the implicit (exact) widenings.
Ty common_type(Ty a, Ty b);
bool widens(Ty from, Ty to);
// The output array a value of type t goes to (by an implicit widening): i8/i16 -> i32,
// u8/u16 -> u32, f16 -> f32, the wide types themselves.
Ty home_type(Ty t);
// The value of binary16 bits (exact).
double half_value(uint16_t bits);

enum class EK : uint8_t { konst, id, var, loopidx, load_in, load_shared, load_local, bin, cmp, sel, cast, un, math, logic, wave };
enum class Bin : uint8_t { add, sub, mul, div, rem, and_, or_, xor_, shl, shr, min, max };
enum class Cmp : uint8_t { eq, ne, lt, le, gt, ge };
enum class Un : uint8_t { neg, not_, abs, fabs, floor, ceil, sqrt };
enum class MathOp : uint8_t { fma, fmin, fmax };
enum class Logic : uint8_t { and_, or_, not_ };
enum class IdKind : uint8_t { global_id, local_id, group_id, local_size, num_groups, global_size };
enum class Approx : uint8_t { exp, exp2, log, log2, sin, cos, rsqrt };
enum class AtomOp : uint8_t { add, min, max, and_, or_, xor_ };
// Wave operations (rocjit::dsl::wave). The value operand is kids[0]; shuffle_xor's mask and
// broadcast's lane are kids[1] (i32). any/all are bool, count i32, ballot i64 (the DSL's u64
// ballot, cast to i64); the others have their operand's type (reductions and scans: integers).
// mma (dsl::mma, f32 or f64, shape 16x16x4) takes kids[0..2] as this lane's element of A, of B
// and of every element of C, and gives element `a` (0..3) of the lane's result; for f32, `a` 4..7
// is an xf32 mma (mma::A<mma::xf32>, shape 16x16x8: kids[0] and kids[1] in the lane's first
// element of A and of B) giving element a - 4. It needs work-groups of whole 64-lane waves
// (generated only for such geometries).
enum class WaveOp : uint8_t { reduce_add, reduce_min, reduce_max, reduce_and, reduce_or, reduce_xor, inclusive_scan_add,
                              exclusive_scan_add, shuffle_xor, broadcast, read_first, any, all, count, ballot, mma };
inline constexpr int kWaveOps = 16;
const char* wave_op_name(WaveOp w);  // "reduce_add" ...

struct Expr {
  EK k = EK::konst;
  Ty t = Ty::i32;
  uint8_t op = 0;
  int a = 0;          // var / loop / array index, id dimension
  bool own = false;   // load_shared: the work-item's own cell
  uint64_t bits = 0;  // konst: the value's bits (ints sign-extended to 64)
  std::vector<Expr> kids;
};

enum class SK : uint8_t { assign, store_out, store_approx, store_shared, store_local, atomic_g, atomic_s, init_satom, init_local, if_, for_, while_, brk,
                          wavebarrier };

struct Stmt {
  SK k = SK::assign;
  Ty t = Ty::i32;
  uint8_t op = 0;
  int a = 0, b = 0;
  bool keep = false;  // initialisation the reducer must not delete (reads would see garbage)
  std::vector<Expr> e;
  std::vector<Stmt> body, els;
};

// Mode of a shared array during one phase (between two barriers).
enum class Mode : uint8_t { own, read, atomic };

struct SharedArr {
  Ty t = Ty::i32;
  bool atomic = false;             // atomic arrays: `cells` cells, each with one operation
  int cells = 0;
  std::vector<uint8_t> ops;        // AtomOp per cell
  std::vector<uint64_t> init;      // initial value per cell (atomic arrays)
};
struct LocalArr {
  Ty t = Ty::i32;
  int size = 1;
};

struct Program {
  uint64_t seed = 0;
  int dims = 1;
  int n[3] = {1, 1, 1};  // logical extents (work-items that store outputs)
  int l[3] = {1, 1, 1};  // work-group shape
  int n_in = 16;         // length of every input array
  std::vector<Ty> vars;
  std::vector<Expr> var_init;
  std::vector<SharedArr> shared;
  std::vector<LocalArr> locals;
  int out_slots[kValueTypes] = {1, 1, 1, 1, 1};
  int approx_slots[2] = {1, 1};  // f32, f64
  int atom_cells[3] = {1, 1, 1}; // i32, u32, i64 global atomic arrays
  std::vector<uint8_t> atom_ops[3];
  std::vector<std::vector<Stmt>> phases;
  std::vector<std::vector<Mode>> modes;  // [phase][shared array]
  int loops = 0;                         // loop ids handed out

  int grid(int d) const { return (n[d] + l[d] - 1) / l[d]; }
  int group_size() const { return l[0] * l[1] * l[2]; }
  int work_items() const { return n[0] * n[1] * n[2]; }
  size_t size() const;  // statements + expression nodes
};

struct GenOptions {
  bool approx = true;    // exp/log/sin/... into tolerance-compared outputs
  bool atomics = true;
  bool i64_atomics = true;
  bool f64_approx = true;
  // Local-array indices computed at run time (LLVM keeps small private arrays in VGPRs and indexes
  // them with s_set_gpr_idx_on on gfx9 and v_movrel* on gfx11; amdsim runs both).
  bool local_dynamic = true;
  // i8 u8 i16 u16 f16 expressions and variables (with mixed-type operations and implicit widenings).
  bool small_types = true;
  // Wave operations at the top level of phases, in about 15% of the kernels; such kernels run only
  // on executors with 64-lane waves (see wave_size below).
  bool wave_ops = true;
  // wavebarrier() between top-level statements of a phase (uniform control flow) in about a third
  // of the kernels; no data crosses it, so every executor must agree (PoCL has no wave barrier:
  // its OpenCL C gets a comment).
  bool wave_barriers = true;
};

Program generate(uint64_t seed, const GenOptions& opt);

// Whether the kernel has a wave operation (its results depend on the wave size).
bool has_wave_ops(const Program& p);
// The wave size of an executor: 64 for cpu (rocjit emulates wave64), 64 or 32 for sim:<processor>
// (from the compiled code object), 0 for pocl (OpenCL 1.2 has no sub-groups).
int executor_wave_size(const std::string& executor);
// Wave operations are compared only among executors of this wave size.
inline constexpr int kWaveOpsWaveSize = 64;

// Text forms.
std::string to_opencl(const Program& p, bool inject = false);
std::string to_cpp(const Program& p);

// Host data: inputs and initial outputs, deterministic from the seed.
struct Buffers {
  std::vector<int32_t> in_i;
  std::vector<uint32_t> in_u;
  std::vector<int64_t> in_l;
  std::vector<float> in_f;
  std::vector<double> in_d;
  std::vector<int32_t> out_i;
  std::vector<uint32_t> out_u;
  std::vector<int64_t> out_l;
  std::vector<float> out_f;
  std::vector<double> out_d;
  std::vector<float> ap_f;
  std::vector<double> ap_d;
  std::vector<int32_t> at_i;
  std::vector<uint32_t> at_u;
  std::vector<int64_t> at_l;
};
Buffers make_buffers(const Program& p);

// Executors. run() fills `b`'s output arrays; throws on an executor error.
void run_rocjit(const Program& p, const std::string& device, Buffers& b, bool inject);
void run_pocl(const Program& p, Buffers& b, bool inject);
bool pocl_available(std::string& why);
// A known PoCL bug the kernel would hit (tests/smith/known-external.md), or nullptr. Such kernels
// are not run on PoCL; the campaign counts and prints them.
const char* pocl_known_bug(const Program& p);
// The kernel's .rjir text as traced through the DSL.
std::string rjir(const Program& p);
// Whether f64 exp/log/sin/... compile for an AMDGPU processor (they need the ROCm device libraries).
bool f64_approx_available(const std::string& processor, std::string& why);

// Tolerances (documented in README.md of this tool).
inline constexpr uint64_t kApproxUlpF32 = 4, kApproxUlpF64 = 4;
// f32 sin/cos on AMDGPU are v_sin/v_cos of x * (1 / 2pi): the rounding of that product gives an
// absolute error of about |x| * 2^-23 (|x| <= 32 here), far more than 4 ulp near a root.
inline constexpr double kApproxAbsF32 = 1e-5, kApproxAbsF64 = 1e-14;

// "" when equal, else a description of the first difference.
std::string compare(const Program& p, const Buffers& a, const Buffers& b);

}  // namespace smith
