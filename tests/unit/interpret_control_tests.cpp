// The reference interpreter against the CPU back end on control flow and synchronisation beyond
// barriers: Return/Continue and the C-style For, wave operations (also in wave-uniform control
// that differs between the waves of a group), dynamic shared memory, atomic load/store with
// orders and scopes, and fences. Every case requires bit-identical results and checks some of
// them against plain C++.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "interpret_harness.hpp"
#include "staged_halo.hpp"

using namespace rocjit;
using namespace rocjit::dsl;
using namespace rocjit::testing;

namespace {
// run_both for the CPU compiled for any work-group shape and for the launch's shape (which the
// CPU back end's guard copies and fixed-shape loops see as constants).
std::vector<Arg> run_both_shapes(const Kernel& k, Dim3 grid, Dim3 block, const Args& args) {
  run_both(k.ir(), grid, block, args);
  CompileOptions fixed;
  fixed.block = block;
  return run_both(k.ir(), grid, block, args, 0, fixed);
}
}  // namespace

TEST_CASE("Return, Continue and the C-style For with its step region") {
  Kernel k = kernel("exits", [](Array<int32_t> out, Int n) {
    Int t = global_id(0);
    If(t >= n, [&] { Return(); });
    Var<int32_t> odd = 0;
    For(0, t, [&](Int j) {
      If(j % 2 == 0, [&] { Continue(); });
      odd += j;
    });
    Var<int32_t> skipped = 0;
    For(t, [](Int s) { return s >= 0; }, [](Int s) { return s - 3; }, [&](Int s) {
      If(s % 2 == 1, [&] { Continue(); });
      skipped += s;
    });
    For(0, 50, [&](Int j) {
      If(j == t % 5, [&] {
        out(t) = odd * 1000 + skipped * 10 + j;
        Return();
      });
    });
    out(t) = -1;
  });
  auto out = run_both(k.ir(), {2}, {32}, Args().array(std::vector<int32_t>(40, 99)).scalar(40));
  std::vector<int32_t> o = out[0].as<int32_t>();
  for (int t = 0; t < 40; ++t) {
    int odd = 0, skipped = 0;
    for (int j = 0; j < t; ++j)
      if (j % 2) odd += j;
    for (int s = t; s >= 0; s -= 3)
      if (s % 2 != 1) skipped += s;
    REQUIRE(o[t] == odd * 1000 + skipped * 10 + t % 5);
  }
}

TEST_CASE("wave operations: the interpreter and the CPU back end agree, with a partial last wave") {
  Kernel k = kernel("waves", [](Array<int32_t> out, Array<float> f) {
    Int t = local_id(0) + local_size(0) * local_id(1);
    Int g = group_id(0) * 90 + t;
    Int v = t * 3 - 40;
    out(6 * g) = wave::shuffle_xor(v, 9) + lane_id() * 1000;
    out(6 * g + 1) = wave::reduce_max(v);
    out(6 * g + 2) = wave::exclusive_scan_add(v);
    out(6 * g + 3) = cast<int32_t>(wave::ballot(t % 4 == 1) % uint64_t{1000003});
    out(6 * g + 4) = wave::count(v > 0) + wave::shuffle_down(v, 1);
    out(6 * g + 5) = wave_size();
    f(g) = wave::reduce_add(cast<float>(v) * 0.1f) + wave::inclusive_scan_add(cast<float>(t) * 0.3f);
  }, {.max_block_size = 256});
  auto out = run_both(k.ir(), {2}, {10, 9}, Args().array(std::vector<int32_t>(6 * 180)).array(std::vector<float>(180)));
  std::vector<int32_t> o = out[0].as<int32_t>();
  for (int g = 0; g < 180; ++g) {
    const int t = g % 90, begin = t / 64 * 64, end = std::min(90, begin + 64);
    REQUIRE(o[6 * g + 5] == 64);
    int mx = -1000, excl = 0;
    for (int l = begin; l < end; ++l) {
      mx = std::max(mx, l * 3 - 40);
      if (l < t) excl += l * 3 - 40;
    }
    const int partner = begin + ((t - begin) ^ 9);
    REQUIRE(o[6 * g] == (partner < end ? partner : t) * 3 - 40 + (t - begin) * 1000);
    REQUIRE(o[6 * g + 1] == mx);
    REQUIRE(o[6 * g + 2] == excl);
  }
}

