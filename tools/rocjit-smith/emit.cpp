// Programs as text: OpenCL C (for PoCL) and a C++ test body through the DSL (for reduced kernels).
//
// The OpenCL C spells out rocjit's total semantics, since OpenCL C leaves them undefined:
// signed + - * and negation are computed in unsigned and converted back (wrapping), x/0 = 0,
// x%0 = x, INT_MIN/-1 = INT_MIN, INT_MIN%-1 = 0, shift amounts masked to the width, float->int
// through convert_<T>_sat_rtz (round toward zero, saturate, NaN -> 0). 8- and 16-bit integers
// are char/uchar/short/ushort with the same helpers (computed in uint, converted back: C's
// promotion to int never overflows there). f16 is emulated: an f16 value is a float holding a
// binary16 value, rounded to binary16 after every operation that can be inexact (rh: vstore_half_rte
// to a private half and vload_half back). Rounding the f32 result of + - * / sqrt of two binary16
// values is the correctly rounded binary16 result (f32 has more than 2 * 11 + 2 bits); f64 values
// round to f16 directly (rhd, vstore_half_rte of a double), never through f32; integers convert
// exactly to double first (|x| >= 2^53 only for values far beyond f16's range, inf either way).
#include <bit>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "smith.hpp"

namespace smith {

namespace {

const char* cl_type(Ty t) {
  switch (t) {
    case Ty::i32: return "int";
    case Ty::u32: return "uint";
    case Ty::i64: return "long";
    case Ty::f32: return "float";
    case Ty::f64: return "double";
    case Ty::b: return "int";
    case Ty::i8: return "char";
    case Ty::u8: return "uchar";
    case Ty::i16: return "short";
    case Ty::u16: return "ushort";
    case Ty::f16: return "float";  // emulated: a float holding a binary16 value
  }
  return "?";
}
const char* suffix(Ty t) {
  switch (t) {
    case Ty::i32: return "i";
    case Ty::u32: return "u";
    case Ty::i64: return "l";
    case Ty::f32: return "f";
    case Ty::f64: return "d";
    case Ty::b: return "b";
    case Ty::i8: return "c";
    case Ty::u8: return "uc";
    case Ty::i16: return "s";
    case Ty::u16: return "us";
    case Ty::f16: return "h";
  }
  return "?";
}
const char* cpp_type(Ty t) {
  switch (t) {
    case Ty::i32: return "int32_t";
    case Ty::u32: return "uint32_t";
    case Ty::i64: return "int64_t";
    case Ty::f32: return "float";
    case Ty::f64: return "double";
    case Ty::b: return "bool";
    case Ty::i8: return "int8_t";
    case Ty::u8: return "uint8_t";
    case Ty::i16: return "int16_t";
    case Ty::u16: return "uint16_t";
    case Ty::f16: return "half";
  }
  return "?";
}

// The float value of binary16 bits (exact), as float bits.
uint32_t half_as_float_bits(uint16_t h) { return std::bit_cast<uint32_t>(static_cast<float>(half_value(h))); }

std::string hex(uint64_t v, int digits) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "0x%0*llx", digits, static_cast<unsigned long long>(v));
  return buf;
}

const char* kPrelude = R"(#pragma OPENCL FP_CONTRACT OFF
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable
// rocjit's total integer semantics, spelled out (OpenCL C leaves these undefined).
#define SMITH_INT(T, UT, MINV, W, N) \
  static T add_##N(T a, T b) { return (T)((UT)a + (UT)b); } \
  static T sub_##N(T a, T b) { return (T)((UT)a - (UT)b); } \
  static T mul_##N(T a, T b) { return (T)((UT)a * (UT)b); } \
  static T neg_##N(T a) { return (T)((UT)0 - (UT)a); } \
  static T div_##N(T a, T b) { return b == 0 ? (T)0 : (a == MINV && b == (T)-1) ? a : a / b; } \
  static T rem_##N(T a, T b) { return b == 0 ? a : (a == MINV && b == (T)-1) ? (T)0 : a % b; } \
  static T shl_##N(T a, T b) { return (T)((UT)a << ((UT)b & (W - 1))); } \
  static T shr_##N(T a, T b) { return a >> ((UT)b & (W - 1)); } \
  static T abs_##N(T a) { return a < (T)0 ? neg_##N(a) : a; }
