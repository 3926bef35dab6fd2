// Tracing lambdas into IR: the printed form of small kernels.
#include <catch2/catch.hpp>

#include <set>
#include <source_location>
#include <string>

#include "sample_kernels.hpp"

using namespace rocjit;
using namespace rocjit::dsl;

TEST_CASE("saxpy traces into a load, fma-like arithmetic and a guarded store") {
  Kernel k = samples::saxpy();
  std::string text = k.print(false);
  INFO(text);
  CHECK(text.find("kernel @saxpy(%1 a: f32, @x: array<f32, 1, C>, @y: array<f32, 1, C>)") != std::string::npos);
  CHECK(text.find("global_id 0 : i32") != std::string::npos);
  CHECK(text.find("store @y[") != std::string::npos);
}

// C++ leaves an overloaded operator's operands unsequenced (g++ evaluates `a * x(i) + y(i)`'s
// right operand first); adjacent loads of one line are kept in the order of their locations'
// columns, unless one uses the other's value. (A load's location is that of the expression that
// reads it: both loads of `a(i) + b(i)` are at the `+`, so their order stays the compiler's.)
TEST_CASE("adjacent loads of one line are traced in source order, whatever order C++ evaluates them in") {
  std::vector<std::string> order;
  auto loads = [&](const Kernel& k) {
    order.clear();
    ir::walk(k.ir().body, [&](const ir::Op& op) {
      if (op.kind == ir::OpKind::load) order.push_back(k.ir().memories.at(op.memory()).name);
    });
    return order;
  };
  CHECK(loads(samples::saxpy()) == std::vector<std::string>{"x", "y"});
  // An index loaded from another array: the inner load stays first (its value is an operand).
  Kernel gathered = kernel("gathered", [](Array<int32_t> idx, Array<float> v, Array<float> out) {
    Int i = global_id(0);
    out(i) = v(idx(i));
  });
  CHECK(loads(gathered) == std::vector<std::string>{"arg0", "arg1"});
  // Loads on different lines keep their order.
  Kernel lines = kernel("lines", [](Array<float> a, Array<float> b, Array<float> out) {
    Int i = global_id(0);
    Float second = b(i);
    Float first = a(i);
    out(i) = second + first;
  });
  CHECK(loads(lines) == std::vector<std::string>{"arg1", "arg0"});
}

namespace {
// Lines of the test kernel's statements, filled while it is traced.
std::set<uint32_t> statement_lines;
#define AT_THIS_LINE statement_lines.insert(__LINE__)

bool inside_rocjit_sources(const std::string& file) {
  // This file is <root>/tests/unit/dsl_tests.cpp; rocjit's own sources are <root>/{dsl,compiler,runtime,include}.
  std::string self = std::source_location::current().file_name();
  std::string root = self.substr(0, self.rfind("tests/unit/"));
  for (const char* dir : {"dsl/", "compiler/", "runtime/", "include/"})
    if (file.rfind(root + dir, 0) == 0) return true;
  return false;
}
}  // namespace

