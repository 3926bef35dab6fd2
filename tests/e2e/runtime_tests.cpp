// The seed documents' memory API, point by point, on the device under test.
#include <catch2/catch.hpp>

#include <bit>
#include <cmath>
#include <random>
#include <algorithm>
#include <chrono>
#include <numeric>
#include <thread>

#include "e2e.hpp"
#include "sample_kernels.hpp"
#include "temporary_cache.hpp"

using namespace rocjit;
using Catch::Matchers::Contains;
using rocjit::testing::test_device;

namespace {
std::vector<float> iota_floats(size_t n, float start = 0) {
  std::vector<float> v(n);
  std::iota(v.begin(), v.end(), start);
  return v;
}

// A kernel slow enough that work queued after it really waits: out(i) = sum_{k<n} in(i)+k.
Kernel slow_fill() {
  using namespace rocjit::dsl;
  return kernel("slow_fill", [](Array<float> out, Int n) {
    Int i = global_id(0);
    If(i < out.shape(0), [&] {
      Var<float> acc = 0.0f;
      For(0, n, [&](Int k) { acc += cast<float>(k % 7); });
      out(i) = acc;
    });
  });
}
}  // namespace

TEST_CASE("devices() lists the device under test and the CPU") {
  auto all = devices();
  REQUIRE(!all.empty());
  CHECK(all.back().kind() == "cpu");
  CHECK(all.back().target() == "host");
  CHECK(test_device().total_memory() > 0);
  CHECK(default_device() == test_device());
  CHECK(get_device("cpu").id() == "cpu");
  CHECK_THROWS_WITH(get_device("tpu:0"), Contains("'tpu:0' is not a device id"));
}

TEST_CASE("device_array, to_device and copy_to_host round-trip data with shape and strides") {
  auto host = iota_floats(12);
  DeviceArray<float> d = to_device(host);
  CHECK(d.shape() == Shape{12});
  CHECK(d.size() == 12);
  CHECK(d.nbytes() == 48);
  CHECK(d.ndim() == 1);
  CHECK(d.device() == test_device());
  HostArray<float> back = d.copy_to_host();
  CHECK(back.to_vector() == host);

  DeviceArray<double> m = device_array<double>({3, 4});
  CHECK(m.strides() == std::vector<int64_t>{32, 8});
  CHECK(m.is_c_contiguous());
  CHECK_FALSE(m.is_f_contiguous());
  DeviceArray<double> f = device_array<double>({3, 4}, Order::F);
  CHECK(f.strides() == std::vector<int64_t>{8, 24});
  CHECK(f.is_f_contiguous());
  auto like = device_array_like(f);
  CHECK(like.shape() == f.shape());
  CHECK(like.is_f_contiguous());

  std::vector<double> values(12);
  std::iota(values.begin(), values.end(), 0.0);
  DeviceArray<double> d2 = to_device(std::span<const double>(values), {3, 4});
  HostArray<double> h2 = d2.copy_to_host();
  CHECK(h2(1, 2) == 6.0);
  HostArray<double> into({3, 4});
  d2.copy_to_host(into);
  CHECK(into(2, 3) == 11.0);
  std::vector<double> flat(12);
  d2.copy_to_host(std::span<double>(flat));
  CHECK(flat == values);
}

TEST_CASE("an F-ordered device array receives C-ordered host data in the right places") {
  std::vector<float> c_order = {0, 1, 2, 3, 4, 5};  // 2x3, C order
  DeviceArray<float> f = device_array<float>({2, 3}, Order::F);
  f.copy_to_device(std::span<const float>(c_order));
  HostArray<float> back = f.copy_to_host();  // an F-ordered host array
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j) CHECK(back(i, j) == c_order[i * 3 + j]);
}

TEST_CASE("copy_to_device refreshes an existing array; device-to-device copies") {
  DeviceArray<int32_t> a = device_array<int32_t>({4});
  std::vector<int32_t> v{1, 2, 3, 4};
  a.copy_to_device(std::span<const int32_t>(v));
  DeviceArray<int32_t> b = device_array_like(a);
  b.copy_to_device(a);
  CHECK(b.copy_to_host().to_vector() == v);
}

