// Tracing a Program through the public DSL and running it on rocjit devices.
#include <bit>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <type_traits>

#include <rocjit/rocjit.hpp>

#include "smith.hpp"

namespace smith {

using namespace rocjit;
using namespace rocjit::dsl;

namespace {

// A Var of a type known only at run time.
struct AnyVar {
  virtual ~AnyVar() = default;
  virtual Value get() const = 0;
  virtual void set(const Value& v) = 0;
  // v op= x through Var's compound assignments.
  virtual void update(Bin op, const Value& x) = 0;
};

template <class T>
struct TypedVar final : AnyVar {
  Var<T> v;
  explicit TypedVar(const Value& init) : v(init) {}
  Value get() const override { return v.get(); }
  void set(const Value& x) override { v = x; }
  void update(Bin op, const Value& x) override {
    switch (op) {
      case Bin::add: v += x; break;
      case Bin::sub: v -= x; break;
      case Bin::mul: v *= x; break;
      case Bin::div: v /= x; break;
      case Bin::rem: v %= x; break;
      case Bin::and_: v &= x; break;
      case Bin::or_: v |= x; break;
      case Bin::xor_: v ^= x; break;
      default: throw std::logic_error("compound op");
    }
  }
};

std::unique_ptr<AnyVar> make_var(Ty t, const Value& init) {
  switch (t) {
    case Ty::i32: return std::make_unique<TypedVar<int32_t>>(init);
    case Ty::u32: return std::make_unique<TypedVar<uint32_t>>(init);
    case Ty::i64: return std::make_unique<TypedVar<int64_t>>(init);
    case Ty::f32: return std::make_unique<TypedVar<float>>(init);
    case Ty::f64: return std::make_unique<TypedVar<double>>(init);
    case Ty::i8: return std::make_unique<TypedVar<int8_t>>(init);
    case Ty::u8: return std::make_unique<TypedVar<uint8_t>>(init);
    case Ty::i16: return std::make_unique<TypedVar<int16_t>>(init);
    case Ty::u16: return std::make_unique<TypedVar<uint16_t>>(init);
    case Ty::f16: return std::make_unique<TypedVar<half>>(init);
    case Ty::b: break;
  }
  throw std::logic_error("bool variable");
}

ir::Type ir_of(Ty t) {
  switch (t) {
    case Ty::i32: return ir::Type::i32;
    case Ty::u32: return ir::Type::u32;
    case Ty::i64: return ir::Type::i64;
    case Ty::f32: return ir::Type::f32;
    case Ty::f64: return ir::Type::f64;
    case Ty::b: return ir::Type::i1;
    case Ty::i8: return ir::Type::i8;
    case Ty::u8: return ir::Type::u8;
    case Ty::i16: return ir::Type::i16;
    case Ty::u16: return ir::Type::u16;
    case Ty::f16: return ir::Type::f16;
  }
  throw std::logic_error("type");
}

Value konst(Ty t, uint64_t bits) {
  switch (t) {
    case Ty::i32: return Int(static_cast<int32_t>(bits));
    case Ty::u32: return UInt(static_cast<uint32_t>(bits));
    case Ty::i64: return Long(static_cast<int64_t>(bits));
    case Ty::f32: return Float(std::bit_cast<float>(static_cast<uint32_t>(bits)));
    case Ty::f64: return Double(std::bit_cast<double>(bits));
    case Ty::b: return Bool(bits != 0);
    case Ty::i8: return Int8(static_cast<int8_t>(bits));
    case Ty::u8: return UInt8(static_cast<uint8_t>(bits));
    case Ty::i16: return Int16(static_cast<int16_t>(bits));
    case Ty::u16: return UInt16(static_cast<uint16_t>(bits));
    case Ty::f16: return Half(half::from_bits(static_cast<uint16_t>(bits)));
  }
  throw std::logic_error("type");
}

Value cast_to(Ty t, const Value& v) {
  switch (t) {
    case Ty::i32: return cast<int32_t>(v);
    case Ty::u32: return cast<uint32_t>(v);
    case Ty::i64: return cast<int64_t>(v);
    case Ty::f32: return cast<float>(v);
    case Ty::f64: return cast<double>(v);
    case Ty::b: return v != 0;
    case Ty::i8: return cast<int8_t>(v);
    case Ty::u8: return cast<uint8_t>(v);
    case Ty::i16: return cast<int16_t>(v);
    case Ty::u16: return cast<uint16_t>(v);
    case Ty::f16: return cast<half>(v);
  }
  throw std::logic_error("type");
}

// WaveOp::mma: a 16x16x4 mma whose A and B fragments hold `a` and `b` (one element per lane) and
// whose accumulator starts with `c` in all four elements; element `e` of the result. I = xf32:
// 16x16x8 at xf32 precision, `a` and `b` in the lanes' first elements.
template <class T, class I = T>
Value mma_fn(const Value& a, const Value& b, const Value& c, int e) {
  constexpr mma::Shape S{16, 16, std::is_same_v<I, mma::xf32> ? 8u : 4u};
  mma::A<I> fa(S);
  mma::B<I> fb(S);
  mma::Accumulator<T> fc(S, c);
  fa.set(0, a);
  fb.set(0, b);
  mma::mma(fc, fa, fb);
  return fc[static_cast<unsigned>(e)];
}

Value wave_fn(WaveOp w, const Value& v, const Value& lane) {
  switch (w) {
    case WaveOp::reduce_add: return wave::reduce_add(v);
    case WaveOp::reduce_min: return wave::reduce_min(v);
    case WaveOp::reduce_max: return wave::reduce_max(v);
    case WaveOp::reduce_and: return wave::reduce_and(v);
    case WaveOp::reduce_or: return wave::reduce_or(v);
    case WaveOp::reduce_xor: return wave::reduce_xor(v);
    case WaveOp::inclusive_scan_add: return wave::inclusive_scan_add(v);
    case WaveOp::exclusive_scan_add: return wave::exclusive_scan_add(v);
    case WaveOp::shuffle_xor: return wave::shuffle_xor(v, lane);
    case WaveOp::broadcast: return wave::broadcast(v, lane);
    case WaveOp::read_first: return wave::read_first(v);
    case WaveOp::any: return wave::any(v);
    case WaveOp::all: return wave::all(v);
    case WaveOp::count: return wave::count(v);
    case WaveOp::ballot: return cast<int64_t>(wave::ballot(v));
    case WaveOp::mma: break;  // mma_fn
  }
  throw std::logic_error("wave op");
}

struct Tracer {
  const Program& p;
  bool inject;
  ArrayRef in[kValueTypes], out[kValueTypes], approx[2], atom[3];
  std::vector<ArrayRef> shared, locals;
  std::vector<std::unique_ptr<AnyVar>> vars;
  std::vector<Value> loopidx;
  Value lid, lin, inb;

