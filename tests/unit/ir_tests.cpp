// IR building, printing and verification.
#include <catch2/catch.hpp>

#include <fmt/format.h>
#include <rocjit/compiler/interpret.hpp>
#include <rocjit/compiler/parser.hpp>
#include <rocjit/compiler/time_trace.hpp>
#include <rocjit/compiler/visitor.hpp>
#include <rocjit/rocjit.hpp>

#include <algorithm>

#include "rocjit/compiler/passes.hpp"
#include "compiler/passes/uniformity.h"

using namespace rocjit;
using namespace rocjit::dsl;
using Catch::Matchers::Contains;

TEST_CASE("the printed IR of a small kernel is exactly the documented text form") {
  Kernel k = kernel("scale", [](Array<float> x, Float s) {
    Int i = global_id(0);
    If(i < x.shape(0), [&] { x(i) = x(i) * s; });
  }, {.max_block_size = 64, .param_names = {"x", "s"}});
  CHECK(k.print(false) ==
        "kernel @scale(@x: array<f32, 1, C>, %1 s: f32) max_block_size(64) {\n"
        "  %2 = global_id 0 : i32\n"
        "  %3 = shape @x, 0 : i32\n"
        "  %4 = cmp.lt %2, %3 : i32\n"
        "  if %4 {\n"
        "    %5 = load @x[%2] : f32\n"
        "    %6 = mul %5, %1 : f32\n"
        "    store @x[%2], %6 : f32\n"
        "  }\n"
        "}\n");
  CHECK(k.signature() == "scale(array<f32, 1> x, f32 s)");
}

TEST_CASE("every op records the file:line of the DSL call that made it") {
  int line = 0;
  Kernel k = kernel("located", [&](Array<float> x) {
    line = __LINE__ + 1;
    x(global_id(0)) = 1.0f;
  });
  std::string text = k.print(true);
  CHECK_THAT(text, Contains(std::string("store @arg0[%1], %2 : f32 loc(\"") + __FILE__ + "\":" + std::to_string(line)));
  ir::walk(k.ir().body, [&](const ir::Op& op) {
    CHECK(op.loc.line == static_cast<uint32_t>(line));
    CHECK(op.loc.file == __FILE__);
  });
}

TEST_CASE("structured control flow, variables, memories and atomics print in nested regions") {
  Kernel k = kernel("control", [](Array<float, 2, ir::Layout::F> a, Array<int32_t> counts, Int n) {
    auto tmp = local::array<float>({4}, "tmp");
    auto s = shared::array<int32_t>({8});
    Var<float> acc = 0.0f;
    Int i = global_id(0);
    For(0, n, 2, [&](Int k) {
      tmp(k % 4) = a(i, k);
      acc += tmp(k % 4);
    });
    Var<int32_t> j = 0;
    While([&] { return j < 3; }, [&] {
      j += 1;
      If(j == 2, [&] { Break(); });
    });
    If(acc > 1.0f, [&] { a(i, 0) = acc; }).Else([&] { a(i, 1) = acc; });
    Value old = atomic::add(counts, i, 1);
    atomic::compare_exchange(s, {local_id(0)}, old, 7);
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    wavebarrier();
  });
  std::string text = k.print(false);
  INFO(text);
  for (const char* piece : {"kernel @control(@arg0: array<f32, 2, F>, @arg1: array<i32, 1, C>, %1 arg2: i32)",
                            "  local @tmp: f32[4]\n", "  shared @shared0: i32[8]\n", "  var $v0: f32\n",
                            "for %6 = %4 to %1 step %5 : i32 {\n", "    store @tmp[%8], %9 : f32\n",
                            "  while {\n", "    condition %18\n  } do {\n", "      break\n",
                            "  } else {\n", "atomic.add @arg1[%3], %", "atomic.compare_exchange @shared0[%",
                            "  barrier local|global\n", "  wavebarrier\n"})
    CHECK_THAT(text, Contains(piece));
}

TEST_CASE("C++ arithmetic conversions are recorded as explicit casts, literals adapt") {
  Kernel k = kernel("promote", [](Array<double> d, Array<float> f, Array<int64_t> l) {
    Int i = global_id(0);
    d(i) = f(i) * 2.0 + cast<double>(i);  // f32 * double literal stays f32; f32 + f64 -> f64
    l(i) = i + 1;                         // i32 widens to i64 implicitly (lossless)
    f(i) = f(i) * 2;                      // integer literal adapts to f32
  });
  std::string text = k.print(false);
  INFO(text);
  CHECK_THAT(text, Contains("const 2.0 : f32"));
  CHECK_THAT(text, Contains(": f32 to f64"));
  CHECK_THAT(text, Contains(": i32 to f64"));
  CHECK_THAT(text, Contains(": i32 to i64"));
  CHECK_THAT(text, !Contains("const 2 : i32"));
}

