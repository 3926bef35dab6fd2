// The generator: random, well-defined Programs from a seed.
//
// Well-definedness by construction:
//  - integer arithmetic has total semantics in rocjit (wrapping, x/0 = 0, x%0 = x, masked
//    shifts, saturating float->int); the OpenCL C printer spells those out explicitly;
//  - every input index is reduced modulo the input length, local-array indices modulo their size;
//  - outputs: a work-item writes only cells of its own linear id, and only when it is inside the
//    logical extents (the launch is rounded up to whole groups);
//  - shared arrays: in each phase (between two top-level barriers) an array is either written
//    and read only at the work-item's own cell, read anywhere, or (atomic arrays) updated only by
//    atomics whose cell has one fixed, order-independent operation; phase 0 initialises them;
//  - atomic return values are discarded (they depend on the order);
//  - barriers are only at the top level of the kernel body (uniform), and so are wave operations
//    (expressions of top-level statements of a phase, after phase 0's array initialisation);
//  - small types (i8 u8 i16 u16 f16) mix with others only as rocjit's promotion rules allow
//    (common_type, widens), never by an implicit narrowing, which the DSL refuses;
//  - loops have small bounded trip counts; approximate math results go straight to outputs
//    compared within a tolerance, so their error never feeds bit-exact results.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

#include "smith.hpp"