  Value norm(const Value& e, int n) { return ((e % n) + n) % n; }

  // Every expression must have the type the generator (and the OpenCL printer) assumed for it:
  // a difference means the DSL's promotion rules and the tool's disagree.
  Value ex(const Expr& e) {
    Value v = ex_(e);
    if (v.type() != ir_of(e.t))
      throw std::logic_error(std::string("rocjit-smith: the DSL typed a ") + ir::type_name(v.type()) +
                             " expression where the generator expected " + ty_name(e.t));
    return v;
  }

  Value ex_(const Expr& e) {
    switch (e.k) {
      case EK::konst: return konst(e.t, e.bits);
      case EK::id: {
        switch (static_cast<IdKind>(e.op)) {
          case IdKind::global_id: return global_id(e.a);
          case IdKind::local_id: return local_id(e.a);
          case IdKind::group_id: return group_id(e.a);
          case IdKind::local_size: return local_size(e.a);
          case IdKind::num_groups: return num_groups(e.a);
          case IdKind::global_size: return global_size(e.a);
        }
        break;
      }
      case EK::var: return vars[e.a]->get();
      case EK::loopidx: return loopidx[e.a];
      case EK::load_in: return in[static_cast<int>(e.t)](norm(ex(e.kids[0]), p.n_in));
      case EK::load_shared: {
        const SharedArr& s = p.shared[e.a];
        if (e.own) return shared[e.a](lid);
        return shared[e.a](norm(ex(e.kids[0]), s.atomic ? s.cells : p.group_size()));
      }
      case EK::load_local: return locals[e.a](norm(ex(e.kids[0]), p.locals[e.a].size));
      case EK::bin: {
        Value a = ex(e.kids[0]), b = ex(e.kids[1]);
        switch (static_cast<Bin>(e.op)) {
          case Bin::add: return a + b;
          case Bin::sub: return a - b;
          case Bin::mul: return a * b;
          case Bin::div: return a / b;
          case Bin::rem: return a % b;
          case Bin::and_: return a & b;
          case Bin::or_: return a | b;
          case Bin::xor_: return inject ? (a ^ b) ^ 1 : a ^ b;
          case Bin::shl: return a << b;
          case Bin::shr: return a >> b;
          case Bin::min: return min(a, b);
          case Bin::max: return max(a, b);
        }
        break;
      }
      case EK::cmp: {
        Value a = ex(e.kids[0]), b = ex(e.kids[1]);
        switch (static_cast<Cmp>(e.op)) {
          case Cmp::eq: return a == b;
          case Cmp::ne: return a != b;
          case Cmp::lt: return a < b;
          case Cmp::le: return a <= b;
          case Cmp::gt: return a > b;
          case Cmp::ge: return a >= b;
        }
        break;
      }
      case EK::sel: return select(ex(e.kids[0]), ex(e.kids[1]), ex(e.kids[2]));
      case EK::cast: return cast_to(e.t, ex(e.kids[0]));
      case EK::un: {
        Value a = ex(e.kids[0]);
        switch (static_cast<Un>(e.op)) {
          case Un::neg: return -a;
          case Un::not_: return ~a;
          case Un::abs: return abs(a);
          case Un::fabs: return fabs(a);
          case Un::floor: return floor(a);
          case Un::ceil: return ceil(a);
          case Un::sqrt: return sqrt(a);
        }
        break;
      }
      case EK::math: {
        switch (static_cast<MathOp>(e.op)) {
          case MathOp::fma: return fma(ex(e.kids[0]), ex(e.kids[1]), ex(e.kids[2]));
          case MathOp::fmin: return fmin(ex(e.kids[0]), ex(e.kids[1]));
          case MathOp::fmax: return fmax(ex(e.kids[0]), ex(e.kids[1]));
        }
        break;
      }
      case EK::logic: {
        switch (static_cast<Logic>(e.op)) {
          case Logic::and_: return ex(e.kids[0]) && ex(e.kids[1]);
          case Logic::or_: return ex(e.kids[0]) || ex(e.kids[1]);
          case Logic::not_: return !ex(e.kids[0]);
        }
        break;
      }
      case EK::wave:
        if (static_cast<WaveOp>(e.op) == WaveOp::mma)
          return e.t == Ty::f64 ? mma_fn<double>(ex(e.kids[0]), ex(e.kids[1]), ex(e.kids[2]), e.a)
                 : e.a >= 4     ? mma_fn<float, mma::xf32>(ex(e.kids[0]), ex(e.kids[1]), ex(e.kids[2]), e.a - 4)
                                : mma_fn<float>(ex(e.kids[0]), ex(e.kids[1]), ex(e.kids[2]), e.a);
        return wave_fn(static_cast<WaveOp>(e.op), ex(e.kids[0]), e.kids.size() > 1 ? ex(e.kids[1]) : Value());
    }
    throw std::logic_error("bad expression");
  }