SMITH_INT(int, uint, INT_MIN, 32, i)
SMITH_INT(uint, uint, 0u, 32, u)
SMITH_INT(long, ulong, LONG_MIN, 64, l)
SMITH_INT(char, uint, CHAR_MIN, 8, c)
SMITH_INT(uchar, uint, (uchar)0, 8, uc)
SMITH_INT(short, uint, SHRT_MIN, 16, s)
SMITH_INT(ushort, uint, (ushort)0, 16, us)
static int norm_i(int e, int n) { return ((e % n) + n) % n; }
// PoCL 3.1 folds floor and ceil of a constant NaN to 0 (tests/smith/known-external.md): NaN goes
// around them, the same value OpenCL C defines.
static float floor_f(float x) { return isnan(x) ? x : floor(x); }
static float ceil_f(float x) { return isnan(x) ? x : ceil(x); }
static double floor_d(double x) { return isnan(x) ? x : floor(x); }
static double ceil_d(double x) { return isnan(x) ? x : ceil(x); }
// f16 emulated in float: round to the nearest binary16 value (ties to even), from a float (rh) or
// directly from a double (rhd).
// (OpenCL 1.2 allows half only behind pointers, hence the ushort.)
static float rh(float x) { ushort h; vstore_half_rte(x, 0, (half*)&h); return vload_half(0, (const half*)&h); }
static float rhd(double x) { ushort h; vstore_half_rte(x, 0, (half*)&h); return vload_half(0, (const half*)&h); }
)";

// A value of type `from` (printed as x) converted to `to` as rocjit's cast does: integers wrap,
// floats -> integers truncate and saturate (NaN -> 0), -> floats round to nearest even once.
std::string conv(const std::string& x, Ty from, Ty to) {
  if (from == to) return x;
  if (to == Ty::b) return "(" + x + " != 0)";
  if (to == Ty::f16) {
    if (from == Ty::f32) return "rh(" + x + ")";
    if (from == Ty::f64) return "rhd(" + x + ")";
    return "rhd((double)" + x + ")";  // integers: exact in double (far beyond f16 when not)
  }
  if (from == Ty::f16 && to == Ty::f32) return x;
  if (is_float(from) && is_int(to)) return std::string("convert_") + cl_type(to) + "_sat_rtz(" + x + ")";
  return std::string("((") + cl_type(to) + ")" + x + ")";
}
// Keeps a char/short expression of that C type (C promotes them to int in ?: and bit operations).
std::string narrow(Ty t, const std::string& x) {
  if (is_small(t) && is_int(t)) return std::string("((") + cl_type(t) + ")(" + x + "))";
  return x;
}

struct Cl {
  const Program& p;
  bool inject;
  std::ostringstream o;
  int indent = 1;