namespace {
// A minimal hand-built kernel: x[0] = <value>, for verifier tests.
ir::Kernel handmade() {
  ir::Kernel k;
  k.name = "handmade";
  ir::Memory m;
  m.name = "x";
  m.element = ir::Type::f32;
  m.rank = 1;
  m.param_index = 0;
  k.memories.push_back(m);
  ir::Param p;
  p.name = "x";
  p.kind = ir::Param::Kind::array;
  p.type = ir::Type::f32;
  p.memory = 0;
  k.params.push_back(p);
  return k;
}

ir::Op& add_op(ir::Region& r, ir::OpKind kind, ir::Type type, ir::ValueId result, std::vector<ir::ValueId> operands) {
  auto op = std::make_unique<ir::Op>(kind);
  op->type = type;
  op->result = result;
  op->operands = std::move(operands);
  op->loc = ir::SourceLoc{"hand.cpp", 7, 1};
  r.ops.push_back(std::move(op));
  return *r.ops.back();
}
}  // namespace

TEST_CASE("the verifier rejects malformed IR with the kernel name and location") {
  SECTION("use of an undefined value") {
    ir::Kernel k = handmade();
    ir::ValueId idx = k.new_value(ir::Type::i32);
    ir::ValueId v = k.new_value(ir::Type::f32);
    add_op(k.body, ir::OpKind::store, ir::Type::none, 0, {idx, v});
    k.index_definitions();
    CHECK_THROWS_WITH(ir::verify(k), Contains("kernel 'handmade'") && Contains("before it is defined") &&
                                         Contains("hand.cpp:7"));
  }
  SECTION("a binary op on mismatched types") {
    ir::Kernel k = handmade();
    ir::ValueId a = k.new_value(ir::Type::i32), b = k.new_value(ir::Type::f32), c = k.new_value(ir::Type::i32);
    add_op(k.body, ir::OpKind::constant, ir::Type::i32, a, {});
    add_op(k.body, ir::OpKind::constant, ir::Type::f32, b, {});
    add_op(k.body, ir::OpKind::binary, ir::Type::i32, c, {a, b});
    k.index_definitions();
    CHECK_THROWS_WITH(ir::verify(k), Contains("needs operands of one type, got i32 and f32"));
  }
  SECTION("a store of the wrong element type") {
    ir::Kernel k = handmade();
    ir::ValueId i = k.new_value(ir::Type::i32), v = k.new_value(ir::Type::f64);
    add_op(k.body, ir::OpKind::constant, ir::Type::i32, i, {});
    add_op(k.body, ir::OpKind::constant, ir::Type::f64, v, {});
    add_op(k.body, ir::OpKind::store, ir::Type::none, 0, {i, v}).get<ir::AccessAttrs>().memory = 0;
    k.index_definitions();
    CHECK_THROWS_WITH(ir::verify(k), Contains("storing f64 into array 'x' of f32 needs an explicit cast"));
  }
  SECTION("a break outside any loop") {
    ir::Kernel k = handmade();
    add_op(k.body, ir::OpKind::break_, ir::Type::none, 0, {});
    CHECK_THROWS_WITH(ir::verify(k), Contains("Break() outside a loop"));
  }
  SECTION("a value defined twice") {
    ir::Kernel k = handmade();
    ir::ValueId a = k.new_value(ir::Type::i32);
    add_op(k.body, ir::OpKind::constant, ir::Type::i32, a, {});
    add_op(k.body, ir::OpKind::constant, ir::Type::i32, a, {});
    CHECK_THROWS_WITH(ir::verify(k), Contains("defined twice"));
  }
  SECTION("a float loop counter") {
    ir::Kernel k = handmade();
    ir::ValueId a = k.new_value(ir::Type::f32), iv = k.new_value(ir::Type::f32);
    add_op(k.body, ir::OpKind::constant, ir::Type::f32, a, {});
    auto& loop = add_op(k.body, ir::OpKind::for_, ir::Type::f32, iv, {a, a, a});
    loop.regions.resize(1);
    CHECK_THROWS_WITH(ir::verify(k), Contains("for bounds must be integers, got f32"));
  }
}

