// The .rjir parser: print -> parse -> print is the identity, and bad text is reported with
// source:line:column.
#include <catch2/catch.hpp>

#include <rocjit/compiler/parser.hpp>

#include <fmt/format.h>

#include <cmath>
#include <set>

#include "sample_kernels.hpp"

using namespace rocjit;
using namespace rocjit::dsl;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace {

// One kernel that records every op kind, every atomic, every math function, both kinds of
// scalar and memory objects and all three layouts.
Kernel every_op() {
  return kernel("every_op", [](Array<float, 2, ir::Layout::F> a, Array<float, 3, ir::Layout::strided> s3,
                               Array<int32_t> counts, Array<float> f, Int n, Float scale) {
    auto tmp = local::array<float>({4}, "tmp");
    auto lds = shared::array<int32_t>({8, 2}, "lds");
    auto dyn = shared::dynamic<int32_t>("dyn");
    Var<float> acc = 0.0f;
    Var<int32_t> j = 0;
    Int i = global_id(0);
    Int ids = local_id(0) + group_id(1) + local_size(2) + num_groups(0) + global_size(1) + a.shape(1);
    For(0, n, 2, [&](Int k) {
      tmp(k % 4) = a(i, k) * scale;
      acc += tmp(k % 4);
    });
    While([&] { return j < 3; }, [&] {
      j += 1;
      If(j == 2, [&] { Break(); });
      If(j == 1, [&] { Continue(); });
    });
    For(Int(0), [](Int c) { return c < 4; }, [](Int c) { return c + 1; }, [&](Int c) { tmp(c) = 0.0f; },
        {.unroll = 2});
    If(acc > 1.0f, [&] { a(i, 0) = acc; }).Else([&] { a(i, 1) = acc; });
    Value x = acc;
    Value m = sqrt(x) + rsqrt(x) + exp(x) + exp2(x) + log(x) + log2(x) + sin(x) + cos(x) + tan(x) + pow(x, x) +
              fma(x, x, x) + fabs(x) + floor(x) + ceil(x) + fmin(x, x) + fmax(x, x);
    s3(i, j, n) = select(m >= 0.0f, -m, cast<float>(cast<double>(m)));
    Value bits = (ids / 3) - (ids % 5) + min(ids, n) + max(ids, n) + abs(ids);
    Value mixed = (bits & 7) | (bits ^ 1) | (bits << 2) | (bits >> 1) | ~bits;
    Value c64 = cast<int64_t>(mixed) + int64_t{5000000000};
    If(c64 != int64_t{0} && c64 <= int64_t{1} && mixed < 4, [&] { counts(0) = cast<int32_t>(cast<uint32_t>(mixed)); });
    Value old = atomic::add(counts, i, 1);
    atomic::sub(counts, i, old);
    atomic::min(counts, i, old);
    atomic::max(counts, i, old);
    atomic::and_(counts, i, old);
    atomic::or_(counts, i, old);
    atomic::xor_(counts, i, old);
    atomic::exchange(counts, i, old);
    atomic::compare_exchange(counts, i, old, 7);
    atomic::add(f, i, 1.5f);
    atomic::compare_exchange(lds, {local_id(0), 1}, old, 7);
    atomic::add(lds, {local_id(0), 0}, 1, memory_order::acq_rel, memory_scope::workgroup);
    Value seen = atomic::load(counts, i, memory_order::acquire) + atomic::load(dyn, 0);
    atomic::store(counts, i, seen, memory_order::release, memory_scope::system);
    fence(memory_scope::wavefront, memory_order::seq_cst);
    Int promised = uniform(counts(0)) + bitcast<int32_t>(f(0));
    If(i > promised, [&] { f(i) = lds(1, 1) * 1.0f; });
    f.vstore(i, f.vload<4>(i) * scale);
    barrier(CLK_LOCAL_MEM_FENCE);
    barrier(CLK_GLOBAL_MEM_FENCE);
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    barrier(0);
    wavebarrier();
    constexpr mma::Shape S{16, 16, 16};
    mma::A<half> ma(S);
    mma::B<half> mb(S);
    mma::Accumulator<float> mc(S, 0.5f);
    mma::mma(mc, ma, mb);
    f(i) = mc[1];
    print("i = {} \"quoted\"\ttab \\ {:.3e}\n", i, f(i));
    device_assert(i >= 0, "i {} negative", i);
    If(n > 100, [&] { Return(); });
    counts(1) = wave::reduce_add(n) + lane_id() + wave_size();
  });
}

std::string round_trip(const std::string& text, bool locations) {
  return ir::print(ir::parse(text, "test.rjir"), {.locations = locations});
}

// A kernel header around `body` (one op per line, indented by two spaces).
std::string wrap(const std::string& body) {
  return "kernel @bad(@x: array<f32, 1, C>, %1 n: i32) max_block_size(64) {\n" + body + "}\n";
}

}  // namespace