  std::string ex(const Expr& e) {
    switch (e.k) {
      case EK::konst:
        switch (e.t) {
          case Ty::i32: return "((int)" + hex(static_cast<uint32_t>(e.bits), 8) + "u)";
          case Ty::u32: return hex(static_cast<uint32_t>(e.bits), 8) + "u";
          case Ty::i64: return "((long)" + hex(e.bits, 16) + "ul)";
          case Ty::f32: return "as_float(" + hex(static_cast<uint32_t>(e.bits), 8) + "u)";
          case Ty::f64: return "as_double(" + hex(e.bits, 16) + "ul)";
          case Ty::b: return e.bits ? "1" : "0";
          case Ty::i8: return "((char)(" + std::to_string(static_cast<int8_t>(e.bits)) + "))";
          case Ty::u8: return "((uchar)" + std::to_string(static_cast<uint8_t>(e.bits)) + "u)";
          case Ty::i16: return "((short)(" + std::to_string(static_cast<int16_t>(e.bits)) + "))";
          case Ty::u16: return "((ushort)" + std::to_string(static_cast<uint16_t>(e.bits)) + "u)";
          case Ty::f16: return "as_float(" + hex(half_as_float_bits(static_cast<uint16_t>(e.bits)), 8) + "u)";
        }
        break;
      case EK::id: {
        static const char* names[] = {"get_global_id", "get_local_id", "get_group_id", "get_local_size", "get_num_groups", "get_global_size"};
        return std::string("((int)") + names[e.op] + "(" + std::to_string(e.a) + "))";
      }
      case EK::var: return "v" + std::to_string(e.a);
      case EK::loopidx: return "k" + std::to_string(e.a);
      case EK::load_in: return std::string("in_") + suffix(e.t) + "[norm_i(" + ex(e.kids[0]) + ", " + std::to_string(p.n_in) + ")]";
      case EK::load_shared: {
        const SharedArr& s = p.shared[e.a];
        std::string name = "s" + std::to_string(e.a);
        if (e.own) return name + "[lid]";
        return name + "[norm_i(" + ex(e.kids[0]) + ", " + std::to_string(s.atomic ? s.cells : p.group_size()) + ")]";
      }
      case EK::load_local:
        return "p" + std::to_string(e.a) + "[norm_i(" + ex(e.kids[0]) + ", " + std::to_string(p.locals[e.a].size) + ")]";
      case EK::bin: {
        // Both operands convert to the operation's type (a shift's amount to its left operand's).
        std::string a = conv(ex(e.kids[0]), e.kids[0].t, e.t), b = conv(ex(e.kids[1]), e.kids[1].t, e.t);
        Bin op = static_cast<Bin>(e.op);
        if (is_float(e.t)) {
          static const char* ops[] = {"+", "-", "*", "/"};
          std::string r = "(" + a + " " + ops[e.op] + " " + b + ")";
          return e.t == Ty::f16 ? "rh" + r : r;
        }
        std::string n = suffix(e.t);
        switch (op) {
          case Bin::add: return "add_" + n + "(" + a + ", " + b + ")";
          case Bin::sub: return "sub_" + n + "(" + a + ", " + b + ")";
          case Bin::mul: return "mul_" + n + "(" + a + ", " + b + ")";
          case Bin::div: return "div_" + n + "(" + a + ", " + b + ")";
          case Bin::rem: return "rem_" + n + "(" + a + ", " + b + ")";
          case Bin::and_: return narrow(e.t, "(" + a + " & " + b + ")");
          case Bin::or_: return narrow(e.t, "(" + a + " | " + b + ")");
          case Bin::xor_: return narrow(e.t, inject ? "((" + a + " ^ " + b + ") ^ 1)" : "(" + a + " ^ " + b + ")");
          case Bin::shl: return "shl_" + n + "(" + a + ", " + b + ")";
          case Bin::shr: return "shr_" + n + "(" + a + ", " + b + ")";
          case Bin::min: return "min(" + narrow(e.t, a) + ", " + narrow(e.t, b) + ")";
          case Bin::max: return "max(" + narrow(e.t, a) + ", " + narrow(e.t, b) + ")";
        }
        break;
      }
      case EK::cmp: {
        static const char* ops[] = {"==", "!=", "<", "<=", ">", ">="};
        const Expr &x = e.kids[0], &y = e.kids[1];
        Ty c = x.t == Ty::b && y.t == Ty::b ? Ty::b : common_type(x.t, y.t);
        return "(" + conv(ex(x), x.t, c) + " " + ops[e.op] + " " + conv(ex(y), y.t, c) + ")";
      }
      case EK::sel:
        return narrow(e.t, "(" + ex(e.kids[0]) + " ? " + conv(ex(e.kids[1]), e.kids[1].t, e.t) + " : " +
                               conv(ex(e.kids[2]), e.kids[2].t, e.t) + ")");
      case EK::cast: return conv(ex(e.kids[0]), e.kids[0].t, e.t);
      case EK::un: {
        std::string a = ex(e.kids[0]);
        switch (static_cast<Un>(e.op)) {
          case Un::neg: return is_float(e.t) ? "(-" + a + ")" : std::string("neg_") + suffix(e.t) + "(" + a + ")";
          case Un::not_: return narrow(e.t, "(~" + a + ")");
          // Not OpenCL's abs(): PoCL folds (int)abs(INT_MIN) < 0 to false (see README.md).
          case Un::abs: return std::string("abs_") + suffix(e.t) + "(" + a + ")";
          // Exact on binary16 values: no rounding.
          case Un::fabs: return "fabs(" + a + ")";
          case Un::floor: return std::string(e.t == Ty::f64 ? "floor_d(" : "floor_f(") + a + ")";
          case Un::ceil: return std::string(e.t == Ty::f64 ? "ceil_d(" : "ceil_f(") + a + ")";
          case Un::sqrt: return e.t == Ty::f16 ? "rh(sqrt(" + a + "))" : "sqrt(" + a + ")";
        }
        break;
      }
      case EK::math: {
        static const char* fn[] = {"fma", "fmin", "fmax"};
        std::string s = std::string(fn[e.op]) + "(";
        for (size_t i = 0; i < e.kids.size(); ++i) s += (i ? ", " : "") + ex(e.kids[i]);
        return s + ")";
      }
      case EK::logic:
        switch (static_cast<Logic>(e.op)) {
          case Logic::and_: return "(" + ex(e.kids[0]) + " && " + ex(e.kids[1]) + ")";
          case Logic::or_: return "(" + ex(e.kids[0]) + " || " + ex(e.kids[1]) + ")";
          case Logic::not_: return "(!" + ex(e.kids[0]) + ")";
        }
        break;
      case EK::wave: {
        // Not OpenCL C 1.2 (no sub-groups): printed for reading only, never built.
        std::string s = std::string("wave_") + wave_op_name(static_cast<WaveOp>(e.op)) + "(";
        for (size_t i = 0; i < e.kids.size(); ++i) s += (i ? ", " : "") + ex(e.kids[i]);
        if (static_cast<WaveOp>(e.op) == WaveOp::mma)
          s += e.a >= 4 ? ", xf32 16x16x8, element " + std::to_string(e.a - 4) : ", element " + std::to_string(e.a);
        return s + ")";
      }
    }
    return "?";
  }