TEST_CASE("an op whose sub-code is outside its family is a verifier error, not an out-of-bounds read") {
  struct Case {
    ir::OpKind kind;
    ir::Type type;
    size_t operands;
    const char* family;
  };
  for (const Case& c : {Case{ir::OpKind::binary, ir::Type::i32, 2, "BinaryOp"},
                        Case{ir::OpKind::unary, ir::Type::i32, 1, "UnaryOp"},
                        Case{ir::OpKind::compare, ir::Type::i1, 2, "ComparePred"},
                        Case{ir::OpKind::math, ir::Type::f32, 1, "MathFn"},
                        Case{ir::OpKind::workitem, ir::Type::i32, 0, "WorkItem"}}) {
    for (unsigned sub : {static_cast<unsigned>(ir::family_members(ir::op_info(c.kind).family).size()), 255u}) {
      DYNAMIC_SECTION(c.family << " code " << sub) {
        ir::Kernel k = handmade();
        ir::ValueId a = k.new_value(ir::Type::i32), r = k.new_value(c.type);
        add_op(k.body, ir::OpKind::constant, ir::Type::i32, a, {});
        ir::set_member(add_op(k.body, c.kind, c.type, r, std::vector<ir::ValueId>(c.operands, a)), sub);
        k.index_definitions();
        CHECK_THROWS_AS(ir::verify(k), CompileError);
        CHECK_THROWS_WITH(ir::verify(k), Contains(fmt::format("{} code {}", c.family, sub)) && Contains("hand.cpp:7"));
        CHECK_NOTHROW(ir::print(k));  // the printer shows what it cannot name as '?'
      }
    }
  }
  SECTION("an atomic") {
    ir::Kernel k = handmade();
    ir::ValueId i = k.new_value(ir::Type::i32), v = k.new_value(ir::Type::f32), r = k.new_value(ir::Type::f32);
    add_op(k.body, ir::OpKind::constant, ir::Type::i32, i, {});
    add_op(k.body, ir::OpKind::constant, ir::Type::f32, v, {});
    ir::set_member(add_op(k.body, ir::OpKind::atomic, ir::Type::f32, r, {i, v}), 200);
    CHECK_THROWS_WITH(ir::verify(k), Contains("AtomicOp code 200"));
  }
  SECTION("barrier fence flags") {
    ir::Kernel k = handmade();
    add_op(k.body, ir::OpKind::barrier, ir::Type::none, 0, {}).get<ir::BarrierAttrs>().fences = 4;
    CHECK_THROWS_WITH(ir::verify(k), Contains("fence flags 0x4"));
  }
  SECTION("an op kind outside the registry") {
    ir::Kernel k = handmade();
    add_op(k.body, static_cast<ir::OpKind>(ir::all_ops().size()), ir::Type::none, 0, {});
    CHECK_THROWS_WITH(ir::verify(k), Contains("unknown op kind"));
  }
}

TEST_CASE("the registry derives names, operand counts and sync points") {
  CHECK(ir::op_kind_name(ir::OpKind::var_load) == "var.load");
  CHECK(ir::math_fn_name(ir::MathFn::fmax) == "fmax");
  CHECK(ir::math_fn_arity(ir::MathFn::fma) == 3);
  CHECK(ir::atomic_op_name(ir::AtomicOp::compare_exchange) == "compare_exchange");
  ir::Op op(ir::OpKind::atomic, ir::AtomicAttrs{.op = ir::AtomicOp::compare_exchange});
  CHECK(ir::op_spelling(op) == "atomic.compare_exchange");
  CHECK(ir::value_operand_count(op) == 2);
  op = ir::Op(ir::OpKind::wavebarrier);
  CHECK(ir::is_sync_point(op));
  CHECK(ir::op_info(ir::OpKind::barrier).sync == ir::SyncScope::workgroup);
  CHECK(ir::op_info(ir::OpKind::barrier).convergent);
  CHECK_FALSE(ir::op_info(ir::OpKind::load).convergent);
  op = ir::Op(ir::OpKind::store);
  CHECK_FALSE(ir::is_sync_point(op));
}

namespace {

// Counts loads and barriers; every other kind keeps the default (recurse into regions).
struct CountLoadsAndBarriers : ir::Visitor {
  int loads = 0, barriers = 0;
  void visit_load(const ir::Op& op) override { ++loads; }
  void visit_barrier(const ir::Op& op) override { ++barriers; }
};

// Rewrites fma(a, b, c) as a * b + c: an expansion into two ops, the last defining fma's result.
struct ExpandFma : ir::Mutator {
  Ops mutate_math(OpPtr op) override {
    if (op->math_fn() != ir::MathFn::fma) return keep(std::move(op));
    auto mul = std::make_unique<ir::Op>(ir::OpKind::binary, ir::BinaryAttrs{ir::BinaryOp::mul});
    mul->type = op->type;
    mul->result = kernel().new_value(op->type);
    mul->operands = {op->operands[0], op->operands[1]};
    mul->loc = op->loc;
    auto add = std::make_unique<ir::Op>(ir::OpKind::binary, ir::BinaryAttrs{ir::BinaryOp::add});
    add->type = op->type;
    add->result = op->result;
    add->operands = {mul->result, op->operands[2]};
    add->loc = op->loc;
    Ops out;
    out.push_back(std::move(mul));
    out.push_back(std::move(add));
    return out;
  }
};

}  // namespace