  static Value approx_fn(Approx f, const Value& x) {
    switch (f) {
      case Approx::exp: return exp(x);
      case Approx::exp2: return exp2(x);
      case Approx::log: return log(x);
      case Approx::log2: return log2(x);
      case Approx::sin: return sin(x);
      case Approx::cos: return cos(x);
      case Approx::rsqrt: return rsqrt(x);
    }
    throw std::logic_error("approx");
  }

  static Value atomic_op(AtomOp op, const ArrayRef& a, const Value& i, const Value& v) {
    switch (op) {
      case AtomOp::add: return atomic::add(a, i, v);
      case AtomOp::min: return atomic::min(a, i, v);
      case AtomOp::max: return atomic::max(a, i, v);
      case AtomOp::and_: return atomic::and_(a, i, v);
      case AtomOp::or_: return atomic::or_(a, i, v);
      case AtomOp::xor_: return atomic::xor_(a, i, v);
    }
    throw std::logic_error("atomic");
  }

  void block(const std::vector<Stmt>& v) {
    for (auto& s : v) st(s);
  }

  // e = v, or e op= v through ElementRef's compound assignments.
  static void elem_store(const ElementRef& e, int op, const Value& v) {
    switch (op) {
      case 0: e = v; break;
      case 1: e += v; break;
      case 2: e -= v; break;
      case 3: e *= v; break;
      case 4: e /= v; break;
      default: throw std::logic_error("compound op");
    }
  }

