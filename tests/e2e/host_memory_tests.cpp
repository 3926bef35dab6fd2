// Host-accessible memory in kernels (issue 39, item 4), on the device under test: pinned and
// registered host memory passed to launches in place, mapped_array and managed_array. On cpu and
// interp every host address is the kernels'; on HIP and the simulator only pinned, registered,
// mapped and managed memory is, and anything else is a LaunchError saying what to do.
#include <catch2/catch.hpp>

#include <numeric>
#include <vector>

#include "e2e.hpp"

using namespace rocjit;
using namespace rocjit::dsl;
using Catch::Matchers::Contains;
using rocjit::testing::test_device;

namespace {

bool host_device() { return test_device().kind() == "cpu" || test_device().kind() == "interp"; }

Kernel scale_kernel() {
  return kernel("scale_in_place", [](Array<float> x, Array<float> out, Float s) {
    Int i = global_id(0);
    If(i < x.shape(0), [&] { out(i) = x(i) * s + out(i); });
  }, {.param_names = {"x", "out", "s"}});
}

}  // namespace

TEST_CASE("host memory: a pinned HostArray is used by kernels in place") {
  Kernel k = scale_kernel();
  HostArray<float> x = pinned_array<float>({300});
  HostArray<float> out = pinned_array<float>({300});
  std::iota(x.begin(), x.end(), 0.0f);
  std::fill(out.begin(), out.end(), 1.0f);
  k.forall(300)(x, out, 2.0f);
  default_stream().synchronize();
  for (int i = 0; i < 300; ++i) CHECK(out[i] == 2.0f * static_cast<float>(i) + 1.0f);
  // Written again from the host, seen by the next launch (no copy either way).
  out[7] = 100.0f;
  k.forall(300)(x, out, 1.0f);
  default_stream().synchronize();
  CHECK(out[7] == 107.0f);
  CHECK(out[8] == 2.0f * 8 + 1.0f + 8.0f);
}

TEST_CASE("host memory: registered vectors and spans are used by kernels in place (the HSA seed's model)") {
  Kernel k = scale_kernel();
  std::vector<float> x(130), out(130, 0.5f);
  std::iota(x.begin(), x.end(), 1.0f);
  {
    auto guard = registered(x, out);
    k.forall(130)(x, std::span<float>(out), 3.0f);
    default_stream().synchronize();
  }
  for (int i = 0; i < 130; ++i) CHECK(out[i] == 3.0f * static_cast<float>(i + 1) + 0.5f);

  // Part of a registered range is reachable too (a span into the middle of it).
  {
    auto guard = registered(out);
    std::span<float> middle(out.data() + 10, 20);
    std::vector<float> ones(20, 1.0f);
    auto dev_ones = to_device(ones);
    Kernel add = kernel("add_in_place", [](Array<float> a, Array<float> b) {
      Int i = global_id(0);
      If(i < a.shape(0), [&] { a(i) = a(i) + b(i); });
    });
    add.forall(20)(middle, dev_ones);
    default_stream().synchronize();
  }
  CHECK(out[9] == 3.0f * 10 + 0.5f);
  CHECK(out[10] == 3.0f * 11 + 0.5f + 1.0f);
  CHECK(out[29] == 3.0f * 30 + 0.5f + 1.0f);
  CHECK(out[30] == 3.0f * 31 + 0.5f);
}

TEST_CASE("host memory: memory the device cannot reach is a LaunchError naming the kernel and the parameter") {
  Kernel k = scale_kernel();
  std::vector<float> x(64, 1.0f);
  auto out = device_array<float>({64});
  out.fill(0.0f);
  if (host_device()) {
    // Every host address is the CPU device's.
    k.forall(64)(x, out, 2.0f);
    CHECK(out.copy_to_host()(5) == 2.0f);
    return;
  }
  CHECK_THROWS_AS(k.forall(64)(x, out, 2.0f), LaunchError);
  CHECK_THROWS_WITH(k.forall(64)(x, out, 2.0f),
                    Contains("kernel 'scale_in_place': argument 0 ('x') is host memory (f32 of rank 1) that the "
                             "launch's device cannot use in place") &&
                        Contains("neither; register it, or copy it (to_device)"));
  // Registered with the device, the same vector works; deregistered, it is refused again.
  {
    auto guard = registered(x);
    k.forall(64)(x, out, 2.0f);
    CHECK(out.copy_to_host()(5) == 2.0f);
  }
  CHECK_THROWS_AS(k.forall(64)(x, out, 2.0f), LaunchError);
  // An ordinary (not pinned) HostArray likewise.
  HostArray<float> plain({64});
  CHECK_THROWS_WITH(k.forall(64)(plain, out, 2.0f), Contains("argument 0 ('x') is host memory"));
}

TEST_CASE("host memory: mapped_array is a device array the host reads and writes directly") {
  MappedArray<int32_t> m = mapped_array<int32_t>({4, 8});
  CHECK_FALSE(m.is_managed());
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 8; ++c) m(r, c) = r * 100 + c;
  Kernel k = kernel("mapped_rows", [](Array<int32_t, 2> a) {
    Int r = global_id(1), c = global_id(0);
    a(r, c) = a(r, c) * 2 + r;
  });
  k[{{1, 1}, {8, 4}}](m);
  default_stream().synchronize();
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 8; ++c) CHECK(m(r, c) == (r * 100 + c) * 2 + r);
  // It is a DeviceArray: copies, views and fill work on it.
  HostArray<int32_t> copy = m.copy_to_host();
  CHECK(copy(3, 7) == m(3, 7));
  DeviceArray<int32_t> row = m.slice({Slice::at(2)});
  row.fill(-1);
  CHECK(m(2, 0) == -1);
  CHECK(m(2, 7) == -1);
  CHECK(m(1, 7) == 107 * 2 + 1);
  CHECK(m.span().size() == 32);
  CHECK(std::count(m.begin(), m.end(), -1) == 8);
}

TEST_CASE("host memory: managed_array is used from the host and by kernels without copies") {
  MappedArray<float> a = managed_array<float>({256});
  CHECK(a.is_managed());
  std::iota(a.begin(), a.end(), 0.0f);
  Kernel k = kernel("managed_square", [](Array<float> x) {
    Int i = global_id(0);
    If(i < x.shape(0), [&] { x(i) = x(i) * x(i); });
  });
  k.forall(256)(a);
  default_stream().synchronize();
  for (int i = 0; i < 256; ++i) CHECK(a[i] == static_cast<float>(i * i));
  // A device-only array has no host address.
  auto d = device_array<float>({4});
  if (host_device()) {
    CHECK(runtime::host_address(d) == d.device_pointer());
  } else {
    CHECK_THROWS_WITH(MappedArray<float>(d), Contains("the host cannot reach this array's memory on device '" +
                                                      test_device().id() + "' directly"));
  }
}
