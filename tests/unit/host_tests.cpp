// What is specific to the CPU back end: barrier fission (regions, per-work-item storage),
// vectorisation, host geometry checks, bounds checking, kernels compiled for one work-group shape,
// plain read-modify-writes for shared atomics. What kernels compute (the sample kernels, barriers,
// While/Break, atomics, 3-D ids) is tested on every device in tests/e2e/kernel_semantics_tests.cpp,
// and against the reference interpreter in interpret_tests.cpp.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <numeric>
#include <optional>
#include <random>
#include <regex>

#include "host_args.hpp"
#include "rocjit/compiler/interpret.hpp"
#include "sample_kernels.hpp"

using namespace rocjit;
using namespace rocjit::dsl;
using rocjit::testing::HostArgs;
using rocjit::testing::run;
using Catch::Matchers::Contains;

namespace {
std::vector<float> random_floats(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}
int64_t blocks(int64_t n, int64_t b) { return (n + b - 1) / b; }

// Whether the work-item loop whose header block is `header` (wi.x, wi.y, wi.z) carries
// llvm.loop.vectorize.enable false in the unoptimised LLVM IR `ir`.
bool vectorizing_disabled(const std::string& ir, const std::string& header) {
  std::smatch edge, off;
  REQUIRE(std::regex_search(ir, edge, std::regex("br label %" + std::regex_replace(header, std::regex("\\."), "\\.") +
                                                  "\\.header, !llvm\\.loop (![0-9]+)")));
  if (!std::regex_search(ir, off, std::regex("\n(![0-9]+) = !\\{!\"llvm\\.loop\\.vectorize\\.enable\", i1 false\\}")))
    return false;
  std::smatch def;
  REQUIRE(std::regex_search(ir, def, std::regex("\n" + edge[1].str() + " = distinct !\\{([^\n]*)\\}")));
  return std::regex_search(def[1].str(), std::regex("(^| )" + off[1].str() + "(,|$)"));
}
}  // namespace

TEST_CASE("values crossing barriers get per-work-item storage and split the body into regions") {
  Kernel k = kernel("crossing", [](Array<int32_t> out) {
    auto s = shared::array<int32_t>({64});
    Int t = local_id(0);
    Int v = t * 3 + group_id(0);  // defined before every barrier, used after all of them
    s(t) = v;
    barrier();
    Int left = s((t + 1) % 64);   // crosses the next barrier
    barrier();
    s(t) = left;
    barrier();
    for (int r = 0; r < 5; ++r) barrier();  // many barriers
    out(global_id(0)) = s(t) * 1000 + v;
  }, {.max_block_size = 64});
  HostKernel hk = compile_host(k.ir());
  CHECK(hk.region_count() == 4);
  // `left`, a load, is stored per work-item (4 bytes, 8-aligned); v, an integer expression of
  // work-item ids, is recomputed after the barriers instead of stored.
  CHECK(hk.work_item_storage_bytes() == 8);
  // What it computes is checked on every device in tests/e2e/kernel_semantics_tests.cpp.
}

TEST_CASE("only small integer expressions of work-item ids, shapes and group values are recomputed across barriers") {
  auto storage = [](auto body) {
    return compile_host(kernel("k", body, {.max_block_size = 64}).ir()).work_item_storage_bytes();
  };
  // An expression of a loaded value is stored (it is not known after the barrier).
  CHECK(storage([](Array<int32_t> in, Array<int32_t> out) {
    Int w = in(global_id(0)) * 2 + local_id(0);
    barrier();
    out(global_id(0)) = w;
  }) == 8);
  // Floats are stored: only integer expressions are recomputed.
  CHECK(storage([](Array<float> out) {
    Float f = cast<float>(local_id(0)) * 0.5f;
    barrier();
    out(global_id(0)) = f;
  }) == 8);
  // Nine ops is over the bound of eight: stored.
  CHECK(storage([](Array<int32_t> out) {
    Int e = local_id(0);
    for (int i = 0; i < 9; ++i) e = e * 3 + 1 - group_id(0) / 2;  // 4 ops per step
    barrier();
    out(global_id(0)) = e;
  }) == 8);
  // Within the bound, of work-item ids, shapes and a group-level value: recomputed.
  CHECK(storage([](Array<int32_t> out) {
    Int x = group_id(0) * 64 + local_id(0), n = out.shape(0);
    Int inside = select(x < n, x, n - 1);
    barrier();
    out(inside) = inside;
  }) == 0);
}

TEST_CASE("a kernel without barriers needs no per-work-item storage and vectorises") {
  HostCompileOptions options;
  options.emit_llvm_ir_optimized = true;
  HostKernel k = compile_host(samples::saxpy().ir(), options);
  CHECK(k.work_item_storage_bytes() == 0);
  CHECK(k.region_count() == 1);
  CHECK_THAT(k.llvm_ir_optimized(), Contains("x float>"));  // vector loads/stores/fma in the work-item loop
}

