// The race checker's proof that some arrays need no checks (compiler/passes/race_free.h) and the
// launch-time half of it (runtime/cpu/race_checker.hpp, unchecked_arrays).
#include <catch2/catch.hpp>
#include <rocjit/rocjit.hpp>

#include <array>
#include <vector>

#include "compiler/passes/race_free.h"
#include "host_args.hpp"
#include "runtime/cpu/race_checker.hpp"

using namespace rocjit;
using namespace rocjit::dsl;
using rocjit::testing::HostArgs;
using Rule = passes::RaceFreeArray::Rule;
using Catch::Matchers::Contains;

namespace {
std::vector<passes::RaceFreeArray> facts(const Kernel& k) { return passes::race_free_arrays(k.ir()); }
}  // namespace

TEST_CASE("race_free_arrays: never-written arrays, and arrays whose every access is at one global-id index") {
  Kernel saxpy = kernel("rf_saxpy", [](Array<float> x, Array<float> y, Float a) {
    Int i = global_id(0);
    If(i < y.shape(0), [&] { y(i) = a * x(i) + y(i); });
  });
  auto f = facts(saxpy);
  REQUIRE(f.size() == 3);
  CHECK(f[0].rule == Rule::read_only);
  CHECK(!f[0].written);
  CHECK(f[1].rule == Rule::one_item);
  CHECK(f[1].written);
  CHECK(f[1].position_dims == std::vector<int8_t>{0});
  CHECK(!f[2].accessed);  // a scalar

  // group_id * local_size + local_id is the global id; n - 1 - i is injective too.
  Kernel spelled = kernel("rf_spelled", [](Array<int32_t> x, Array<int32_t> out) {
    Int i = group_id(0) * local_size(0) + local_id(0);
    Int n = out.shape(0);
    If(i < n, [&] { out(n - 1 - i) = x(i); });
  });
  f = facts(spelled);
  CHECK(f[0].rule == Rule::read_only);
  CHECK(f[1].rule == Rule::one_item);

  // group_id * C + local_id, C a constant: injective when work-groups have at most C work-items.
  Kernel blocked = kernel("rf_blocked", [](Array<int32_t> out) { out(group_id(0) * 256 + local_id(0)) = 1; });
  f = facts(blocked);
  CHECK(f[0].rule == Rule::one_item);
  CHECK(f[0].position_dims == std::vector<int8_t>{0});
  CHECK(f[0].position_locals == std::vector<int8_t>{0});
  CHECK(f[0].position_bounds == std::vector<int64_t>{256});

  // Tiles: group_id(g) * C + local_id(l) at each position, the group and local dimensions
  // crossed (a transpose's output) or not (a tiled stencil's).
  Kernel crossed = kernel("rf_crossed", [](Array<float, 2> out) {
    out(group_id(0) * 16 + local_id(1), group_id(1) * 16 + local_id(0)) = 1.0f;
  });
  f = facts(crossed);
  CHECK(f[0].rule == Rule::one_item);
  CHECK(f[0].position_dims == std::vector<int8_t>{0, 1});
  CHECK(f[0].position_locals == std::vector<int8_t>{1, 0});
  CHECK(f[0].position_bounds == std::vector<int64_t>{16, 16});
  Kernel tiled = kernel("rf_tiled_out", [](Array<float, 2> out) {
    out(group_id(1) * 16 + local_id(1), group_id(0) * 16 + local_id(0)) = 1.0f;
  });
  CHECK(facts(tiled)[0].rule == Rule::one_item);
  // One local id twice: (g0 * 16 + l0, g1 * 16 + l0) leaves l1 unknown.
  Kernel twice_local = kernel("rf_twice_local", [](Array<float, 2> out) {
    out(group_id(0) * 16 + local_id(0), group_id(1) * 16 + local_id(0)) = 1.0f;
  });
  CHECK(facts(twice_local)[0].rule == Rule::checked);

  // Two indices computed separately but the same way are one index.
  Kernel twice = kernel("rf_twice", [](Array<int32_t> out) { out(global_id(0) + 1) = out(global_id(0) + 1) * 2; });
  CHECK(facts(twice)[0].rule == Rule::one_item);

  // 2-D: each position a different dimension; the fast position must be the plain id.
  Kernel grid2 = kernel("rf_grid2", [](Array<float, 2> a) {
    a(global_id(1) + 1, global_id(0)) = 1.0f;
  });
  f = facts(grid2);
  CHECK(f[0].rule == Rule::one_item);
  CHECK(f[0].position_dims == std::vector<int8_t>{1, 0});
  CHECK(f[0].slowest_position == 0);
}