TEST_CASE("a visitor sees every op in nested regions through the per-kind hooks it overrides") {
  Kernel k = kernel("nested", [](Array<float> x, Int n) {
    auto tile = shared::array<float>({64}, "tile");
    For(0, n, [&](Int i) {
      tile(local_id(0)) = x(i);
      barrier();
      If(i > 2, [&] { x(i) = tile(0) + x(0); });
      barrier();
    });
  });
  CountLoadsAndBarriers count;
  count.visit(k.ir());
  int loads = 0, barriers = 0;
  ir::walk(k.ir().body, [&](const ir::Op& op) {
    loads += op.kind == ir::OpKind::load;
    barriers += op.kind == ir::OpKind::barrier;
  });
  CHECK(count.loads == 3);
  CHECK(count.loads == loads);
  CHECK(count.barriers == 2);
  CHECK(count.barriers == barriers);
}

TEST_CASE("clone makes an independent deep copy that prints identically") {
  Kernel k = kernel("cloned", [](Array<float> x, Float s) {
    Var<float> acc = 0.0f;
    For(0, 4, [&](Int i) { acc += fma(x(i), s, 1.0f); });
    x(0) = acc;
  });
  ir::Kernel copy = ir::clone(k.ir());
  CHECK(ir::print(copy) == k.print(true));
  ir::walk(copy.body, [&](const ir::Op& op) {
    if (op.result) CHECK(copy.values[op.result].def == &op);  // definitions point into the copy
  });
  SECTION("a mutator rewrites the copy and leaves the original alone") {
    ExpandFma expand;
    expand.mutate(copy);
    CHECK_NOTHROW(ir::verify(copy));
    const std::string text = ir::print(copy, {.locations = false});
    CHECK(text.find("math.fma") == std::string::npos);
    CHECK(text.find("mul") != std::string::npos);
    CHECK(k.print(false).find("math.fma") != std::string::npos);
    ir::walk(copy.body, [&](const ir::Op& op) {
      if (op.result) CHECK(copy.values[op.result].def == &op);
    });
    CHECK(ir::print(ir::parse(text), {.locations = false}) == text);
  }
}

TEST_CASE("ir::verify checks structure and types; the pipeline's check adds the barrier-uniformity rule") {
  ir::Kernel k = handmade();
  ir::ValueId id = k.new_value(ir::Type::i32), zero = k.new_value(ir::Type::i32), c = k.new_value(ir::Type::i1);
  add_op(k.body, ir::OpKind::workitem, ir::Type::i32, id, {}).set(ir::WorkItemAttrs{ir::WorkItem::local_id, 0});
  add_op(k.body, ir::OpKind::constant, ir::Type::i32, zero, {});
  add_op(k.body, ir::OpKind::compare, ir::Type::i1, c, {id, zero}).set(ir::CompareAttrs{ir::ComparePred::eq});
  ir::Op& branch = add_op(k.body, ir::OpKind::if_, ir::Type::none, 0, {c});
  branch.regions.resize(2);
  add_op(branch.regions[0], ir::OpKind::barrier, ir::Type::none, 0, {}).set(ir::BarrierAttrs{ir::fence_local});
  k.index_definitions();
  CHECK_NOTHROW(ir::verify(k));
  CHECK_THROWS_WITH(passes::check(k), Contains("barrier at hand.cpp:7 is not reached by every work-item") &&
                                          Contains("local_id(0)"));
}

TEST_CASE("the pipeline rewrites nothing every target lowers, and times every pass in the compile record") {
  Kernel k = kernel("tangent", [](Array<float> x, Array<double> y) {
    Int i = global_id(0);
    x(i) = tan(x(i));
    y(i) = tan(y(i));
  });
  // Every target lowers every math function (AMDGPU's tan through ocml): no rewritten copy.
  for (const Target& target : {Target::host(), Target::amdgpu("gfx90a"), Target::amdgpu("gfx1100")}) {
    const passes::PreparedKernel prepared = passes::prepare(k.ir(), target);
    CHECK_FALSE(prepared.rewritten());
    CHECK(&prepared.get() == &k.ir());
  }

  CompileOptions options;
  options.emit_llvm_ir = true;  // a fresh compile, so every pass runs
  compile(k.ir(), Target::amdgpu("gfx90a"), options);
  const CompileRecord record = last_compile_record("tangent", "amdgpu:gfx90a");
  auto ran = [&](const char* pass) {
    return std::any_of(record.phases.begin(), record.phases.end(), [&](const CompilePhase& p) { return p.name == pass; });
  };
  for (const char* pass : {"verify", "uniformity", "legalize types", "expand math", "lower"}) CHECK(ran(pass));
}

