// Vectors: what the DSL and the verifier refuse (each a clear error naming kernel and file:line),
// the interpreter's vector semantics against the CPU backend, and the bounds checks of vector
// accesses on the interpreter and the host.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "rocjit/compiler/interpret.hpp"
#include "rocjit/compiler/parser.hpp"
#include "host_args.hpp"
#include "rocjit/rocjit.hpp"

using namespace rocjit;
using namespace rocjit::dsl;
using Catch::Matchers::Contains;
using rocjit::testing::HostArgs;

namespace {

std::string here(int line) { return std::string(__FILE__) + ":" + std::to_string(line); }

// A .rjir kernel with one array @a of f32 (rank 1) and @m (rank 2), the vector %2 = load @a[%1] :
// f32x4, then `body`.
ir::Kernel with_vector(const std::string& body) {
  return ir::parse("kernel @v(@a: array<f32, 1, C>, @m: array<f32, 2, C>) max_block_size(64) {\n"
                   "  %1 = global_id 0 : i32\n"
                   "  %2 = load @a[%1] : f32x4\n" +
                   body + "}\n");
}

}  // namespace

TEST_CASE("vector misuse in the DSL is a CompileError at the user's line") {
  int line = 0;
  auto rank2 = [&](Array<float, 2> m) {
    line = __LINE__ + 1;
    Vec<float, 4> v = m.vload<4>(0);
    m(0, 0) = v.x();
  };
  CHECK_THROWS_WITH(kernel("rank2", rank2),
                    Contains("kernel 'rank2'") && Contains("vload<4> on global array 'arg0' with 1 indices") &&
                        Contains("the array has 2 dimensions") && Contains(here(line)));

  auto fortran = [&](Array<float, 2, ir::Layout::F> m) {
    line = __LINE__ + 1;
    Vec<float, 4> v = m.vload<4>(0, 1);
    m(0, 0) = v.x();
  };
  CHECK_THROWS_WITH(kernel("fortran", fortran),
                    Contains("vload<4> on global array 'arg0'") &&
                        Contains("need a one-dimensional array or layout C (it has rank 2, layout F)") &&
                        Contains(here(line)));

  auto strided = [&](Array<float, 1, ir::Layout::strided> s) {
    line = __LINE__ + 1;
    s.vstore(0, Vec<float, 2>(1.0f, 2.0f));
  };
  CHECK_THROWS_WITH(kernel("strided", strided), Contains("vstore<2>") && Contains("layout strided") && Contains(here(line)));

  auto wrong_lanes = [&](Array<double> d) {
    auto tile = shared::array<int32_t>({16}, "tile");
    line = __LINE__ + 1;
    Vec<float, 4> v = tile.vload<4, float>(0);
    d.vstore(0, Vec<double, 2>(v.x(), v.y()));
  };
  CHECK_THROWS_WITH(kernel("wrong_lanes", wrong_lanes),
                    Contains("vload<4> on shared array 'tile' of int32_t: the Vec's lanes must have the element type "
                             "(a Vec<float, 4> holds float)") &&
                        Contains(here(line)));

  auto store_type = [&](Array<float> f) {
    line = __LINE__ + 1;
    f.vstore(0, Vec<double, 2>(1.0, 2.0));
  };
  CHECK_THROWS_WITH(kernel("store_type", store_type),
                    Contains("vstore<2> on global array 'arg0' of float") && Contains(here(line)));

  auto widening = [&](Array<float> f, Double s) {
    Vec<float, 4> v = f.vload<4>(0);
    line = __LINE__ + 1;
    f.vstore(1, v * s);
  };
  CHECK_THROWS_WITH(kernel("widening", widening),
                    Contains("operator 'mul' of a Vec<float, 4> with a double would give double lanes; a Vec keeps "
                             "its lane type: write cast<float>(...) around the scalar, or convert the Vec with "
                             "cast<double>(v)") &&
                        Contains(here(line)));

  auto lane = [&](Array<float> f) {
    Vec<float, 2> v = f.vload<2>(0);
    line = __LINE__ + 1;
    f(0) = v[2];
  };
  CHECK_THROWS_WITH(kernel("lane", lane),
                    Contains("lane 2 of a Vec with 2 lanes does not exist (lanes are 0 to 1)") && Contains(here(line)));

  auto float_index = [&](Array<float> f, Float x) {
    line = __LINE__ + 1;
    f.vstore(x, Vec<float, 2>(x));
  };
  CHECK_THROWS_WITH(kernel("float_index", float_index),
                    Contains("an index of vstore<2> on array 'arg0' is f32; indices must be integers") &&
                        Contains(here(line)));

  // A Vec carried out of the body that defined it is the verifier's scope error, as for values.
  auto escaped = [&](Array<float> f, Int n) {
    Vec<float, 2> v(0.0f);
    If(n > 0, [&] { v = f.vload<2>(0); });
    f.vstore(1, v);
  };
  CHECK_THROWS_WITH(kernel("escaped", escaped), Contains("defined inside an If/For/While body") &&
                                                    Contains("carry values out of a body with a Var"));
}