TEST_CASE("ravel and reshape are views of the same memory") {
  DeviceArray<float> d = to_device(iota_floats(6));
  DeviceArray<float> m = d.reshape({2, 3});
  CHECK(m.shape() == Shape{2, 3});
  CHECK(m.device_pointer() == d.device_pointer());
  CHECK(m.ravel().shape() == Shape{6});
  CHECK(m.copy_to_host()(1, 0) == 3.0f);
  CHECK_THROWS_WITH(d.reshape({4, 2}), Contains("element count must stay the same"));
  DeviceArray<float> f = device_array<float>({2, 3}, Order::F);
  CHECK(f.ravel(Order::F).shape() == Shape{6});
  CHECK_THROWS_WITH(f.ravel(Order::C), Contains("without a copy") && Contains("not C-contiguous"));
}

TEST_CASE("kernels launch Numba-style on the default stream and compile once") {
  Kernel k = samples::saxpy();
  auto x = iota_floats(1000), y = iota_floats(1000, 1);
  DeviceArray<float> dx = to_device(x), dy = to_device(y);
  static_assert(ceil_div(1000, 256) == 4 && ceil_div(1024, 256) == 4 && ceil_div(0, 256) == 0);
  k[{ceil_div(1000, 256), 256}](2.0f, dx, dy);  // grid in groups: ceil_div rounds up
  auto out = dy.copy_to_host();
  for (int i = 0; i < 1000; ++i) REQUIRE(out.data()[i] == 2.0f * i + (i + 1));
  // Second launch reuses the compiled kernel; a second Kernel object with its own IR compiles once more.
  k[{4, 256}](1.0f, dx, dy);
  CHECK(dy.copy_to_host().data()[10] == 2.0f * 10 + 11 + 10);
}

TEST_CASE("prepare_launch compiles a launch's final code ahead, then launches run it") {
  testing::TemporaryCache cache;  // nothing cached: without prepare_launch the CPU would start at O1
  Kernel k = samples::saxpy();
  const int n = 1000;
  auto x = iota_floats(n), y = iota_floats(n, 1);
  DeviceArray<float> dx = to_device(x), dy = to_device(y);
  const CpuTieringStats before = cpu_tiering_stats();
  prepare_launch(k, {ceil_div(n, 128), 128});
  for (int launch = 0; launch < 3; ++launch) k[{ceil_div(n, 128), 128}](1.0f, dx, dy);
  HostArray<float> out = dy.copy_to_host();
  for (int i = 0; i < n; ++i) REQUIRE(out.data()[i] == 3.0f * i + (i + 1));
  if (testing::test_device().id() == "cpu") {
    // The O3 code from the start: no O1 first launch, no background tier-up.
    const CpuTieringStats after = cpu_tiering_stats();
    CHECK(after.quick_compiles == before.quick_compiles);
    CHECK(after.tier_ups == before.tier_ups);
  }
  // Bad geometry is refused as a launch refuses it; a specialising kernel cannot be prepared.
  CHECK_THROWS_AS(prepare_launch(k, {1, 4096}), LaunchError);
  Kernel specialised = samples::saxpy_with({.specialize = {"a"}});
  CHECK_THROWS_WITH(prepare_launch(specialised, {1, 128}), Contains("specialises on its arguments"));
}