TEST_CASE("every sample kernel prints, parses and prints back identically, with and without locations") {
  for (auto make : {samples::saxpy, samples::reverse, samples::matmul, samples::reduce, samples::transpose,
                    samples::histogram, samples::jacobi}) {
    Kernel k = make();
    for (bool locations : {true, false}) {
      DYNAMIC_SECTION(k.name() << (locations ? " with" : " without") << " locations") {
        std::string text = k.print(locations);
        CHECK(round_trip(text, locations) == text);
        ir::Kernel parsed = ir::parse(text);
        CHECK(parsed.name == k.name());
        CHECK(parsed.params.size() == k.ir().params.size());
        CHECK(parsed.shared_bytes() == k.ir().shared_bytes());
        CHECK(parsed.max_block_size == k.ir().max_block_size);
      }
    }
  }
}

TEST_CASE("a parsed sample kernel lowers to exactly the LLVM IR of the traced one") {
  // The IR text is read without debug info (!dbg): line tables off for this test.
  struct LineTablesOff {
    Settings saved = settings();
    LineTablesOff() { update_settings([](Settings& s) { s.line_tables = false; }); }
    ~LineTablesOff() { set_settings(saved); }
  } line_tables_off;
  for (auto make : {samples::matmul, samples::reduce, samples::histogram}) {
    Kernel k = make();
    CompileOptions options;
    options.emit_llvm_ir = true;
    options.opt_level = 0;
    CodeObject traced = compile(k.ir(), Target::amdgpu("gfx90a"), options);
    CodeObject parsed = compile(ir::parse(k.print(false)), Target::amdgpu("gfx90a"), options);
    CHECK(parsed.llvm_ir == traced.llvm_ir);
    CHECK(parsed.kernels.at(0).group_segment_fixed_size == traced.kernels.at(0).group_segment_fixed_size);
  }
}

TEST_CASE("a kernel using every op kind round-trips, with and without locations") {
  Kernel k = every_op();
  std::set<ir::OpKind> kinds;
  ir::walk(k.ir().body, [&](const ir::Op& op) { kinds.insert(op.kind); });
  CHECK(kinds.size() == ir::all_ops().size());  // the kernel really uses every op
  for (bool locations : {true, false}) {
    std::string text = k.print(locations);
    INFO(text);
    CHECK(round_trip(text, locations) == text);
  }
  ir::Kernel parsed = ir::parse(k.print(true));
  CHECK(parsed.memories.size() == k.ir().memories.size());
  CHECK(parsed.memories[1].layout == ir::Layout::strided);
  CHECK(parsed.memories.back().dynamic);
  CHECK(parsed.slots.size() == 3 + 12);  // acc, j, the For's variable; 4 per mma fragment
  CHECK(parsed.values.size() == k.ir().values.size());
}

