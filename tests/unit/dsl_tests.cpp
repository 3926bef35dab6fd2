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
