// Bad input to the runtime: each a clear error, and no data lost.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "e2e.hpp"
#include "sample_kernels.hpp"

using namespace rocjit;
using namespace rocjit::dsl;
using Catch::Matchers::Contains;
using rocjit::testing::test_device;

TEST_CASE("launch arguments are checked against the signature before anything is enqueued") {
  Kernel k = samples::saxpy();
  std::vector<float> x(64, 1.0f), y(64, 5.0f);
  auto dx = to_device(x), dy = to_device(y);
  auto signature = Contains("saxpy(f32 a, array<f32, 1> x, array<f32, 1> y)");
  CHECK_THROWS_AS((k[{1, 64}](2.0f, dx)), LaunchError);
  CHECK_THROWS_WITH((k[{1, 64}](2.0f, dx)), Contains("takes 3 arguments, 2 were given") && signature);
  CHECK_THROWS_WITH((k[{1, 64}](0.1, dx, dy)),
                    Contains("argument 0 ('a') is scalar f64 0.1, which the parameter's type f32 (float) cannot hold "
                             "exactly") && Contains("static_cast<float>(x)"));
  CHECK_THROWS_WITH((k[{1, 64}]((1 << 24) + 1, dx, dy)), Contains("scalar i32 16777217"));
  auto di = to_device(std::vector<int32_t>(64, 1));
  CHECK_THROWS_WITH((k[{1, 64}](2.0f, di, dy)),
                    Contains("argument 1 ('x') is a DeviceArray<i32> of rank 1, but the parameter is array<f32, 1>"));
  auto d2 = device_array<float>({8, 8});
  CHECK_THROWS_WITH((k[{1, 64}](2.0f, d2, dy)), Contains("DeviceArray<f32> of rank 2"));
  CHECK_THROWS_WITH((k[{1, 64}](dx, dx, dy)), Contains("argument 0 ('a') is a DeviceArray<f32> of rank 1, but the "
                                                     "parameter is a scalar f32"));
  CHECK_THROWS_WITH((k[{0, 64}](2.0f, dx, dy)), Contains("kernel 'saxpy'"));
  CHECK_THROWS_WITH((samples::reverse()[{1, 512}](dx, dy)), Contains("maximum of 256"));
  // Nothing ran: y is untouched.
  CHECK(dy.copy_to_host().to_vector() == y);
}

TEST_CASE("launch scalars convert when the parameter's type holds their value exactly") {
  Kernel k = samples::saxpy();
  std::vector<float> x{1.0f, 2.0f}, y{10.0f, 20.0f};
  auto dx = to_device(x), dy = to_device(y);
  k[{1, 2}](2.0, dx, dy);  // a double 2.0 is the float 2.0
  k[{1, 2}](3, dx, dy);    // an int 3 is the float 3.0
  k[{1, 2}](int64_t{-1}, dx, dy);
  k[{1, 2}](std::nan(""), dx, dy);  // NaN is NaN in every float type
  std::vector<float> out = dy.copy_to_host().to_vector();
  CHECK(std::isnan(out[0]));
  CHECK(std::isnan(out[1]));
  Kernel fill = kernel("fill_int", [](Array<int32_t> a, Int v, UInt w, Double d) {
    Int i = global_id(0);
    a(i) = v + cast<int32_t>(w) + cast<int32_t>(d);
  });
  auto da = device_array<int32_t>({1});
  fill[{1, 1}](da, 7.0, 2.0f, 5);  // integral floats convert to integers
  CHECK(da.copy_to_host().to_vector() == std::vector<int32_t>{14});
  fill[{1, 1}](da, uint64_t{1}, true, 1.5f);  // a bool is 0 or 1; f32 -> f64 is always exact
  CHECK(da.copy_to_host().to_vector() == std::vector<int32_t>{3});
  CHECK_THROWS_WITH((fill[{1, 1}](da, 7.5, 1, 1.0)), Contains("is scalar f64 7.5, which the parameter's type i32"));
  CHECK_THROWS_WITH((fill[{1, 1}](da, 1, -1, 1.0)), Contains("is scalar i32 -1, which the parameter's type u32"));
  CHECK_THROWS_WITH((fill[{1, 1}](da, int64_t{1} << 40, 1, 1.0)), Contains("scalar i64 1099511627776"));
  CHECK_THROWS_WITH((fill[{1, 1}](da, std::numeric_limits<double>::infinity(), 1, 1.0)), Contains("inf"));
  CHECK(da.copy_to_host().to_vector() == std::vector<int32_t>{3});  // nothing ran
}