TEST_CASE("race_free_arrays: what defeats the proof") {
  // Neighbours: two sites at different indices.
  Kernel shift = kernel("rf_shift", [](Array<int32_t> y) {
    Int i = global_id(0);
    y(i) = 1;
    y(i + 1) = 2;
  });
  CHECK(facts(shift)[0].rule == Rule::checked);
  // One element per group, an atomic, a loop-dependent index, a group-dependent offset.
  Kernel per_group = kernel("rf_per_group", [](Array<int32_t> y) { y(group_id(0)) = 1; });
  CHECK(facts(per_group)[0].rule == Rule::checked);
  Kernel atomics = kernel("rf_atomic", [](Array<int32_t> y) { atomic::add(y, global_id(0), 1); });
  CHECK(facts(atomics)[0].rule == Rule::checked);
  Kernel loop = kernel("rf_loop", [](Array<int32_t> y) {
    For(0, 4, [&](Int k) { y(global_id(0) + k) = k; });
  });
  CHECK(facts(loop)[0].rule == Rule::checked);
  Kernel offset = kernel("rf_offset", [](Array<int32_t> y) { y(global_id(0) + group_id(0)) = 1; });
  CHECK(facts(offset)[0].rule == Rule::checked);
  // 2-D: an offset in the fast position could reach the next row; one dimension twice.
  Kernel inner = kernel("rf_inner", [](Array<float, 2> a) { a(global_id(1), global_id(0) + 1) = 1.0f; });
  CHECK(facts(inner)[0].rule == Rule::checked);
  Kernel diagonal = kernel("rf_diagonal", [](Array<float, 2> a) { a(global_id(0), global_id(0)) = 1.0f; });
  CHECK(facts(diagonal)[0].rule == Rule::checked);
}