  // The value of statement expression x converted to the type t it is stored into.
  std::string val(const Expr& x, Ty t) { return conv(ex(x), x.t, t); }

  void line(const std::string& s) { o << std::string(2 * indent, ' ') << s << "\n"; }

  // `target op= value` (op 0: plain assignment) as an OpenCL C expression.
  std::string combine(Ty t, int op, const std::string& target, const std::string& value) {
    if (op == 0) return value;
    static const char* fops[] = {"+", "-", "*", "/"};
    Bin bop = static_cast<Bin>(op - 1);
    if (is_float(t)) return std::string(t == Ty::f16 ? "rh" : "") + "(" + target + " " + fops[op - 1] + " " + value + ")";
    std::string n = suffix(t);
    switch (bop) {
      case Bin::add: return "add_" + n + "(" + target + ", " + value + ")";
      case Bin::sub: return "sub_" + n + "(" + target + ", " + value + ")";
      case Bin::mul: return "mul_" + n + "(" + target + ", " + value + ")";
      case Bin::div: return "div_" + n + "(" + target + ", " + value + ")";
      case Bin::rem: return "rem_" + n + "(" + target + ", " + value + ")";
      case Bin::and_: return narrow(t, "(" + target + " & " + value + ")");
      case Bin::or_: return narrow(t, "(" + target + " | " + value + ")");
      case Bin::xor_: return narrow(t, inject ? "((" + target + " ^ " + value + ") ^ 1)" : "(" + target + " ^ " + value + ")");
      default: return "?";
    }
  }

  void block(const std::vector<Stmt>& v) {
    ++indent;
    for (auto& s : v) st(s);
    --indent;
  }

  void st(const Stmt& s) {
    static const char* atomic_fn[] = {"add", "min", "max", "and", "or", "xor"};
    switch (s.k) {
      case SK::assign: {
        std::string v = "v" + std::to_string(s.a);
        line(v + " = " + combine(s.t, s.op, v, val(s.e[0], s.t)) + ";");
        return;
      }
      case SK::store_out:
        line("{ " + std::string(cl_type(s.t)) + " t = " + val(s.e[0], s.t) + "; if (inb) out_" + suffix(s.t) + "[lin * " +
             std::to_string(p.out_slots[static_cast<int>(s.t)]) + " + " + std::to_string(s.a) + "] = t; }");
        return;
      case SK::store_approx: {
        static const char* fn[] = {"exp", "exp2", "log", "log2", "sin", "cos", "rsqrt"};
        Approx f = static_cast<Approx>(s.op);
        std::string x = ex(s.e[0]);
        double lim = (f == Approx::sin || f == Approx::cos) ? 32.0 : s.t == Ty::f32 ? 100.0 : 800.0;
        std::string l = std::to_string(static_cast<int>(lim)) + (s.t == Ty::f32 ? ".0f" : ".0");
        if (f != Approx::log && f != Approx::log2 && f != Approx::rsqrt) x = "fmin(fmax(" + x + ", -" + l + "), " + l + ")";
        int w = s.t == Ty::f32 ? 0 : 1;
        line("{ " + std::string(cl_type(s.t)) + " t = " + fn[s.op] + "(" + x + "); if (inb) ap_" + suffix(s.t) + "[lin * " +
             std::to_string(p.approx_slots[w]) + " + " + std::to_string(s.a) + "] = t; }");
        return;
      }
      case SK::store_shared: {
        std::string c = "s" + std::to_string(s.a) + "[lid]";
        line(c + " = " + combine(s.t, s.op, c, val(s.e[0], s.t)) + ";");
        return;
      }
      case SK::store_local: {
        std::string i = "norm_i(" + ex(s.e[0]) + ", " + std::to_string(p.locals[s.a].size) + ")";
        std::string c = "p" + std::to_string(s.a) + "[t]";
        line("{ int t = " + i + "; " + c + " = " + combine(s.t, s.op, c, val(s.e[1], s.t)) + "; }");
        return;
      }
      case SK::init_local:
        line("for (int t = 0; t < " + std::to_string(p.locals[s.a].size) + "; ++t) p" + std::to_string(s.a) + "[t] = " + ex(s.e[0]) + ";");
        return;
      case SK::init_satom: {
        const SharedArr& a = p.shared[s.a];
        std::string t = "if (lid == 0) {";
        for (int c = 0; c < a.cells; ++c) {
          Expr k;
          k.k = EK::konst;
          k.t = a.t;
          k.bits = a.init[c];
          t += " s" + std::to_string(s.a) + "[" + std::to_string(c) + "] = " + ex(k) + ";";
        }
        line(t + " }");
        return;
      }
      case SK::atomic_g: {
        int w = s.t == Ty::i32 ? 0 : s.t == Ty::u32 ? 1 : 2;
        std::string prefix = w == 2 ? "atom_" : "atomic_";
        line(prefix + atomic_fn[p.atom_ops[w][s.a]] + "(&at_" + suffix(s.t) + "[" + std::to_string(s.a) + "], " + ex(s.e[0]) + ");");
        return;
      }
      case SK::atomic_s:
        line(std::string("atomic_") + atomic_fn[p.shared[s.a].ops[s.b]] + "(&s" + std::to_string(s.a) + "[" + std::to_string(s.b) +
             "], " + ex(s.e[0]) + ");");
        return;
      case SK::if_:
        line("if (" + ex(s.e[0]) + ") {");
        block(s.body);
        if (!s.els.empty()) {
          line("} else {");
          block(s.els);
        }
        line("}");
        return;
      case SK::for_: {
        std::string k = "k" + std::to_string(s.a);
        line("{ int end = norm_i(" + ex(s.e[0]) + ", " + std::to_string(s.op + 1) + ") + " + std::to_string(s.b) + ";");
        line("for (int " + k + " = " + std::to_string(s.b) + "; " + k + " < end; ++" + k + ") {");
        block(s.body);
        line("}}");
        return;
      }
      case SK::while_: {
        std::string k = "k" + std::to_string(s.a);
        line("{ int " + k + " = 0;");
        line("while (" + k + " < " + std::to_string(s.b) + ") {");
        line("  " + k + " += 1;");
        block(s.body);
        line("}}");
        return;
      }
      case SK::brk: line("if (" + ex(s.e[0]) + ") break;"); return;
      // OpenCL C 1.2 has no wave barrier; no data crosses rocjit-smith's, so nothing stands in.
      case SK::wavebarrier: line("/* wavebarrier() */"); return;
    }
  }

