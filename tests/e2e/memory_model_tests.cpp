// Dynamic shared memory, fences, atomic orders and scopes, atomic::load/store and uniform() on the
// device under test (CPU, simulator, HIP), each against plain C++.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstdlib>
#include <numeric>
#include <vector>

#include "e2e.hpp"
#include "lookback_scan.hpp"
#include "scoped_settings.hpp"

using namespace rocjit;
using namespace rocjit::dsl;

TEST_CASE("shared::dynamic takes its extent from the launch, next to static shared arrays") {
  Kernel k = kernel("dynamic_reverse", [](Array<float> x, Array<int32_t> extent) {
    auto fixed = shared::array<float>({4}, "fixed");
    auto tile = shared::dynamic<float>("tile");
    Int t = local_id(0);
    Int n = local_size(0);
    Int i = global_id(0);
    If(t < 4, [&] { fixed(t) = -1.0f; });
    tile(t) = x(i);
    barrier();
    x(i) = tile(n - 1 - t) + fixed(t % 4) + 1.0f;
    If(i == 0, [&] { extent(0) = tile.shape(0); });
  });
  for (int block : {16, 96}) {
    const int groups = 3;
    std::vector<float> h(groups * block);
    std::iota(h.begin(), h.end(), 0.0f);
    auto dx = to_device(h);
    auto dextent = device_array<int32_t>({1});
    // Extra bytes beyond what the block uses: shape(0) reports all of them.
    k[{groups, block, Stream{}, (block + 8) * sizeof(float)}](dx, dextent);
    std::vector<float> out = dx.copy_to_host().to_vector();
    for (int g = 0; g < groups; ++g)
      for (int t = 0; t < block; ++t) {
        INFO("block " << block << " group " << g << " t " << t);
        REQUIRE(out[g * block + t] == h[g * block + block - 1 - t]);
      }
    REQUIRE(dextent.copy_to_host().to_vector()[0] == block + 8);
  }
}

TEST_CASE("every shared::dynamic array views the same bytes; the launch config names the size") {
  Kernel k = kernel("dynamic_alias", [](Array<int32_t> out) {
    auto a = shared::dynamic<int32_t>();
    auto b = shared::dynamic<int32_t>();
    auto wide = shared::dynamic<int64_t>();
    Int t = local_id(0);
    a(t) = t * 2;
    barrier();
    out(global_id(0)) = b(t) + cast<int32_t>(wide.shape(0)) * 1000;
  });
  LaunchConfig config(2, 32);
  config.shared_bytes = 32 * sizeof(int32_t);
  auto dout = device_array<int32_t>({64});
  k[config](dout);
  std::vector<int32_t> out = dout.copy_to_host().to_vector();
  for (int i = 0; i < 64; ++i) REQUIRE(out[i] == (i % 32) * 2 + 16 * 1000);
}

TEST_CASE("too much shared memory for the device is a LaunchError naming kernel and sizes") {
  Kernel k = kernel("dynamic_too_big", [](Array<int32_t> out) {
    auto s = shared::dynamic<int32_t>();
    s(local_id(0)) = 1;
    out(global_id(0)) = s(local_id(0));
  });
  auto dout = device_array<int32_t>({32});
  const uint64_t huge = uint64_t{1} << 31;  // more than any device gives a work-group
  try {
    k[{1, 32, Stream{}, huge}](dout);
    FAIL("expected a LaunchError");
  } catch (const LaunchError& e) {
    const std::string what = e.what();
    INFO(what);
    REQUIRE(what.find("kernel 'dynamic_too_big'") != std::string::npos);
    REQUIRE(what.find("0 static + 2147483648 dynamic") != std::string::npos);
    REQUIRE(what.find("gives a work-group") != std::string::npos);
  }
  // A size that fits launches.
  k[{1, 32, Stream{}, 32 * sizeof(int32_t)}](dout);
  for (int32_t v : dout.copy_to_host().to_vector()) REQUIRE(v == 1);
}