  void st(const Stmt& s) {
    switch (s.k) {
      case SK::assign: {
        Value v = ex(s.e[0]);
        if (s.op == 0) vars[s.a]->set(v);
        else vars[s.a]->update(static_cast<Bin>(s.op - 1), v);
        return;
      }
      case SK::store_out: {
        Value v = ex(s.e[0]);
        int slots = p.out_slots[static_cast<int>(s.t)];
        If(inb, [&] { out[static_cast<int>(s.t)](lin * slots + s.a) = v; });
        return;
      }
      case SK::store_approx: {
        Approx f = static_cast<Approx>(s.op);
        Value x = ex(s.e[0]);
        // Arguments kept where the implementations are meant to agree (no huge sin arguments).
        double lim = (f == Approx::sin || f == Approx::cos) ? 32.0 : s.t == Ty::f32 ? 100.0 : 800.0;
        if (f != Approx::log && f != Approx::log2 && f != Approx::rsqrt) x = fmin(fmax(x, -lim), lim);
        Value v = approx_fn(f, x);
        int w = s.t == Ty::f32 ? 0 : 1;
        int slots = p.approx_slots[w];
        If(inb, [&] { approx[w](lin * slots + s.a) = v; });
        return;
      }
      case SK::store_shared: elem_store(shared[s.a](lid), s.op, ex(s.e[0])); return;
      case SK::store_local: {
        Value i = norm(ex(s.e[0]), p.locals[s.a].size);
        elem_store(locals[s.a](i), s.op, ex(s.e[1]));
        return;
      }
      case SK::init_local:
        for (int i = 0; i < p.locals[s.a].size; ++i) locals[s.a](i) = ex(s.e[0]);
        return;
      case SK::init_satom: {
        const SharedArr& a = p.shared[s.a];
        If(lid == 0, [&] {
          for (int c = 0; c < a.cells; ++c) shared[s.a](c) = konst(a.t, a.init[c]);
        });
        return;
      }
      case SK::atomic_g: {
        int w = s.t == Ty::i32 ? 0 : s.t == Ty::u32 ? 1 : 2;
        atomic_op(static_cast<AtomOp>(p.atom_ops[w][s.a]), atom[w], Int(s.a), ex(s.e[0]));
        return;
      }
      case SK::atomic_s:
        atomic_op(static_cast<AtomOp>(p.shared[s.a].ops[s.b]), shared[s.a], Int(s.b), ex(s.e[0]));
        return;
      case SK::if_:
        if (s.els.empty()) If(ex(s.e[0]), [&] { block(s.body); });
        else If(ex(s.e[0]), [&] { block(s.body); }).Else([&] { block(s.els); });
        return;
      case SK::for_: {
        Value count = norm(ex(s.e[0]), s.op + 1);
        For(Int(s.b), count + s.b, [&](Int i) {
          loopidx[s.a] = i;
          block(s.body);
        });
        return;
      }
      case SK::while_: {
        Var<int32_t> w = 0;
        While([&] { return w < s.b; }, [&] {
          w += 1;
          loopidx[s.a] = w.get();
          block(s.body);
        });
        return;
      }
      case SK::brk: If(ex(s.e[0]), [&] { Break(); }); return;
      case SK::wavebarrier: wavebarrier(); return;
    }
  }