// Only the x loop walks consecutive work-items. Once LLVM has unrolled the short x loop of a
// fixed shape, the y loop is innermost, and vectorising it gathered and scattered across rows
// (matmul's tile loads 1.1 -> 5.3 ms in bench-cpu); the SLP vectoriser packs the unrolled x
// iterations instead. A y loop is vectorised only where x has one work-item (then it is
// unit-stride), a z loop only where x and y have one.
TEST_CASE("work-item loops over y and z are vectorised only where the dimensions below hold one work-item") {
  // The IR text is read without debug info (!dbg): line tables off for this test.
  struct LineTablesOff {
    Settings saved = settings();
    LineTablesOff() { update_settings([](Settings& s) { s.line_tables = false; }); }
    ~LineTablesOff() { set_settings(saved); }
  } line_tables_off;
  auto ir_for = [](std::optional<Dim3> block) {
    HostCompileOptions o;
    o.block = block;
    o.emit_llvm_ir = true;
    return compile_host(samples::transpose().ir(), o).llvm_ir();
  };
  std::string square = ir_for(Dim3{16, 16}), column = ir_for(Dim3{1, 64}), deep = ir_for(Dim3{1, 1, 64}),
              any = ir_for(std::nullopt);
  CHECK_FALSE(vectorizing_disabled(square, "wi.x"));
  CHECK(vectorizing_disabled(square, "wi.y"));
  CHECK(vectorizing_disabled(square, "wi.z"));
  CHECK_FALSE(vectorizing_disabled(column, "wi.y"));  // x has one work-item: y is unit-stride
  CHECK(vectorizing_disabled(column, "wi.z"));
  CHECK_FALSE(vectorizing_disabled(deep, "wi.z"));
  CHECK(vectorizing_disabled(any, "wi.y"));  // the shape is read at launch: x may hold many
}

// A worker runs a range [begin, end) of linear group numbers and divides each into (x, y, z)
// (x fastest). The grids' rows and planes are not multiples of the runner's chunks (a few groups
// each), so ranges start and end mid-row and cross row and plane ends; every group must see its
// own ids. (Counting the ids along instead of dividing made transpose 2.6x slower in bench-cpu,
// for a reason not found; the division stayed.)
TEST_CASE("each work-group of a 3-D grid gets its ids whatever range of groups a worker runs") {
  Kernel k = kernel("group_ids_3d", [](Array<int32_t, 3> out) {
    out(global_id(2), global_id(1), global_id(0)) = group_id(0) + 100 * group_id(1) + 10000 * group_id(2);
  }, {.max_block_size = 64});
  for (bool fixed_shape : {false, true}) {
    HostCompileOptions options;
    if (fixed_shape) options.block = Dim3{2, 1, 1};
    HostKernel compiled = compile_host(k.ir(), options);
    for (Dim3 grid : {Dim3{7, 3, 4}, Dim3{3, 5, 7}, Dim3{1, 1, 9}, Dim3{11, 1, 1}}) {
      const int gx = static_cast<int>(grid.x), gy = static_cast<int>(grid.y), gz = static_cast<int>(grid.z);
      CAPTURE(fixed_shape, gx, gy, gz);
      std::vector<int32_t> cells(gz * gy * gx * 2, -1);
      run_host(compiled, grid, {2, 1, 1}, HostArgs().array(cells.data(), {gz, gy, gx * 2}).data());
      for (int z = 0; z < gz; ++z)
        for (int y = 0; y < gy; ++y)
          for (int x = 0; x < gx * 2; ++x) REQUIRE(cells[(z * gy + y) * gx * 2 + x] == x / 2 + 100 * y + 10000 * z);
    }
  }
}

TEST_CASE("bad launch geometry is refused before anything runs") {
  HostKernel k = compile_host(samples::reverse().ir());
  std::vector<float> in(256), out(256);
  HostArgs args;
  args.array(in).array(out);
  CHECK_THROWS_WITH(run_host(k, {0}, {256}, args.data()), Contains("kernel 'reverse'") && Contains("grid.x is 0"));
  CHECK_THROWS_WITH(run_host(k, {1}, {-4}, args.data()), Contains("block.x is -4"));
  CHECK_THROWS_WITH(run_host(k, {1}, {512}, args.data()), Contains("exceeds the kernel's declared maximum of 256"));
  HostKernel big = compile_host(samples::saxpy().ir());
  CHECK_THROWS_WITH(check_host_geometry(big, {1}, {64, 32}), Contains("= 2048 work-items exceeds the limit of 1024"));
  CHECK_THROWS_WITH(check_host_geometry(big, {1LL << 40, 1LL << 40, 1LL << 40}, {1024}),
                    Contains("more work-items than a 64-bit count can hold"));
  CHECK_THROWS_WITH(check_host_geometry(big, {1LL << 30}, {1024}), Contains("global ids are 32-bit"));
  CHECK_THROWS_WITH(check_host_geometry(big, {1}, {1LL << 40, 1LL << 40, 1LL << 40}),
                    Contains("exceeds the limit of 1024"));
  CHECK_THROWS_WITH(check_host_geometry(big, {1LL << 62, 1LL << 62, 1LL << 62}, {1024}),
                    Contains("more work-items than a 64-bit count can hold"));
}