TEST_CASE("the verifier keeps vectors to loads, stores, vector and extract") {
  ir::verify(with_vector("  %3 = extract %2, 3 : f32\n  %4 = vector %3, %3 : f32x2\n  store @a[%1], %2 : f32x4\n"));
  CHECK_THROWS_WITH(ir::verify(with_vector("  %3 = add %2, %2 : f32x4\n")),
                    Contains("add cannot take the vector %2 (f32x4); vectors are read with extract and written with store"));
  CHECK_THROWS_WITH(ir::verify(with_vector("  %3 = extract %2, 4 : f32\n")),
                    Contains("extract of lane 4 from f32x4, which has 4 lanes"));
  // Along the contiguous last dimension of a C-order array; not on an F-order one.
  ir::verify(with_vector("  store @m[%1, %1], %2 : f32x4\n"));
  CHECK_THROWS_WITH(ir::verify(ir::parse("kernel @f(@m: array<f32, 2, F>) max_block_size(64) {\n"
                                         "  %1 = global_id 0 : i32\n  %2 = load @m[%1, %1] : f32x4\n}\n")),
                    Contains("vector load on array 'm': vector accesses need a contiguous last dimension: a "
                             "one-dimensional array or layout C (it has rank 2, layout F)"));
  CHECK_THROWS_WITH(ir::verify(with_vector("  %3 = load @a[%1] : f32x8\n")),
                    Contains("vectors have 2 to 4 lanes of a number type"));
  CHECK_THROWS_WITH(ir::verify(with_vector("  %3 = cmp.eq %1, %1 : i32\n  %4 = vector %3, %3 : i1x2\n")),
                    Contains("vectors have 2 to 4 lanes of a number type"));
  CHECK_THROWS_WITH(ir::verify(with_vector("  %3 = vector %2, %2 : f32x2\n")),
                    Contains("expected a value of type f32, got %2 of type f32x4"));
  CHECK_THROWS_WITH(ir::verify(with_vector("  %3 = load @a[%2] : f32\n")),
                    Contains("expected an integer index, got %2 of type f32x4"));
  CHECK_THROWS_WITH(ir::parse("kernel @v(@a: array<f32, 1, C>) max_block_size(64) {\n  %1 = global_id 0 : i32\n"
                              "  %2 = load @a[%1] : f64x2\n}\n"),
                    Contains("expected f32 (the element type of @a), got f64x2"));
  CHECK_THROWS_WITH(ir::parse("kernel @v(@a: array<f32, 1, C>) max_block_size(64) {\n  %1 = const 1.0 : f32\n"
                              "  %2 = vector %1, %1 : f32\n}\n"),
                    Contains("expected a vector type such as f32x4, got f32"));
}

TEST_CASE("the interpreter runs vector kernels as the CPU backend does, and checks whole vectors") {
  int line = 0;
  Kernel k = kernel("swizzle", [&](Array<float> x, Array<float> out) {
    Int i = global_id(0);
    auto tile = shared::array<float>({3 * 8}, "tile");
    tile.vstore(local_id(0), x.vload<3>(i) * 2.0f);
    barrier(CLK_LOCAL_MEM_FENCE);
    Vec<float, 3> v = tile.vload<3, float>(7 - local_id(0));
    line = __LINE__ + 1;
    out.vstore(i, Vec<float, 3>(v.z(), v.y() - v.x(), v.x()) + 0.5f);
  });
  std::vector<float> x(3 * 16);
  for (size_t i = 0; i < x.size(); ++i) x[i] = 0.25f * static_cast<float>(i) - 3.0f;
  std::vector<float> by_interpreter(x.size()), by_host(x.size());
  std::vector<InterpretArgument> args{InterpretArgument::array(x), InterpretArgument::array(by_interpreter)};
  interpret(k.ir(), {2}, {8}, args);
  HostKernel hk = compile_host(k.ir());
  HostArgs host_args;
  host_args.array(x).array(by_host);
  run_host(hk, {2}, {8}, host_args.data());
  CHECK(by_interpreter == by_host);
  CHECK(by_host[0] == 2.0f * x[3 * 7 + 2] + 0.5f);

  // The last vector of a 3 * 16 - 1 element array does not fit: reported, nothing written there.
  std::vector<float> short_out(3 * 16 - 1, -1.0f);
  std::vector<InterpretArgument> short_args{InterpretArgument::array(x), InterpretArgument::array(short_out)};
  CHECK_THROWS_WITH(interpret(k.ir(), {2}, {8}, short_args),
                    Contains("out-of-bounds vector store of global array 'arg1' at " + here(line)) &&
                        Contains("vector index 15 is elements 45..47, outside shape (47)"));
  CHECK(short_out[45] == -1.0f);
  HostCompileOptions checked;
  checked.bounds_check = true;
  HostKernel hc = compile_host(k.ir(), checked);
  HostArgs short_host;
  std::fill(short_out.begin(), short_out.end(), -1.0f);
  short_host.array(x).array(short_out);
  CHECK_THROWS_WITH(run_host(hc, {2}, {8}, short_host.data()),
                    Contains("out-of-bounds vector store of array 'arg1' at " + here(line)) &&
                        Contains("vector index 15 is elements 45..47, outside shape (47)"));
  CHECK(short_out[45] == -1.0f);
  CHECK(short_out[44] == by_host[44]);  // the vectors in bounds were written
}