  void body() {
    lid = local_id(0) + p.l[0] * (local_id(1) + p.l[1] * local_id(2));
    Value gx = global_id(0), gy = global_id(1), gz = global_id(2);
    lin = gx + p.n[0] * (gy + p.n[1] * gz);
    inb = gx < p.n[0] && gy < p.n[1] && gz < p.n[2];
    loopidx.resize(static_cast<size_t>(p.loops));
    for (size_t i = 0; i < p.vars.size(); ++i) vars.push_back(make_var(p.vars[i], ex(p.var_init[i])));
    for (auto& s : p.shared) {
      int n = s.atomic ? s.cells : p.group_size();
      switch (s.t) {
        case Ty::i32: shared.push_back(shared::array<int32_t>({n})); break;
        case Ty::u32: shared.push_back(shared::array<uint32_t>({n})); break;
        case Ty::i64: shared.push_back(shared::array<int64_t>({n})); break;
        case Ty::f32: shared.push_back(shared::array<float>({n})); break;
        case Ty::f64: shared.push_back(shared::array<double>({n})); break;
        default: throw std::logic_error("shared arrays hold i32 u32 i64 f32 f64");
      }
    }
    for (auto& l : p.locals) {
      switch (l.t) {
        case Ty::i32: locals.push_back(local::array<int32_t>({l.size})); break;
        case Ty::u32: locals.push_back(local::array<uint32_t>({l.size})); break;
        case Ty::i64: locals.push_back(local::array<int64_t>({l.size})); break;
        case Ty::f32: locals.push_back(local::array<float>({l.size})); break;
        case Ty::f64: locals.push_back(local::array<double>({l.size})); break;
        default: throw std::logic_error("local arrays hold i32 u32 i64 f32 f64");
      }
    }
    for (size_t ph = 0; ph < p.phases.size(); ++ph) {
      if (ph > 0) barrier(CLK_LOCAL_MEM_FENCE);
      block(p.phases[ph]);
    }
  }
};

Kernel trace(const Program& p, bool inject) {
  Tracer t{p, inject};
  return kernel(
      "smith",
      [&](Array<int32_t> in_i, Array<uint32_t> in_u, Array<int64_t> in_l, Array<float> in_f, Array<double> in_d,
          Array<int32_t> out_i, Array<uint32_t> out_u, Array<int64_t> out_l, Array<float> out_f, Array<double> out_d,
          Array<float> ap_f, Array<double> ap_d, Array<int32_t> at_i, Array<uint32_t> at_u, Array<int64_t> at_l) {
        t.in[0] = in_i, t.in[1] = in_u, t.in[2] = in_l, t.in[3] = in_f, t.in[4] = in_d;
        t.out[0] = out_i, t.out[1] = out_u, t.out[2] = out_l, t.out[3] = out_f, t.out[4] = out_d;
        t.approx[0] = ap_f, t.approx[1] = ap_d;
        t.atom[0] = at_i, t.atom[1] = at_u, t.atom[2] = at_l;
        t.body();
      },
      {.max_block_size = static_cast<uint32_t>(p.group_size()),
       .param_names = {"in_i", "in_u", "in_l", "in_f", "in_d", "out_i", "out_u", "out_l", "out_f", "out_d", "ap_f",
                       "ap_d", "at_i", "at_u", "at_l"}});
}

}  // namespace

bool f64_approx_available(const std::string& processor, std::string& why) {
  for (Approx f : {Approx::exp, Approx::exp2, Approx::log, Approx::log2, Approx::sin, Approx::cos, Approx::rsqrt}) {
    Kernel k = kernel("probe", [&](Array<double> x) { x(0) = Tracer::approx_fn(f, x(1)); });
    try {
      compile(k, Target::amdgpu(processor));
    } catch (const rocjit::Error& e) {
      why = e.what();
      return false;
    }
  }
  return true;
}

int executor_wave_size(const std::string& executor) {
  if (executor == "pocl") return 0;  // OpenCL 1.2: no sub-groups
  Device dev = get_device(executor);
  if (dev.target() == "host") return static_cast<int>(host_wave_size);
  Kernel k = kernel("wave_size_probe", [](Array<int32_t> x) { x(0) = wave_size(); });
  return static_cast<int>(compile(k, Target::amdgpu(dev.target())).kernel("wave_size_probe").wavefront_size);
}

std::string rjir(const Program& p) {
  std::ostringstream os;
  os << trace(p, false).ir();
  return os.str();
}

void run_rocjit(const Program& p, const std::string& device, Buffers& b, bool inject) {
  Kernel k = trace(p, inject);
  Device dev = get_device(device);
  Stream s = stream(dev);
  auto in_i = to_device(b.in_i, s, dev);
  auto in_u = to_device(b.in_u, s, dev);
  auto in_l = to_device(b.in_l, s, dev);
  auto in_f = to_device(b.in_f, s, dev);
  auto in_d = to_device(b.in_d, s, dev);
  auto out_i = to_device(b.out_i, s, dev);
  auto out_u = to_device(b.out_u, s, dev);
  auto out_l = to_device(b.out_l, s, dev);
  auto out_f = to_device(b.out_f, s, dev);
  auto out_d = to_device(b.out_d, s, dev);
  auto ap_f = to_device(b.ap_f, s, dev);
  auto ap_d = to_device(b.ap_d, s, dev);
  auto at_i = to_device(b.at_i, s, dev);
  auto at_u = to_device(b.at_u, s, dev);
  auto at_l = to_device(b.at_l, s, dev);
  Dim3 grid{static_cast<uint32_t>(p.grid(0)), static_cast<uint32_t>(p.grid(1)), static_cast<uint32_t>(p.grid(2))};
  Dim3 block{static_cast<uint32_t>(p.l[0]), static_cast<uint32_t>(p.l[1]), static_cast<uint32_t>(p.l[2])};
  k[{grid, block, s}](in_i, in_u, in_l, in_f, in_d, out_i, out_u, out_l, out_f, out_d, ap_f, ap_d, at_i, at_u, at_l);
  out_i.copy_to_host(std::span<int32_t>(b.out_i), s);
  out_u.copy_to_host(std::span<uint32_t>(b.out_u), s);
  out_l.copy_to_host(std::span<int64_t>(b.out_l), s);
  out_f.copy_to_host(std::span<float>(b.out_f), s);
  out_d.copy_to_host(std::span<double>(b.out_d), s);
  ap_f.copy_to_host(std::span<float>(b.ap_f), s);
  ap_d.copy_to_host(std::span<double>(b.ap_d), s);
  at_i.copy_to_host(std::span<int32_t>(b.at_i), s);
  at_u.copy_to_host(std::span<uint32_t>(b.at_u), s);
  at_l.copy_to_host(std::span<int64_t>(b.at_l), s);
  s.synchronize();
}

}  // namespace smith