TEST_CASE("bounds checking reports kernel, array, index and file:line instead of corrupting memory") {
  int line = 0;
  Kernel k = kernel("overrun", [&](Array<float> x, Array<float, 2> m) {
    Int i = global_id(0);
    line = __LINE__ + 1;
    x(i + 1) = 1.0f;
    m(i, 0) = 2.0f;
  }, {.param_names = {"x", "m"}});
  std::vector<float> x(8, 0.0f), guard(4, 9.0f), m(8 * 2, 0.0f);
  HostCompileOptions options;
  options.bounds_check = true;
  HostKernel hk = compile_host(k.ir(), options);
  CHECK(hk.bounds_checked());
  HostArgs args;
  args.array(x).array(m.data(), {8, 2});
  CHECK_THROWS_WITH(run_host(hk, {1}, {8}, args.data()),
                    Contains("kernel 'overrun': out-of-bounds store of array 'x' at") &&
                        Contains(std::string(__FILE__) + ":" + std::to_string(line)) &&
                        Contains("index (8) is outside shape (8)"));
  for (int i = 1; i < 8; ++i) CHECK(x[i] == 1.0f);  // in-bounds stores happened
  CHECK(guard == std::vector<float>(4, 9.0f));
}

TEST_CASE("a kernel compiled for its work-group shape computes the same and refuses other shapes") {
  HostCompileOptions for_16x16;
  for_16x16.block = Dim3{16, 16};
  for_16x16.emit_llvm_ir = true;
  HostKernel k = compile_host(samples::transpose().ir(), for_16x16);
  REQUIRE(k.fixed_block());
  CHECK(k.fixed_block()->x == 16);
  CHECK_THAT(k.llvm_ir(), !Contains("%block = load"));  // the shape is a constant, not read at launch
  CHECK_THAT(metadata_text(k), Contains("work-group shape:     16x16x1 (compiled for it)"));
  int rows = 33, cols = 47;
  auto in = random_floats(rows * cols, 6);
  std::vector<float> out(rows * cols, 0.0f);
  HostArgs args = std::move(HostArgs().array(in.data(), {rows, cols}).array(out.data(), {cols, rows}));
  run_host(k, {blocks(cols, 16), blocks(rows, 16)}, {16, 16}, args.data());
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) REQUIRE(out[j * rows + i] == in[i * cols + j]);
  CHECK_THROWS_WITH(run_host(k, {8, 8}, {8, 8}, args.data()),
                    Contains("kernel 'transpose'") && Contains("compiled for work-groups of 16x16x1") &&
                        Contains("cannot run with 8x8x1"));

  // Odd 3-D shapes: every work-item still gets its ids.
  Kernel ids = kernel("ids3d_fixed", [](Array<int32_t, 3> out) {
    auto [x, y, z] = grid<3>();
    out(z, y, x) = local_id(0) + 10 * local_id(1) + 100 * local_id(2) + 1000 * group_id(0);
  }, {.max_block_size = 64});
  HostCompileOptions shape;
  shape.block = Dim3{3, 2, 5};
  HostKernel fixed = compile_host(ids.ir(), shape);
  std::vector<int32_t> cells(6 * 2 * 5, -1);
  run_host(fixed, {2, 1, 1}, {3, 2, 5}, HostArgs().array(cells.data(), {5, 2, 6}).data());
  for (int z = 0; z < 5; ++z)
    for (int y = 0; y < 2; ++y)
      for (int x = 0; x < 6; ++x) REQUIRE(cells[(z * 2 + y) * 6 + x] == x % 3 + 10 * y + 100 * z + 1000 * (x / 3));

  // Shapes the kernel could never run with are refused when compiling.
  for (Dim3 bad : {Dim3{0, 1, 1}, Dim3{16, 16, 1}, Dim3{2048, 1, 1}}) {
    HostCompileOptions o;
    o.block = bad;
    CHECK_THROWS_WITH(compile_host(ids.ir(), o), Contains("kernel 'ids3d_fixed'") &&
                                                     Contains("CompileOptions::block") &&
                                                     Contains("at most 64 work-items"));
  }
}