TEST_CASE("every member of every op family, as the registry lists them, prints and parses back") {
  // Built from the registry, so a member appended to any family is covered without editing this test.
  std::string text = "kernel @members(@c: array<i32, 1, C>, %1 n: i32, %2 x: f32) max_block_size(64) {\n";
  std::vector<std::pair<ir::OpKind, unsigned>> expected;
  ir::ValueId next = 3;
  for (const ir::OpInfo& info : ir::all_ops()) {
    const auto members = ir::family_members(info.family);
    for (size_t i = 0; i < members.size(); ++i) {
      ir::Op op(info.kind);
      ir::set_member(op, static_cast<unsigned>(i));
      // Wave votes take a predicate: the first comparison's result (%18 = cmp.eq).
      const std::string_view name = members[i].name;
      const bool vote = info.family == ir::OpFamily::wave &&
                        (name == "ballot" || name == "any" || name == "all" || name == "count");
      // Math: float functions take x (%2), integer ones n (%1), ldexp x and n.
      const bool math = info.family == ir::OpFamily::math;
      const ir::MathDomain domain = math ? ir::math_fn_domain(static_cast<ir::MathFn>(i)) : ir::MathDomain::floating;
      const bool float_math = math && domain != ir::MathDomain::integer;
      const char* value = float_math ? "%2" : vote ? "%18" : "%1";
      std::vector<std::string> operands(members[i].operands, value);
      if (domain == ir::MathDomain::ldexp) operands[1] = "%1";
      // atomic.store defines no value; atomic.load takes no value operand.
      const bool no_result = info.family == ir::OpFamily::atomic && name == "store";
      std::string line = no_result ? fmt::format("  {} ", ir::op_spelling(op))
                                   : fmt::format("  %{} = {} ", next++, ir::op_spelling(op));
      if (info.family == ir::OpFamily::workitem) line += "0";
      else if (info.family == ir::OpFamily::atomic && operands.empty()) line += "@c[%1]";
      else if (info.family == ir::OpFamily::atomic) line += fmt::format("@c[%1], {}", fmt::join(operands, ", "));
      else line += fmt::format("{}", fmt::join(operands, ", "));
      const char* type = float_math ? "f32"
                         : !vote                          ? "i32"
                         : name == "ballot"               ? "u64"
                         : name == "count"                ? "i32"
                                                          : "i1";
      text += line + fmt::format(" : {}\n", type);
      expected.emplace_back(info.kind, op.member());
    }
  }
  text += "}\n";
  INFO(text);
  ir::Kernel parsed = ir::parse(text, "members.rjir");
  CHECK(ir::print(parsed, {.locations = false}) == text);
  std::vector<std::pair<ir::OpKind, unsigned>> got;
  ir::walk(parsed.body, [&](const ir::Op& op) { got.emplace_back(op.kind, op.member()); });
  CHECK(got == expected);
  CHECK(expected.size() > 50);
}

TEST_CASE("sparse value ids, float literals, escaped file names and i1 constants survive a round trip") {
  const std::string text =
      "kernel @lit(@out: array<f64, 1, C>, %7 n: i64) max_block_size(128) loc(\"dir/\\\"odd\\\\.cpp\":3:9) {\n"
      "  var $acc: f64 loc(\"k.cpp\":4:1)\n"
      "  %10 = const nan : f64\n"
      "  %12 = const inf : f64\n"
      "  %20 = const -inf : f64\n"
      "  %21 = const 1e-05 : f64\n"
      "  %22 = const -0.0 : f64\n"
      "  %23 = const 1.0 : f64\n"
      "  %24 = const 1e+300 : f64\n"
      "  %30 = const 1 : i1\n"
      "  %31 = const -9223372036854775808 : i64\n"
      "  %40 = global_id 0 : i32\n"
      "  if %30 {\n"
      "    store @out[%40], %21 : f64\n"
      "  } else {\n"
      "    var.store $acc, %10 : f64\n"
      "  }\n"
      "}\n";
  CHECK(round_trip(text, true) == text);
  ir::Kernel k = ir::parse(text);
  CHECK(k.loc.file == "dir/\"odd\\.cpp");
  CHECK(k.values.size() == 41);
  REQUIRE(k.body.ops.size() == 11);
  CHECK(std::isnan(k.body.ops[0]->float_value()));
  CHECK(k.body.ops[1]->float_value() == std::numeric_limits<double>::infinity());
  CHECK(k.body.ops[2]->float_value() == -std::numeric_limits<double>::infinity());
  CHECK(k.body.ops[3]->float_value() == 1e-05);
  CHECK(std::signbit(k.body.ops[4]->float_value()));
  CHECK(k.body.ops[8]->int_value() == std::numeric_limits<int64_t>::min());
  CHECK(k.values[23].def == k.body.ops[5].get());  // index_definitions() ran
}