  std::string run() {
    if (has_wave_ops(p))
      o << "// This kernel has wave operations (wave_* below), which OpenCL C 1.2 cannot express (no sub-groups):\n"
           "// rocjit-smith does not run it on PoCL. It is printed for reading only and does not build.\n";
    o << kPrelude;
    o << "__kernel void smith(";
    const char* names[] = {"in_i", "in_u", "in_l", "in_f", "in_d", "out_i", "out_u", "out_l", "out_f", "out_d", "ap_f", "ap_d", "at_i", "at_u", "at_l"};
    const Ty types[] = {Ty::i32, Ty::u32, Ty::i64, Ty::f32, Ty::f64, Ty::i32, Ty::u32, Ty::i64, Ty::f32, Ty::f64, Ty::f32, Ty::f64, Ty::i32, Ty::u32, Ty::i64};
    for (int i = 0; i < 15; ++i) o << (i ? ", " : "") << "__global " << (i >= 12 ? "volatile " : "") << cl_type(types[i]) << "* " << names[i];
    o << ") {\n";
    line("int lid = (int)get_local_id(0) + " + std::to_string(p.l[0]) + " * ((int)get_local_id(1) + " + std::to_string(p.l[1]) + " * (int)get_local_id(2));");
    line("int gx = (int)get_global_id(0), gy = (int)get_global_id(1), gz = (int)get_global_id(2);");
    line("int lin = gx + " + std::to_string(p.n[0]) + " * (gy + " + std::to_string(p.n[1]) + " * gz);");
    line("int inb = gx < " + std::to_string(p.n[0]) + " && gy < " + std::to_string(p.n[1]) + " && gz < " + std::to_string(p.n[2]) + ";");
    for (size_t i = 0; i < p.vars.size(); ++i)
      line(std::string(cl_type(p.vars[i])) + " v" + std::to_string(i) + " = " + ex(p.var_init[i]) + ";");
    for (size_t i = 0; i < p.shared.size(); ++i) {
      int n = p.shared[i].atomic ? p.shared[i].cells : p.group_size();
      line(std::string("__local ") + (p.shared[i].atomic ? "volatile " : "") + cl_type(p.shared[i].t) + " s" + std::to_string(i) + "[" + std::to_string(n) + "];");
    }
    for (size_t i = 0; i < p.locals.size(); ++i)
      line(std::string(cl_type(p.locals[i].t)) + " p" + std::to_string(i) + "[" + std::to_string(p.locals[i].size) + "];");
    for (size_t ph = 0; ph < p.phases.size(); ++ph) {
      if (ph > 0) line("barrier(CLK_LOCAL_MEM_FENCE);");
      --indent;
      block(p.phases[ph]);
      ++indent;
    }
    o << "}\n";
    return o.str();
  }
};

// The DSL as C++ source.
struct Cpp {
  const Program& p;
  std::ostringstream o;
  int indent = 2;