namespace smith {

const char* ty_name(Ty t) {
  switch (t) {
    case Ty::i32: return "i32";
    case Ty::u32: return "u32";
    case Ty::i64: return "i64";
    case Ty::f32: return "f32";
    case Ty::f64: return "f64";
    case Ty::b: return "bool";
    case Ty::i8: return "i8";
    case Ty::u8: return "u8";
    case Ty::i16: return "i16";
    case Ty::u16: return "u16";
    case Ty::f16: return "f16";
  }
  return "?";
}

const char* wave_op_name(WaveOp w) {
  static const char* names[] = {"reduce_add", "reduce_min", "reduce_max", "reduce_and", "reduce_or",
                                "reduce_xor", "inclusive_scan_add", "exclusive_scan_add", "shuffle_xor", "broadcast",
                                "read_first", "any", "all", "count", "ballot", "mma"};
  return names[static_cast<int>(w)];
}

// README "Types and promotion": the wider float if either is a float; two integers: the same type,
// else the wider of the same signedness, else (mixed signedness) the unsigned one when it is at
// least as wide, else the signed one. No promotion of 8- and 16-bit integers to int.
Ty common_type(Ty a, Ty b) {
  if (a == Ty::b) a = Ty::i32;
  if (b == Ty::b) b = Ty::i32;
  if (a == b) return a;
  if (is_float(a) || is_float(b)) {
    if (!is_float(a)) return b;
    if (!is_float(b)) return a;
    return bits(a) >= bits(b) ? a : b;
  }
  if (is_signed(a) == is_signed(b)) return bits(a) >= bits(b) ? a : b;
  Ty s = is_signed(a) ? a : b, u = is_signed(a) ? b : a;
  return bits(u) >= bits(s) ? u : s;
}

// Implicit conversions: to a wider integer of the same signedness, unsigned to a wider signed
// integer, f16 -> f32 -> f64. Nothing else (no int -> float, no narrowing, no sign change).
bool widens(Ty from, Ty to) {
  if (from == to) return true;
  if (from == Ty::b || to == Ty::b) return false;
  if (is_float(from) && is_float(to)) return bits(to) > bits(from);
  if (!is_int(from) || !is_int(to) || bits(to) <= bits(from)) return false;
  return is_signed(from) == is_signed(to) || !is_signed(from);
}

double half_value(uint16_t h) {
  int e = (h >> 10) & 0x1f;
  double m = h & 0x3ff;
  double v = e == 31 ? (m ? NAN : INFINITY) : e == 0 ? std::ldexp(m, -24) : std::ldexp(1024 + m, e - 25);
  return (h & 0x8000) ? -v : v;
}

Ty home_type(Ty t) {
  switch (t) {
    case Ty::i8: case Ty::i16: return Ty::i32;
    case Ty::u8: case Ty::u16: return Ty::u32;
    case Ty::f16: return Ty::f32;
    default: return t;
  }
}

namespace {

struct Rng {
  uint64_t s;
  uint64_t next() {
    uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  int below(int n) { return static_cast<int>(next() % static_cast<uint64_t>(n)); }
  int range(int lo, int hi) { return lo + below(hi - lo + 1); }
  bool chance(int percent) { return below(100) < percent; }
};

Ty value_type(Rng& r) { return static_cast<Ty>(r.below(kValueTypes)); }
constexpr Ty kSmallTypes[] = {Ty::i8, Ty::u8, Ty::i16, Ty::u16, Ty::f16};
constexpr Ty kAllTypes[] = {Ty::i32, Ty::u32, Ty::i64, Ty::f32, Ty::f64, Ty::i8, Ty::u8, Ty::i16, Ty::u16, Ty::f16};

// Truncates v to a small integer type (sign-extended to 64 bits for the signed ones).
uint64_t small_int_bits(int64_t v, Ty t) {
  switch (t) {
    case Ty::i8: return static_cast<uint64_t>(static_cast<int64_t>(static_cast<int8_t>(v)));
    case Ty::u8: return static_cast<uint8_t>(v);
    case Ty::i16: return static_cast<uint64_t>(static_cast<int64_t>(static_cast<int16_t>(v)));
    case Ty::u16: return static_cast<uint16_t>(v);
    default: return static_cast<uint64_t>(v);
  }
}

// binary16 bits: edge values (zeros, one, the largest finite, the smallest subnormal and normal,
// 2048 where the spacing becomes 2) or any finite pattern.
uint64_t half_bits(Rng& r) {
  static const uint16_t special[] = {0x0000, 0x8000, 0x3c00, 0xbc00, 0x3800, 0x4000, 0x4200, 0x7bff, 0xfbff, 0x0001,
                                     0x8001, 0x03ff, 0x0400, 0x6800, 0x6801, 0x5640, 0xd640, 0x3555, 0x4900, 0xc500};
  if (r.chance(50)) return special[r.below(sizeof special / sizeof special[0])];
  uint16_t h = static_cast<uint16_t>(r.next());
  if ((h & 0x7c00) == 0x7c00) h &= 0xbfff;  // no inf or NaN constants (as for f32 and f64)
  return h;
}

uint64_t int_bits(Rng& r, Ty t) {
  if (t == Ty::i8 || t == Ty::u8 || t == Ty::i16 || t == Ty::u16) {
    // Their own edges, and integers at f16's rounding boundaries (2049: a tie, 65519/65520: the
    // last value that rounds to 65504 and the first that overflows).
    static const int64_t small[] = {0, 1, -1, 2, 7, 8, 15, 16, 127, -128, 128, 255, 0x7fff, -0x8000, 0x8000, 0xffff,
                                    2049, 2051, 65519, 65520, -100, 100};
    if (r.chance(40)) return small_int_bits(small[r.below(sizeof small / sizeof small[0])], t);
  }
  static const int64_t special[] = {0, 1, -1, 2, 3, 7, 31, 32, 33, 63, 64, 100, -2, -100, 255, 65535,
                                    INT32_MAX, INT32_MIN, INT64_MAX, INT64_MIN, 0x7fff, 12345678};
  int64_t v;
  if (r.chance(60)) v = special[r.below(sizeof special / sizeof special[0])];
  else if (r.chance(50)) v = r.range(-1000, 1000);
  else v = static_cast<int64_t>(r.next());
  if (t == Ty::i8 || t == Ty::u8 || t == Ty::i16 || t == Ty::u16) return small_int_bits(v, t);
  if (t == Ty::i32) return static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(v)));
  if (t == Ty::u32) return static_cast<uint32_t>(v);
  return static_cast<uint64_t>(v);
}

double float_value(Rng& r, bool allow_special) {
  static const double special[] = {0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 3.0, 10.0, 0.1, -2.5, 1e10, -1e-10, 65536.0, 3.75, 1e30, -7.0,
                                 1.0 + 0x1p-11 + 0x1p-50, 65519.0, 65520.0, 2049.0, 0x1p-24, 0x1p-25};
  if (allow_special && r.chance(3)) {
    static const double inf[] = {INFINITY, -INFINITY, NAN};
    return inf[r.below(3)];
  }
  if (r.chance(50)) return special[r.below(sizeof special / sizeof special[0])];
  if (r.chance(50)) return r.range(-1000, 1000) / 8.0;
  return std::ldexp(static_cast<double>(r.next() >> 11) / 9007199254740992.0 - 0.5, r.range(-20, 40));
}

// A float value at or next to the midpoint of two neighbouring binary16 values (a tie, or just
// above or below one, by far less than an f32 ulp): rounding it to f16 through f32 first would be
// wrong (double rounding), rounding it directly is right. Also the tie above 65504 (-> inf).
uint64_t near_half_tie_bits(Rng& r, Ty t) {
  uint16_t h = static_cast<uint16_t>(r.next() & 0x7fff);
  if ((h & 0x7c00) == 0x7c00) h = 0x7bff;
  double a = half_value(h), b = h == 0x7bff ? 65536.0 : half_value(static_cast<uint16_t>(h + 1));
  double d = (a + b) / 2;
  int how = r.below(3);
  if (how) d += (how == 1 ? 1 : -1) * std::ldexp(b - a, -r.range(15, 45));
  if (r.chance(50)) d = -d;
  if (t == Ty::f32) return std::bit_cast<uint32_t>(static_cast<float>(d));
  return std::bit_cast<uint64_t>(d);
}

uint64_t float_bits(Rng& r, Ty t) {
  if (t == Ty::f16) return half_bits(r);
  double d = float_value(r, false);
  if (t == Ty::f32) return std::bit_cast<uint32_t>(static_cast<float>(d));
  return std::bit_cast<uint64_t>(d);
}

class Gen {
 public:
  Gen(uint64_t seed, const GenOptions& opt) : r{seed * 0x2545f4914f6cdd1dull + 1}, opt(opt) { p.seed = seed; }