TEST_CASE("ir::Type is {code, bits, lanes}: the named types, queries and every spelling round-trip") {
  using T = ir::Type;
  CHECK(T::i32 == T(T::Code::int_, 32));
  CHECK(T::u64 == T(T::Code::uint, 64));
  CHECK(T::i1 == T(T::Code::uint, 1));
  CHECK(T::f64 == T(T::Code::float_, 64));
  CHECK(T() == T::none);
  CHECK(T::i1.is_bool());
  CHECK(!T::i1.is_integer());
  CHECK(T::u32.is_integer());
  CHECK(T::i64.is_signed_int());
  CHECK(!T::u64.is_signed_int());
  CHECK(T::f32.is_float());
  CHECK(T(T::Code::bfloat, 16).is_float());
  CHECK(T::f32.with_lanes(4).is_vector());
  CHECK(T::f32.with_lanes(4).element_of() == T::f32);
  CHECK(T::f32.with_lanes(4).bytes() == 16);
  CHECK(T::i1.bytes() == 1);
  CHECK(ir::bit_width(T::u64) == 64);
  // .rjir spellings: the seven supported types as before, and the ones the types issue adds.
  for (const char* name : {"i1", "i32", "i64", "u32", "u64", "f32", "f64", "i8", "u8", "i16", "u16", "f16", "bf16",
                           "f32x4", "i8x16", "bf16x2", "u32x3"}) {
    std::optional<T> t = ir::parse_type_name(name);
    REQUIRE(t);
    CHECK(ir::type_name(*t) == name);
  }
  CHECK(ir::parse_type_name("i32") == T::i32);
  CHECK(*ir::parse_type_name("f16") == T(T::Code::float_, 16));
  CHECK(*ir::parse_type_name("f32x4") == T::f32.with_lanes(4));
  for (const char* bad : {"", "i", "i0", "i7", "u1", "f8", "bf32", "f32x", "f32x1", "f32x17", "f32x04", "i032",
                          "q32", "i32 ", "none", "float"})
    CHECK_FALSE(ir::parse_type_name(bad));
  CHECK(ir::cpp_type_name(T::i1) == "bool");
  CHECK(ir::cpp_type_name(T::u32) == "uint32_t");
  CHECK(ir::cpp_type_name(T(T::Code::int_, 16)) == "int16_t");
  CHECK(ir::cpp_type_name(T::f64) == "double");
}

TEST_CASE("one C++ <-> IR type table serves the DSL, the runtime and the interpreter") {
  static_assert(ir::type_of<int32_t>() == ir::Type::i32);
  static_assert(ir::type_of<const double>() == ir::Type::f64);
  static_assert(dsl::ir_type_v<uint64_t> == ir::Type::u64);
  static_assert(dtype_of<float>() == ir::Type::f32);
  static_assert(InterpretArgument::type_of<bool>() == ir::Type::i1);
  static_assert(!ir::has_type_of<long double>);
  static_assert(!ir::has_type_of<char>);
  static_assert(ir::type_of_arithmetic<short>() == ir::Type::i32);
  static_assert(ir::type_of_arithmetic<unsigned long long>() == ir::Type::u64);
  // with_cpp_type visits the row of a type, and nothing for types without one.
  std::vector<std::string> seen;
  for (ir::Type t : {ir::Type::i1, ir::Type::i32, ir::Type::i64, ir::Type::u32, ir::Type::u64, ir::Type::f32,
                     ir::Type::f64})
    CHECK(ir::with_cpp_type(t, [&](auto zero) { seen.push_back(ir::type_name(ir::type_of<decltype(zero)>())); }));
  CHECK(seen == std::vector<std::string>{"i1", "i32", "i64", "u32", "u64", "f32", "f64"});
  CHECK_FALSE(ir::with_cpp_type(ir::Type::f32.with_lanes(2), [](auto) { FAIL("called for a vector"); }));
  CHECK_FALSE(ir::with_cpp_type(ir::Type::none, [](auto) { FAIL("called for none"); }));
}

TEST_CASE("types the targets do not lower yet are a clear verifier error, from hand-made IR and from .rjir") {
  ir::Kernel k = handmade();
  ir::ValueId h = k.new_value(ir::Type::f32.with_lanes(4));
  add_op(k.body, ir::OpKind::constant, ir::Type::f32.with_lanes(4), h, {});
  CHECK_THROWS_WITH(ir::verify(k), Contains("kernel 'handmade'") &&
                                       Contains("const cannot produce the vector type f32x4; vectors come from "
                                                "vector and load") &&
                                       Contains("hand.cpp:7"));
  const char* text = "kernel @v(%1 n: i32) max_block_size(64) {\n  var $acc: f32x4\n}\n";
  CHECK_THROWS_WITH(ir::parse(text), Contains("variable 'acc' has type f32x4") && Contains("does not support yet"));
}

TEST_CASE("float constants are rounded to their type, in the DSL and in the parser") {
  Kernel k = kernel("rounded", [](Array<float> x) { x(0) = Float(0.1); });
  bool found = false;
  ir::walk(k.ir().body, [&](const ir::Op& op) {
    if (op.kind == ir::OpKind::constant && op.type == ir::Type::f32) {
      CHECK(op.float_value() == static_cast<double>(0.1f));
      found = true;
    }
  });
  CHECK(found);
  CHECK(ir::round_to_type(ir::Type::f32, 0.1) == static_cast<double>(0.1f));
  CHECK(ir::round_to_type(ir::Type::f64, 0.1) == 0.1);
}