TEST_CASE("KernelOptions::contract fuses a * b + c in the IR: every device gives fma's bits") {
  using namespace rocjit::dsl;
  Kernel k = kernel("axpb", [](Array<float> x, Array<float> y, Array<float> z, Array<float> out) {
    Int i = global_id(0);
    If(i < out.shape(0), [&] { out(i) = x(i) * y(i) + z(i); });
  }, {.param_names = {"x", "y", "z", "out"}, .contract = true});
  const int n = 4096;
  std::vector<float> x(n), y(n), z(n);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> d(-4.0f, 4.0f);
  for (int i = 0; i < n; ++i) x[i] = d(rng), y[i] = d(rng), z[i] = d(rng);
  DeviceArray<float> dx = to_device(x), dy = to_device(y), dz = to_device(z), dout = device_array<float>({n});
  k[{ceil_div(n, 256), 256}](dx, dy, dz, dout);
  HostArray<float> out = dout.copy_to_host();
  int differs_from_unfused = 0;
  for (int i = 0; i < n; ++i) {
    INFO(i);
    REQUIRE(std::bit_cast<uint32_t>(out.data()[i]) == std::bit_cast<uint32_t>(std::fma(x[i], y[i], z[i])));
    volatile float product = x[i] * y[i];
    if (out.data()[i] != product + z[i]) ++differs_from_unfused;
  }
  CHECK(differs_from_unfused > 0);  // the inputs tell a fused result from an unfused one
}

TEST_CASE("HostArray elements by operator[] and by iteration, in memory order") {
  auto dx = to_device(iota_floats(6), {2, 3});
  HostArray<float> h = dx.copy_to_host();
  for (int64_t i = 0; i < h.size(); ++i) CHECK(h[i] == static_cast<float>(i));
  CHECK(h[4] == h(1, 1));
  float sum = 0;
  for (float v : h) sum += v;
  CHECK(sum == 15.0f);
  for (float& v : h) v *= 2;
  const HostArray<float>& c = h;
  CHECK(std::accumulate(c.begin(), c.end(), 0.0f) == 30.0f);
  CHECK(c[5] == 10.0f);
  CHECK(std::vector<float>(c.span().begin(), c.span().end()) == h.to_vector());
}

TEST_CASE("matmul with 2-D geometry through the runtime") {
  Kernel k = samples::matmul();
  int n = 40, m = 30, p = 20;
  std::vector<float> a(n * m), b(m * p);
  for (int i = 0; i < n * m; ++i) a[i] = float(i % 7) - 3;
  for (int i = 0; i < m * p; ++i) b[i] = float(i % 5) - 2;
  auto da = to_device(std::span<const float>(a), {n, m});
  auto db = to_device(std::span<const float>(b), {m, p});
  auto dc = device_array<float>({n, p});
  k[{{(p + 15) / 16, (n + 15) / 16}, {16, 16}}](da, db, dc);
  auto c = dc.copy_to_host();
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < p; ++j) {
      float ref = 0;
      for (int q = 0; q < m; ++q) ref += a[i * m + q] * b[q * p + j];
      REQUIRE(c(i, j) == ref);
    }
}

TEST_CASE("asynchronous streams order their work; events order work between streams") {
  Kernel slow = slow_fill();
  Stream s1 = stream(), s2 = stream();
  CHECK_FALSE(s1.is_default());
  const int n = 4096;
  DeviceArray<float> d = device_array<float>({n});
  Event start = event(), done = event();
  start.record(s1);
  slow[{n / 256, 256, s1}](d, 2000);
  done.record(s1);
  s2.wait(done);  // s2's copy must see the kernel's result
  HostArray<float> out = d.copy_to_host(s2);
  s2.synchronize();
  float ref = 0;
  for (int k = 0; k < 2000; ++k) ref += float(k % 7);
  for (int i = 0; i < n; ++i) REQUIRE(out.data()[i] == ref);
  CHECK(done.query());
  CHECK(start.elapsed_time(done) >= 0.0f);
}

TEST_CASE("events dropped right after record() and wait() still order the streams") {
  Kernel slow = slow_fill();
  Stream s1 = stream(), s2 = stream();
  const int n = 4096;
  DeviceArray<float> d = device_array<float>({n});
  slow[{n / 256, 256, s1}](d, 3000);
  {
    Event done = event();
    done.record(s1);
    s2.wait(done);
  }  // the streams alone hold the event now
  HostArray<float> out = d.copy_to_host(s2);
  s2.synchronize();
  float ref = 0;
  for (int k = 0; k < 3000; ++k) ref += float(k % 7);
  for (int i = 0; i < n; ++i) REQUIRE(out.data()[i] == ref);
  s1.synchronize();
}