TEST_CASE("the last work-group to finish sums every group's partial result (fences, acq_rel ticket)") {
  constexpr int block = 64;
  Kernel k = kernel("last_block_sums", [](Array<int32_t> x, Array<int32_t> partial, Array<uint32_t> ticket,
                                          Array<int32_t> total) {
    auto s = shared::array<int32_t>({block});
    auto last = shared::array<int32_t>({1});
    Int t = local_id(0);
    Int g = group_id(0);
    s(t) = x(global_id(0));
    barrier();
    For(block / 2, [](Int h) { return h > 0; }, [](Int h) { return h / 2; }, [&](Int h) {
      If(t < h, [&] { s(t) = s(t) + s(t + h); });
      barrier();
    });
    If(t == 0, [&] {
      partial(g) = s(0);
      fence(memory_scope::device, memory_order::release);
      UInt taken = atomic::add(ticket, 0, 1u, memory_order::acq_rel);
      last(0) = cast<int32_t>(taken == cast<uint32_t>(num_groups(0)) - 1u);
    });
    barrier();
    If(last(0) == 1, [&] {
      If(t == 0, [&] {
        fence(memory_scope::device, memory_order::acquire);
        Var<int32_t> sum = 0;
        For(0, num_groups(0), [&](Int j) { sum += atomic::load(partial, j, memory_order::relaxed); });
        total(0) = sum;
        atomic::store(ticket, 0, 0u, memory_order::release);  // ready for the next launch
      });
    });
  });
  const int groups = 37;
  std::vector<int32_t> h(groups * block);
  for (size_t i = 0; i < h.size(); ++i) h[i] = static_cast<int32_t>(i % 101) - 50;
  auto dx = to_device(h);
  auto dpartial = device_array<int32_t>({groups});
  auto dticket = to_device(std::vector<uint32_t>{0});
  auto dtotal = device_array<int32_t>({1});
  for (int launch = 0; launch < 2; ++launch) {
    k[{groups, block}](dx, dpartial, dticket, dtotal);
    REQUIRE(dtotal.copy_to_host().to_vector()[0] == std::accumulate(h.begin(), h.end(), 0));
    REQUIRE(dticket.copy_to_host().to_vector()[0] == 0u);
  }
}

TEST_CASE("atomics with every order and scope give the relaxed results on global and shared arrays") {
  Kernel k = kernel("ordered_atomics", [](Array<int32_t> counts, Array<int32_t> out) {
    auto s = shared::array<int32_t>({4});
    Int t = local_id(0);
    If(t < 4, [&] { atomic::store(s, t, 0, memory_order::relaxed, memory_scope::workgroup); });
    barrier();
    atomic::add(s, 0, 1, memory_order::seq_cst, memory_scope::workgroup);
    atomic::max(s, 1, t, memory_order::acquire, memory_scope::wavefront);
    atomic::or_(s, 2, t, memory_order::release, memory_scope::device);
    atomic::compare_exchange(s, 3, 0, 7, memory_order::acq_rel, memory_scope::system);
    atomic::add(counts, 0, 1, memory_order::acq_rel, memory_scope::device);
    atomic::add(counts, 1, 2, memory_order::seq_cst, memory_scope::system);
    atomic::sub(counts, 2, 1, memory_order::release, memory_scope::workgroup);
    barrier();
    If(t < 4, [&] { out(group_id(0) * 4 + t) = atomic::load(s, t, memory_order::acquire, memory_scope::workgroup); });
  });
  const int groups = 5, block = 48;
  auto dcounts = to_device(std::vector<int32_t>{0, 0, 0});
  auto dout = device_array<int32_t>({groups * 4});
  k[{groups, block}](dcounts, dout);
  std::vector<int32_t> counts = dcounts.copy_to_host().to_vector();
  REQUIRE(counts == std::vector<int32_t>{groups * block, 2 * groups * block, -groups * block});
  int all_or = 0;
  for (int t = 0; t < block; ++t) all_or |= t;
  std::vector<int32_t> out = dout.copy_to_host().to_vector();
  for (int g = 0; g < groups; ++g) {
    REQUIRE(out[g * 4 + 0] == block);
    REQUIRE(out[g * 4 + 1] == block - 1);
    REQUIRE(out[g * 4 + 2] == all_or);
    REQUIRE(out[g * 4 + 3] == 7);
  }
}

TEST_CASE("atomic::load in a While condition and atomic::store publish values") {
  Kernel k = kernel("atomic_flags", [](Array<int32_t> flags, Array<int32_t> out) {
    Int i = global_id(0);
    atomic::store(flags, i, i + 1, memory_order::release);
    Var<int32_t> steps = 0;
    // Counts down the work-item's own flag (no other work-item writes it).
    While([&] { return atomic::load(flags, i, memory_order::acquire) > 0; }, [&] {
      atomic::sub(flags, i, 1);
      steps += 1;
    });
    out(i) = steps;
  });
  auto dflags = device_array<int32_t>({100});
  auto dout = device_array<int32_t>({100});
  k[{4, 25}](dflags, dout);
  std::vector<int32_t> out = dout.copy_to_host().to_vector();
  for (int i = 0; i < 100; ++i) REQUIRE(out[i] == i + 1);
  for (int32_t f : dflags.copy_to_host().to_vector()) REQUIRE(f == 0);
}

TEST_CASE("uniform() lets a loop bound loaded from memory govern barriers") {
  Kernel k = kernel("uniform_bound", [](Array<int32_t> params, Array<int32_t> out) {
    auto s = shared::array<int32_t>({64});
    Int t = local_id(0);
    Int rounds = uniform(params(0));
    s(t) = t;
    barrier();
    For(0, rounds, [&](Int) {
      Int v = s((t + 1) % 64);
      barrier();
      s(t) = v;
      barrier();
    });
    out(global_id(0)) = s(t);
  }, {.max_block_size = 64});
  for (int rounds : {0, 1, 5, 70}) {
    auto dparams = to_device(std::vector<int32_t>{rounds});
    auto dout = device_array<int32_t>({128});
    k[{2, 64}](dparams, dout);
    std::vector<int32_t> out = dout.copy_to_host().to_vector();
    for (int i = 0; i < 128; ++i) REQUIRE(out[i] == (i % 64 + rounds) % 64);
  }
}