TEST_CASE("arithmetic_row_t finds the table's C++ type for any arithmetic type; the supported list is the table") {
  static_assert(std::is_same_v<ir::arithmetic_row_t<bool>, bool>);
  static_assert(std::is_same_v<ir::arithmetic_row_t<short>, int32_t>);
  static_assert(std::is_same_v<ir::arithmetic_row_t<signed char>, int32_t>);
  static_assert(std::is_same_v<ir::arithmetic_row_t<unsigned long>, uint64_t>);
  static_assert(std::is_same_v<ir::arithmetic_row_t<const float>, float>);
  static_assert(std::is_same_v<ir::arithmetic_row_t<double>, double>);
  CHECK(ir::supported_type_names() == "i1, i32, i64, u32, u64, f32, f64, i8, i16, u8, u16, f16, bf16");
  CHECK(ir::is_supported(ir::Type::none));
  CHECK(ir::is_supported(ir::Type::u64));
  CHECK(ir::is_supported(ir::Type(ir::Type::Code::int_, 16)));
  CHECK(ir::is_supported(ir::Type::bf16));
  CHECK_FALSE(ir::is_supported(ir::Type::bf16.with_lanes(2)));
  CHECK_FALSE(ir::is_supported(ir::Type::f32.with_lanes(4)));
}

TEST_CASE("uniform() ops the whole group reaches together: not under divergent control, after a Return() or in a loop that returns") {
  Kernel k = kernel("promises", [](Array<int32_t> x, Int n) {
    Int t = local_id(0);
    Int a = uniform(x(0));                              // together
    If(n > 2, [&] { x(1) = uniform(x(2)) + a; });       // uniform If: together
    If(t > 2, [&] { x(3) = uniform(x(4)); });           // divergent If: not
    For(0, n, [&](Int) {
      x(5) = uniform(x(6));                             // the loop holds a Return: not
      If(t == 7, [&] { Return(); });
    });
    x(7) = uniform(x(8));                               // after a Return: not
  });
  std::vector<int> checked;
  const auto together = passes::group_reached_uniform_ops(k.ir());
  int index = 0;
  ir::walk(k.ir().body, [&](const ir::Op& op) {
    if (op.kind != ir::OpKind::uniform) return;
    if (together.count(&op)) checked.push_back(index);
    ++index;
  });
  CHECK(index == 5);
  CHECK(checked == std::vector<int>{0, 1});
}

namespace {
// A value of field type T other than `v` (enums: another enumerator with a small code).
template <class T>
T other_than(T v) {
  if constexpr (std::is_enum_v<T>) return static_cast<T>(static_cast<std::underlying_type_t<T>>(v) == 1 ? 2 : 1);
  else if constexpr (std::is_floating_point_v<T>) return v == T(2.5) ? T(-1.25) : T(2.5);
  else if constexpr (std::is_same_v<T, std::string>) return v == "x = {}" ? std::string("y") : std::string("x = {}");
  else return static_cast<T>(v == 1 ? 2 : 1);
}
}  // namespace

TEST_CASE("clone, == and hash cover every attribute of every op kind and family member, nested regions included") {
  // Each op kind of the definitions, with each member of its family, every attribute of its
  // struct set to a non-default value (the struct's fields() list, so a field added later is
  // covered too). Op is copied and compared member by member by the compiler (Region's copy is
  // deep); the attributes are a variant of the kind's struct.
  size_t checked = 0, fields_checked = 0;
  for (const ir::OpInfo& info : ir::all_ops()) {
    const size_t members = std::max<size_t>(1, ir::family_members(info.family).size());
    for (size_t member = 0; member < members; ++member) {
      ir::Op op(info.kind);
      REQUIRE(ir::has_kind_attrs(op));
      std::visit([](auto& a) { std::apply([](auto&... f) { ((f = other_than(f)), ...); }, a.fields()); }, op.attrs);
      ir::set_member(op, static_cast<unsigned>(member));
      op.type = ir::Type::i64;
      op.result = 9;
      op.operands = {1, 2, 3};
      op.loc = ir::SourceLoc{"ops.cpp", 12, 5};
      REQUIRE(op.regions.size() == info.regions);
      for (ir::Region& r : op.regions)
        r.ops.push_back(std::make_unique<ir::Op>(
            ir::OpKind::fence, ir::FenceAttrs{ir::MemoryOrder::acquire, ir::MemoryScope::workgroup}));
      INFO(ir::op_spelling(op) << " " << ir::attrs_name(op.kind));
      std::unique_ptr<ir::Op> copy = ir::clone(op);
      CHECK(*copy == op);
      CHECK(ir::hash(*copy) == ir::hash(op));
      CHECK(copy->member() == member);
      for (size_t r = 0; r < op.regions.size(); ++r) {
        REQUIRE(copy->regions[r].ops.size() == 1);
        CHECK(copy->regions[r].ops[0].get() != op.regions[r].ops[0].get());  // deep, not shared
        CHECK(copy->regions[r].ops[0]->order() == ir::MemoryOrder::acquire);
        CHECK(copy->regions[r].ops[0]->scope() == ir::MemoryScope::workgroup);
      }
      // == and hash see each attribute: change one field at a time.
      const size_t n = std::visit([](const auto& a) { return std::tuple_size_v<decltype(a.fields())>; }, op.attrs);
      for (size_t i = 0; i < n; ++i) {
        ir::Op other = op;
        std::visit(
            [&](auto& a) {
              size_t at = 0;
              std::apply([&](auto&... f) { ((at++ == i ? void(f = other_than(f)) : void()), ...); }, a.fields());
            },
            other.attrs);
        CHECK_FALSE(other == op);
        CHECK(ir::hash(other) != ir::hash(op));
        ++fields_checked;
      }
      ir::Op other = op;
      other.loc.line = 13;
      CHECK_FALSE(other == op);
      if (!other.regions.empty()) {
        other = op;
        other.regions.back().ops[0]->get<ir::FenceAttrs>().order = ir::MemoryOrder::seq_cst;
        CHECK_FALSE(other == op);
        CHECK(ir::hash(other) != ir::hash(op));
      }
      ++checked;
    }
  }
  CHECK(checked > ir::all_ops().size());
  CHECK(fields_checked > 100);
}