TEST_CASE("auto_synchronize waits for the stream when the scope ends") {
  Stream s = stream();
  DeviceArray<float> d = device_array<float>({1024});
  HostArray<float> out({1024});
  {
    auto sync = s.auto_synchronize();
    slow_fill()[{4, 256, s}](d, 500);
    d.copy_to_host(out, s);
  }
  float ref = 0;
  for (int k = 0; k < 500; ++k) ref += float(k % 7);
  CHECK(out.data()[1023] == ref);
}

TEST_CASE("pending work keeps memory alive after the user drops the array") {
  Stream s = stream();
  HostArray<float> out({2048});
  {
    DeviceArray<float> d = device_array<float>({2048});
    slow_fill()[{8, 256, s}](d, 3000);
    d.copy_to_host(out, s);
  }  // `d` is gone; the launch and the copy still hold its memory
  s.synchronize();
  float ref = 0;
  for (int k = 0; k < 3000; ++k) ref += float(k % 7);
  CHECK(out.data()[0] == ref);
  CHECK(out.data()[2047] == ref);
}

TEST_CASE("pinned arrays and registered host memory") {
  HostArray<float> p = pinned_array<float>({256});
  CHECK(p.is_pinned());
  for (int i = 0; i < 256; ++i) p.data()[i] = float(i);
  DeviceArray<float> d = to_device(p);
  CHECK(d.copy_to_host().data()[255] == 255.0f);

  std::vector<float> a(64, 1.0f), b(32, 2.0f);
  {
    auto guard = registered(a, b);
    CHECK_THROWS_WITH(register_host(a), Contains("already registered"));
    DeviceArray<float> da = to_device(a);
    CHECK(da.copy_to_host().data()[0] == 1.0f);
  }
  CHECK_THROWS_WITH(deregister_host(a), Contains("was not registered"));
  register_host(a);  // after the guard ended, registering again is fine
  deregister_host(a);
  { auto guard = pinned(b); }  // Numba's cuda.pinned(*arrays) spelling
}

TEST_CASE("SmartArray transfers only when the other side changed") {
  using namespace rocjit::dsl;
  Kernel twice = kernel("twice", [](Array<float> x) {
    Int i = global_id(0);
    If(i < x.shape(0), [&] { x(i) = x(i) * 2.0f; });
  });
  SmartArray<float> s(iota_floats(512));
  twice[{2, 256}](s);  // host -> device once
  CHECK(s.host_to_device_copies() == 1);
  CHECK(s.device_to_host_copies() == 0);
  twice[{2, 256}](s);  // data stays on the device
  twice[{2, 256}](s);
  CHECK(s.host_to_device_copies() == 1);
  CHECK(s.device_to_host_copies() == 0);
  CHECK(s.host().data()[3] == 24.0f);  // the host is updated lazily, once
  CHECK(s.host().data()[4] == 32.0f);
  CHECK(s.device_to_host_copies() == 1);
  s.host().data()[0] = 100.0f;
  s.mark_changed(Where::host);
  twice[{2, 256}](s);
  CHECK(s.host_to_device_copies() == 2);
  CHECK(s.host().data()[0] == 200.0f);
  CHECK(s.device_to_host_copies() == 2);
}

TEST_CASE("a device is freed when its last handle goes, and a stream handle keeps it alive") {
  std::weak_ptr<runtime::DeviceImpl> gone;
  {
    Device d = new_cpu_device();
    gone = d.impl_ptr();
    Stream s = default_stream(d);  // the device's default stream refers back to it
    CHECK(s.device() == d);
  }
  CHECK(gone.expired());  // no device <-> default stream cycle

  std::weak_ptr<runtime::DeviceImpl> held;
  Stream s;
  {
    Device d = new_cpu_device();
    held = d.impl_ptr();
    s = default_stream(d);
  }
  REQUIRE_FALSE(held.expired());  // the stream handle holds the device
  DeviceArray<float> a = device_array<float>({256}, Order::C, s.device());
  slow_fill()[{1, 256, s}](a, 3);
  HostArray<float> out = a.copy_to_host(s);
  s.synchronize();
  CHECK(out.data()[255] == 3.0f);  // 0 + 1 + 2
  a = DeviceArray<float>();
  s = Stream();
  CHECK(held.expired());
}