TEST_CASE("host buffers must match the shape; copies must match shape and dtype") {
  std::vector<float> v(10);
  CHECK_THROWS_WITH(to_device(std::span<const float>(v), {3, 4}),
                    Contains("holds 10 elements but shape (3, 4) needs 12"));
  CHECK_THROWS_WITH(to_device(v, {3, 4}), Contains("holds 10 elements but shape (3, 4) needs 12"));
  CHECK_THROWS_WITH(to_device(std::vector<float>(5), {2, 2}), Contains("holds 5 elements but shape (2, 2) needs 4"));
  // A vector with a shape: its elements in C order; the order is the device array's layout.
  std::vector<int32_t> m{1, 2, 3, 4, 5, 6};
  auto dm = to_device(m, {2, 3});
  CHECK(dm.shape() == Shape{2, 3});
  CHECK(dm.copy_to_host().to_vector() == m);
  auto df = to_device(std::vector<int32_t>(m), {3, 2}, Order::F, Stream());
  CHECK(df.shape() == Shape{3, 2});
  HostArray<int32_t> back = df.copy_to_host();
  CHECK(back(0, 1) == 2);
  CHECK(back(2, 0) == 5);
  CHECK(back.to_vector() == std::vector<int32_t>{1, 3, 5, 2, 4, 6});  // F order in memory
  auto d = to_device(std::vector<float>(12, 7.0f)).reshape({3, 4});
  HostArray<float> wrong({4, 3});
  wrong.data()[0] = -1.0f;
  CHECK_THROWS_WITH(d.copy_to_host(wrong), Contains("destination is f32[4, 3] but the device array is f32[3, 4]"));
  CHECK(wrong.data()[0] == -1.0f);  // untouched
  std::vector<float> small(5);
  CHECK_THROWS_WITH(d.copy_to_host(std::span<float>(small)), Contains("shapes and element types must match"));
  CHECK_THROWS_WITH(d.copy_to_device(std::span<const float>(small)), Contains("nothing was copied"));
  CHECK(d.copy_to_host()(2, 3) == 7.0f);  // the device data survived the refused copies
}

TEST_CASE("an allocation larger than the device says how much was requested and available") {
  uint64_t too_much = test_device().total_memory() * 4;
  CHECK_THROWS_AS(device_array<float>({static_cast<int64_t>(too_much / 4)}), MemoryError);
  CHECK_THROWS_WITH(device_array<float>({static_cast<int64_t>(too_much / 4)}),
                    Contains("cannot allocate " + std::to_string(too_much / 4 * 4) + " bytes") &&
                        Contains("bytes of memory"));
  // The device still works.
  CHECK(to_device(std::vector<float>{1, 2}).copy_to_host().data()[1] == 2.0f);
}

TEST_CASE("arrays of a closed device raise DeviceError instead of touching freed memory") {
  Device own = new_cpu_device();
  DeviceArray<float> d = device_array<float>({16}, Order::C, own);
  own.close();
  CHECK(own.closed());
  CHECK_THROWS_AS(d.copy_to_host(), DeviceError);
  CHECK_THROWS_WITH(d.copy_to_host(), Contains("device 'cpu' was closed"));
  CHECK_THROWS_WITH(device_array<float>({4}, Order::C, own), Contains("was closed"));
  CHECK_THROWS_WITH(stream(own), Contains("was closed"));
}

TEST_CASE("asking for a HIP device that is not there says why and where rocjit looked") {
  bool have_hip = false;
  for (auto& d : devices()) have_hip |= d.kind() == "hip";
  if (have_hip) {
    CHECK(get_device("hip:0").kind() == "hip");
    CHECK_THROWS_WITH(get_device("hip:99"), Contains("no HIP device 'hip:99'"));
  } else {
    CHECK_THROWS_AS(get_device("hip:0"), DeviceError);
    CHECK_THROWS_WITH(get_device("hip:0"), Contains("no HIP device for 'hip:0'") &&
                                               (Contains("libamdhip64") || Contains("not found")));
  }
}

TEST_CASE("a kernel that faults on the simulator is a LaunchError with the simulator's message; the device keeps "
          "working") {
  if (test_device().kind() != "sim") {
    SUCCEED("only the simulator checks every device memory access (a wild store elsewhere is undefined)");
    return;
  }
  using namespace rocjit::dsl;
  Kernel wild = kernel("wild_store", [](Array<float> x) {
    Int i = global_id(0);
    x(i + (1 << 26)) = 1.0f;
  });
  auto d = to_device(std::vector<float>(64, 2.0f));
  // The default stream is synchronous: the launch itself fails.
  CHECK_THROWS_AS((wild[{1, 64}](d)), LaunchError);
  CHECK_THROWS_WITH((wild[{1, 64}](d)), Contains("kernel 'wild_store' failed on device '" + test_device().id() + "'") &&
                                             Contains("memory fault"));
  // On another stream the failure surfaces at the next synchronize, then the stream works again.
  Stream s = stream();
  wild[{1, 64, s}](d);
  CHECK_THROWS_AS(s.synchronize(), LaunchError);
  samples::saxpy()[{1, 64, s}](1.0f, d, d);
  s.synchronize();
  CHECK(d.copy_to_host().data()[63] == 4.0f);
}

TEST_CASE("narrow and wide C++ integer scalars reach integer parameters with their values") {
  using namespace rocjit::dsl;
  Kernel k = kernel("store_scalars", [](Array<int32_t> out, Int a, Int b, Long c) {
    If(global_id(0) == 0, [&] {
      out(0) = a;
      out(1) = b;
      out(2) = cast<int32_t>(c);
    });
  }, {.param_names = {"out", "a", "b", "c"}});
  auto out = to_device(std::vector<int32_t>(3, 0));
  // A short -3 was once copied as its two bytes and read back as 65533.
  k[{1, 64}](out, static_cast<short>(-3), static_cast<signed char>(-100), static_cast<long>(-7));
  CHECK(out.copy_to_host().to_vector() == std::vector<int32_t>{-3, -100, -7});
  k[{1, 64}](out, static_cast<unsigned short>(65535), 'A', 5LL);
  CHECK(out.copy_to_host().to_vector() == std::vector<int32_t>{65535, 65, 5});
}