TEST_CASE("an op carries its kind's attribute struct and no other") {
  ir::Op load(ir::OpKind::load, ir::AccessAttrs{3});
  CHECK(load.memory() == 3);
  CHECK_THROWS_WITH(load.order(), Contains("op 'load' carries AccessAttrs, not a memory order"));
  CHECK_THROWS_WITH(load.unroll(), Contains("not LoopAttrs"));
  CHECK_THROWS_WITH(ir::Op(ir::OpKind::fence, ir::AtomicAttrs{}), Contains("op 'fence' carries"));
  ir::Op loop(ir::OpKind::for_);
  CHECK(loop.unroll() == 0);
  CHECK(loop.regions.size() == 1);
  CHECK(ir::Op(ir::OpKind::while_).regions.size() == 3);
  // A hand-built op whose attributes are another kind's is a verifier error naming both.
  ir::Kernel k = handmade();
  ir::Op& bad = add_op(k.body, ir::OpKind::barrier, ir::Type::none, 0, {});
  bad.attrs = ir::LoopAttrs{4};
  CHECK_THROWS_WITH(ir::verify(k), Contains("barrier carries the attributes of another kind (it takes BarrierAttrs)") &&
                                       Contains("hand.cpp:7"));
}

TEST_CASE("a cloned kernel keeps every atomic's and fence's order and scope, prints and compares equal") {
  // Every atomic member with every order it allows and every scope, and fences of every order
  // and scope, through clone, print and parse.
  std::string body;
  int next = 10;
  const char* orders[] = {"relaxed", "acquire", "release", "acq_rel", "seq_cst"};
  const char* scopes[] = {"wavefront", "workgroup", "device", "system"};
  for (const ir::SubOpInfo& member : ir::family_members(ir::OpFamily::atomic))
    for (const char* order : orders)
      for (const char* scope : scopes) {
        std::string m(member.name);
        bool is_load = m == "load", is_store = m == "store";
        std::string o(order);
        if (is_load && (o == "release" || o == "acq_rel")) continue;
        if (is_store && (o == "acquire" || o == "acq_rel")) continue;
        std::string operands = member.operands == 2 ? ", %2, %2" : member.operands == 1 ? ", %2" : "";
        std::string suffix = fmt::format(" : i32 {} {}", order, scope);
        if (is_store)
          body += fmt::format("  atomic.store @a[%1]{}{}\n", operands, suffix);
        else
          body += fmt::format("  %{} = atomic.{} @a[%1]{}{}\n", next++, m, operands, suffix);
      }
  for (const char* order : {"acquire", "release", "acq_rel", "seq_cst"})
    for (const char* scope : scopes) body += fmt::format("  fence {} {}\n", order, scope);
  const std::string text = fmt::format(
      "kernel @orders(@a: array<i32, 1, C>) max_block_size(64) {{\n  %1 = local_id 0 : i32\n  %2 = const 1 : i32\n"
      "{}}}\n",
      body);
  ir::Kernel k = ir::parse(text, "orders.rjir");
  ir::Kernel copy = ir::clone(k);
  CHECK(copy.body == k.body);
  CHECK(ir::print(copy) == ir::print(k));
  CHECK(ir::print(ir::parse(ir::print(copy), "copy.rjir"), {.locations = false}) ==
        ir::print(k, {.locations = false}));
  size_t ordered = 0;
  ir::walk(copy.body, [&](const ir::Op& op) {
    if (op.kind == ir::OpKind::atomic || op.kind == ir::OpKind::fence)
      ordered += op.order() != ir::MemoryOrder::relaxed || op.scope() != ir::MemoryScope::device;
  });
  // All but the relaxed device-scope atomics carry a non-default attribute.
  CHECK(ordered > 150);
}