  Program run() {
    geometry();
    p.n_in = r.range(1, 70);
    wave_kernel = opt.wave_ops && r.chance(15);
    // A third of the wave kernels get a 1-D group of whole 64-lane waves, where mma can appear.
    if (wave_kernel && p.group_size() % 64 != 0 && r.chance(33)) {
      const int l = r.chance(50) ? 64 : 128, groups = r.range(1, 3);
      p.dims = 1;
      p.l[0] = l;
      p.l[1] = p.l[2] = 1;
      p.n[0] = (groups - 1) * l + r.range(1, l);
      p.n[1] = p.n[2] = 1;
    }
    int nvars = r.range(1, 6);
    for (int i = 0; i < nvars; ++i) {
      Ty t = any_type();
      p.vars.push_back(t);
      p.var_init.push_back(r.chance(50) ? konst(t) : leaf(t, /*init=*/true));
    }
    int nshared = r.range(0, 3);
    for (int i = 0; i < nshared; ++i) {
      SharedArr s;
      s.atomic = opt.atomics && r.chance(30);
      if (s.atomic) {
        s.t = r.chance(50) ? Ty::i32 : Ty::u32;
        s.cells = r.range(1, 4);
        for (int c = 0; c < s.cells; ++c) {
          s.ops.push_back(static_cast<uint8_t>(r.below(6)));
          s.init.push_back(int_bits(r, s.t));
        }
      } else {
        s.t = value_type(r);
      }
      p.shared.push_back(s);
    }
    int nlocal = r.range(0, 2);
    for (int i = 0; i < nlocal; ++i) p.locals.push_back({value_type(r), r.range(1, 6)});
    for (int i = 0; i < 3; ++i) {
      p.atom_cells[i] = r.range(1, 4);
      for (int c = 0; c < p.atom_cells[i]; ++c) p.atom_ops[i].push_back(static_cast<uint8_t>(r.below(6)));
    }
    for (int t = 0; t < kValueTypes; ++t) p.out_slots[t] = r.range(1, 3);
    p.approx_slots[0] = r.range(1, 2);
    p.approx_slots[1] = r.range(1, 2);

    int nphases = p.shared.empty() ? 1 : r.range(2, 4);
    for (int ph = 0; ph < nphases; ++ph) {
      std::vector<Mode> modes;
      for (auto& s : p.shared) {
        if (ph == 0) modes.push_back(Mode::own);
        else if (s.atomic) modes.push_back(r.chance(50) ? Mode::atomic : Mode::read);
        else modes.push_back(r.chance(50) ? Mode::own : Mode::read);
      }
      p.modes.push_back(modes);
    }
    for (int ph = 0; ph < nphases; ++ph) {
      phase = ph;
      std::vector<Stmt> stmts;
      if (ph == 0) {
        no_mem = true;  // the initialisers read no shared or local array
        for (size_t i = 0; i < p.locals.size(); ++i) {
          Stmt s;
          s.k = SK::init_local;
          s.keep = true;
          s.a = static_cast<int>(i);
          s.t = p.locals[i].t;
          s.e.push_back(konst(p.locals[i].t));
          stmts.push_back(std::move(s));
        }
        for (size_t i = 0; i < p.shared.size(); ++i) {
          Stmt s;
          s.keep = true;
          s.a = static_cast<int>(i);
          if (p.shared[i].atomic) {
            s.k = SK::init_satom;
          } else {
            s.k = SK::store_shared;
            s.t = p.shared[i].t;
            s.e.push_back(expr(p.shared[i].t, 2));
          }
          stmts.push_back(std::move(s));
        }
        no_mem = false;
      }
      const int inits = static_cast<int>(stmts.size());  // phase 0: the arrays' initialisation comes first
      block(stmts, r.range(2, 7), 0);
      if (opt.wave_barriers && r.chance(35)) {
        Stmt s;
        s.k = SK::wavebarrier;
        stmts.insert(stmts.begin() + inits + r.below(static_cast<int>(stmts.size()) - inits + 1), std::move(s));
      }
      if (wave_kernel) {
        // At least one wave operation per phase, stored straight to an output.
        wave_ctx = true;
        Stmt s;
        s.k = SK::store_out;
        s.t = value_type(r);
        s.a = r.below(p.out_slots[static_cast<int>(s.t)]);
        s.e.push_back(wave_expr(s.t, 3, wave_ops_for(s.t)));
        wave_ctx = false;
        stmts.insert(stmts.begin() + inits + r.below(static_cast<int>(stmts.size()) - inits + 1), std::move(s));
      }
      p.phases.push_back(std::move(stmts));
    }
    // Epilogue: every variable lands in an output cell of its own.
    for (size_t v = 0; v < p.vars.size(); ++v) {
      Stmt s;
      s.k = SK::store_out;
      s.t = home_type(p.vars[v]);  // small variables widen implicitly into i32, u32 or f32
      s.a = p.out_slots[static_cast<int>(s.t)]++;
      Expr e;
      e.k = EK::var;
      e.t = p.vars[v];
      e.a = static_cast<int>(v);
      s.e.push_back(e);
      p.phases.back().push_back(std::move(s));
    }
    return std::move(p);
  }