TEST_CASE("atomics on shared memory are plain read-modify-writes on the host, with atomic results") {
  // Every atomic kind on a shared array, from all work-items of a group, then copied out.
  Kernel k = kernel("shared_atomics", [](Array<int32_t> ints, Array<uint32_t> bits, Array<float> floats,
                                         Array<int32_t> olds, Array<int32_t> swaps) {
    auto si = shared::array<int32_t>({5});
    auto su = shared::array<uint32_t>({3});
    auto sf = shared::array<float>({3});
    Int l = local_id(0);
    If(l == 0, [&] {
      si(0) = 0; si(1) = 1000; si(2) = -1000; si(3) = 0; si(4) = -1;
      su(0) = 0xffffffffu; su(1) = 0u; su(2) = 0u;
      sf(0) = 0.0f; sf(1) = 1e9f; sf(2) = -1e9f;
    });
    barrier(CLK_LOCAL_MEM_FENCE);
    atomic::add(si, 0, l);
    atomic::sub(si, 0, 1);
    atomic::min(si, 1, l - 7);
    atomic::max(si, 2, l * 3);
    atomic::and_(su, 0, ~(1u << cast<uint32_t>(l % 32)));
    atomic::or_(su, 1, 1u << cast<uint32_t>(l % 32));
    atomic::xor_(su, 2, cast<uint32_t>(l));
    atomic::add(sf, 0, 0.5f);
    atomic::min(sf, 1, cast<float>(l));
    atomic::max(sf, 2, cast<float>(l));
    // Exactly one work-item wins the swap from 0.
    Value won = atomic::compare_exchange(si, 3, 0, l + 1);
    olds(global_id(0)) = won;
    swaps(global_id(0)) = atomic::exchange(si, 4, l);
    barrier(CLK_LOCAL_MEM_FENCE);
    If(l == 0, [&] {
      For(0, 5, [&](Int i) { ints(group_id(0) * 5 + i) = si(i); });
      For(0, 3, [&](Int i) { bits(group_id(0) * 3 + i) = su(i); floats(group_id(0) * 3 + i) = sf(i); });
    });
  });
  HostCompileOptions texts;
  texts.emit_llvm_ir = true;
  HostKernel compiled = compile_host(k.ir(), texts);
  CHECK_THAT(compiled.llvm_ir(), !Contains("atomicrmw") && !Contains("cmpxchg"));
  const int groups = 3, block = 64;
  std::vector<int32_t> ints(groups * 5), olds(groups * block), swaps(groups * block);
  std::vector<uint32_t> bits(groups * 3);
  std::vector<float> floats(groups * 3);
  run_host(compiled, {groups}, {block}, HostArgs().array(ints).array(bits).array(floats).array(olds).array(swaps).data());
  for (int g = 0; g < groups; ++g) {
    CHECK(ints[g * 5 + 0] == block * (block - 1) / 2 - block);
    CHECK(ints[g * 5 + 1] == -7);
    CHECK(ints[g * 5 + 2] == 3 * (block - 1));
    CHECK(bits[g * 3 + 0] == 0u);
    CHECK(bits[g * 3 + 1] == 0xffffffffu);
    CHECK(bits[g * 3 + 2] == 0u);  // 0 ^ 1 ^ ... ^ 63
    CHECK(floats[g * 3 + 0] == 32.0f);
    CHECK(floats[g * 3 + 1] == 0.0f);
    CHECK(floats[g * 3 + 2] == 63.0f);
    int winners = 0;
    for (int l = 0; l < block; ++l) winners += olds[g * block + l] == 0;
    CHECK(winners == 1);  // the others saw the winner's value
    CHECK(ints[g * 5 + 3] >= 1);
    CHECK(ints[g * 5 + 3] <= block);
    // Each exchange returned the previous holder: the returned values and the final one are
    // -1 and every local id, each exactly once.
    std::vector<int32_t> seen(swaps.begin() + g * block, swaps.begin() + (g + 1) * block);
    seen.push_back(ints[g * 5 + 4]);
    std::sort(seen.begin(), seen.end());
    for (int i = 0; i <= block; ++i) REQUIRE(seen[i] == i - 1);
  }
}

TEST_CASE("under bounds checking a broken uniform() promise fails the launch naming it; a kept one runs") {
  int line = 0;
  Kernel k = kernel("broken_promise", [&](Array<int32_t> bound, Array<int32_t> out) {
    auto s = shared::array<int32_t>({64});
    Int t = local_id(0);
    line = __LINE__ + 1;
    Int n = uniform(bound(t));
    s(t) = 0;
    barrier();
    For(0, n, [&](Int) {
      atomic::add(s, 0, 1);
      barrier();
    });
    out(global_id(0)) = s(0);
  });
  HostCompileOptions options;
  options.bounds_check = true;
  HostKernel hk = compile_host(k.ir(), options);
  std::vector<int32_t> bound(32, 3), out(32, 0);
  HostArgs kept;
  kept.array(bound).array(out);
  run_host(hk, {1}, {32}, kept.data());
  for (int32_t v : out) CHECK(v == 3 * 32);
  bound[17] = 5;
  HostArgs broken;
  broken.array(bound).array(out);
  CHECK_THROWS_WITH(run_host(hk, {1}, {32}, broken.data()),
                    Contains("kernel 'broken_promise': uniform() at " + std::string(__FILE__) + ":" +
                             std::to_string(line)) &&
                        Contains("got 5 from work-item 17") && Contains("but 3 from work-item 0"));
  // Without bounds checking the promise is trusted (and not checked).
  HostKernel unchecked = compile_host(k.ir());
  bound[17] = 3;
  HostArgs again;
  again.array(bound).array(out);
  run_host(unchecked, {1}, {32}, again.data());
  for (int32_t v : out) CHECK(v == 3 * 32);
}