TEST_CASE("contract rewrites a * b + c whose product has no other use into fma, for f32 and f64 only") {
  auto count = [](const Kernel& k, ir::OpKind kind) {
    int n = 0;
    ir::walk(k.ir().body, [&](const ir::Op& op) { n += op.kind == kind && (kind != ir::OpKind::math || op.math_fn() == ir::MathFn::fma); });
    return n;
  };
  auto body = [](auto x, auto out) {
    Int i = global_id(0);
    out(i) = x(i) * x(i + 1) + x(i + 2);  // product on the left
    out(i + 1) = x(i + 3) + x(i) * 2.0f;  // and on the right
  };
  const Kernel off = kernel("off", [&](Array<float> x, Array<float> out) { body(x, out); });
  const Kernel on = kernel("on", [&](Array<float> x, Array<float> out) { body(x, out); }, {.contract = true});
  CHECK(count(off, ir::OpKind::math) == 0);
  CHECK(count(on, ir::OpKind::math) == 2);
  CHECK_THAT(on.print(), Contains("math.fma") || Contains("fma"));
  const Kernel f64 = kernel("f64", [&](Array<double> x, Array<double> out) { body(x, out); }, {.contract = true});
  CHECK(count(f64, ir::OpKind::math) == 2);
  // A product also used elsewhere stays a product; integers and 16-bit floats are not contracted.
  const Kernel reused = kernel("reused", [](Array<float> x, Array<float> out) {
    Int i = global_id(0);
    Float p = x(i) * x(i + 1);
    out(i) = p + 1.0f;
    out(i + 1) = p;
  }, {.contract = true});
  CHECK(count(reused, ir::OpKind::math) == 0);
  const Kernel ints = kernel("ints", [](Array<int32_t> x, Array<int32_t> out) {
    Int i = global_id(0);
    out(i) = x(i) * x(i + 1) + x(i + 2);
  }, {.contract = true});
  CHECK(count(ints, ir::OpKind::math) == 0);
  const Kernel halves = kernel("halves", [](Array<half> x, Array<half> out) {
    Int i = global_id(0);
    out(i) = x(i) * x(i + 1) + x(i + 2);
  }, {.contract = true});
  CHECK(count(halves, ir::OpKind::math) == 0);
}

TEST_CASE("fewer_than_2_31_elements: the element count below 2^31, without overflow, negative extents refused") {
  using ir::fewer_than_2_31_elements;
  auto fits = [](std::vector<int64_t> shape) { return fewer_than_2_31_elements(shape); };
  CHECK(fits({}));
  CHECK(fits({0}));
  CHECK(fits({2147483647}));
  CHECK_FALSE(fits({2147483648}));
  CHECK(fits({46340, 46340}));           // 2147395600
  CHECK_FALSE(fits({46341, 46341}));     // 2147488281
  CHECK(fits({32768, 65535}));           // 2^31 - 32768
  CHECK_FALSE(fits({32768, 65536}));     // exactly 2^31
  CHECK_FALSE(fits({65536, 65536}));
  CHECK_FALSE(fits({2147483647, 2147483647, 2147483647}));  // no int64 overflow on the way
  CHECK(fits({0, 2147483647, 2147483647}));                  // empty: no elements
  CHECK(fits({1024, 1024, 2047}));
  CHECK_FALSE(fits({1024, 1024, 2048}));
  CHECK_FALSE(fits({-1, 4}));
}

TEST_CASE("small_arrays, the 32-bit offset promise, prints after fast_math, parses back and survives a clone") {
  const std::string text =
      "kernel @k(@a: array<f32, 2, C>) max_block_size(64) fast_math small_arrays {\n"
      "  %1 = global_id 0 : i32\n"
      "  %2 = const 1.0 : f32\n"
      "  store @a[%1, %1], %2 : f32\n"
      "}\n";
  ir::Kernel k = ir::parse(text);
  CHECK(k.small_arrays);
  CHECK(k.fast_math);
  CHECK(ir::print(k, {.locations = false}) == text);
  CHECK(ir::clone(k).small_arrays);
  ir::Kernel plain = ir::parse(std::string(text).replace(text.find(" small_arrays"), 13, ""));
  CHECK_FALSE(plain.small_arrays);
  // The printed IR is the kernel cache's fingerprint: the two compile apart.
  CHECK(ir::print(plain) != ir::print(k));
  // In the wrong place it is a parse error, not a crash.
  CHECK_THROWS_AS(ir::parse(std::string(text).replace(text.find("max_block_size"), 0, "small_arrays ")), CompileError);
}