  std::string ex(const Expr& e) {
    switch (e.k) {
      case EK::konst:
        switch (e.t) {
          case Ty::i32: return "Int(" + std::to_string(static_cast<int32_t>(e.bits)) + (static_cast<int32_t>(e.bits) == INT32_MIN ? "" : "") + ")";
          case Ty::u32: return "UInt(" + std::to_string(static_cast<uint32_t>(e.bits)) + "u)";
          case Ty::i64: return "Long(int64_t(" + hex(e.bits, 16) + "ull))";
          case Ty::f32: return "Float(std::bit_cast<float>(" + hex(static_cast<uint32_t>(e.bits), 8) + "u))";
          case Ty::f64: return "Double(std::bit_cast<double>(" + hex(e.bits, 16) + "ull))";
          case Ty::b: return e.bits ? "Bool(true)" : "Bool(false)";
          case Ty::i8: return "Int8(int8_t(" + std::to_string(static_cast<int8_t>(e.bits)) + "))";
          case Ty::u8: return "UInt8(uint8_t(" + std::to_string(static_cast<uint8_t>(e.bits)) + "))";
          case Ty::i16: return "Int16(int16_t(" + std::to_string(static_cast<int16_t>(e.bits)) + "))";
          case Ty::u16: return "UInt16(uint16_t(" + std::to_string(static_cast<uint16_t>(e.bits)) + "))";
          case Ty::f16: return "Half(half::from_bits(" + hex(static_cast<uint16_t>(e.bits), 4) + "))";
        }
        break;
      case EK::id: {
        static const char* names[] = {"global_id", "local_id", "group_id", "local_size", "num_groups", "global_size"};
        return std::string(names[e.op]) + "(" + std::to_string(e.a) + ")";
      }
      case EK::var: return "v" + std::to_string(e.a);
      case EK::loopidx: return "k" + std::to_string(e.a);
      case EK::load_in: return std::string("in_") + suffix(e.t) + "(norm(" + ex(e.kids[0]) + ", " + std::to_string(p.n_in) + "))";
      case EK::load_shared: {
        const SharedArr& s = p.shared[e.a];
        std::string name = "s" + std::to_string(e.a);
        if (e.own) return name + "(lid)";
        return name + "(norm(" + ex(e.kids[0]) + ", " + std::to_string(s.atomic ? s.cells : p.group_size()) + "))";
      }
      case EK::load_local:
        return "p" + std::to_string(e.a) + "(norm(" + ex(e.kids[0]) + ", " + std::to_string(p.locals[e.a].size) + "))";
      case EK::bin: {
        static const char* ops[] = {"+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>"};
        std::string a = ex(e.kids[0]), b = ex(e.kids[1]);
        if (e.op == static_cast<uint8_t>(Bin::min)) return "min(" + a + ", " + b + ")";
        if (e.op == static_cast<uint8_t>(Bin::max)) return "max(" + a + ", " + b + ")";
        return "(" + a + " " + ops[e.op] + " " + b + ")";
      }
      case EK::cmp: {
        static const char* ops[] = {"==", "!=", "<", "<=", ">", ">="};
        return "(" + ex(e.kids[0]) + " " + ops[e.op] + " " + ex(e.kids[1]) + ")";
      }
      case EK::sel: return "select(" + ex(e.kids[0]) + ", " + ex(e.kids[1]) + ", " + ex(e.kids[2]) + ")";
      case EK::cast:
        if (e.t == Ty::b) return "(" + ex(e.kids[0]) + " != 0)";
        return std::string("cast<") + cpp_type(e.t) + ">(" + ex(e.kids[0]) + ")";
      case EK::un: {
        static const char* fn[] = {"-", "~", "abs", "fabs", "floor", "ceil", "sqrt"};
        if (e.op <= 1) return std::string("(") + fn[e.op] + ex(e.kids[0]) + ")";
        return std::string(fn[e.op]) + "(" + ex(e.kids[0]) + ")";
      }
      case EK::math: {
        static const char* fn[] = {"fma", "fmin", "fmax"};
        std::string s = std::string(fn[e.op]) + "(";
        for (size_t i = 0; i < e.kids.size(); ++i) s += (i ? ", " : "") + ex(e.kids[i]);
        return s + ")";
      }
      case EK::logic:
        switch (static_cast<Logic>(e.op)) {
          case Logic::and_: return "(" + ex(e.kids[0]) + " && " + ex(e.kids[1]) + ")";
          case Logic::or_: return "(" + ex(e.kids[0]) + " || " + ex(e.kids[1]) + ")";
          case Logic::not_: return "(!" + ex(e.kids[0]) + ")";
        }
        break;
      case EK::wave: {
        WaveOp w = static_cast<WaveOp>(e.op);
        if (w == WaveOp::mma) {  // as trace.cpp's mma_fn, inline
          const std::string T = e.t == Ty::f64 ? "double" : "float";
          const bool xf32 = e.a >= 4;
          const std::string I = xf32 ? "mma::xf32" : T;
          return std::string("[&] { constexpr mma::Shape S{16, 16, ") + (xf32 ? "8" : "4") + "}; mma::A<" + I +
                 "> a(S); mma::B<" + I + "> b(S); mma::Accumulator<" + T + "> c(S, " + ex(e.kids[2]) + "); a.set(0, " +
                 ex(e.kids[0]) + "); b.set(0, " + ex(e.kids[1]) + "); mma::mma(c, a, b); return Value(c[" +
                 std::to_string(xf32 ? e.a - 4 : e.a) + "]); }()";
        }
        std::string s = std::string("wave::") + wave_op_name(w) + "(";
        for (size_t i = 0; i < e.kids.size(); ++i) s += (i ? ", " : "") + ex(e.kids[i]);
        s += ")";
        return w == WaveOp::ballot ? "cast<int64_t>(" + s + ")" : s;
      }
    }
    return "?";
  }