 private:
  Rng r;
  GenOptions opt;
  Program p;
  int phase = 0;
  bool no_mem = false;
  bool wave_kernel = false;  // this kernel has wave operations
  bool wave_ctx = false;     // generating an expression of a top-level statement (uniform control flow)

  // Any type of an expression or variable: the five wide ones, and the small ones when enabled.
  Ty any_type() {
    if (opt.small_types && r.chance(40)) return kSmallTypes[r.below(5)];
    return value_type(r);
  }
  // A type u for the other operand of an operation of type t: `t op u` has type t (README "Types
  // and promotion"). Mixed operands only with small types, one of the two being small.
  Ty partner(Ty t) {
    if (!opt.small_types || !r.chance(25)) return t;
    std::vector<Ty> ok;
    for (Ty u : kAllTypes)
      if (common_type(t, u) == t && (is_small(t) || is_small(u))) ok.push_back(u);
    return ok.empty() ? t : ok[r.below(static_cast<int>(ok.size()))];
  }
  // A type u that widens implicitly to t (assignments and stores), sometimes narrower than t.
  Ty narrower(Ty t) {
    if (!opt.small_types || !r.chance(25)) return t;
    std::vector<Ty> ok;
    for (Ty u : kAllTypes)
      if (widens(u, t) && (is_small(t) || is_small(u))) ok.push_back(u);
    return ok.empty() ? t : ok[r.below(static_cast<int>(ok.size()))];
  }
  // The value operand type of a statement updating a t: `v = x` takes implicit widenings only,
  // `v op= x` any x with `v op x` of type t.
  Ty operand_for(Ty t, int compound) { return compound ? partner(t) : narrower(t); }

  // The wave operations that can give a t.
  std::vector<WaveOp> wave_ops_for(Ty t) {
    std::vector<WaveOp> ok;
    if (t == Ty::b) {
      ok = {WaveOp::any, WaveOp::all};
    } else {
      ok = {WaveOp::shuffle_xor, WaveOp::broadcast, WaveOp::read_first};
      if (is_int(t))
        for (int w = 0; w <= static_cast<int>(WaveOp::exclusive_scan_add); ++w) ok.push_back(static_cast<WaveOp>(w));
      if (t == Ty::i32) ok.push_back(WaveOp::count);
      if (t == Ty::i64) ok.push_back(WaveOp::ballot);
      if ((t == Ty::f32 || t == Ty::f64) && p.group_size() % 64 == 0) ok.push_back(WaveOp::mma);
    }
    return ok;
  }

  // A wave operation of type t, one of `ok` (uniform control flow only: wave_ctx).
  Expr wave_expr(Ty t, int depth, const std::vector<WaveOp>& ok) {
    Expr e;
    e.k = EK::wave;
    e.t = t;
    const bool mma_ok = std::find(ok.begin(), ok.end(), WaveOp::mma) != ok.end();
    WaveOp w = mma_ok && r.chance(40) ? WaveOp::mma : ok[r.below(static_cast<int>(ok.size()))];
    e.op = static_cast<uint8_t>(w);
    int d = std::max(0, depth - 1);
    if (w == WaveOp::mma) {
      for (int k = 0; k < 3; ++k) e.kids.push_back(expr(t, d));
      e.a = r.below(t == Ty::f32 ? 8 : 4);  // f32: 4..7 are xf32
    } else if (w == WaveOp::any || w == WaveOp::all || w == WaveOp::count || w == WaveOp::ballot) {
      e.kids.push_back(expr(Ty::b, d));
    } else {
      e.kids.push_back(expr(t, d));
      if (w == WaveOp::shuffle_xor || w == WaveOp::broadcast)  // lanes past the wave give the lane its own value
        e.kids.push_back(r.chance(60) ? i32const(r.range(0, 70)) : expr(Ty::i32, std::min(d, 1)));
    }
    return e;
  }
  std::vector<int> loop_stack;  // loop ids in scope

  void geometry() {
    p.dims = r.range(1, 3);
    static const int l1[] = {1, 3, 7, 16, 32, 33, 64, 65, 100, 128, 256};
    static const int l2[] = {1, 2, 3, 4, 5, 8, 16};
    static const int l3[] = {1, 2, 3, 4};
    for (int d = 0; d < p.dims; ++d) {
      int l = p.dims == 1 ? l1[r.below(11)] : p.dims == 2 ? l2[r.below(7)] : l3[r.below(4)];
      int groups = r.range(1, p.dims == 1 ? 4 : 3);
      p.l[d] = l;
      p.n[d] = std::max(1, (groups - 1) * l + r.range(1, l));  // usually not a multiple of l
    }
  }