TEST_CASE("dynamic shared memory: bounds checking knows its extent from the launch argument") {
  Kernel k = kernel("dynamic_overrun", [](Array<int32_t> out) {
    auto d = shared::dynamic<int32_t>("d");
    Int t = local_id(0);
    d(t) = t;
    out(t) = d(t) + d.shape(0);
  });
  HostCompileOptions options;
  options.bounds_check = true;
  HostKernel hk = compile_host(k.ir(), options);
  REQUIRE(hk.dynamic_shared_argument() == 2);  // after out and out.shape0
  CHECK(metadata_text(hk).find("+ the launch's dynamic shared bytes") != std::string::npos);
  std::vector<int32_t> out(16, 0);
  HostArgs fits;
  fits.array(out).scalar(uint32_t{16 * 4});
  run_host(hk, {1}, {16}, fits.data());
  for (int t = 0; t < 16; ++t) CHECK(out[t] == t + 16);
  HostArgs short_of_it;
  short_of_it.array(out).scalar(uint32_t{8 * 4 + 3});
  CHECK_THROWS_WITH(run_host(hk, {1}, {16}, short_of_it.data()),
                    Contains("out-of-bounds store of array 'd'") && Contains("index (8) is outside shape (8)"));
  HostArgs too_big;
  too_big.array(out).scalar(uint32_t{(64u << 20) + 4});
  CHECK_THROWS_WITH(run_host(hk, {1}, {16}, too_big.data()),
                    Contains("kernel 'dynamic_overrun'") && Contains("0 static + 67108868 dynamic"));
}

// The CPU backend emits wave operations inline from the rules of rocjit/compiler/semantics.hpp; the
// interpreter runs the same rules with its own arithmetic. Two independent executors: every op on
// every type they take (16-bit floats and 8/16-bit integers included), over full and partial waves
// with NaN, infinities, -0 and denormals among the floats, must agree bit for bit (any NaN matches
// any NaN: a payload is not specified).
namespace {
template <class T>
void check_wave_ops_against_interpreter(uint64_t seed) {
  constexpr bool floating = std::is_floating_point_v<T> || std::is_same_v<T, half> || std::is_same_v<T, bfloat16>;
  constexpr int ops = floating ? 10 : 13;
  Kernel k = kernel("wave_ops", [](Array<T> in, Array<int32_t> lane, Array<T> out, Array<uint64_t> votes) {
    Int g = global_id(0);
    Int n = global_size(0);
    Value v = in(g);
    int o = 0;
    auto put = [&](const Value& r) { out(n * (o++) + g) = r; };
    put(wave::shuffle(v, lane(g)));
    put(wave::shuffle_xor(v, lane(g)));
    put(wave::shuffle_up(v, lane(g)));
    put(wave::shuffle_down(v, lane(g)));
    put(wave::broadcast(v, wave::read_first(lane(g))));
    put(wave::read_first(v));
    put(wave::reduce_add(v));
    put(wave::reduce_min(v));
    put(wave::reduce_max(v));
    put(wave::inclusive_scan_add(v));
    if constexpr (!floating) {
      put(wave::reduce_and(v));
      put(wave::reduce_or(v));
      put(wave::reduce_xor(v));
    }
    put(wave::exclusive_scan_add(v));
    Bool p = lane(g) % 3 == 0;
    votes(4 * g + 0) = wave::ballot(p);
    votes(4 * g + 1) = cast<uint64_t>(wave::any(p));
    votes(4 * g + 2) = cast<uint64_t>(wave::all(lane(g) > -100));
    votes(4 * g + 3) = cast<uint64_t>(wave::count(p));
  }, {.max_block_size = 256});
  std::mt19937_64 rng(seed);
  for (int threads : {1, 37, 64, 100, 200}) {
    CAPTURE(ir::type_name(ir_type_v<T>), threads);
    std::vector<T> in(threads);
    std::vector<int32_t> lane(threads);
    for (int i = 0; i < threads; ++i) {
      const uint64_t r = rng();
      if constexpr (floating) {
        static const double specials[] = {std::nan(""), -INFINITY, INFINITY, -0.0, 0.0, 1e-310, 5.9e-8, -65504.0};
        const double d = rng() % 6 == 0 ? specials[rng() % std::size(specials)]
                                        : std::ldexp(static_cast<double>(static_cast<int64_t>(r % 2001) - 1000),
                                                     static_cast<int>(r % 21) - 14);
        in[i] = static_cast<T>(d);
      } else {
        in[i] = static_cast<T>(r);
      }
      lane[i] = static_cast<int32_t>(rng() % 74) - 4;  // some lanes outside the wave
    }
    std::vector<T> cpu_out(threads * (ops + 1)), interp_out(cpu_out.size());
    std::vector<uint64_t> cpu_votes(4 * threads), interp_votes(cpu_votes.size());
    run_host(compile_host(k.ir()), {1}, {threads},
             HostArgs().array(in).array(lane).array(cpu_out).array(cpu_votes).data());
    std::vector<InterpretArgument> args{InterpretArgument::array(in), InterpretArgument::array(lane),
                                        InterpretArgument::array(interp_out), InterpretArgument::array(interp_votes)};
    interpret(k.ir(), {1}, {threads}, args);
    for (size_t i = 0; i < cpu_out.size(); ++i) {
      CAPTURE(i / threads, i % threads);  // op, work-item
      const auto a = cpu_out[i], b = interp_out[i];
      if constexpr (floating) {
        if (std::isnan(static_cast<double>(a)) && std::isnan(static_cast<double>(b))) continue;
      }
      REQUIRE(std::memcmp(&a, &b, sizeof(T)) == 0);
    }
    REQUIRE(cpu_votes == interp_votes);
  }
}
}  // namespace