TEST_CASE("a file may hold several kernels, and parse() wants exactly one") {
  std::string text = samples::saxpy().print(false) + "\n// a comment between kernels\n" + samples::jacobi().print(false);
  auto kernels = ir::parse_all(text, "two.rjir");
  REQUIRE(kernels.size() == 2);
  CHECK(kernels[0].name == "saxpy");
  CHECK(kernels[1].name == "jacobi");
  CHECK_THROWS_WITH(ir::parse(text, "two.rjir"), StartsWith("two.rjir:15:1: expected end of file, got 'kernel'"));
}

TEST_CASE("parse errors name the source, line and column") {
  SECTION("a truncated file") {
    std::string text = samples::reduce().print(false);
    text.resize(text.find("barrier local"));
    CHECK_THROWS_WITH(ir::parse(text, "cut.rjir"), StartsWith("cut.rjir:14:3: expected '}', got end of file"));
    CHECK_THROWS_WITH(ir::parse("kernel @k(@x: array<f32, 1", "cut.rjir"),
                      StartsWith("cut.rjir:1:27: expected ',', got end of file"));
  }
  SECTION("an unknown op") {
    CHECK_THROWS_WITH(ir::parse(wrap("  %2 = frobnicate %1 : i32\n"), "t.rjir"),
                      StartsWith("t.rjir:2:8: unknown op 'frobnicate'"));
    CHECK_THROWS_WITH(ir::parse(wrap("  %2 = math.cosine %1 : f32\n"), "t.rjir"),
                      StartsWith("t.rjir:2:8: unknown op 'math.cosine'; expected one of math.acos, math.acosh,"));
  }
  SECTION("a type mismatch") {
    CHECK_THROWS_WITH(ir::parse(wrap("  %2 = const 1.0 : f32\n  %3 = add %1, %2 : i32\n"), "t.rjir"),
                      StartsWith("t.rjir:3:16: expected a value of type i32, got %2 of type f32"));
    CHECK_THROWS_WITH(ir::parse(wrap("  %2 = load @x[%1] : f64\n"), "t.rjir"),
                      StartsWith("t.rjir:2:22: expected f32 (the element type of @x), got f64"));
    CHECK_THROWS_WITH(ir::parse(wrap("  %2 = const 1.5 : i32\n"), "t.rjir"),
                      StartsWith("t.rjir:2:14: expected an integer literal for i32, got '1.5'"));
  }
  SECTION("an undefined value") {
    CHECK_THROWS_WITH(ir::parse(wrap("  %2 = add %1, %9 : i32\n"), "t.rjir"),
                      StartsWith("t.rjir:2:16: use of undefined value %9"));
    CHECK_THROWS_WITH(ir::parse(wrap("  %2 = const 1 : i1\n  if %2 {\n    %3 = const 0 : i32\n  }\n"
                                     "  %4 = add %3, %1 : i32\n"),
                                "t.rjir"),
                      StartsWith("t.rjir:6:12: value %3 (defined at 4:5) is used outside the region that defines it"));
    CHECK_THROWS_WITH(ir::parse(wrap("  %2 = add %1, %0 : i32\n"), "t.rjir"),
                      StartsWith("t.rjir:2:16: expected a value id from %1 to %1048576, got '%0'"));
    CHECK_THROWS_WITH(ir::parse(wrap("  %2 = load @y[%1] : f32\n"), "t.rjir"),
                      StartsWith("t.rjir:2:13: unknown array '@y'"));
  }
  SECTION("a duplicate name") {
    CHECK_THROWS_WITH(ir::parse(wrap("  %2 = const 1 : i32\n  %2 = const 2 : i32\n"), "t.rjir"),
                      StartsWith("t.rjir:3:3: duplicate value %2: it is already defined at 2:3"));
    CHECK_THROWS_WITH(ir::parse(wrap("  %1 = const 1 : i32\n"), "t.rjir"),
                      StartsWith("t.rjir:2:3: duplicate value %1: it is already defined at 1:35"));
    CHECK_THROWS_WITH(ir::parse(wrap("  shared @x: f32[4]\n"), "t.rjir"),
                      StartsWith("t.rjir:2:10: duplicate array name '@x': it is already declared at 1:13"));
    CHECK_THROWS_WITH(ir::parse(wrap("  var $v: f32\n  var $v: i32\n"), "t.rjir"),
                      StartsWith("t.rjir:3:7: duplicate variable name '$v': it is already declared at 2:7"));
  }
  SECTION("a character no token starts with, printable or not") {
    CHECK_THROWS_WITH(ir::parse(wrap("  %2 = add %1, %1 : i32 ;\n"), "t.rjir"),
                      StartsWith("t.rjir:2:25: unexpected character ';'"));
    CHECK_THROWS_WITH(ir::parse(wrap("  \x01\n"), "t.rjir"), StartsWith("t.rjir:2:3: unexpected character byte 0x01"));
    CHECK_THROWS_WITH(ir::parse(wrap("  \xc3\xa9\n"), "t.rjir"), StartsWith("t.rjir:2:3: unexpected character byte 0xc3"));
  }
  SECTION("a kernel the verifier rejects is reported at its header") {
    // A barrier under a condition that depends on the work-item breaks the uniformity rule.
    CHECK_THROWS_WITH(ir::parse("\n" + wrap("  %2 = local_id 0 : i32\n  %3 = cmp.lt %2, %1 : i32\n  if %3 {\n"
                                            "    barrier local\n  }\n"),
                                "t.rjir"),
                      StartsWith("t.rjir:2:1: kernel 'bad'") && Contains("barrier"));
  }
}

TEST_CASE("regions nested deeper than the limit are a parse error, not a stack overflow") {
  auto nested = [](unsigned ifs) {
    std::string text = "kernel @deep(@x: array<i32, 1, C>) max_block_size(64) {\n  %1 = const 1 : i1\n";
    for (unsigned i = 0; i < ifs; ++i) text += "if %1 {\n";
    text += "%2 = local_id 0 : i32\nstore @x[%2], %2 : i32\n";
    for (unsigned i = 0; i < ifs; ++i) text += "}\n";
    return text + "}\n";
  };
  // The kernel body is the first region: 255 ifs inside it are the deepest allowed.
  ir::Kernel deepest = ir::parse(nested(ir::max_region_depth - 1), "deep.rjir");
  CHECK(ir::parse(ir::print(deepest)).name == "deep");
  CHECK_THROWS_WITH(ir::parse(nested(ir::max_region_depth), "deep.rjir"),
                    StartsWith("deep.rjir:258:7: regions are nested more than 256 deep"));
  // Once a crash (the recursive parser ran out of stack): two hundred thousand levels.
  CHECK_THROWS_WITH(ir::parse(nested(200000), "deep.rjir"), Contains("regions are nested more than 256 deep"));
}