  Expr konst(Ty t) {
    Expr e;
    e.k = EK::konst;
    e.t = t;
    if (t == Ty::b) e.bits = r.chance(50);
    else e.bits = is_float(t) ? float_bits(r, t) : int_bits(r, t);
    return e;
  }
  // rocjit refuses an integer division or remainder by the constant 0 when the kernel is traced
  // (a CompileError: the user almost certainly did not mean it), so zero divisors come only from
  // computed values; a constant 0 divisor becomes 3.
  void nonzero_divisor(Ty t, int bin, Expr& divisor) {
    if (is_float(t) || (bin != static_cast<int>(Bin::div) && bin != static_cast<int>(Bin::rem))) return;
    if (divisor.k == EK::konst && divisor.bits == 0) divisor.bits = 3;
  }
  Expr i32const(int v) {
    Expr e;
    e.k = EK::konst;
    e.t = Ty::i32;
    e.bits = static_cast<uint64_t>(static_cast<int64_t>(v));
    return e;
  }
  Expr cast(Ty t, Expr x) {
    if (x.t == t) return x;
    Expr e;
    e.k = EK::cast;
    e.t = t;
    e.kids.push_back(std::move(x));
    return e;
  }

  Expr id() {
    Expr e;
    e.k = EK::id;
    e.t = Ty::i32;
    e.op = static_cast<uint8_t>(r.chance(60) ? r.below(2) : r.below(6));
    e.a = r.below(p.dims);
    return e;
  }

  // A leaf of type t; `init` leaves use no variables, loops or shared memory.
  Expr leaf(Ty t, bool init = false) {
    for (int tries = 0; tries < 8; ++tries) {
      int c = r.below(10);
      if (c <= 1) return konst(t);
      if (c == 2) return cast(t, id());
      if (c == 3 || c == 4) {
        Expr e;
        e.k = EK::load_in;
        e.t = t == Ty::b ? Ty::i32 : is_small(t) ? value_type(r) : t;  // no small inputs: cast
        e.kids.push_back(index_expr(init));
        return t == Ty::b ? cmp_of(std::move(e)) : cast(t, std::move(e));
      }
      if (init) continue;
      if (c == 5 || c == 6) {
        std::vector<int> vs;
        for (size_t v = 0; v < p.vars.size(); ++v)
          if (p.vars[v] == t || (t != Ty::b && r.chance(20))) vs.push_back(static_cast<int>(v));
        if (vs.empty()) continue;
        Expr e;
        e.k = EK::var;
        e.a = vs[r.below(static_cast<int>(vs.size()))];
        e.t = p.vars[e.a];
        if (t == Ty::b) return cmp_of(std::move(e));
        return cast(t, std::move(e));
      }
      if (c == 7 && !loop_stack.empty()) {
        Expr e;
        e.k = EK::loopidx;
        e.t = Ty::i32;
        e.a = loop_stack[r.below(static_cast<int>(loop_stack.size()))];
        return t == Ty::b ? cmp_of(std::move(e)) : cast(t, std::move(e));
      }
      if (c == 8 && !p.shared.empty() && !no_mem) {
        int s = r.below(static_cast<int>(p.shared.size()));
        Mode m = p.modes[phase][s];
        if (m == Mode::atomic) continue;
        if (p.shared[s].atomic && phase == 0) continue;  // initialised by work-item 0 in phase 0
        Expr e;
        e.k = EK::load_shared;
        e.t = p.shared[s].t;
        e.a = s;
        if (p.shared[s].atomic) {
          e.own = false;
          e.kids.push_back(index_expr(false));
        } else if (m == Mode::own) {
          e.own = true;
        } else {
          e.own = r.chance(20);
          if (!e.own) e.kids.push_back(index_expr(false));
        }
        return t == Ty::b ? cmp_of(std::move(e)) : cast(t, std::move(e));
      }
      if (c == 9 && !p.locals.empty() && !no_mem) {
        Expr e;
        e.k = EK::load_local;
        e.a = r.below(static_cast<int>(p.locals.size()));
        e.t = p.locals[e.a].t;
        e.kids.push_back(opt.local_dynamic ? index_expr(false) : i32const(r.below(p.locals[e.a].size)));
        return t == Ty::b ? cmp_of(std::move(e)) : cast(t, std::move(e));
      }
    }
    return konst(t);
  }

  Expr cmp_of(Expr x) {
    Expr e;
    e.k = EK::cmp;
    e.t = Ty::b;
    e.op = static_cast<uint8_t>(r.below(6));
    Ty t = x.t;
    e.kids.push_back(std::move(x));
    e.kids.push_back(r.chance(50) ? konst(t) : leaf(t));
    return e;
  }