TEST_CASE("unchecked_arrays: the launch's arguments and sizes complete the proof") {
  Kernel k = kernel(
      "rf_launch",
      [](Array<float> x, Array<float> y) {
        Int i = global_id(0);
        If(i < y.shape(0), [&] { y(i) = x(i) + y(i); });
      },
      {.param_names = {"x", "y"}});
  CompileOptions options;
  options.check_races = true;
  HostKernel hk = compile_host(k.ir(), options);
  REQUIRE(hk.race_arrays().size() == 2);
  CHECK(hk.race_arrays()[0].rule == HostRaceArray::Rule::read_only);
  CHECK(hk.race_arrays()[1].rule == HostRaceArray::Rule::one_item);
  CHECK_THAT(metadata_text(hk), Contains("x (never written)") && Contains("y (one work-item per element)"));
  std::vector<float> x(256), y(256), both(257);
  CHECK(unchecked_arrays(hk, {4}, {64}, HostArgs().array(x).array(y).data()) == 0b11);
  // The same buffer twice, or y overlapping x by one element: both checked.
  CHECK(unchecked_arrays(hk, {4}, {64}, HostArgs().array(x).array(x).data()) == 0);
  CHECK(unchecked_arrays(hk, {4}, {64}, HostArgs().array(both.data(), {256}).array(both.data() + 255, {2}).data()) ==
        0);
  // Adjacent, not overlapping.
  CHECK(unchecked_arrays(hk, {4}, {64}, HostArgs().array(both.data(), {200}).array(both.data() + 200, {57}).data()) ==
        0b11);
  // A 2-D launch: work-items (i, 0) and (i, 1) share y(i); x stays read-only.
  CHECK(unchecked_arrays(hk, {4, 2}, {64}, HostArgs().array(x).array(y).data()) == 0b01);
  // An empty array overlaps nothing.
  CHECK(unchecked_arrays(hk, {4}, {64}, HostArgs().array(x.data(), {0}).array(x).data()) == 0b11);

  Kernel blocked = kernel("rf_launch_blocked", [](Array<int32_t> out) { out(group_id(0) * 256 + local_id(0)) = 1; });
  HostKernel hb = compile_host(blocked.ir(), options);
  std::vector<int32_t> o(1024);
  CHECK(unchecked_arrays(hb, {4}, {256}, HostArgs().array(o).data()) == 0b1);
  CHECK(unchecked_arrays(hb, {2}, {512}, HostArgs().array(o).data()) == 0);  // groups overlap
  // 2^23 groups of 256: the last id is 2^31 - 1; one group more and the 32-bit values wrap.
  CHECK(unchecked_arrays(hb, {int64_t{1} << 23}, {256}, HostArgs().array(o).data()) == 0b1);
  CHECK(unchecked_arrays(hb, {(int64_t{1} << 23) + 1}, {256}, HostArgs().array(o).data()) == 0);

  Kernel k2 = kernel("rf_launch2", [](Array<float, 2> a) {
    a(global_id(1), global_id(0)) = 1.0f;
  });
  HostKernel hk2 = compile_host(k2.ir(), options);
  std::vector<float> a(64 * 8);
  // 64 work-items along x fit a row of 64; 128 would reach the next row's elements.
  CHECK(unchecked_arrays(hk2, {1, 8}, {64}, HostArgs().array(a.data(), {8, 64}).data()) == 0b1);
  CHECK(unchecked_arrays(hk2, {2, 4}, {64}, HostArgs().array(a.data(), {8, 64}).data()) == 0);

  // Crossed tiles (a transpose's output): (group_id(0) * 16 + local_id(1), group_id(1) * 16 +
  // local_id(0)) over a 64 x 64 array.
  Kernel crossed = kernel("rf_launch_crossed", [](Array<float, 2> out) {
    out(group_id(0) * 16 + local_id(1), group_id(1) * 16 + local_id(0)) = 1.0f;
  });
  HostKernel hc = compile_host(crossed.ir(), options);
  std::vector<float> t(64 * 64);
  HostArgs tile_args;
  tile_args.array(t.data(), {64, 64});
  CHECK(unchecked_arrays(hc, {4, 4}, {16, 16}, tile_args.data()) == 0b1);
  CHECK(unchecked_arrays(hc, {2, 2}, {16, 8}, tile_args.data()) == 0b1);  // fewer work-items than C
  CHECK(unchecked_arrays(hc, {2, 4}, {32, 16}, tile_args.data()) == 0);   // local_id(0) up to 31 > C
  // The fast position's values reach 7 * 16 + 15 = 127, past the 64 columns (the next row).
  CHECK(unchecked_arrays(hc, {4, 8}, {16, 16}, tile_args.data()) == 0);
  // A third dimension the index does not use, of groups or of work-items.
  CHECK(unchecked_arrays(hc, {4, 4, 2}, {16, 16}, tile_args.data()) == 0);
  CHECK(unchecked_arrays(hc, {4, 4}, {16, 16, 2}, tile_args.data()) == 0);
}