TEST_CASE("one kernel launched with many work-group shapes computes right with each") {
  // The CPU device compiles a kernel for each of its first shapes, then once for any shape.
  Kernel k = samples::saxpy();
  const int n = 1000;
  std::vector<float> x(n), y(n);
  for (int i = 0; i < n; ++i) x[i] = float(i), y[i] = 1.0f;
  DeviceArray<float> dx = to_device(x), dy = to_device(y);
  float expected_step = 0;
  for (int64_t block : {256, 64, 100, 1, 37, 128, 256, 7}) {
    k[{ceil_div(n, block), block}](0.5f, dx, dy);
    expected_step += 0.5f;
    HostArray<float> out = dy.copy_to_host();
    for (int i = 0; i < n; ++i) REQUIRE(out.data()[i] == Approx(1.0f + expected_step * float(i)));
  }
}

TEST_CASE("to_device of a temporary vector on an asynchronous stream copies it before the vector is gone") {
  // The asynchronous copy would otherwise read the temporary after it was freed (found under
  // ASan by rocjit-smith's regressions, which passed temporaries to to_device on a stream).
  Stream s = stream();
  DeviceArray<int32_t> d = to_device(std::vector<int32_t>(4096, 7), s);
  std::vector<int32_t> scribble(4096, -1);  // likely to reuse the freed block
  std::vector<int32_t> back(4096);
  d.copy_to_host(std::span<int32_t>(back), s);
  s.synchronize();
  CHECK(std::count(back.begin(), back.end(), 7) == 4096);
  CHECK(scribble[0] == -1);
}

TEST_CASE("the default stream waits for blocking streams; non-blocking streams opt out") {
  // HIP's and CUDA's legacy default stream: copy_to_host() on the default stream after an
  // asynchronous copy and a kernel on a busy blocking stream sees their results.
  Kernel slow = slow_fill();
  const int n = 4096;
  float ref = 0;
  for (int k = 0; k < 2000; ++k) ref += float(k % 7);
  for (int round = 0; round < 3; ++round) {
    Stream s = stream();
    CHECK_FALSE(s.is_non_blocking());
    DeviceArray<float> busy = device_array<float>({n});
    DeviceArray<float> d = device_array<float>({1024});
    slow[{n / 256, 256, s}](busy, 2000);  // keeps s busy
    std::vector<float> fresh = iota_floats(1024, float(round * 10000));
    d.copy_to_device(std::span<const float>(fresh), s);
    HostArray<float> out = d.copy_to_host();  // the default stream: after s's copy
    for (int i = 0; i < 1024; ++i) REQUIRE(out.data()[i] == fresh[i]);
    // And a kernel on the default stream sees the kernel of the blocking stream.
    slow[{n / 256, 256, s}](busy, 2000);
    HostArray<float> b = busy.copy_to_host();
    for (int i = 0; i < n; ++i) REQUIRE(b.data()[i] == ref);
  }
  // A non-blocking stream is still ordered within itself and by synchronize().
  Stream nb = stream({.non_blocking = true});
  CHECK(nb.is_non_blocking());
  CHECK_FALSE(nb.is_default());
  CHECK_FALSE(default_stream().is_non_blocking());
  DeviceArray<float> busy = device_array<float>({n});
  slow[{n / 256, 256, nb}](busy, 2000);
  HostArray<float> mine = busy.copy_to_host(nb);
  nb.synchronize();
  for (int i = 0; i < n; ++i) REQUIRE(mine.data()[i] == ref);
}