TEST_CASE("wave operations in control that differs between waves, and a Return() of whole waves") {
  Kernel k = kernel("wave_control", [](Array<int32_t> out) {
    Int t = local_id(0);
    Int g = global_id(0);
    Int wid = t / wave_size();
    Int v = (t * 7) % 23 - 5;
    If(wid == 0, [&] { out(3 * g) = wave::reduce_add(v); }).Else([&] { out(3 * g) = wave::inclusive_scan_add(v); });
    Var<int32_t> acc = 0;
    For(0, wid + 2, [&](Int k) { acc += wave::shuffle_xor(v + k, 1); });
    out(3 * g + 1) = acc;
    If(wave::all(v > -6) && wid == 2, [&] {
      out(3 * g + 2) = wave::count(v > 3);
      Return();
    });
    out(3 * g + 2) = -wid;
  }, {.max_block_size = 256});
  // 150 work-items: waves of 64, 64 and 22 (the host's and the interpreter's wave64).
  auto out = run_both(k.ir(), {2}, {150}, Args().array(std::vector<int32_t>(3 * 300)));
  std::vector<int32_t> o = out[0].as<int32_t>();
  for (int g = 0; g < 300; ++g) {
    const int t = g % 150, wid = t / 64, begin = wid * 64, end = std::min(150, begin + 64);
    auto v = [](int i) { return (i * 7) % 23 - 5; };
    int sum = 0, prefix = 0, big = 0;
    for (int i = begin; i < end; ++i) {
      sum += v(i);
      if (i <= t) prefix += v(i);
      big += v(i) > 3;
    }
    INFO("work-item " << g);
    REQUIRE(o[3 * g] == (wid == 0 ? sum : prefix));
    const int partner = begin + ((t - begin) ^ 1) < end ? t ^ 1 : t;
    REQUIRE(o[3 * g + 1] == (wid + 2) * v(partner) + (wid + 1) * (wid + 2) / 2);
    REQUIRE(o[3 * g + 2] == (wid == 2 ? big : -wid));
  }
}

TEST_CASE("dynamic shared memory next to a static array, atomic load and store, and fences") {
  Kernel k = kernel("dynamic_atomics", [](Array<int32_t> out, Array<int32_t> flag) {
    auto fixed = shared::array<int32_t>({2}, "fixed");
    auto tile = shared::dynamic<int32_t>("tile");
    Int t = local_id(0);
    Int n = local_size(0);
    If(t < 2, [&] { atomic::store(fixed, t, t + 10, memory_order::relaxed, memory_scope::workgroup); });
    tile(t) = t * t;
    fence(memory_scope::workgroup, memory_order::release);
    barrier();
    Int seen = atomic::load(fixed, t % 2, memory_order::acquire, memory_scope::workgroup);
    out(global_id(0)) = tile(n - 1 - t) * 100 + seen + tile.shape(0) * 10000;
    If(t == 0, [&] { atomic::store(flag, group_id(0), group_id(0) + 1, memory_order::release); });
    fence(memory_scope::device, memory_order::seq_cst);
  });
  const int block = 40, groups = 3, bytes = (block + 6) * 4;
  auto out = run_both(k.ir(), {groups}, {block},
                      Args().array(std::vector<int32_t>(block * groups)).array(std::vector<int32_t>(groups)), bytes);
  std::vector<int32_t> o = out[0].as<int32_t>();
  for (int i = 0; i < block * groups; ++i) {
    const int t = i % block;
    REQUIRE(o[i] == (block - 1 - t) * (block - 1 - t) * 100 + 10 + t % 2 + (block + 6) * 10000);
  }
  REQUIRE(out[1].as<int32_t>() == std::vector<int32_t>{1, 2, 3});
}

