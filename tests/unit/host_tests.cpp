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

// rocjit_host_wave (runtime/cpu/host_helpers.cpp) runs common wave ops on native 32- and 64-bit
// values instead of through rocjit::interpret_wave; both must give the same values for every op,
// type, partial wave and strided storage (NaN, infinities, -0 and denormals in the floats).
extern "C" void rocjit_host_wave(uint32_t op, uint32_t a_type, const uint8_t* a, uint64_t a_stride, const uint8_t* b,
                                 uint64_t b_stride, uint32_t result_type, uint8_t* out, uint64_t out_stride,
                                 uint32_t threads, uint32_t width);

TEST_CASE("the CPU's wave operations give interpret_wave's bits for every op, type and partial wave") {
  using ir::Type;
  using ir::WaveOp;
  const WaveOp ops[] = {WaveOp::shuffle, WaveOp::shuffle_xor, WaveOp::shuffle_up, WaveOp::shuffle_down,
                        WaveOp::broadcast, WaveOp::read_first, WaveOp::reduce_add, WaveOp::reduce_min,
                        WaveOp::reduce_max, WaveOp::reduce_and, WaveOp::reduce_or, WaveOp::reduce_xor,
                        WaveOp::inclusive_scan_add, WaveOp::exclusive_scan_add};
  const Type types[] = {Type::f32, Type::f64, Type::i32, Type::u32, Type::i64, Type::u64};
  const uint64_t specials[] = {0x7fc00000u, 0xff800000u, 0x80000000u, 0x00000001u, 0x7f7fffffu,
                               0x7ff8000000000000ull, 0xfff0000000000000ull, 0x8000000000000000ull, 1, ~uint64_t{0}};
  std::mt19937_64 rng(2033);
  for (Type t : types) {
    const unsigned bytes = ir::byte_size(t);
    const bool is_float = ir::is_float(t);
    for (WaveOp op : ops) {
      if (is_float && (op == WaveOp::reduce_and || op == WaveOp::reduce_or || op == WaveOp::reduce_xor)) continue;
      for (uint32_t threads : {1u, 37u, 64u, 100u, 200u})
      for (uint64_t gap : {uint64_t{4}, uint64_t{0}}) {  // storage with gaps, and contiguous (one copy per wave)
        CAPTURE(ir::type_name(t), static_cast<int>(op), threads, gap);
        const uint64_t stride = bytes + gap, b_stride = gap ? 8 : 4;
        std::vector<uint8_t> a(threads * stride), b(threads * b_stride), out(threads * stride + 8, 0xab);
        std::vector<uint64_t> values(threads);
        for (uint32_t i = 0; i < threads; ++i) {
          uint64_t v = rng();
          if (is_float) {
            const double d = std::ldexp(static_cast<double>(static_cast<int64_t>(v % 2001) - 1000), static_cast<int>(v % 41) - 20);
            v = t == Type::f32 ? std::bit_cast<uint32_t>(static_cast<float>(d)) : std::bit_cast<uint64_t>(d);
            if (rng() % 8 == 0) v = specials[rng() % std::size(specials)];
          }
          if (bytes == 4) v &= 0xffffffffu;
          values[i] = v;
          std::memcpy(&a[i * stride], &v, bytes);
          const int32_t lane = static_cast<int32_t>(rng() % 74) - 4;  // some lanes outside the wave
          std::memcpy(&b[i * b_stride], &lane, sizeof lane);
        }
        const auto type_bits = std::bit_cast<uint32_t>(t);
        rocjit_host_wave(static_cast<uint32_t>(op), type_bits, a.data(), stride, b.data(), b_stride, type_bits,
                         out.data(), stride, threads, 64);
        REQUIRE(out[threads * stride] == 0xab);  // nothing written past the last value
        for (uint32_t w0 = 0; w0 < threads; w0 += 64) {
          const unsigned active = std::min(64u, threads - w0);
          std::array<uint64_t, 64> av{}, bv{}, rv{};
          for (unsigned l = 0; l < active; ++l) {
            av[l] = values[w0 + l];
            int32_t lane = 0;
            std::memcpy(&lane, &b[(w0 + l) * b_stride], sizeof lane);
            bv[l] = static_cast<uint32_t>(lane);
          }
          interpret_wave(op, t, av.data(), bv.data(), rv.data(), active, 64);
          for (unsigned l = 0; l < active; ++l) {
            uint64_t got = 0, want = rv[l];
            std::memcpy(&got, &out[(w0 + l) * stride], bytes);
            if (bytes == 4) want &= 0xffffffffu;
            CAPTURE(w0 + l);
            // A NaN's payload is not specified (C++ and LLVM may commute an add's operands): any
            // NaN matches any NaN; every other value matches bit for bit.
            const bool both_nan = is_float && (t == Type::f32 ? std::isnan(std::bit_cast<float>(static_cast<uint32_t>(got))) &&
                                                                    std::isnan(std::bit_cast<float>(static_cast<uint32_t>(want)))
                                                              : std::isnan(std::bit_cast<double>(got)) &&
                                                                    std::isnan(std::bit_cast<double>(want)));
            if (!both_nan) REQUIRE(got == want);
            if (gap) REQUIRE(out[(w0 + l) * stride + bytes] == 0xab);  // nothing written past the value
          }
        }
      }
    }
  }
}
