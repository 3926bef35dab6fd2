// The race checker's proof that some arrays need no checks (compiler/passes/race_free.h) and the
// launch-time half of it (runtime/cpu/race_checker.hpp, unchecked_arrays).
#include <catch2/catch.hpp>
#include <rocjit/rocjit.hpp>

#include <algorithm>
#include <array>
#include <map>
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

TEST_CASE("interval_race_free without a work-group shape: shared reads that no write of their array can share a barrier interval with") {
  auto unrecorded = [](const Kernel& k) {
    const auto sites = passes::interval_race_free(k.ir(), std::nullopt, 64);
    return std::count_if(sites.begin(), sites.end(), [](const ir::Op* o) { return o->kind == ir::OpKind::load; });
  };
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
  // With a shape too: the next iteration's stores share the reads' interval.
  CHECK(passes::interval_race_free(wraps.ir(), std::array<int64_t, 3>{64, 1, 1}, 64).empty());
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

namespace {
// The accesses interval_race_free proves for `block`, as (kind, count) per memory name.
struct Proven {
  size_t loads = 0, stores = 0, atomics = 0;
  size_t total() const { return loads + stores + atomics; }
  bool operator==(const Proven&) const = default;
};
Proven proven(const Kernel& k, std::array<int64_t, 3> block, const std::string& memory = "s") {
  Proven out;
  for (const ir::Op* o : passes::interval_race_free(k.ir(), block, 64)) {
    if (k.ir().memories.at(o->memory()).name != memory) continue;
    (o->kind == ir::OpKind::load ? out.loads : o->kind == ir::OpKind::store ? out.stores : out.atomics) += 1;
  }
  return out;
}
size_t accesses(const Kernel& k, const std::string& memory = "s") {
  size_t n = 0;
  ir::walk(k.ir().body, [&](const ir::Op& o) {
    if ((o.kind == ir::OpKind::load || o.kind == ir::OpKind::store || o.kind == ir::OpKind::atomic) &&
        k.ir().memories.at(o.memory()).name == memory)
      ++n;
  });
  return n;
}
}  // namespace

TEST_CASE("interval_race_free for a work-group shape: accesses no other work-item's access of their interval conflicts with") {
  // A tree reduction, a barrier per level: t < k reads s(t + k) and writes s(t), elements other
  // work-items of the level neither read nor write.
  Kernel tree = kernel("irf_tree", [](Array<float> x) {
    auto s = shared::array<float>({64}, "s");
    Int t = local_id(0);
    s(t) = 0.0f;
    If(t < x.shape(0), [&] { s(t) = x(t); });
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = 32; k > 0; k /= 2) {
      If(t < k, [&] { s(t) += s(t + k); });
      barrier(CLK_LOCAL_MEM_FENCE);
    }
    If(t == 0, [&] { x(0) = s(0); });
  });
  CHECK(accesses(tree) == 2 + 6 * 3 + 1);
  CHECK(proven(tree, {64, 1, 1}).total() == accesses(tree));
  // Without a shape only the last read (its interval has no write).
  CHECK(passes::interval_race_free(tree.ir(), std::nullopt, 64).size() == 1);
  // 64 x 2 work-items: two write each element.
  CHECK(proven(tree, {64, 2, 1}).stores == 0);
  // The seeded bug: one barrier missing, so levels 32 and 16 share an interval. Level 32's write
  // of s(t) and level 16's read of s(t + 16) are not proven (work-item 16 writes s(16), which
  // work-item 0 reads at level 16): the checker still sees both sides of the race. Every other
  // site is.
  Kernel missing = kernel("irf_missing", [](Array<float> x) {
    auto s = shared::array<float>({64}, "s");
    Int t = local_id(0);
    s(t) = x(t);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = 32; k > 0; k /= 2) {
      If(t < k, [&] { s(t) += s(t + k); });
      if (k != 32) barrier(CLK_LOCAL_MEM_FENCE);
    }
    x(0) = s(0);
  });
  const Proven m = proven(missing, {64, 1, 1});
  CHECK(m.total() == accesses(missing) - 2);
  CHECK(m.stores == 6);
  CHECK(m.loads == 12);
  // Numba's warp-synchronous scan: lanes read what other lanes write, no barrier.
  Kernel warp_scan = kernel("irf_warp_scan", [](Array<int32_t> x) {
    auto s = shared::array<int32_t>({64}, "s");
    Int t = local_id(0);
    s(t) = x(t);
    for (int k = 1; k < 64; k *= 2) If(t >= k, [&] { s(t) += s(t - k); });
    x(t) = s(t);
  });
  // Each work-item's reads of its own s(t) are proven; every write and every read of s(t - k),
  // the two sides of the races, are not.
  const Proven ws = proven(warp_scan, {64, 1, 1});
  CHECK(ws.stores == 0);
  CHECK(ws.loads == 7);
  CHECK(accesses(warp_scan) == 1 + 6 * 3 + 1);
  // Hillis-Steele with a barrier between the reads and the writes of each step.
  Kernel hillis = kernel("irf_hillis", [](Array<int32_t> x) {
    auto s = shared::array<int32_t>({64}, "s");
    Int t = local_id(0);
    s(t) = x(t);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = 1; k < 64; k *= 2) {
      Var<int32_t> v = s(t);
      If(t >= k, [&] { v += s(t - k); });
      barrier(CLK_LOCAL_MEM_FENCE);
      s(t) = v;
      barrier(CLK_LOCAL_MEM_FENCE);
    }
    x(t) = s(t);
  });
  CHECK(proven(hillis, {64, 1, 1}).total() == accesses(hillis));
}