// The CPU back end copies a region whose bounds guards hold for a whole work-group without them
// (chosen per group by a check of the guards' affine expressions at the corners of the group).
// Groups fully inside, partly inside and outside the bounds, negative coefficients, 2-D and 3-D
// groups, and i32 arithmetic that wraps inside a group must all agree with the interpreter,
// compiled for any shape and for the launch's shape.
TEST_CASE("bounds guards that hold for a whole work-group: the unguarded copy agrees with the interpreter") {
  Kernel window = kernel("window", [](Array<int32_t> out, Int lo) {
    Int i = global_id(0);
    If(i >= lo && i < out.shape(0), [&] { out(i) = i * 3; });
  });
  auto w = run_both_shapes(window, {20}, {64}, Args().array(std::vector<int32_t>(1000, -1)).scalar(70));
  std::vector<int32_t> wv = w[0].as<int32_t>();
  for (int i = 0; i < 1000; ++i) REQUIRE(wv[i] == (i >= 70 ? i * 3 : -1));

  Kernel interior = kernel("interior", [](Array<float, 2> in, Array<float, 2> out) {
    Int x = global_id(0), y = global_id(1);
    Int rows = in.shape(0), cols = in.shape(1);
    If(y >= 1 && y < rows - 1 && x >= 1 && x < cols - 1,
       [&] { out(y, x) = in(y, x - 1) + in(y, x + 1) + in(y - 1, x) + in(y + 1, x); });
  });
  std::vector<float> grid2(37 * 45);
  for (size_t i = 0; i < grid2.size(); ++i) grid2[i] = static_cast<float>(i % 17);
  run_both_shapes(interior, {3, 5}, {16, 8},
              Args().array(grid2, {37, 45}).array(std::vector<float>(37 * 45, 0.5f), {37, 45}));

  Kernel falling = kernel("falling", [](Array<int32_t> out, Int k) {
    Int t = local_id(0);
    If(group_id(0) * 8 + 63 - t * 2 >= k, [&] { out(global_id(0)) = t; });
  });
  run_both_shapes(falling, {4}, {32}, Args().array(std::vector<int32_t>(128, -1)).scalar(20));

  // -global_id * 65536 wraps past 32768 (to positive values, which fail the guard, while the
  // exact values would pass it): those groups must take the guarded copy.
  Kernel wrapping = kernel("wrapping", [](Array<int32_t> out, Int limit) {
    Int v = 0 - global_id(0) * 65536;
    If(v < limit, [&] { out(global_id(0)) = v; });
  });
  auto wr = run_both_shapes(wrapping, {600}, {64}, Args().array(std::vector<int32_t>(600 * 64, 7)).scalar(-(1 << 30)));
  CHECK(wr[0].as<int32_t>()[600 * 64 - 1] == 7);  // wrapped past 32768: the guard failed

  // reverse's guard: a bound that is min() of group-level values.
  Kernel tail = kernel("tail", [](Array<int32_t> out) {
    Int t = local_id(0), base = group_id(0) * 64;
    Int len = min(64, out.shape(0) - base);
    If(t < len, [&] { out(base + len - 1 - t) = base + t; });
  });
  run_both_shapes(tail, {5}, {64}, Args().array(std::vector<int32_t>(300, -1)));

  Kernel boxes = kernel("boxes", [](Array<int32_t, 3> out, Int m) {
    Int z = global_id(2) * 4 + local_id(1) * 2 - group_id(0) - 3;
    If(z < m && z >= 0, [&] { out(global_id(2), global_id(1), global_id(0)) = z; });
  });
  run_both_shapes(boxes, {2, 3, 4}, {4, 2, 3},
              Args().array(std::vector<int32_t>(12 * 6 * 8, -1), {12, 6, 8}).scalar(20));

  // Guards through quotients and remainders by constants, nested in another If: bounded by
  // interval arithmetic, valid only for non-negative dividends and i32 steps that do not wrap.
  Kernel nested = kernel("nested_divided", [](Array<int32_t> out, Int lo, Int hi) {
    Int i = global_id(0);
    If(local_id(0) < 60, [&] {
      Int q = (i - 40) / 3, r = (i - 40) % 7;           // negative dividends in the first groups
      If(q >= lo && q < hi, [&] { out(i) = q * 10; });  // quotient bounds
      If(r < 5 && i >= 0, [&] { out(i) += r; });        // remainder: -6 .. 6
    });
  });
  auto nd = run_both_shapes(nested, {6}, {64}, Args().array(std::vector<int32_t>(6 * 64, -1)).scalar(-5).scalar(90));
  std::vector<int32_t> ndv = nd[0].as<int32_t>();
  for (int i = 0; i < 6 * 64; ++i) {
    if (i % 64 >= 60) {
      REQUIRE(ndv[i] == -1);
      continue;
    }
    const int q = (i - 40) / 3, r = (i - 40) % 7;
    int want = q >= -5 && q < 90 ? q * 10 : -1;
    if (r < 5) want += r;
    REQUIRE(ndv[i] == want);
  }
  // A remainder's bounds 0 .. 6 need a non-negative dividend: in the first groups r < 0.
  Kernel remainder = kernel("negative_remainder", [](Array<int32_t> out) {
    Int i = global_id(0);
    Int r = (i - 100) % 7;
    If(r >= 0, [&] { out(i) = r; });
  });
  auto rv = run_both_shapes(remainder, {4}, {64}, Args().array(std::vector<int32_t>(4 * 64, -1)));
  for (int i = 0; i < 4 * 64; ++i) REQUIRE(rv[0].as<int32_t>()[i] == ((i - 100) % 7 >= 0 ? (i - 100) % 7 : -1));
  // i * 65536 wraps in i32 for the later groups: their quotient bound is not the exact one.
  Kernel wrapped = kernel("wrapped_quotient", [](Array<int32_t> out, Int limit) {
    Int v = (global_id(0) * 65536) / 3;
    If(v < limit, [&] { out(global_id(0)) = v; });
  });
  run_both_shapes(wrapped, {600}, {64}, Args().array(std::vector<int32_t>(600 * 64, 7)).scalar(1 << 29));
}