TEST_CASE("reads_without_interval_writes: shared reads that no write of their array can share a barrier interval with") {
  auto unrecorded = [](const Kernel& k) { return passes::reads_without_interval_writes(k.ir()).size(); };
  // A tiled loop: stage, barrier, read the tile, barrier. The reads' interval has no write.
  Kernel tiled = kernel("rf_tiled", [](Array<float> x, Array<float> out) {
    auto s = shared::array<float>({64}, "s");
    Int t = local_id(0);
    Var<float> acc = 0.0f;
    For(0, 4, [&](Int k) {
      s(t) = x(k * 64 + t);
      barrier(CLK_LOCAL_MEM_FENCE);
      For(0, 64, [&](Int j) { acc += s(j); });
      barrier(CLK_LOCAL_MEM_FENCE);
    });
    out(global_id(0)) = acc;
  });
  CHECK(unrecorded(tiled) == 1);
  // Without the second barrier the next iteration's write shares the reads' interval.
  Kernel wraps = kernel("rf_wraps", [](Array<float> x, Array<float> out) {
    auto s = shared::array<float>({64}, "s");
    Int t = local_id(0);
    Var<float> acc = 0.0f;
    For(0, 4, [&](Int k) {
      s(t) = x(k * 64 + t);
      barrier(CLK_LOCAL_MEM_FENCE);
      acc += s(63 - t);
    });
    out(global_id(0)) = acc;
  });
  CHECK(unrecorded(wraps) == 0);
  // A tree reduction writes where it reads; a barrier under an if does not divide.
  Kernel tree = kernel("rf_tree", [](Array<float> x) {
    auto s = shared::array<float>({64}, "s");
    Int t = local_id(0);
    s(t) = x(global_id(0));
    barrier(CLK_LOCAL_MEM_FENCE);
    If(t < 32, [&] { s(t) = s(t) + s(t + 32); });
    barrier(CLK_LOCAL_MEM_FENCE);
    x(global_id(0)) = s(0);
  });
  CHECK(unrecorded(tree) == 1);  // only s(0), after the last barrier
  Kernel maybe = kernel("rf_maybe_barrier", [](Array<float> x, Int c) {
    auto s = shared::array<float>({64}, "s");
    Int t = local_id(0);
    s(t) = 1.0f;
    If(c != 0, [&] { barrier(CLK_LOCAL_MEM_FENCE); });
    x(global_id(0)) = s(63 - t);
  });
  CHECK(unrecorded(maybe) == 0);
  // An early Return near the read: none.
  Kernel returns = kernel("rf_returns", [](Array<float> x) {
    auto s = shared::array<float>({64}, "s");
    Int t = local_id(0);
    s(t) = 1.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    If(x(global_id(0)) < 0.0f, [&] { Return(); });
    x(global_id(0)) = s(63 - t);
  });
  CHECK(unrecorded(returns) == 0);
  // A write to another static array does not matter; every dynamic shared array is the same
  // storage, so a write to one shares the interval of a read of another.
  Kernel two_static = kernel("rf_two_static", [](Array<float> x) {
    auto s = shared::array<float>({64}, "s");
    auto u = shared::array<float>({64}, "u");
    Int t = local_id(0);
    s(t) = 1.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    x(global_id(0)) = s(63 - t);
    u(t) = 2.0f;
  });
  CHECK(unrecorded(two_static) == 1);
  Kernel two_dynamic = kernel("rf_two_dynamic", [](Array<float> x) {
    auto a = shared::dynamic<float>("a");
    auto b = shared::dynamic<float>("b");
    Int t = local_id(0);
    a(t) = 1.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    x(global_id(0)) = a(63 - t);
    b(t) = 2.0f;
  });
  CHECK(unrecorded(two_dynamic) == 0);
}

TEST_CASE("race_shared: the static shared arrays whose reads go unchecked once the group has written them") {
  // sA and sB are read only in intervals without writes of them; sC is written where it is read.
  Kernel k = kernel("rf_filled", [](Array<float> x, Array<float> out) {
    auto sA = shared::array<float>({64}, "sA");
    auto sC = shared::array<int32_t>({64}, "sC");
    auto sB = shared::array<double>({8, 8}, "sB");
    Int t = local_id(0);
    sA(t) = x(global_id(0));
    sB(t / 8, t % 8) = 1.0;
    sC(t) = 1;
    barrier(CLK_LOCAL_MEM_FENCE);
    sC(t) = sC(63 - t) + 1;
    out(global_id(0)) = sA(63 - t) + cast<float>(sB(t % 8, t / 8));
  });
  CompileOptions options;
  options.check_races = true;
  HostKernel hk = compile_host(k.ir(), options);
  // In declaration order; offsets as the host lowering lays the arrays out (64-byte aligned).
  REQUIRE(hk.race_shared().size() == 2);
  CHECK(hk.race_shared()[0].offset == 0);
  CHECK(hk.race_shared()[0].bytes == 256);
  CHECK(hk.race_shared()[0].unit == 4);
  CHECK(hk.race_shared()[1].offset == 512);
  CHECK(hk.race_shared()[1].bytes == 512);
  CHECK(hk.race_shared()[1].unit == 8);
  CHECK_THAT(metadata_text(hk), Contains("race-free when full:  2 shared arrays"));
  // Without race checks: no table.
  CHECK(compile_host(k.ir()).race_shared().empty());
}