  // An i32 index: mostly ids, loop counters and variables, sometimes anything.
  Expr index_expr(bool init) {
    if (init || r.chance(60)) return leaf(Ty::i32, init);
    return expr(Ty::i32, 2);
  }

  Expr expr(Ty t, int depth) {
    if (wave_ctx && depth > 0 && r.chance(12))
      if (std::vector<WaveOp> ok = wave_ops_for(t); !ok.empty()) return wave_expr(t, depth, ok);
    if (depth <= 0 || r.chance(25)) return leaf(t);
    if (t == Ty::b) {
      int c = r.below(10);
      if (c < 6) {
        Expr e;
        e.k = EK::cmp;
        e.t = Ty::b;
        e.op = static_cast<uint8_t>(r.below(6));
        // Both operands convert to their common type (any two types: the DSL converts).
        Ty u = any_type(), w = u;
        if (opt.small_types && r.chance(30)) {
          w = kAllTypes[r.below(10)];
          if (!is_small(u) && !is_small(w)) w = u;
        }
        e.kids.push_back(expr(u, depth - 1));
        e.kids.push_back(expr(w, depth - 1));
        return e;
      }
      Expr e;
      e.k = EK::logic;
      e.t = Ty::b;
      e.op = static_cast<uint8_t>(r.below(3));
      e.kids.push_back(expr(Ty::b, depth - 1));
      if (e.op != static_cast<uint8_t>(Logic::not_)) e.kids.push_back(expr(Ty::b, depth - 1));
      return e;
    }
    int c = r.below(20);
    if (c < 10) {
      Expr e;
      e.k = EK::bin;
      e.t = t;
      if (is_float(t)) e.op = static_cast<uint8_t>(r.below(4));
      else e.op = static_cast<uint8_t>(r.below(12));
      Ty ta = t, tb = t;
      if (e.op == static_cast<uint8_t>(Bin::shl) || e.op == static_cast<uint8_t>(Bin::shr)) {
        // A shift has its left operand's type; the amount (any integer) is converted to it.
        if (opt.small_types && r.chance(25)) {
          static const Ty ints[] = {Ty::i32, Ty::u32, Ty::i64, Ty::i8, Ty::u8, Ty::i16, Ty::u16};
          tb = ints[r.below(7)];
          if (!is_small(t) && !is_small(tb)) tb = t;
        }
      } else if (r.chance(50)) {
        ta = partner(t);
      } else {
        tb = partner(t);
      }
      e.kids.push_back(expr(ta, depth - 1));
      e.kids.push_back(expr(tb, depth - 1));
      // rocjit refuses an integer division or remainder by the constant 0 when the kernel is
      // traced (a CompileError, as the user almost certainly did not mean it): a zero divisor
      // comes from computed values only.
      nonzero_divisor(t, e.op, e.kids[1]);
      return e;
    }
    if (c < 12) {
      Expr e;
      e.k = EK::sel;
      e.t = t;
      e.kids.push_back(expr(Ty::b, depth - 1));
      bool first = r.chance(50);
      e.kids.push_back(expr(first ? partner(t) : t, depth - 1));
      e.kids.push_back(expr(first ? t : partner(t), depth - 1));
      return e;
    }
    if (c < 15) {
      Ty from = any_type();
      if (t == Ty::f16 && (from == Ty::f32 || from == Ty::f64) && r.chance(40)) {
        Expr k;  // a rounding edge of the conversion
        k.k = EK::konst;
        k.t = from;
        k.bits = near_half_tie_bits(r, from);
        return cast(t, std::move(k));
      }
      return cast(t, expr(from, depth - 1));
    }
    if (c < 17) {
      Expr e;
      e.k = EK::un;
      e.t = t;
      if (is_float(t)) e.op = static_cast<uint8_t>(r.range(static_cast<int>(Un::neg), static_cast<int>(Un::sqrt)));
      else e.op = static_cast<uint8_t>(r.below(is_signed(t) ? 3 : 2));
      if (is_float(t) && e.op == static_cast<uint8_t>(Un::not_)) e.op = static_cast<uint8_t>(Un::fabs);
      if (is_float(t) && e.op == static_cast<uint8_t>(Un::abs)) e.op = static_cast<uint8_t>(Un::neg);
      e.kids.push_back(expr(t, depth - 1));
      return e;
    }
    if (is_float(t)) {
      Expr e;
      e.k = EK::math;
      e.t = t;
      e.op = static_cast<uint8_t>(t == Ty::f16 ? 1 + r.below(2) : r.below(3));  // no f16 fma
      int n = e.op == static_cast<uint8_t>(MathOp::fma) ? 3 : 2;
      for (int i = 0; i < n; ++i) e.kids.push_back(expr(t, depth - 1));
      if (e.op == static_cast<uint8_t>(MathOp::fma)) return e;
      // fmin/fmax(+0, -0): rocjit orders -0 < +0, OpenCL C's fmin/fmax do not (PoCL may return
      // either zero). Adding +0.0 makes both zeros +0 and leaves every other result alone.
      Expr sum;
      sum.k = EK::bin;
      sum.t = t;
      sum.op = static_cast<uint8_t>(Bin::add);
      sum.kids.push_back(std::move(e));
      Expr zero;
      zero.k = EK::konst;
      zero.t = t;
      sum.kids.push_back(zero);
      return sum;
    }
    return leaf(t);
  }