TEST_CASE("the CPU's inline wave operations and the interpreter agree on every op, type and partial wave") {
  check_wave_ops_against_interpreter<float>(1);
  check_wave_ops_against_interpreter<double>(2);
  check_wave_ops_against_interpreter<half>(3);
  check_wave_ops_against_interpreter<bfloat16>(4);
  check_wave_ops_against_interpreter<int32_t>(5);
  check_wave_ops_against_interpreter<uint32_t>(6);
  check_wave_ops_against_interpreter<int64_t>(7);
  check_wave_ops_against_interpreter<uint64_t>(8);
  check_wave_ops_against_interpreter<int8_t>(9);
  check_wave_ops_against_interpreter<uint16_t>(10);
}

namespace {
// Full waves lowered as vectors (HostLowering::full_wave): constant and uniform lane operands
// (constant shuffles, uniform broadcasts), per-lane lane operands that differ within a wave (a
// gather) or are the same in the whole wave (tested at run time: one lane's value), uniform operands (one copy for every lane), bool votes
// and every reduction and scan, on kernels compiled for any shape and for the launched shape
// (where the wave count and fullness are constants), bit for bit against the interpreter.
template <class T>
void check_full_waves_against_interpreter(uint64_t seed) {
  constexpr bool floating = std::is_floating_point_v<T>;
  Kernel k = kernel("full_waves", [](Array<T> in, Array<int32_t> lane, Array<T> out, Array<uint64_t> votes, Int src) {
    Int g = global_id(0);
    Int n = global_size(0);
    Value v = in(g);
    int o = 0;
    auto put = [&](const Value& r) { out(n * (o++) + g) = r; };
    put(wave::shuffle_xor(v, 1));
    put(wave::shuffle_xor(v, 40));
    put(wave::shuffle_up(v, 3));
    put(wave::shuffle_down(v, 17));
    put(wave::shuffle(v, 70));  // outside every wave: each lane's own value
    put(wave::broadcast(v, 5));
    put(wave::broadcast(v, wave::read_first(lane(g))));  // uniform, sometimes outside the wave
    put(wave::shuffle(v, src));                          // uniform: an argument
    put(wave::broadcast(v, src + 1));
    put(wave::shuffle_up(v, src));                       // uniform offsets
    put(wave::shuffle_xor(v, src));
    put(wave::shuffle(v, lane(g)));                      // per lane, different sources: a gather
    put(wave::broadcast(v, local_id(0) / wave_size()));  // per lane, one source per wave
    put(wave::read_first(v));
    put(wave::reduce_add(v));
    put(wave::reduce_min(v));
    put(wave::reduce_max(v));
    put(wave::inclusive_scan_add(v));
    put(wave::exclusive_scan_add(v));
    put(wave::inclusive_scan_add(T(3)));  // a uniform operand
    put(wave::reduce_add(T(3)));
    if constexpr (!floating) {
      put(wave::reduce_and(v));
      put(wave::reduce_or(v));
      put(wave::reduce_xor(v));
    }
    Bool p = lane(g) % 3 == 0;
    votes(4 * g + 0) = wave::ballot(p);
    votes(4 * g + 1) = cast<uint64_t>(wave::any(p)) + 2 * cast<uint64_t>(wave::any(lane(g) > 1000));
    votes(4 * g + 2) = cast<uint64_t>(wave::all(lane(g) > -100)) + 2 * cast<uint64_t>(wave::all(p));
    votes(4 * g + 3) = cast<uint64_t>(wave::count(p)) + (cast<uint64_t>(wave::count(true)) << 8);
  }, {.max_block_size = 256});
  constexpr int ops = floating ? 21 : 24;
  std::mt19937_64 rng(seed);
  for (int threads : {64, 128, 192, 256, 100}) {
    for (bool shaped : {false, true}) {
      std::vector<T> in(threads);
      std::vector<int32_t> lane(threads);
      const int32_t src = static_cast<int32_t>(rng() % 80) - 8;
      CAPTURE(ir::type_name(ir_type_v<T>), threads, shaped, src);
      for (int i = 0; i < threads; ++i) {
        const uint64_t r = rng();
        if constexpr (floating) {
          static const double specials[] = {std::nan(""), -INFINITY, INFINITY, -0.0, 0.0, 1e-310, 5.9e-8, 1e30};
          in[i] = static_cast<T>(rng() % 5 == 0 ? specials[rng() % std::size(specials)]
                                                : std::ldexp(static_cast<double>(static_cast<int64_t>(r % 2001) - 1000),
                                                             static_cast<int>(r % 41) - 20));
        } else {
          in[i] = static_cast<T>(r);
        }
        lane[i] = static_cast<int32_t>(rng() % 74) - 4;
      }
      std::vector<T> cpu_out(threads * ops), interp_out(cpu_out.size());
      std::vector<uint64_t> cpu_votes(4 * threads), interp_votes(cpu_votes.size());
      HostCompileOptions options;
      if (shaped) options.block = Dim3{threads};
      run_host(compile_host(k.ir(), options), {1}, {threads},
               HostArgs().array(in).array(lane).array(cpu_out).array(cpu_votes).scalar(src).data());
      std::vector<InterpretArgument> args{InterpretArgument::array(in), InterpretArgument::array(lane),
                                          InterpretArgument::array(interp_out), InterpretArgument::array(interp_votes),
                                          InterpretArgument::scalar(src)};
      interpret(k.ir(), {1}, {threads}, args);
      for (size_t i = 0; i < cpu_out.size(); ++i) {
        CAPTURE(i / threads, i % threads);  // op, work-item
        const auto a = cpu_out[i], b = interp_out[i];
        if constexpr (floating) {
          if (std::isnan(a) && std::isnan(b)) continue;  // payloads: as the existing test above
        }
        REQUIRE(std::memcmp(&a, &b, sizeof(T)) == 0);
      }
      REQUIRE(cpu_votes == interp_votes);
    }
  }
}
}  // namespace