// An exit guard (an If that only returns, on one comparison) is taken as false in the copy, which
// groups run when the negated comparison holds for all their work-items: the last, partial
// group and groups past the end take the checked copy.
TEST_CASE("exit guards that fail for a whole work-group: the copy without them agrees with the interpreter") {
  Kernel offsets = kernel("exit_offsets", [](Array<int32_t> out, Array<int32_t> add) {
    Int i = global_id(0);
    If(i >= out.shape(0), [&] { Return(); });
    out(i) = out(i) + add(group_id(0));
  });
  CompileOptions o;
  o.emit_llvm_ir = true;
  o.jit = false;
  CHECK(compile(offsets, Target::host(), o).host.llvm_ir().find("guards.hold") != std::string::npos);
  std::vector<int32_t> base(1000);
  for (int i = 0; i < 1000; ++i) base[i] = i;
  auto r = run_both_shapes(offsets, {17}, {64}, Args().array(base).array(std::vector<int32_t>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17}));
  std::vector<int32_t> rv = r[0].as<int32_t>();
  for (int i = 0; i < 1000; ++i) REQUIRE(rv[i] == i + i / 64 + 1);

  // Negative coefficients and a wrap: -global_id * 65536 passes 32768 in the later groups, where
  // the exact value would still fail the exit guard; those groups must take the checked copy.
  Kernel wrapping = kernel("exit_wrapping", [](Array<int32_t> out, Int limit) {
    Int v = 0 - global_id(0) * 65536;
    If(v <= limit, [&] { Return(); });
    out(global_id(0)) = v;
  });
  auto w = run_both_shapes(wrapping, {600}, {64}, Args().array(std::vector<int32_t>(600 * 64, 7)).scalar(-(1 << 30)));
  CHECK(w[0].as<int32_t>()[1] == -65536);

  // Nested in an If, and followed by more than one store.
  Kernel nested = kernel("exit_nested", [](Array<int32_t> out, Int lo) {
    Int i = global_id(0);
    If(local_id(0) < 48, [&] {
      If(i < lo, [&] { Return(); });
      out(i) = i * 2;
    });
    If(local_id(0) >= 48, [&] { out(i) = -2; });
  });
  auto nd = run_both_shapes(nested, {5}, {64}, Args().array(std::vector<int32_t>(5 * 64, -1)).scalar(100));
  std::vector<int32_t> ndv = nd[0].as<int32_t>();
  for (int i = 0; i < 5 * 64; ++i) REQUIRE(ndv[i] == (i % 64 >= 48 ? -2 : i < 100 ? -1 : i * 2));
}