  void block(std::vector<Stmt>& out, int n, int depth) {
    for (int i = 0; i < n; ++i) out.push_back(stmt(depth));
  }

  Stmt stmt(int depth) {
    for (;;) {
      // Wave operations only in expressions of top-level statements (work-group-uniform control
      // flow); the bodies below reset it.
      wave_ctx = wave_kernel && depth == 0;
      int c = r.below(20);
      Stmt s;
      if (c < 5) {
        if (p.vars.empty()) continue;
        s.k = SK::assign;
        s.a = r.below(static_cast<int>(p.vars.size()));
        s.t = p.vars[s.a];
        // op 0: v = e; else v op= e with op - 1 a Bin (Var's += -= *= /= %= &= |= ^=).
        if (r.chance(40)) s.op = static_cast<uint8_t>(1 + r.below(is_float(s.t) ? 4 : 8));
        s.e.push_back(expr(operand_for(s.t, s.op), r.range(1, 4)));
        if (s.op) nonzero_divisor(s.t, s.op - 1, s.e.back());
        return s;
      }
      if (c < 8) {
        s.k = SK::store_out;
        s.t = value_type(r);
        s.a = r.below(p.out_slots[static_cast<int>(s.t)]);
        s.e.push_back(expr(narrower(s.t), r.range(1, 4)));
        return s;
      }
      if (c == 8) {
        if (!opt.approx) continue;
        s.k = SK::store_approx;
        s.t = r.chance(50) && opt.f64_approx ? Ty::f64 : Ty::f32;
        s.a = r.below(p.approx_slots[s.t == Ty::f32 ? 0 : 1]);
        s.op = static_cast<uint8_t>(r.below(7));
        s.e.push_back(expr(s.t, 2));
        return s;
      }
      if (c == 9) {
        std::vector<int> own;
        for (size_t i = 0; i < p.shared.size(); ++i)
          if (!p.shared[i].atomic && p.modes[phase][i] == Mode::own) own.push_back(static_cast<int>(i));
        if (own.empty()) continue;
        s.k = SK::store_shared;
        s.a = own[r.below(static_cast<int>(own.size()))];
        s.t = p.shared[s.a].t;
        if (r.chance(40)) s.op = static_cast<uint8_t>(1 + r.below(4));  // element += -= *= /=
        s.e.push_back(expr(operand_for(s.t, s.op), 3));
        if (s.op) nonzero_divisor(s.t, s.op - 1, s.e.back());
        return s;
      }
      if (c == 10) {
        if (p.locals.empty()) continue;
        s.k = SK::store_local;
        s.a = r.below(static_cast<int>(p.locals.size()));
        s.t = p.locals[s.a].t;
        if (r.chance(40)) s.op = static_cast<uint8_t>(1 + r.below(4));
        s.e.push_back(opt.local_dynamic ? index_expr(false) : i32const(r.below(p.locals[s.a].size)));
        s.e.push_back(expr(operand_for(s.t, s.op), 3));
        if (s.op) nonzero_divisor(s.t, s.op - 1, s.e.back());
        return s;
      }
      if (c == 11) {
        if (!opt.atomics) continue;
        int which = r.below(opt.i64_atomics ? 3 : 2);
        s.k = SK::atomic_g;
        s.t = which == 0 ? Ty::i32 : which == 1 ? Ty::u32 : Ty::i64;
        s.a = r.below(p.atom_cells[which]);
        s.e.push_back(expr(s.t, 2));
        return s;
      }
      if (c == 12) {
        std::vector<int> at;
        for (size_t i = 0; i < p.shared.size(); ++i)
          if (p.shared[i].atomic && p.modes[phase][i] == Mode::atomic) at.push_back(static_cast<int>(i));
        if (at.empty()) continue;
        s.k = SK::atomic_s;
        s.a = at[r.below(static_cast<int>(at.size()))];
        s.t = p.shared[s.a].t;
        s.b = r.below(p.shared[s.a].cells);
        s.e.push_back(expr(s.t, 2));
        return s;
      }
      if (depth >= 3) continue;
      if (c < 15) {
        s.k = SK::if_;
        s.e.push_back(expr(Ty::b, 2));
        wave_ctx = false;
        block(s.body, r.range(1, 3), depth + 1);
        if (r.chance(50)) block(s.els, r.range(1, 2), depth + 1);
        return s;
      }
      if (c < 17 || loop_stack.size() >= 2) {
        if (loop_stack.size() >= 2) continue;
        s.k = SK::for_;
        s.a = p.loops++;
        s.b = r.range(-3, 3);  // begin
        s.op = static_cast<uint8_t>(r.range(0, 4));  // the trip count is below op + 1
        s.e.push_back(r.chance(50) ? i32const(r.range(0, 5)) : index_expr(false));
        wave_ctx = false;
        loop_stack.push_back(s.a);
        block(s.body, r.range(1, 3), depth + 1);
        if (r.chance(30)) s.body.insert(s.body.begin() + r.below(static_cast<int>(s.body.size()) + 1), brk());
        loop_stack.pop_back();
        return s;
      }
      if (c < 19) {
        s.k = SK::while_;
        s.a = p.loops++;
        s.b = r.range(0, 4);  // trip count bound
        wave_ctx = false;
        loop_stack.push_back(s.a);
        block(s.body, r.range(1, 3), depth + 1);
        if (r.chance(40)) s.body.insert(s.body.begin() + r.below(static_cast<int>(s.body.size()) + 1), brk());
        loop_stack.pop_back();
        return s;
      }
      if (!loop_stack.empty()) return brk();
    }
  }