  void line(const std::string& s) { o << std::string(2 * indent, ' ') << s << "\n"; }
  static std::string assign_op(int op) {
    static const char* ops[] = {"=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^="};
    return ops[op];
  }
  void block(const std::vector<Stmt>& v) {
    ++indent;
    for (auto& s : v) st(s);
    --indent;
  }

  void st(const Stmt& s) {
    static const char* atomic_fn[] = {"add", "min", "max", "and_", "or_", "xor_"};
    switch (s.k) {
      case SK::assign: line("v" + std::to_string(s.a) + " " + assign_op(s.op) + " " + ex(s.e[0]) + ";"); return;
      case SK::store_out:
        line("{ Value t = " + ex(s.e[0]) + "; If(inb, [&] { out_" + suffix(s.t) + "(lin * " +
             std::to_string(p.out_slots[static_cast<int>(s.t)]) + " + " + std::to_string(s.a) + ") = t; }); }");
        return;
      case SK::store_approx: {
        static const char* fn[] = {"exp", "exp2", "log", "log2", "sin", "cos", "rsqrt"};
        Approx f = static_cast<Approx>(s.op);
        std::string x = ex(s.e[0]);
        double lim = (f == Approx::sin || f == Approx::cos) ? 32.0 : s.t == Ty::f32 ? 100.0 : 800.0;
        std::string l = std::to_string(static_cast<int>(lim)) + ".0";
        if (f != Approx::log && f != Approx::log2 && f != Approx::rsqrt) x = "fmin(fmax(" + x + ", -" + l + "), " + l + ")";
        int w = s.t == Ty::f32 ? 0 : 1;
        line("{ Value t = " + std::string(fn[s.op]) + "(" + x + "); If(inb, [&] { ap_" + suffix(s.t) + "(lin * " +
             std::to_string(p.approx_slots[w]) + " + " + std::to_string(s.a) + ") = t; }); }");
        return;
      }
      case SK::store_shared: line("s" + std::to_string(s.a) + "(lid) " + assign_op(s.op) + " " + ex(s.e[0]) + ";"); return;
      case SK::store_local:
        line("{ Value t = norm(" + ex(s.e[0]) + ", " + std::to_string(p.locals[s.a].size) + "); p" + std::to_string(s.a) + "(t) " +
             assign_op(s.op) + " " + ex(s.e[1]) + "; }");
        return;
      case SK::init_local:
        line("for (int t = 0; t < " + std::to_string(p.locals[s.a].size) + "; ++t) p" + std::to_string(s.a) + "(t) = " + ex(s.e[0]) + ";");
        return;
      case SK::init_satom: {
        const SharedArr& a = p.shared[s.a];
        std::string t = "If(lid == 0, [&] {";
        for (int c = 0; c < a.cells; ++c) {
          Expr k;
          k.k = EK::konst;
          k.t = a.t;
          k.bits = a.init[c];
          t += " s" + std::to_string(s.a) + "(" + std::to_string(c) + ") = " + ex(k) + ";";
        }
        line(t + " });");
        return;
      }
      case SK::atomic_g: {
        int w = s.t == Ty::i32 ? 0 : s.t == Ty::u32 ? 1 : 2;
        line(std::string("atomic::") + atomic_fn[p.atom_ops[w][s.a]] + "(at_" + suffix(s.t) + ", " + std::to_string(s.a) + ", " + ex(s.e[0]) + ");");
        return;
      }
      case SK::atomic_s:
        line(std::string("atomic::") + atomic_fn[p.shared[s.a].ops[s.b]] + "(s" + std::to_string(s.a) + ", " + std::to_string(s.b) + ", " + ex(s.e[0]) + ");");
        return;
      case SK::if_:
        line("If(" + ex(s.e[0]) + ", [&] {");
        block(s.body);
        if (!s.els.empty()) {
          line("}).Else([&] {");
          block(s.els);
        }
        line("});");
        return;
      case SK::for_:
        line("For(" + std::to_string(s.b) + ", norm(" + ex(s.e[0]) + ", " + std::to_string(s.op + 1) + ") + " + std::to_string(s.b) +
             ", [&](Int k" + std::to_string(s.a) + ") {");
        block(s.body);
        line("});");
        return;
      case SK::while_: {
        std::string w = "w" + std::to_string(s.a);
        line("{ Var<int32_t> " + w + " = 0;");
        line("While([&] { return " + w + " < " + std::to_string(s.b) + "; }, [&] {");
        line("  " + w + " += 1;");
        line("  Int k" + std::to_string(s.a) + " = " + w + ";");
        block(s.body);
        line("}); }");
        return;
      }
      case SK::brk: line("If(" + ex(s.e[0]) + ", [&] { Break(); });"); return;
      case SK::wavebarrier: line("wavebarrier();"); return;
    }
  }