TEST_CASE("only i32 guards over ids and group values get an unguarded copy of their region, and only when optimising") {
  auto versioned = [](const Kernel& k, int opt_level) {
    CompileOptions o;
    o.opt_level = opt_level;
    o.emit_llvm_ir = true;
    o.jit = false;
    return compile(k, Target::host(), o).host.llvm_ir().find("guards.hold") != std::string::npos;
  };
  Kernel affine = kernel("affine_guard", [](Array<float> x) {
    Int i = global_id(0);
    If(i < x.shape(0), [&] { x(i) = 1.0f; });
  });
  CHECK(versioned(affine, 3));
  CHECK(versioned(affine, 2));
  CHECK_FALSE(versioned(affine, 1));  // the CPU device's quick first compile
  Kernel square = kernel("square_guard", [](Array<float> x) {
    Int i = global_id(0);
    If(i * i < x.shape(0), [&] { x(i) = 1.0f; });
  });
  CHECK_FALSE(versioned(square, 3));
  Kernel bounded = kernel("min_guard", [](Array<float> x) {
    Int base = group_id(0) * 64;
    If(local_id(0) < min(64, x.shape(0) - base), [&] { x(base + local_id(0)) = 1.0f; });
  });
  CHECK(versioned(bounded, 3));
  Kernel uniform = kernel("uniform_guard", [](Array<float> x, Int n) {
    If(group_id(0) < n, [&] { x(global_id(0)) = 1.0f; });
  });
  CHECK_FALSE(versioned(uniform, 3));  // no local id in it: LLVM hoists it already
  Kernel local = kernel("local_guard", [](Array<float> x, Int s) {
    If(local_id(0) < s, [&] { x(global_id(0)) = 1.0f; });
  });
  CHECK_FALSE(versioned(local, 3));  // the same in every group: a copy would rarely run
  // Nested in another If, through a quotient and a remainder by positive constants.
  Kernel staged = kernel("staged_guard", [](Array<float, 2> in) {
    Int c = local_id(0);
    If(c < 100, [&] {
      Int gy = group_id(0) * 8 + c / 10 - 1, gx = c % 10 - 1;
      If(gy >= 0 && gy < in.shape(0) && gx >= 0 && gx < in.shape(1), [&] { in(gy, gx) = 1.0f; });
    });
  });
  CHECK(versioned(staged, 3));
  Kernel by_value = kernel("divided_by_value", [](Array<float> x, Int k) {
    Int i = global_id(0);
    If(i / k < x.shape(0), [&] { x(i) = 1.0f; });
  });
  CHECK_FALSE(versioned(by_value, 3));  // the divisor is not a constant
  Kernel by_negative = kernel("divided_by_negative", [](Array<float> x) {
    Int i = global_id(0);
    If(i % -3 < x.shape(0), [&] { x(i) = 1.0f; });
  });
  CHECK_FALSE(versioned(by_negative, 3));
  Kernel in_loop = kernel("guard_in_loop", [](Array<float> x) {
    For(0, 4, [&](Int j) { If(global_id(0) < x.shape(0), [&] { x(global_id(0)) += 1.0f; }); });
  });
  CHECK_FALSE(versioned(in_loop, 3));  // Ifs inside loops are left alone
  // h = h + h forty times: 2^40 ops as a tree. Too big to analyse: no copy, and the compile
  // does not walk the tree (it would not finish).
  Kernel doubling = kernel("doubling_guard", [](Array<float> x) {
    Int h = global_id(0);
    for (int k = 0; k < 40; ++k) h = h + h;
    If(h < x.shape(0), [&] { x(global_id(0)) = 1.0f; });
  });
  CHECK_FALSE(versioned(doubling, 3));
  Kernel doubled = kernel("doubled_guard", [](Array<float> x) {  // a few doublings still fit
    Int h = global_id(0);
    for (int k = 0; k < 3; ++k) h = h + h;
    If(h < x.shape(0), [&] { x(global_id(0)) = 1.0f; });
  });
  CHECK(versioned(doubled, 3));
}

