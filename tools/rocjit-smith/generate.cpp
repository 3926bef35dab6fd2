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
//  - barriers are only at the top level of the kernel body (uniform);
//  - loops have small bounded trip counts; approximate math results go straight to outputs
//    compared within a tolerance, so their error never feeds bit-exact results.
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
  }
  return "?";
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

uint64_t int_bits(Rng& r, Ty t) {
  static const int64_t special[] = {0, 1, -1, 2, 3, 7, 31, 32, 33, 63, 64, 100, -2, -100, 255, 65535,
                                    INT32_MAX, INT32_MIN, INT64_MAX, INT64_MIN, 0x7fff, 12345678};
  int64_t v;
  if (r.chance(60)) v = special[r.below(sizeof special / sizeof special[0])];
  else if (r.chance(50)) v = r.range(-1000, 1000);
  else v = static_cast<int64_t>(r.next());
  if (t == Ty::i32) return static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(v)));
  if (t == Ty::u32) return static_cast<uint32_t>(v);
  return static_cast<uint64_t>(v);
}

double float_value(Rng& r, bool allow_special) {
  static const double special[] = {0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 3.0, 10.0, 0.1, -2.5, 1e10, -1e-10, 65536.0, 3.75, 1e30, -7.0};
  if (allow_special && r.chance(3)) {
    static const double inf[] = {INFINITY, -INFINITY, NAN};
    return inf[r.below(3)];
  }
  if (r.chance(50)) return special[r.below(sizeof special / sizeof special[0])];
  if (r.chance(50)) return r.range(-1000, 1000) / 8.0;
  return std::ldexp(static_cast<double>(r.next() >> 11) / 9007199254740992.0 - 0.5, r.range(-20, 40));
}

uint64_t float_bits(Rng& r, Ty t) {
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
    int nvars = r.range(1, 6);
    for (int i = 0; i < nvars; ++i) {
      Ty t = value_type(r);
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
      block(stmts, r.range(2, 7), 0);
      p.phases.push_back(std::move(stmts));
    }
    // Epilogue: every variable lands in an output cell of its own.
    for (size_t v = 0; v < p.vars.size(); ++v) {
      Stmt s;
      s.k = SK::store_out;
      s.t = p.vars[v];
      s.a = p.out_slots[static_cast<int>(s.t)]++;
      Expr e;
      e.k = EK::var;
      e.t = s.t;
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
        e.t = t == Ty::b ? Ty::i32 : t;
        e.kids.push_back(index_expr(init));
        return t == Ty::b ? cmp_of(std::move(e)) : e;
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
    if (depth <= 0 || r.chance(25)) return leaf(t);
    if (t == Ty::b) {
      int c = r.below(10);
      if (c < 6) {
        Expr e;
        e.k = EK::cmp;
        e.t = Ty::b;
        e.op = static_cast<uint8_t>(r.below(6));
        Ty u = value_type(r);
        e.kids.push_back(expr(u, depth - 1));
        e.kids.push_back(expr(u, depth - 1));
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
      e.kids.push_back(expr(t, depth - 1));
      e.kids.push_back(expr(t, depth - 1));
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
      e.kids.push_back(expr(t, depth - 1));
      e.kids.push_back(expr(t, depth - 1));
      return e;
    }
    if (c < 15) {
      Ty from = value_type(r);
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
      e.op = static_cast<uint8_t>(r.below(3));
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
      int c = r.below(20);
      Stmt s;
      if (c < 5) {
        if (p.vars.empty()) continue;
        s.k = SK::assign;
        s.a = r.below(static_cast<int>(p.vars.size()));
        s.t = p.vars[s.a];
        // op 0: v = e; else v op= e with op - 1 a Bin (Var's += -= *= /= %= &= |= ^=).
        if (r.chance(40)) s.op = static_cast<uint8_t>(1 + r.below(is_float(s.t) ? 4 : 8));
        s.e.push_back(expr(s.t, r.range(1, 4)));
        if (s.op) nonzero_divisor(s.t, s.op - 1, s.e.back());
        return s;
      }
      if (c < 8) {
        s.k = SK::store_out;
        s.t = value_type(r);
        s.a = r.below(p.out_slots[static_cast<int>(s.t)]);
        s.e.push_back(expr(s.t, r.range(1, 4)));
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
        s.e.push_back(expr(s.t, 3));
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
        s.e.push_back(expr(s.t, 3));
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

}  // namespace

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
    b.in_f.push_back(static_cast<float>(float_value(r, true)));
    b.in_d.push_back(float_value(r, true));
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