TEST_CASE("interval_race_free: tiles, loops, branches and atomics") {
  // Staging a 2-D tile in a loop, reading it between two barriers.
  Kernel tiled = kernel("irf_tiled", [](Array<float, 2> a, Array<float> out) {
    auto s = shared::array<float>({16, 16}, "s");
    Int tx = local_id(0), ty = local_id(1);
    Var<float> acc = 0.0f;
    For(0, a.shape(1) / 16, [&](Int k) {
      s(ty, tx) = 0.0f;
      If(k * 16 + tx < a.shape(1), [&] { s(ty, tx) = a(ty, k * 16 + tx); });
      barrier(CLK_LOCAL_MEM_FENCE);
      For(0, 16, [&](Int j) { acc += s(ty, j); });
      barrier(CLK_LOCAL_MEM_FENCE);
    });
    out(global_id(0)) = acc;
  });
  CHECK(proven(tiled, {16, 16, 1}).total() == 3);
  CHECK(proven(tiled, {16, 16, 2}).stores == 0);  // z is not in the index
  CHECK(proven(tiled, {16, 16, 2}).loads == 1);   // the read shares its interval with no write
  CHECK(proven(tiled, {32, 16, 1}).stores == 0);  // tx = 16 .. 31 write the next row's elements
  // The barrier under an if in the loop's body: the next iteration's store follows the read with
  // no barrier between.
  Kernel nested = kernel("irf_nested_barrier", [](Array<float> a, Int u) {
    auto s = shared::array<float>({64}, "s");
    Int t = local_id(0);
    For(0, 4, [&](Int k) {
      If(u > 0, [&] {
        s(t) = a(k * 64 + t);
        barrier(CLK_LOCAL_MEM_FENCE);
        a(k * 64 + t) = s(63 - t);
      });
    });
  });
  CHECK(proven(nested, {64, 1, 1}).total() == 0);
  // A For whose counter indexes the array: work-item t touches t, t + 64, ... of 256.
  Kernel strided = kernel("irf_strided", [](Array<uint32_t> data, Array<uint32_t> hist) {
    auto s = shared::array<uint32_t>({256}, "s");
    Int t = local_id(0);
    For(t, 256, local_size(0), [&](Int b) { s(b) = 0u; });
    barrier(CLK_LOCAL_MEM_FENCE);
    For(global_id(0), data.shape(0), global_size(0), [&](Int i) { atomic::add(s, data(i) % 256u, 1u); });
    barrier(CLK_LOCAL_MEM_FENCE);
    For(t, 256, local_size(0), [&](Int b) { atomic::add(hist, b, s(b)); });
  });
  const Proven st = proven(strided, {64, 1, 1});
  CHECK(st.stores == 1);
  CHECK(st.atomics == 1);  // relaxed, only atomics in its interval
  CHECK(st.loads == 1);
  CHECK(proven(strided, {96, 1, 1}).total() == 3);
  // With an acquire somewhere in the kernel, atomics keep their hooks.
  Kernel ordered = kernel("irf_ordered", [](Array<uint32_t> data, Array<uint32_t> flag) {
    auto s = shared::array<uint32_t>({64}, "s");
    Int t = local_id(0);
    s(t) = 0u;
    barrier(CLK_LOCAL_MEM_FENCE);
    atomic::add(s, data(global_id(0)) % 64u, 1u);
    barrier(CLK_LOCAL_MEM_FENCE);
    If(atomic::load(flag, 0, memory_order::acquire) != 0u, [&] { data(global_id(0)) = s(t); });
  });
  CHECK(proven(ordered, {64, 1, 1}) == Proven{.loads = 1, .stores = 1, .atomics = 0});
  // A plain write beside atomics of the same interval: neither.
  Kernel mixed = kernel("irf_mixed", [](Array<uint32_t> data) {
    auto s = shared::array<uint32_t>({64}, "s");
    Int t = local_id(0);
    s(t) = 0u;
    atomic::add(s, data(global_id(0)) % 64u, 1u);
    barrier(CLK_LOCAL_MEM_FENCE);
    data(global_id(0)) = s(t);
  });
  CHECK(proven(mixed, {64, 1, 1}) == Proven{.loads = 1, .stores = 0, .atomics = 0});
  // An if's other branch runs in the same interval for other work-items.
  Kernel branches = kernel("irf_branches", [](Array<float> x) {
    auto s = shared::array<float>({64}, "s");
    Int t = local_id(0);
    If(t < 32, [&] { s(t) = x(t); }).Else([&] { x(t) = s(t - 32); });
  });
  CHECK(proven(branches, {64, 1, 1}).total() == 0);
  // The same split with disjoint halves.
  Kernel halves = kernel("irf_halves", [](Array<float> x) {
    auto s = shared::array<float>({64}, "s");
    Int t = local_id(0);
    If(t < 32, [&] { s(t) = x(t); }).Else([&] { x(t) = s(t); });
  });
  CHECK(proven(halves, {64, 1, 1}).total() == 2);
  // An index that is not a function of the local ids (a loaded value): not proven.
  Kernel scattered = kernel("irf_scattered", [](Array<int32_t> idx, Array<float> x) {
    auto s = shared::array<float>({64}, "s");
    Int t = local_id(0);
    s(idx(global_id(0)) % 64) = 1.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    x(global_id(0)) = s(t);
  });
  const Proven sc = proven(scattered, {64, 1, 1});
  CHECK(sc.stores == 0);
  CHECK(sc.loads == 1);
}