// An index pair (c / e, c % e) with e the inner dimension's extent addresses element c, and both
// back ends compute the address from c (tests/lit/split-index.rjir). Results must not change: a
// haloed tile staged cell by cell, a C and an F array divided by their own extents, a divisor
// that is not the extent, and a dividend loaded before a barrier (the CPU keeps only the
// quotient and remainder across it), each compiled for any shape and for the launch shape.
TEST_CASE("index pairs (c / e, c % e) address element c: staged tiles and divided shapes agree with the interpreter") {
  Kernel stencil = staged_halo_kernel("staged_stencil", -1.0f);
  const int rows = 21, cols = 27;
  std::vector<float> field(rows * cols);
  for (int i = 0; i < rows * cols; ++i) field[i] = static_cast<float>((i * 7) % 23);
  auto st = run_both_shapes(stencil, {4, 3}, {8, 8},
                        Args().array(field, {rows, cols}).array(std::vector<float>(rows * cols, 0.0f), {rows, cols}));
  std::vector<float> sv = st[1].as<float>();
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) REQUIRE(sv[i * cols + j] == staged_halo_reference(field, rows, cols, i, j, -1.0f));

  Kernel divided = kernel("divided_shapes", [](Array<int32_t, 2> a, Array<int32_t, 2, ir::Layout::F> f,
                                               Array<int32_t, 2> odd) {
    Int c = global_id(0);
    If(c < a.shape(0) * a.shape(1), [&] { a(c / a.shape(1), c % a.shape(1)) = c; });
    If(c < f.shape(0) * f.shape(1), [&] { f(c % f.shape(0), c / f.shape(0)) = c * 2; });
    If(c < odd.shape(0) * 3, [&] { odd(c / 3, c % 3) = c * 3; });  // 3 is not odd's extent (5)
  });
  auto dv = run_both_shapes(divided, {3}, {32},
                        Args()
                            .array(std::vector<int32_t>(7 * 11, -1), {7, 11})
                            .array(std::vector<int32_t>(6 * 9, -1), {6, 9})
                            .array(std::vector<int32_t>(8 * 5, -1), {8, 5}));
  std::vector<int32_t> av = dv[0].as<int32_t>(), fv = dv[1].as<int32_t>(), ov = dv[2].as<int32_t>();
  for (int c = 0; c < 77; ++c) REQUIRE(av[c] == c);
  for (int c = 0; c < 54; ++c) REQUIRE(fv[c] == c * 2);
  for (int r = 0; r < 8; ++r)
    for (int k = 0; k < 5; ++k) REQUIRE(ov[r * 5 + k] == (k < 3 ? (r * 3 + k) * 3 : -1));

  Kernel across = kernel("dividend_across_barrier", [](Array<int32_t, 2> out, Array<int32_t> where) {
    auto s = shared::array<int32_t>({64});
    Int t = local_id(0);
    Int c = where(global_id(0));  // loaded: the CPU does not recompute it after the barrier
    Int q = c / out.shape(1), r = c % out.shape(1);
    s(t) = t;
    barrier(CLK_LOCAL_MEM_FENCE);
    out(q, r) = s(63 - t) + 1000 * group_id(0);
  }, {.max_block_size = 64});
  std::vector<int32_t> where(128);
  for (int i = 0; i < 128; ++i) where[i] = (i * 37) % 128;  // a permutation of the 16x8 cells
  auto ac = run_both_shapes(across, {2}, {64}, Args().array(std::vector<int32_t>(128, -1), {16, 8}).array(where));
  std::vector<int32_t> acv = ac[0].as<int32_t>();
  for (int i = 0; i < 128; ++i) REQUIRE(acv[where[i]] == 63 - i % 64 + 1000 * (i / 64));
}