TEST_CASE("a vector access on a 2-D array is checked along its last dimension") {
  int line = 0;
  // Rows of 10 floats: vector index 2 of a row is elements 8..11, outside it (not in the next row).
  Kernel k = kernel("rows", [&](Array<float, 2> x, Array<float, 2> out) {
    Int r = global_id(0);
    line = __LINE__ + 1;
    out.vstore(r, local_id(1), x.vload<4>(r, local_id(1)) + 1.0f);
  });
  std::vector<float> x(3 * 10), out(3 * 10, -1.0f);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i);
  std::vector<InterpretArgument> args{InterpretArgument::array(x, {3, 10}), InterpretArgument::array(out, {3, 10})};
  CHECK_THROWS_WITH(interpret(k.ir(), {1, 1}, {3, 3}, args),
                    Contains("out-of-bounds vector load of global array 'arg0' at " + here(line)) &&
                        Contains("vector index (0, 2) is elements (0, 8..11), outside shape (3, 10)"));
  HostCompileOptions checked;
  checked.bounds_check = true;
  HostKernel hc = compile_host(k.ir(), checked);
  HostArgs host_args;
  host_args.array(x.data(), {3, 10}).array(out.data(), {3, 10});
  CHECK_THROWS_WITH(run_host(hc, {1, 1}, {3, 3}, host_args.data()),
                    Contains("out-of-bounds vector load of array 'arg0' at " + here(line)) &&
                        Contains("vector index (0, 2) is elements (0, 8..11), outside shape (3, 10)"));
  // In bounds (two vectors per row), the interpreter and the host agree.
  std::vector<float> by_interpreter(30, -1.0f), by_host(30, -1.0f);
  std::vector<InterpretArgument> ok{InterpretArgument::array(x, {3, 10}), InterpretArgument::array(by_interpreter, {3, 10})};
  interpret(k.ir(), {1, 1}, {3, 2}, ok);
  HostKernel hk = compile_host(k.ir());
  HostArgs ok_host;
  ok_host.array(x.data(), {3, 10}).array(by_host.data(), {3, 10});
  run_host(hk, {1, 1}, {3, 2}, ok_host.data());
  CHECK(by_interpreter == by_host);
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 10; ++c) CHECK(by_host[r * 10 + c] == (c < 8 ? x[r * 10 + c] + 1.0f : -1.0f));
}

TEST_CASE("a vector value that lives across a barrier is kept per work-item on the host") {
  // f32x3 (12 bytes, an odd size for the per-work-item storage) defined before the barrier and
  // used after it, next to a shared array written before and read after.
  ir::Kernel k = ir::parse(
      "kernel @spill(@a: array<f32, 1, C>, @out: array<f32, 1, C>) max_block_size(64) {\n"
      "  shared @s: f32[64]\n"
      "  %1 = local_id 0 : i32\n"
      "  %2 = load @a[%1] : f32x3\n"
      "  %3 = extract %2, 0 : f32\n"
      "  store @s[%1], %3 : f32\n"
      "  barrier local\n"
      "  %4 = const 63 : i32\n"
      "  %5 = sub %4, %1 : i32\n"
      "  %6 = load @s[%5] : f32\n"
      "  %7 = extract %2, 2 : f32\n"
      "  %8 = add %6, %7 : f32\n"
      "  %9 = vector %8, %6, %7 : f32x3\n"
      "  store @out[%1], %9 : f32x3\n"
      "  store @a[%1], %2 : f32x3\n"
      "}\n");
  std::vector<float> a(3 * 64);
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(i) * 0.5f;
  std::vector<float> a_host = a, a_interp = a, out_host(a.size()), out_interp(a.size());
  std::vector<InterpretArgument> args{InterpretArgument::array(a_interp), InterpretArgument::array(out_interp)};
  interpret(k, {1}, {64}, args);
  HostKernel hk = compile_host(k);
  HostArgs host_args;
  host_args.array(a_host).array(out_host);
  run_host(hk, {1}, {64}, host_args.data());
  CHECK(out_host == out_interp);
  CHECK(a_host == a);  // stored back unchanged
  for (int t = 0; t < 64; ++t) {
    const float s = a[3 * (63 - t)], z = a[3 * t + 2];
    CHECK(out_host[3 * t] == s + z);
    CHECK(out_host[3 * t + 1] == s);
    CHECK(out_host[3 * t + 2] == z);
  }
}