TEST_CASE("full waves lowered as vectors agree with the interpreter bit for bit") {
  check_full_waves_against_interpreter<float>(11);
  check_full_waves_against_interpreter<double>(12);
  check_full_waves_against_interpreter<int32_t>(13);
  check_full_waves_against_interpreter<uint32_t>(14);
  check_full_waves_against_interpreter<int64_t>(15);
  check_full_waves_against_interpreter<uint64_t>(16);
}

TEST_CASE("regions that ask for lane_id() run wave by wave over a fixed x size and agree with the interpreter") {
  // sample-scan's pattern: per-wave totals in shared memory, read back by the first lanes of every
  // wave (If(lane_id() < waves)), an index through lane_id(), and the wave's number as a per-lane
  // broadcast source; and lane_id() in a 2-D or 3-D group, where it is x modulo the wave size.
  Kernel k = kernel("lanes_by_wave", [](Array<int32_t> in, Array<int32_t> out) {
    auto totals = shared::array<int32_t>({16}, "totals");
    Int t = local_id(0) + local_size(0) * (local_id(1) + local_size(1) * local_id(2));
    Int g = group_id(0) * local_size(0) * local_size(1) * local_size(2) + t;
    If(t < 16, [&] { totals(t) = -5; });
    barrier(CLK_LOCAL_MEM_FENCE);
    Int v = in(g);
    Int inclusive = wave::inclusive_scan_add(v);
    Int wave = t / wave_size();
    If(lane_id() == wave_size() - 1, [&] { totals(wave) = inclusive; });
    barrier(CLK_LOCAL_MEM_FENCE);
    Int waves = (local_size(0) * local_size(1) * local_size(2) + wave_size() - 1) / wave_size();
    Var<int32_t> total = 0;
    If(lane_id() < waves, [&] { total = totals(lane_id()); });
    Int offset = wave::broadcast(wave::exclusive_scan_add(total), wave);
    out(3 * g) = offset + inclusive - v;
    out(3 * g + 1) = lane_id() * 1000 + local_id(0);
    out(3 * g + 2) = select(lane_id() % 5 == 1, totals(lane_id() % 4), -1);
  }, {.max_block_size = 1024});
  struct Shape {
    Dim3 block;
    bool by_wave;  // the x size is a multiple of the wave size
  };
  for (const Shape& shape : {Shape{{64}, true}, Shape{{128}, true}, Shape{{256}, true}, Shape{{192, 2}, true},
                             Shape{{64, 3, 2}, true}, Shape{{96}, false}, Shape{{32, 4}, false}}) {
    const Dim3 b = shape.block;
    const int items = int(b.x * b.y * b.z), groups = 3;
    CAPTURE(b.x, b.y, b.z);
    HostCompileOptions options;
    options.block = b;
    options.emit_llvm_ir = true;
    const HostKernel compiled = compile_host(k.ir(), options);
    CHECK((compiled.llvm_ir().find("wi.wave.header") != std::string::npos) == shape.by_wave);
    std::vector<int32_t> in(items * groups), cpu(3 * in.size(), 7), interp(cpu.size(), 7);
    for (size_t i = 0; i < in.size(); ++i) in[i] = int32_t(i * 7919 % 201) - 100;
    run_host(compiled, {groups}, b, HostArgs().array(in).array(cpu).data());
    std::vector<InterpretArgument> args{InterpretArgument::array(in), InterpretArgument::array(interp)};
    interpret(k.ir(), {groups}, b, args);
    REQUIRE(cpu == interp);
  }
  // Compiled for the launched shape, sample-scan's `If(lane_id() < waves) total = wave_totals(lane_id())`
  // is vector code: LLVM sees that lanes 0-3 of each wave read wave_totals(0..3) and loads them as
  // one vector per wave, where `linear % 64` left it a scalar loop of 256 tests.
  HostCompileOptions block256;
  block256.block = Dim3{256};
  block256.emit_llvm_ir_optimized = true;
  const std::string opt = compile_host(samples::scan_blocks().ir(), block256).llvm_ir_optimized();
  CHECK_THAT(opt, Contains("load <4 x i32>, ptr %shared"));
}