TEST_CASE("every DSL operation, of every op kind, records a location in the user's file") {
  // One kernel using every DSL entry point: each op it records must point into this file, and
  // together they must cover every op kind of the IR.
  Kernel k = kernel("every_dsl_operation", [](Array<float> a, Array<int32_t> c, Array<double, 2> d, Int n) {
    Int i = global_id(0);
    auto [gx, gy] = grid<2>();
    auto tile = shared::array<float>({64}, "tile");
    auto dyn = shared::dynamic<int32_t>("dyn");
    auto priv = local::array<float>({4}, "priv");
    Var<int32_t> acc = 0;
    Var<float> f = a(i);
    acc %= 3;
    acc &= 7;
    acc |= 8;
    acc ^= 1;
    c(i) %= 5;
    c(i) &= 6;
    c(i) |= 1;
    c(i) ^= 2;
    tile(local_id(0)) = f;
    priv(1) = sqrt(f) + rsqrt(f) + exp(f) + exp2(f) + exp10(f) + expm1(f) + log(f) + log2(f) + log10(f) + log1p(f);
    priv(2) = sin(f) + cos(f) + tan(f) + asin(f) + acos(f) + atan(f) + atan2(f, 1.0f) + sinh(f) + cosh(f) + tanh(f);
    priv(3) = asinh(f) + acosh(f) + atanh(f) + pow(f, 2.0f) + cbrt(f) + hypot(f, f) + erf(f) + erfc(f) + tgamma(f);
    priv(0) = lgamma(f) + fma(f, f, f) + fabs(f) + floor(f) + ceil(f) + trunc(f) + round(f) + rint(f) + fmin(f, 1.0f);
    a(i) = fmax(f, 2.0f) + fmod(f, 3.0f) + remainder(f, 3.0f) + copysign(f, -1.0f) + nextafter(f, 0.0f) + ldexp(f, 2);
    Value flags = isnan(f) || isinf(f) || !isfinite(f) || signbit(f);
    c(i) = popcount(c(0)) + clz(c(1)) + ctz(c(2)) + bitreverse(c(3)) + rotl(c(4), 1) + rotr(c(5), 2) + mul_hi(c(6), 7);
    c(i) = bitcast<int32_t>(a(i)) + cast<int32_t>(flags) + select(flags, 1, 2) + (-acc) + (~acc) + abs(acc);
    c(i) = min(acc, 3) + max(acc, n) + ceil_div(n, 4) + (acc << 1) + (acc >> 1) + a.shape(0) + gx + gy;
    d(i, 0) = cast<double>(lane_id() + wave_size() + local_size(0) + num_groups(0) + group_id(0) + global_size(0));
    barrier(CLK_LOCAL_MEM_FENCE);
    wavebarrier();
    fence(memory_scope::workgroup, memory_order::acq_rel);
    Int bound = uniform(c(0));
    For(0, bound, [&](Int k) {
      If(k == 3, [&] { Continue(); });
      acc += k;
    });
    While([&] { return acc < 100; }, [&] {
      acc *= 2;
      If(acc > 50, [&] { Break(); });
    });
    c(0) = atomic::add(c, 1, 1) + atomic::sub(c, 1, 1) + atomic::min(c, 1, 1) + atomic::max(c, 1, 1);
    c(0) = atomic::and_(c, 1, 1) + atomic::or_(c, 1, 1) + atomic::xor_(c, 1, 1) + atomic::exchange(c, 1, 1);
    c(0) = atomic::compare_exchange(c, 1, 1, 2) + atomic::load(c, 1) + dyn(0);
    atomic::store(c, 2, 3);
    c(1) = wave::shuffle(acc, 0) + wave::shuffle_xor(acc, 1) + wave::shuffle_up(acc, 1) + wave::shuffle_down(acc, 1);
    c(2) = wave::broadcast(acc, 0) + wave::read_first(acc) + cast<int32_t>(wave::ballot(acc > 0)) +
           cast<int32_t>(wave::any(acc > 0) && wave::all(acc > 0)) + wave::count(acc > 0);
    c(3) = wave::reduce_add(acc) + wave::reduce_min(acc) + wave::reduce_max(acc) + wave::reduce_and(acc) +
           wave::reduce_or(acc) + wave::reduce_xor(acc) + wave::inclusive_scan_add(acc) + wave::exclusive_scan_add(acc);
    Vec<float, 2> v = a.vload<2>(i);
    a.vstore(i + 1, Vec<float, 2>(v.y(), v[0]) * 2.0f + v);
    constexpr mma::Shape S{16, 16, 4};
    mma::A<float> ma(S);
    mma::B<float> mb(S);
    mma::Accumulator<float> mc(S, 1.0f);
    mma::mma(mc, ma, mb);
    a(i) = mc[3];
    print("acc={} v={:.2f}\n", acc, v);
    device_assert(acc > 0, "acc {} is not positive", acc);
    If(n > 100, [&] { Return(); });
    a(0) = tile(1);
  });
  const std::string self = std::source_location::current().file_name();
  std::set<ir::OpKind> kinds;
  std::set<uint8_t> math_fns;
  ir::walk(k.ir().body, [&](const ir::Op& op) {
    kinds.insert(op.kind);
    if (op.kind == ir::OpKind::math) math_fns.insert(static_cast<uint8_t>(op.math_fn()));
    INFO(ir::op_kind_name(op.kind) << " recorded at " << op.loc.str());
    CHECK(op.loc.file == self);
  });
  for (const ir::Memory& m : k.ir().memories) {
    INFO("array " << m.name << " at " << m.loc.str());
    if (m.space != ir::MemorySpace::global) CHECK(m.loc.file == self);
  }
  CHECK(kinds.size() == ir::all_ops().size());
  CHECK(math_fns.size() == ir::family_members(ir::OpFamily::math).size());
}

TEST_CASE("every op records the user's line, never one inside rocjit's headers") {
  statement_lines.clear();
  Kernel k = kernel("locations", [](Array<float> a, Array<float> b, Int n) {
    Int i = global_id(0); AT_THIS_LINE;
    Var<float> acc = 0.0f; AT_THIS_LINE;
    Var<float> other = b(i); AT_THIS_LINE;
    Value v = a(i) * 2.0f + 1.0f; AT_THIS_LINE;
    acc = 1.0f; AT_THIS_LINE;
    acc = v; AT_THIS_LINE;
    acc = other; AT_THIS_LINE;
    acc = b(i); AT_THIS_LINE;
    acc += v; AT_THIS_LINE;
    acc *= 3; AT_THIS_LINE;
    Value w = acc; AT_THIS_LINE;
    Value x = b(i); AT_THIS_LINE;
    a(i) = b(i); AT_THIS_LINE;
    a(i) += w - x; AT_THIS_LINE;
    Int blocks = ceil_div(n, 4); AT_THIS_LINE;
    If(i < blocks, [&] { a(i) = acc + cast<float>(i % 7); }); AT_THIS_LINE;
    Vec<float, 4> q = a.vload<4>(i); AT_THIS_LINE;
    b.vstore(i, q * 2.0f + Vec<float, 4>(b(i)) - q); AT_THIS_LINE;
    a(i) = q.z() + q[1] + cast<half>(-q).w(); AT_THIS_LINE;
  });
  const ir::Kernel& ir = k.ir();
  const std::string self = std::source_location::current().file_name();
  std::set<uint32_t> recorded;
  size_t ops = 0;
  ir::walk(ir.body, [&](const ir::Op& op) {
    ++ops;
    INFO(ir::op_kind_name(op.kind) << " recorded at " << op.loc.str());
    CHECK_FALSE(inside_rocjit_sources(op.loc.file));
    CHECK(op.loc.file == self);
    recorded.insert(op.loc.line);
  });
  for (const ir::Slot& s : ir.slots) {
    INFO("variable " << s.name << " declared at " << s.loc.str());
    CHECK(s.loc.file == self);
    CHECK(statement_lines.count(s.loc.line) == 1);
  }
  CHECK(ops > 40);
  // Each statement records ops on its own line and no op lies on any other line.
  CHECK(recorded == statement_lines);
}