  std::string run() {
    o << "// rocjit-smith seed " << p.seed << ": " << p.dims << "-D, extents " << p.n[0] << "x" << p.n[1] << "x" << p.n[2]
      << ", groups of " << p.l[0] << "x" << p.l[1] << "x" << p.l[2] << " (grid " << p.grid(0) << "x" << p.grid(1) << "x"
      << p.grid(2) << " groups), inputs of " << p.n_in << " elements.\n";
    o << "// Output slots per work-item: out_i " << p.out_slots[0] << ", out_u " << p.out_slots[1] << ", out_l " << p.out_slots[2]
      << ", out_f " << p.out_slots[3] << ", out_d " << p.out_slots[4] << ", ap_f " << p.approx_slots[0] << ", ap_d " << p.approx_slots[1]
      << "; atomic cells at_i " << p.atom_cells[0] << ", at_u " << p.atom_cells[1] << ", at_l " << p.atom_cells[2] << ".\n";
    o << "// Inputs, initial outputs and launch: rocjit-smith --seed=" << p.seed << " --count=1 (see tools/rocjit-smith/README.md).\n";
    o << "auto norm = [](const Operand& e, int n) { return ((e % n) + n) % n; };\n";
    o << "Kernel k = kernel(\"smith\", [&](Array<int32_t> in_i, Array<uint32_t> in_u, Array<int64_t> in_l, Array<float> in_f,\n"
         "    Array<double> in_d, Array<int32_t> out_i, Array<uint32_t> out_u, Array<int64_t> out_l, Array<float> out_f,\n"
         "    Array<double> out_d, Array<float> ap_f, Array<double> ap_d, Array<int32_t> at_i, Array<uint32_t> at_u,\n"
         "    Array<int64_t> at_l) {\n";
    indent = 1;
    line("Int lid = local_id(0) + " + std::to_string(p.l[0]) + " * (local_id(1) + " + std::to_string(p.l[1]) + " * local_id(2));");
    line("Int gx = global_id(0), gy = global_id(1), gz = global_id(2);");
    line("Int lin = gx + " + std::to_string(p.n[0]) + " * (gy + " + std::to_string(p.n[1]) + " * gz);");
    line("Bool inb = gx < " + std::to_string(p.n[0]) + " && gy < " + std::to_string(p.n[1]) + " && gz < " + std::to_string(p.n[2]) + ";");
    for (size_t i = 0; i < p.vars.size(); ++i)
      line(std::string("Var<") + cpp_type(p.vars[i]) + "> v" + std::to_string(i) + " = " + ex(p.var_init[i]) + ";");
    for (size_t i = 0; i < p.shared.size(); ++i) {
      int n = p.shared[i].atomic ? p.shared[i].cells : p.group_size();
      line("auto s" + std::to_string(i) + " = shared::array<" + cpp_type(p.shared[i].t) + ">({" + std::to_string(n) + "});");
    }
    for (size_t i = 0; i < p.locals.size(); ++i)
      line("auto p" + std::to_string(i) + " = local::array<" + cpp_type(p.locals[i].t) + ">({" + std::to_string(p.locals[i].size) + "});");
    for (size_t ph = 0; ph < p.phases.size(); ++ph) {
      if (ph > 0) line("barrier(CLK_LOCAL_MEM_FENCE);");
      --indent;
      block(p.phases[ph]);
      ++indent;
    }
    o << "}, {.max_block_size = " << p.group_size() << "});\n";
    return o.str();
  }
};

}  // namespace

std::string to_opencl(const Program& p, bool inject) { return Cl{p, inject}.run(); }
std::string to_cpp(const Program& p) { return Cpp{p}.run(); }

}  // namespace smith