TEST_CASE("under ROCJIT_BOUNDS_CHECK=1 a broken uniform() promise fails the launch; a kept one runs") {
  // In force while the kernel compiles (the CPU names the op and the work-items; the GPU traps).
  rocjit::testing::ScopedSettings check([](Settings& s) { s.bounds_check = true; });
  Kernel k = kernel("checked_promise", [](Array<int32_t> bound, Array<int32_t> out) {
    auto s = shared::array<int32_t>({128});
    Int t = local_id(0);
    Int n = uniform(bound(global_id(0)));  // the user promises every work-item reads the same
    s(t) = 0;
    barrier();
    For(0, n, [&](Int) {
      If(t == 0, [&] { s(0) = s(0) + 1; });
      barrier();
    });
    out(global_id(0)) = s(0);
  }, {.max_block_size = 128});
  auto run = [&](std::vector<int32_t> bound) {
    auto dout = device_array<int32_t>({256});
    k[{2, 128}](to_device(bound), dout);
    return dout.copy_to_host().to_vector();
  };
  for (int32_t v : run(std::vector<int32_t>(256, 3))) REQUIRE(v == 3);
  // Broken within the first wavefront, and only across wavefronts (work-item 100 of group 1).
  for (int broken : {5, 128 + 100}) {
    INFO("work-item " << broken << " reads another bound");
    std::vector<int32_t> bound(256, 3);
    bound[broken] = 4;
    const bool cpu = rocjit::testing::test_device().target() == "host";
    REQUIRE_THROWS_WITH(run(bound), Catch::Matchers::Contains(cpu ? "uniform() at " : "trap"));
  }
  for (int32_t v : run(std::vector<int32_t>(256, 2))) REQUIRE(v == 2);
}

TEST_CASE("an aligned 64-bit atomic load never sees half of a concurrent 64-bit atomic store") {
  // A writer work-group stores (r << 32) | r into each word, over and over; a reader group,
  // running at the same time, counts loads whose halves differ. A naturally aligned 8-byte access
  // is single-copy atomic on the hardware (and LLVM lowers load/store atomic i64 to plain
  // global_load/store_dwordx2 relying on it); look-back scans publish (flag, value) this way.
  Kernel k = kernel("torn_u64", [](Array<uint64_t> words, Array<uint32_t> torn, Int rounds) {
    Int lane = local_id(0);
    If(group_id(0) == 0, [&] {
      For(1, rounds + 1, [&](Int r) {
        ULong v = (cast<uint64_t>(r) << 32) | cast<uint64_t>(r);
        atomic::store(words, lane, v);
      });
    }).Else([&] {
      Var<uint32_t> count = 0u;
      For(0, rounds, [&](Int) {
        ULong v = atomic::load(words, lane);
        If(cast<uint32_t>(v >> 32) != cast<uint32_t>(v), [&] { count = count + 1u; });
      });
      torn(lane) = count;
    });
  });
  auto words = to_device(std::vector<uint64_t>(64, 0));
  auto torn = device_array<uint32_t>({64});
  k[{2, 64}](words, torn, 50000);
  std::vector<uint32_t> t = torn.copy_to_host().to_vector();
  uint64_t total = 0;
  for (uint32_t c : t) total += c;
  CHECK(total == 0);
  for (uint64_t w : words.copy_to_host().to_vector()) CHECK(w == ((uint64_t(50000) << 32) | 50000));
}

TEST_CASE("a decoupled look-back scan (plain values, release/acquire flags) is exact") {
  const int groups = 40, n = groups * testing::lookback_block;
  std::vector<int32_t> h(n);
  for (int i = 0; i < n; ++i) h[static_cast<size_t>(i)] = (i * 7919) % 23 - 11;
  std::vector<int32_t> expected(h.size());
  std::inclusive_scan(h.begin(), h.end(), expected.begin());
  Kernel k = testing::lookback_scan(memory_order::release, memory_order::acquire);
  for (int launch = 0; launch < 2; ++launch) {
    auto x = to_device(h);
    auto y = device_array<int32_t>({n});
    auto aggregate = device_array<int32_t>({groups});
    auto inclusive = device_array<int32_t>({groups});
    auto flag = to_device(std::vector<uint32_t>(groups, 0u));
    k[{groups, testing::lookback_block}](x, y, aggregate, inclusive, flag);
    REQUIRE(y.copy_to_host().to_vector() == expected);
    for (uint32_t f : flag.copy_to_host().to_vector()) REQUIRE(f == 2u);
  }
}