TEST_CASE("shared_fills: the barriers by which every work-item has written all of a shared array") {
  auto fills = [](const Kernel& k, std::array<int64_t, 3> block) {
    std::vector<std::string> out;  // "array@barrier-index"
    const auto found = passes::shared_fills(k.ir(), block, 64);
    CHECK(passes::race_proofs(k.ir(), block, 64).fills == found);
    int index = 0;
    ir::walk(k.ir().body, [&](const ir::Op& o) {
      if (o.kind != ir::OpKind::barrier) return;
      if (auto it = found.find(&o); it != found.end())
        for (ir::MemoryId m : it->second) out.push_back(k.ir().memories.at(m).name + "@" + std::to_string(index));
      ++index;
    });
    return out;
  };
  using V = std::vector<std::string>;
  // Zeroed by every work-item, then filled from global memory under a condition not known.
  Kernel staged = kernel("sf_staged", [](Array<float> x) {
    auto s = shared::array<float>({64}, "s");
    auto half = shared::array<float>({64}, "half");
    Int t = local_id(0);
    s(t) = 0.0f;
    If(t < 32, [&] { half(t) = 1.0f; });
    If(global_id(0) < x.shape(0), [&] { half(t) = x(global_id(0)); });
    barrier(CLK_LOCAL_MEM_FENCE);
    If(t < 32, [&] { half(t + 32) = 2.0f; });
    barrier(CLK_LOCAL_MEM_FENCE);
    x(global_id(0)) = s(63 - t) + half(63 - t);
  });
  CHECK(fills(staged, {64, 1, 1}) == V{"s@0"});   // half's lower half only; its second store by some
  CHECK(fills(staged, {32, 1, 1}).empty());       // 32 work-items write half of s
  CHECK(fills(staged, {64, 2, 1}) == V{"s@0"});   // two write each element: still all of it
  // In a loop's body, before its barrier; an index from the loop's counter does not count.
  Kernel tiled = kernel("sf_tiled", [](Array<float> x) {
    auto tile = shared::array<float>({16, 16}, "tile");
    auto row = shared::array<float>({64}, "row");
    Int tx = local_id(0), ty = local_id(1);
    For(0, x.shape(0) / 256, [&](Int k) {
      tile(ty, tx) = x(k * 256 + ty * 16 + tx);
      For(0, 4, [&](Int j) { If(ty == 0, [&] { row(j * 16 + tx) = 1.0f; }); });
      barrier(CLK_LOCAL_MEM_FENCE);
      x(k * 256 + ty * 16 + tx) = tile(tx, ty) + row(tx);
      barrier(CLK_LOCAL_MEM_FENCE);
    });
  });
  CHECK(fills(tiled, {16, 16, 1}) == V{"tile@0"});
  // A Return anywhere: none.
  Kernel returns = kernel("sf_returns", [](Array<float> x) {
    auto s = shared::array<float>({64}, "s");
    Int t = local_id(0);
    s(t) = 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    If(x(t) < 0.0f, [&] { Return(); });
    x(t) = s(63 - t);
  });
  CHECK(fills(returns, {64, 1, 1}).empty());
}