TEST_CASE("a full wave of a 32- or 64-bit wave op is straight-line vector code, a partial one the lane loops") {
  Kernel k = kernel("scan_vector", [](Array<float> in, Array<float> out) {
    Int g = global_id(0);
    out(g) = wave::inclusive_scan_add(in(g)) + wave::reduce_add(in(g));
  }, {.max_block_size = 256});
  HostCompileOptions o;
  o.emit_llvm_ir = true;
  const std::string ir = compile_host(k.ir(), o).llvm_ir();
  CHECK_THAT(ir, Contains("waveop.full:"));
  CHECK_THAT(ir, Contains("load <64 x float>"));
  CHECK_THAT(ir, Contains("shufflevector <64 x float>"));
  CHECK_THAT(ir, Contains("store <64 x float>"));
  CHECK_THAT(ir, Contains("waveop.partial:"));
}

TEST_CASE("a grid-stride loop runs in lock step over the work-items and computes what the interpreter does") {
  // For(global_id(0) + extra, n, 2 * global_size(0)): each work-item's iterations store their
  // counter and its local id, and count into shared memory (plain atomics) that is merged after a
  // barrier. (A kernel argument is not an affine term for the host's group-level analysis: the
  // offset is a constant, one kernel per offset.)
  auto grid_stride = [](int extra) {
    return kernel("grid_stride", [extra](Array<int32_t> out, Array<uint32_t> hist) {
      auto counts = shared::array<uint32_t>({8}, "counts");
      Int t = local_id(0);
      If(t < 8, [&] { counts(t) = 0u; });
      barrier(CLK_LOCAL_MEM_FENCE);
      For(global_id(0) + extra, out.shape(0), 2 * global_size(0), [&](Int i) {
        out(i) = i * 2 + local_id(0);
        atomic::add(counts, i % 8, 1u);
      });
      barrier(CLK_LOCAL_MEM_FENCE);
      If(t < 8, [&] { atomic::add(hist, t, counts(t)); });
    }, {.max_block_size = 64});
  };
  HostCompileOptions shaped;
  shaped.block = Dim3{48};
  shaped.emit_llvm_ir = true;
  for (int extra : {0, 3, 500}) {
    const Kernel k = grid_stride(extra);
    const HostKernel compiled = compile_host(k.ir(), shaped);
    CHECK_THAT(compiled.llvm_ir(), Contains("lockstep.header"));
    for (int n : {1, 100, 1000, 12345}) {
      CAPTURE(n, extra);
      std::vector<int32_t> cpu_out(n, -1), interp_out(n, -1);
      std::vector<uint32_t> cpu_hist(8), interp_hist(8);
      run_host(compiled, {5}, {48}, HostArgs().array(cpu_out).array(cpu_hist).data());
      std::vector<InterpretArgument> args{InterpretArgument::array(interp_out), InterpretArgument::array(interp_hist)};
      interpret(k.ir(), {5}, {48}, args);
      REQUIRE(cpu_out == interp_out);
      REQUIRE(cpu_hist == interp_hist);
    }
  }
  // The sample histogram, compiled for its launch shape, against a count.
  HostCompileOptions block256;
  block256.block = Dim3{samples::BLOCK};
  const HostKernel histogram = compile_host(samples::histogram().ir(), block256);
  for (int n : {1, 777, 100000}) {
    CAPTURE(n);
    std::vector<uint32_t> data(n), hist(samples::HISTOGRAM_BINS), want(samples::HISTOGRAM_BINS);
    for (int i = 0; i < n; ++i) ++want[(data[i] = uint32_t(i) * 2654435761u) % samples::HISTOGRAM_BINS];
    run_host(histogram, {3}, {samples::BLOCK}, HostArgs().array(data).array(hist).data());
    REQUIRE(hist == want);
  }
}
