// Generated .rjir kernels that apply every op to all pairs of a table of awkward values, shared
// by the interpreter's unit tests (interpreter vs the CPU back end) and the e2e tests
// (interpreter vs the device under test).
#pragma once

#include <fmt/format.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include <rocjit/compiler/interpret.hpp>
#include <rocjit/compiler/parser.hpp>

namespace rocjit::testing::ops {

template <class T>
using lim = std::numeric_limits<T>;

// Writes `%N = rhs` lines with fresh value ids.
struct Body {
  int next = 100;
  std::string text;
  std::string let(const std::string& rhs) {
    int id = next++;
    text += fmt::format("    %{} = {}\n", id, rhs);
    return fmt::format("%{}", id);
  }
  void line(const std::string& s) { text += "    " + s + "\n"; }
};

inline std::string tn(ir::Type t) { return std::string(ir::type_name(t)); }

// A row computes one result of type `out` from the operands a and b (both of type t).
using Row = std::function<std::string(Body&, const std::string& a, const std::string& b)>;

// kernel @name(@x: array<t>, @y: array<t>, @out: array<out, 2>): work-item p computes every
// row for the pair (x[p / n], y[p % n]) into out[row, p].
inline ir::Kernel pairwise_kernel(const std::string& name, ir::Type t, ir::Type out, const std::vector<Row>& rows) {
  Body b;
  std::string a = b.let(fmt::format("load @x[%5] : {}", tn(t)));
  std::string c = b.let(fmt::format("load @y[%6] : {}", tn(t)));
  for (size_t r = 0; r < rows.size(); ++r) {
    std::string row = b.let(fmt::format("const {} : i32", r));
    std::string v = rows[r](b, a, c);
    b.line(fmt::format("store @out[{}, %1], {} : {}", row, v, tn(out)));
  }
  std::string text = fmt::format(
      "kernel @{}(@x: array<{}, 1, C>, @y: array<{}, 1, C>, @out: array<{}, 2, C>) max_block_size(64) {{\n"
      "  %1 = global_id 0 : i32\n  %2 = shape @x, 0 : i32\n  %3 = mul %2, %2 : i32\n  %4 = cmp.lt %1, %3 : i32\n"
      "  if %4 {{\n    %5 = div %1, %2 : i32\n    %6 = rem %1, %2 : i32\n{}  }}\n}}\n",
      name, tn(t), tn(t), tn(out), b.text);
  return ir::parse(text, name + ".rjir");
}

inline Row op_row(const std::string& op, ir::Type t) {
  return [=](Body& b, const std::string& x, const std::string& y) { return b.let(fmt::format("{} {}, {} : {}", op, x, y, tn(t))); };
}
inline Row unary_row(const std::string& op, ir::Type t) {
  return [=](Body& b, const std::string& x, const std::string&) { return b.let(fmt::format("{} {} : {}", op, x, tn(t))); };
}
inline Row compare_row(const std::string& pred, ir::Type t) {
  return [=](Body& b, const std::string& x, const std::string& y) {
    std::string c = b.let(fmt::format("cmp.{} {}, {} : {}", pred, x, y, tn(t)));
    std::string one = b.let(fmt::format("const 1 : {}", tn(t)));
    std::string zero = b.let(fmt::format("const 0 : {}", tn(t)));
    return b.let(fmt::format("select {}, {}, {} : {}", c, one, zero, tn(t)));
  };
}

template <class T>
std::vector<T> table();
template <>
inline std::vector<int32_t> table() {
  return {0, 1, -1, 2, -2, 3, 7, -7, 31, 32, 33, 63, 64, 65, -33, 0x12345678, -100000, 46341,
          lim<int32_t>::min(), lim<int32_t>::min() + 1, lim<int32_t>::max(), lim<int32_t>::max() - 1};
}
template <>
inline std::vector<uint32_t> table() {
  return {0, 1, 2, 3, 7, 31, 32, 33, 63, 64, 65, 65536, 123456789, 0x7fffffffu, 0x80000000u, 0x80000001u,
          0xfffffffeu, 0xffffffffu};
}
template <>
inline std::vector<int64_t> table() {
  return {0, 1, -1, 2, -2, 7, -7, 63, 64, 65, 127, -65, int64_t{1} << 40, -(int64_t{1} << 40) + 3, 3037000500,
          lim<int32_t>::min(), lim<int32_t>::max(), lim<int64_t>::min(), lim<int64_t>::min() + 1, lim<int64_t>::max()};
}
template <>
inline std::vector<uint64_t> table() {
  return {0, 1, 2, 7, 63, 64, 65, 127, 0xffffffffull, 0x100000000ull, uint64_t{1} << 63, (uint64_t{1} << 63) + 1,
          lim<uint64_t>::max(), lim<uint64_t>::max() - 1, 0x0123456789abcdefull};
}
template <>
inline std::vector<float> table() {
  const float inf = lim<float>::infinity(), nan = lim<float>::quiet_NaN();
  return {0.0f, -0.0f, 1.0f, -1.0f, 0.5f, -0.5f, 1.5f, 2.5f, -2.5f, 3.7f, -3.7f, 1e10f, -1e10f,
          2147483648.0f, 2147483520.0f, -2147483648.0f, -2147483904.0f, 4294967296.0f, 4294967040.0f,
          9.2233720368547758e18f, -9.2233720368547758e18f, 1.8446744073709552e19f, 1e30f, 1e-40f, -1e-40f,
          lim<float>::max(), lim<float>::min(), inf, -inf, nan, 0.1f, 3.0e38f};
}
template <>
inline std::vector<double> table() {
  const double inf = lim<double>::infinity(), nan = lim<double>::quiet_NaN();
  return {0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.5, -2.5, 3.7, -3.7, 1e10, 2147483647.0, 2147483647.9, 2147483648.0,
          -2147483648.0, -2147483648.9, -2147483649.0, 4294967295.0, 4294967295.5, 4294967296.0,
          9223372036854775808.0, 9223372036854774784.0, -9223372036854775808.0, -9223372036854777856.0,
          18446744073709551616.0, 18446744073709549568.0, 9007199254740993.0, 1e300, -1e300, 1e-310, inf, -inf, nan, 0.1};
}

inline std::vector<Row> integer_rows(ir::Type t) {
  std::vector<Row> rows;
  for (const char* op : {"add", "sub", "mul", "div", "rem", "min", "max", "and", "or", "xor", "shl", "shr"})
    rows.push_back(op_row(op, t));
  for (const char* op : {"neg", "not", "abs"}) rows.push_back(unary_row(op, t));
  for (const char* p : {"eq", "ne", "lt", "le", "gt", "ge"}) rows.push_back(compare_row(p, t));
  rows.push_back([t](Body& b, const std::string& x, const std::string& y) {
    std::string c = b.let(fmt::format("cmp.lt {}, {} : {}", x, y, tn(t)));
    return b.let(fmt::format("select {}, {}, {} : {}", c, y, x, tn(t)));
  });
  return rows;
}

inline std::vector<Row> float_rows(ir::Type t) {
  std::vector<Row> rows;
  for (const char* op : {"add", "sub", "mul", "div", "rem", "min", "max"}) rows.push_back(op_row(op, t));
  for (const char* op : {"neg", "abs"}) rows.push_back(unary_row(op, t));
  for (const char* p : {"eq", "ne", "lt", "le", "gt", "ge"}) rows.push_back(compare_row(p, t));
  // The correctly rounded math functions (bit-exact everywhere).
  for (const char* fn : {"math.sqrt", "math.rsqrt", "math.fabs", "math.floor", "math.ceil"}) rows.push_back(unary_row(fn, t));
  for (const char* fn : {"math.fmin", "math.fmax"}) rows.push_back(op_row(fn, t));
  rows.push_back([t](Body& b, const std::string& x, const std::string& y) {
    return b.let(fmt::format("math.fma {}, {}, {} : {}", x, y, x, tn(t)));
  });
  return rows;
}

// kernel @casts_from_<from>(@x: array<from>, @o_i32, ..., @o_f64: array<to, 2> of shape [3, n]):
// row 0 is x cast to each type, row 1 the i1 (x != 0, NaN included) cast to each type, row 2
// selects 1 or 0 on that i1.
inline ir::Kernel cast_kernel(ir::Type from) {
  const ir::Type targets[] = {ir::Type::i32, ir::Type::i64, ir::Type::u32, ir::Type::u64, ir::Type::f32, ir::Type::f64};
  Body b;
  std::string x = b.let(fmt::format("load @x[%1] : {}", tn(from)));
  std::string flag = b.let(fmt::format("cast {} : {} to i1", x, tn(from)));
  std::string r0 = b.let("const 0 : i32"), r1 = b.let("const 1 : i32"), r2 = b.let("const 2 : i32");
  std::string params;
  for (ir::Type to : targets) {
    std::string o = "@o_" + tn(to);
    params += fmt::format(", {}: array<{}, 2, C>", o, tn(to));
    b.line(fmt::format("store {}[{}, %1], {} : {}", o, r0, b.let(fmt::format("cast {} : {} to {}", x, tn(from), tn(to))), tn(to)));
    b.line(fmt::format("store {}[{}, %1], {} : {}", o, r1, b.let(fmt::format("cast {} : i1 to {}", flag, tn(to))), tn(to)));
    std::string one = b.let(fmt::format("const 1 : {}", tn(to))), zero = b.let(fmt::format("const 0 : {}", tn(to)));
    b.line(fmt::format("store {}[{}, %1], {} : {}", o, r2, b.let(fmt::format("select {}, {}, {} : {}", flag, one, zero, tn(to))), tn(to)));
  }
  std::string name = "casts_from_" + tn(from);
  std::string text = fmt::format(
      "kernel @{}(@x: array<{}, 1, C>{}) max_block_size(64) {{\n  %1 = global_id 0 : i32\n  %2 = shape @x, 0 : i32\n"
      "  %3 = cmp.lt %1, %2 : i32\n  if %3 {{\n{}  }}\n}}\n",
      name, tn(from), params, b.text);
  return ir::parse(text, name + ".rjir");
}

inline std::vector<std::string> integer_row_names() {
  return {"add", "sub", "mul", "div", "rem", "min", "max", "and", "or", "xor", "shl", "shr", "neg", "not", "abs",
          "cmp.eq", "cmp.ne", "cmp.lt", "cmp.le", "cmp.gt", "cmp.ge", "select"};
}
inline std::vector<std::string> float_row_names() {
  return {"add", "sub", "mul", "div", "rem", "min", "max", "neg", "abs", "cmp.eq", "cmp.ne", "cmp.lt", "cmp.le",
          "cmp.gt", "cmp.ge", "math.sqrt", "math.rsqrt", "math.fabs", "math.floor", "math.ceil", "math.fmin",
          "math.fmax", "math.fma(x, y, x)"};
}

template <class T>
std::string show(T v) {
  if constexpr (std::is_floating_point_v<T>) {
    using U = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
    return fmt::format("{} ({:#x})", v, std::bit_cast<U>(v));
  } else {
    return fmt::format("{}", v);
  }
}

// Compares `got` (a device's or back end's results) with `spec` (the interpreter's), laid out as
// rows of `columns` results (one row per op, see row_names; the operands of column c are
// x[c / n], x[c % n] when `pairs`, else x[c]). Returns "" when they agree, else a report naming
// the differing ops, counts and the first values. Any NaN equals any NaN (IEEE 754 leaves a NaN
// result's sign and payload open). Float min/max order -0 below +0 everywhere (the lowering uses
// llvm.minimumnum/maximumnum, the interpreter IEEE 754-2019 minimumNumber), so zeros compare
// bit for bit too.
template <class T, class In>
std::string compare_rows(const std::vector<T>& got, const std::vector<T>& spec, int64_t columns,
                         const std::vector<std::string>& row_names, const std::vector<In>& x, bool pairs,
                         const char* who) {
  if (got.size() != spec.size()) return fmt::format("{} results, the interpreter {}", got.size(), spec.size());
  std::string report, rows;
  int count = 0;
  std::vector<int> per_row(row_names.size() + 1, 0);
  for (size_t e = 0; e < got.size(); ++e) {
    if (std::memcmp(&got[e], &spec[e], sizeof(T)) == 0) continue;
    size_t row = std::min<size_t>(e / columns, row_names.size());
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(got[e]) && std::isnan(spec[e])) continue;
    }
    ++per_row[row];
    if (count++ < 16) {
      size_t col = e % columns, n = x.size();
      std::string operands = pairs ? fmt::format("x = {}, y = {}", show(x[col / n]), show(x[col % n]))
                                   : fmt::format("x = {}", show(x[col]));
      report += fmt::format("\n  {} ({}): {} {}, interpreter {}", row < row_names.size() ? row_names[row] : "?",
                            operands, who, show(got[e]), show(spec[e]));
    }
  }
  if (!count) return {};
  for (size_t r = 0; r < per_row.size(); ++r)
    if (per_row[r]) rows += fmt::format(" {}: {};", r < row_names.size() ? row_names[r] : "?", per_row[r]);
  return fmt::format("{} results differ from the reference interpreter (per op:{}){}", count, rows, report);
}

}  // namespace rocjit::testing::ops