TEST_CASE("unchecked_stores: stores nothing reads the stamp of") {
  auto unstamped = [](const Kernel& k, std::array<int64_t, 3> block) {
    const auto free = passes::interval_race_free(k.ir(), block, 64);
    const auto fills = passes::shared_fills(k.ir(), block, 64);
    const auto stores = passes::unchecked_stores(k.ir(), free, fills);
    // race_proofs (one analysis, what the host lowering calls) gives the three passes' results.
    const passes::RaceProofs proofs = passes::race_proofs(k.ir(), block, 64);
    CHECK(proofs.interval_free == free);
    CHECK(proofs.fills == fills);
    CHECK(proofs.unstamped == stores);
    return stores.size();
  };
  // reduce's staging: both stores of the first interval, filled at its barrier.
  Kernel tree = kernel("us_tree", [](Array<float> x) {
    auto s = shared::array<float>({64}, "s");
    Int t = local_id(0);
    s(t) = 0.0f;
    If(global_id(0) < x.shape(0), [&] { s(t) = x(global_id(0)); });
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = 32; k > 0; k /= 2) {
      If(t < k, [&] { s(t) += s(t + k); });
      barrier(CLK_LOCAL_MEM_FENCE);
    }
    If(t == 0, [&] { x(0) = s(0); });
  });
  CHECK(unstamped(tree, {64, 1, 1}) == 2);  // the levels' stores share their interval with reads
  CHECK(unstamped(tree, {32, 1, 1}) == 0);  // 32 work-items do not fill s
  // A read of the array in the staging interval needs the stamps.
  Kernel reads = kernel("us_reads", [](Array<float> x) {
    auto s = shared::array<float>({64}, "s");
    Int t = local_id(0);
    s(t) = x(t);
    x(t) = s(t) * 2.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    x(t) = s(63 - t);
  });
  CHECK(unstamped(reads, {64, 1, 1}) == 0);
  // An access not proven anywhere (the missing barrier) keeps every store of the array stamped.
  Kernel missing = kernel("us_missing", [](Array<float> x) {
    auto s = shared::array<float>({64}, "s");
    Int t = local_id(0);
    s(t) = x(t);
    barrier(CLK_LOCAL_MEM_FENCE);
    If(t < 32, [&] { s(t) += s(t + 32); });
    If(t < 16, [&] { s(t) += s(t + 16); });
    barrier(CLK_LOCAL_MEM_FENCE);
    x(t) = s(0);
  });
  CHECK(unstamped(missing, {64, 1, 1}) == 0);
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

TEST_CASE("RaceClock: runs of groups with one coverage join as a clock per group would") {
  // Against a plain map per group, on random clocks of a few runs each.
  uint64_t seed = 12345;
  auto next = [&](uint64_t n) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return (seed >> 33) % n;
  };
  auto coverage = [&] {
    RaceCoverage c;
    c.epoch_bound = static_cast<uint32_t>(next(3));
    for (int32_t item = 0; item < 3; ++item)
      if (next(2)) c.items.push_back({item, static_cast<uint32_t>(next(4))});
    return c;
  };
  for (int round = 0; round < 2000; ++round) {
    std::map<int64_t, RaceCoverage> expected;
    RaceClock clock;
    for (int step = 0; step < 4; ++step) {
      RaceClock other;
      std::map<int64_t, RaceCoverage> other_expected;
      for (int64_t g = static_cast<int64_t>(next(4)); g < 24; g += 1 + static_cast<int64_t>(next(5))) {
        const RaceCoverage c = coverage();
        const int64_t last = g + static_cast<int64_t>(next(4));
        for (int64_t h = g; h <= last; ++h) {
          other.join(RaceClock(h, c));
          other_expected[h].join(c);
        }
        g = last;
      }
      clock.join(other);
      for (const auto& [g, c] : other_expected) expected[g].join(c);
    }
    for (int64_t g = -1; g < 30; ++g) {
      const RaceCoverage* got = clock.find(g);
      auto it = expected.find(g);
      REQUIRE((got != nullptr) == (it != expected.end()));
      if (got) REQUIRE(*got == it->second);
    }
    // Equal neighbours are one run: never more runs than groups whose coverage changes.
    size_t changes = 0;
    const RaceCoverage* before = nullptr;
    int64_t previous = -10;
    for (const auto& [g, c] : expected) {
      if (!before || g != previous + 1 || !(c == *before)) ++changes;
      before = &c;
      previous = g;
    }
    REQUIRE(clock.runs() == changes);
  }
  // A look-back chain: group g knows groups 0..g-1 with the same coverage; one run however long.
  RaceClock chain;
  RaceCoverage same;
  same.items = {{0, 3}};
  for (int64_t g = 0; g < 100000; ++g) chain.join(RaceClock(g, same));
  CHECK(chain.runs() == 1);
  CHECK(chain.find(99999) != nullptr);
  CHECK(chain.find(100000) == nullptr);
}