  Stmt brk() {
    wave_ctx = false;
    Stmt s;
    s.k = SK::brk;
    s.e.push_back(expr(Ty::b, 2));
    return s;
  }
};

size_t expr_size(const Expr& e) {
  size_t n = 1;
  for (auto& k : e.kids) n += expr_size(k);
  return n;
}
size_t stmts_size(const std::vector<Stmt>& v) {
  size_t n = 0;
  for (auto& s : v) {
    n += 1;
    for (auto& e : s.e) n += expr_size(e);
    n += stmts_size(s.body) + stmts_size(s.els);
  }
  return n;
}

bool expr_has_wave(const Expr& e) {
  if (e.k == EK::wave) return true;
  for (auto& k : e.kids)
    if (expr_has_wave(k)) return true;
  return false;
}
bool stmts_have_wave(const std::vector<Stmt>& v) {
  for (auto& s : v) {
    for (auto& e : s.e)
      if (expr_has_wave(e)) return true;
    if (stmts_have_wave(s.body) || stmts_have_wave(s.els)) return true;
  }
  return false;
}

}  // namespace

bool has_wave_ops(const Program& p) {
  for (auto& e : p.var_init)
    if (expr_has_wave(e)) return true;
  for (auto& ph : p.phases)
    if (stmts_have_wave(ph)) return true;
  return false;
}

size_t Program::size() const {
  size_t n = 0;
  for (auto& ph : phases) n += stmts_size(ph);
  for (auto& e : var_init) n += expr_size(e);
  return n;
}

Program generate(uint64_t seed, const GenOptions& opt) { return Gen(seed, opt).run(); }

Buffers make_buffers(const Program& p) {
  Rng r{p.seed ^ 0x5eedf00dull};
  Buffers b;
  size_t n = static_cast<size_t>(p.n_in);
  for (size_t i = 0; i < n; ++i) {
    b.in_i.push_back(static_cast<int32_t>(int_bits(r, Ty::i32)));
    b.in_u.push_back(static_cast<uint32_t>(int_bits(r, Ty::u32)));
    b.in_l.push_back(static_cast<int64_t>(int_bits(r, Ty::i64)));
    // 1 in 8 float inputs sits at a rounding edge of f16 (inputs reach f16 through casts).
    b.in_f.push_back(r.chance(12) ? std::bit_cast<float>(static_cast<uint32_t>(near_half_tie_bits(r, Ty::f32)))
                                  : static_cast<float>(float_value(r, true)));
    b.in_d.push_back(r.chance(12) ? std::bit_cast<double>(near_half_tie_bits(r, Ty::f64)) : float_value(r, true));
  }
  size_t w = static_cast<size_t>(p.work_items());
  b.out_i.assign(w * p.out_slots[0], 0x5a5a5a5a);
  b.out_u.assign(w * p.out_slots[1], 0xa5a5a5a5u);
  b.out_l.assign(w * p.out_slots[2], 0x5a5a5a5a5a5a5a5all);
  b.out_f.assign(w * p.out_slots[3], 1234.5f);
  b.out_d.assign(w * p.out_slots[4], -4321.25);
  b.ap_f.assign(w * p.approx_slots[0], 7.0f);
  b.ap_d.assign(w * p.approx_slots[1], 9.0);
  for (int c = 0; c < p.atom_cells[0]; ++c) b.at_i.push_back(static_cast<int32_t>(int_bits(r, Ty::i32)));
  for (int c = 0; c < p.atom_cells[1]; ++c) b.at_u.push_back(static_cast<uint32_t>(int_bits(r, Ty::u32)));
  for (int c = 0; c < p.atom_cells[2]; ++c) b.at_l.push_back(static_cast<int64_t>(int_bits(r, Ty::i64)));
  return b;
}

}  // namespace smith
