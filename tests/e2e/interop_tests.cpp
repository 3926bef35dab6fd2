// Memory and streams the application owns (external_array, external_stream, native handles)
// and DLPack, on the device under test. On HIP and simulator devices the "application" is the
// HIP library rocjit loaded (found again with dlopen(RTLD_NOLOAD)): its own hipMalloc, hipMemcpy
// and streams, as a HIP program would use them.
#include <catch2/catch.hpp>
#include <dlfcn.h>
#include <dlpack/dlpack.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <numeric>

#include "e2e.hpp"

using namespace rocjit;
using Catch::Matchers::Contains;
using rocjit::testing::test_device;

namespace {

bool host_device() { return test_device().kind() == "cpu" || test_device().kind() == "interp"; }

// The HIP functions of the library behind the device under test (hipError_t is an int enum).
struct NativeHip {
  int (*hipSetDevice)(int) = nullptr;
  int (*hipMalloc)(void**, size_t) = nullptr;
  int (*hipFree)(void*) = nullptr;
  int (*hipMemcpyAsync)(void*, const void*, size_t, int, void*) = nullptr;  // 1: host to device, 2: device to host
  int (*hipStreamCreateWithFlags)(void**, unsigned) = nullptr;
  int (*hipStreamDestroy)(void*) = nullptr;
  int (*hipStreamSynchronize)(void*) = nullptr;
  explicit operator bool() const {
    return hipSetDevice && hipMalloc && hipFree && hipMemcpyAsync && hipStreamCreateWithFlags && hipStreamDestroy &&
           hipStreamSynchronize;
  }
  // A synchronous copy, as the application would make it: on the null stream, then waited for.
  int copy(void* dst, const void* src, size_t bytes, int kind) const {
    const int e = hipMemcpyAsync(dst, src, bytes, kind, nullptr);
    return e != 0 ? e : hipStreamSynchronize(nullptr);
  }
};

const NativeHip& native_hip() {
  static NativeHip api = [] {
    NativeHip a;
    const char* names[] = {"libamdsim-hip.so", "libamdhip64.so", "libamdhip64.so.5", "libamdhip64.so.6"};
    void* lib = nullptr;
    for (const char* n : names)
      if (test_device().is_simulator() == (std::string(n) == "libamdsim-hip.so") &&
          (lib = dlopen(n, RTLD_NOW | RTLD_NOLOAD)))
        break;
    if (!lib) return a;
    a.hipSetDevice = reinterpret_cast<decltype(a.hipSetDevice)>(dlsym(lib, "hipSetDevice"));
    a.hipMalloc = reinterpret_cast<decltype(a.hipMalloc)>(dlsym(lib, "hipMalloc"));
    a.hipFree = reinterpret_cast<decltype(a.hipFree)>(dlsym(lib, "hipFree"));
    a.hipMemcpyAsync = reinterpret_cast<decltype(a.hipMemcpyAsync)>(dlsym(lib, "hipMemcpyAsync"));
    a.hipStreamCreateWithFlags =
        reinterpret_cast<decltype(a.hipStreamCreateWithFlags)>(dlsym(lib, "hipStreamCreateWithFlags"));
    a.hipStreamDestroy = reinterpret_cast<decltype(a.hipStreamDestroy)>(dlsym(lib, "hipStreamDestroy"));
    a.hipStreamSynchronize = reinterpret_cast<decltype(a.hipStreamSynchronize)>(dlsym(lib, "hipStreamSynchronize"));
    return a;
  }();
  return api;
}

// Memory the application allocated and will free itself: a host vector on cpu and interp, a
// buffer from the HIP library's own hipMalloc on HIP and simulator devices.
struct AppBuffer {
  void* pointer = nullptr;
  std::vector<float> host;
  explicit AppBuffer(size_t n) {
    if (host_device()) {
      host.resize(n);
      pointer = host.data();
    } else {
      const NativeHip& hip = native_hip();
      REQUIRE(hip);
      REQUIRE(hip.hipMalloc(&pointer, n * sizeof(float)) == 0);
    }
  }
  void write(const std::vector<float>& v) {
    if (host_device()) std::copy(v.begin(), v.end(), host.begin());
    else REQUIRE(native_hip().copy(pointer, v.data(), v.size() * sizeof(float), 1) == 0);
  }
  std::vector<float> read(size_t n) const {
    std::vector<float> v(n);
    if (host_device()) std::copy(host.begin(), host.begin() + static_cast<ptrdiff_t>(n), v.begin());
    else REQUIRE(native_hip().copy(v.data(), pointer, n * sizeof(float), 2) == 0);
    return v;
  }
  void release() {
    if (!host_device() && pointer) native_hip().hipFree(pointer);
    pointer = nullptr;
  }
};

// Settings::dump = {ir} into `dir` for one scope (ROCJIT_DUMP=ir, ROCJIT_DUMP_DIR=dir).
struct ScopedDump {
  Settings saved = settings();
  explicit ScopedDump(const std::string& dir) {
    update_settings([&](Settings& s) {
      s.dump = settings_from_variables({{"ROCJIT_DUMP", "ir"}}).dump;
      s.dump_dir = dir;
    });
  }
  ~ScopedDump() { set_settings(saved); }
};

Kernel doubler() {
  using namespace rocjit::dsl;
  return kernel("double_strided", [](Array<float, 2, ir::Layout::strided> a) {
    Int i = global_id(1), j = global_id(0);
    If(i < a.shape(0) && j < a.shape(1), [&] { a(i, j) = a(i, j) * 2.0f; });
  });
}

std::vector<float> iota_floats(size_t n) {
  std::vector<float> v(n);
  std::iota(v.begin(), v.end(), 0.0f);
  return v;
}

}  // namespace

TEST_CASE("external_array wraps application memory: launches, copies and views use it, rocjit never frees it") {
  auto app = std::make_shared<AppBuffer>(24);
  app->write(iota_floats(24));
  bool released = false;
  {
    // The owner is what the application asks rocjit to keep alive: here the buffer itself.
    std::shared_ptr<void> owner(app.get(), [app, &released](void*) { released = true; });
    DeviceArray<float> a = external_array(static_cast<float*>(app->pointer), {4, 6},
                                          {.device = test_device(), .owner = owner, .bytes = 24 * sizeof(float)});
    owner.reset();
    CHECK(a.device_pointer() == app->pointer);
    CHECK(a.device() == test_device());
    doubler()[{{1, 1}, {8, 4}}](a);
    std::vector<float> want = iota_floats(24);
    for (float& x : want) x *= 2;
    CHECK(app->read(24) == want);              // the application sees the kernel's writes
    CHECK(a.copy_to_host().to_vector() == want);
    a.slice({{1, 3}}).fill(-1.0f);
    CHECK(app->read(24)[6] == -1.0f);
    CHECK(app->read(24)[18] == 36.0f);
    // Explicit byte strides: the same memory as a 6x4 F-order array.
    DeviceArray<float> f = external_array(static_cast<float*>(app->pointer), {6, 4},
                                          {.strides = {4, 24}, .device = test_device()});
    CHECK(f.is_f_contiguous());
    HostArray<float> hf = f.copy_to_host();
    CHECK(hf(5, 0) == 10.0f);   // element 5, doubled
    CHECK(hf(0, 1) == -1.0f);   // element 6, filled through the slice
    CHECK(hf(0, 3) == 36.0f);   // element 18, doubled
    CHECK_FALSE(released);  // views alive
  }
  CHECK(released);  // the last view is gone: the owner was released, the memory was not freed
  CHECK(app->read(1)[0] == 0.0f);
  app->release();
}

TEST_CASE("external_array refuses shapes and strides that do not fit, naming the caller's line") {
  AppBuffer app(16);
  float* p = static_cast<float*>(app.pointer);
  const Device d = test_device();
  CHECK_THROWS_AS(external_array(p, {4, 4}, {.strides = {16}, .device = d}), MemoryError);
  CHECK_THROWS_WITH(external_array(p, {4, 4}, {.strides = {16}, .device = d}),
                    Contains("interop_tests.cpp:") && Contains("1 strides for a shape of 2 dimension(s)"));
  CHECK_THROWS_WITH(external_array(p, {4, 4}, {.strides = {16, 6}, .device = d}),
                    Contains("stride 6 of dimension 1 is not a positive multiple of the element size"));
  CHECK_THROWS_WITH(external_array(p, {4, 4}, {.strides = {0, 4}, .device = d}),
                    Contains("stride 0 of dimension 0"));
  CHECK_THROWS_WITH(external_array(p, {4, 5}, {.device = d, .bytes = 64}),
                    Contains("reaches 80 bytes past the pointer, but the buffer holds 64"));
  CHECK_NOTHROW(external_array(p, {2, 2}, {.strides = {40, 4}, .device = d, .bytes = 64}));  // 48 bytes fit
  CHECK_THROWS_WITH(external_array(p, {2, 2}, {.strides = {60, 4}, .device = d, .bytes = 64}),
                    Contains("reaches 68 bytes past the pointer"));
  CHECK_THROWS_WITH(external_array(static_cast<float*>(nullptr), {4}, {.device = d}), Contains("the pointer is null"));
  CHECK_THROWS_WITH(external_array(reinterpret_cast<float*>(reinterpret_cast<char*>(p) + 2), {4}, {.device = d}),
                    Contains("is not aligned to its 4-byte elements"));
  CHECK_THROWS_WITH(external_array(p, {1, 2, 2, 2}, {.device = d}), Contains("1 to 3 dimensions"));
  CHECK_THROWS_WITH(external_array(p, {-1}, {.device = d}), Contains("negative extent"));
  // A wrapped array whose shape differs from the host data copies nothing.
  DeviceArray<float> a = external_array(p, {4, 4}, {.device = d});
  CHECK_THROWS_WITH(a.copy_to_device(std::vector<float>(15)), Contains("nothing was copied"));
  app.release();
}

TEST_CASE("streams expose their native handle, and external_stream wraps the application's") {
  using namespace rocjit::dsl;
  const Device d = test_device();
  CHECK_THROWS_WITH(external_stream(nullptr, d), Contains("the stream handle is null"));
  if (host_device()) {
    CHECK(stream(d).native_handle() == nullptr);
    CHECK(default_stream(d).native_handle() == nullptr);
    int fake = 0;
    CHECK_THROWS_AS(external_stream(&fake, d), DeviceError);
    CHECK_THROWS_WITH(external_stream(&fake, d), Contains("has no native streams"));
    return;
  }
  CHECK(default_stream(d).native_handle() == nullptr);  // HIP's null stream
  Stream own = stream(d);
  CHECK(own.native_handle() != nullptr);
  const NativeHip& hip = native_hip();
  REQUIRE(hip);
  void* native = nullptr;
  REQUIRE(hip.hipStreamCreateWithFlags(&native, 1 /* hipStreamNonBlocking */) == 0);
  {
    Stream s = external_stream(native, d);
    CHECK(s.native_handle() == native);
    CHECK(s.is_non_blocking());
    CHECK_FALSE(s.is_default());
    Kernel k = kernel("iota_on_external_stream", [](Array<float> out) {
      Int i = global_id(0);
      If(i < out.shape(0), [&] { out(i) = cast<float>(i) * 3.0f; });
    });
    auto out = device_array<float>({100}, Order::C, d);
    k[{{2}, {64}, s}](out);
    HostArray<float> h = out.copy_to_host(s);
    REQUIRE(hip.hipStreamSynchronize(native) == 0);  // the application's own wait covers rocjit's work
    s.synchronize();
    for (int i = 0; i < 100; ++i) REQUIRE(h(i) == 3.0f * i);
  }
  // rocjit did not destroy the stream: the application still can, once.
  CHECK(hip.hipStreamDestroy(native) == 0);
}

TEST_CASE("DLPack: to_dlpack and from_dlpack round-trip without copies") {
  using namespace rocjit::dsl;
  std::vector<float> v = iota_floats(12);
  DeviceArray<float> a = to_device(v, {3, 4});
  DeviceArray<float> view = a.slice({{0, 3}, {1, 4, 2}});  // columns 1 and 3
  DLManagedTensor* t = to_dlpack(view);
  REQUIRE(t != nullptr);
  const DLTensor& dl = t->dl_tensor;
  CHECK(dl.ndim == 2);
  CHECK(dl.shape[0] == 3);
  CHECK(dl.shape[1] == 2);
  CHECK(dl.strides[0] == 4);  // elements
  CHECK(dl.strides[1] == 2);
  CHECK(dl.dtype.code == kDLFloat);
  CHECK(dl.dtype.bits == 32);
  CHECK(dl.dtype.lanes == 1);
  CHECK(static_cast<char*>(dl.data) + dl.byte_offset == view.device_pointer());
  if (host_device()) {
    CHECK(dl.device.device_type == kDLCPU);
  } else {
    CHECK(dl.device.device_type == kDLROCM);
  }
  // Import it back (as another library would hand it over): the same memory.
  DeviceArray<float> b = from_dlpack<float>(t, test_device());
  CHECK(b.device_pointer() == view.device_pointer());
  CHECK(b.shape() == view.shape());
  CHECK(b.strides() == view.strides());
  doubler()[{{1, 1}, {4, 4}}](b);
  HostArray<float> h = a.copy_to_host();
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 4; ++c) CHECK(h(r, c) == (c % 2 == 1 ? 2.0f : 1.0f) * (4 * r + c));
  // The exported tensor holds the memory: dropping every rocjit handle first is safe.
  a = DeviceArray<float>();
  view = DeviceArray<float>();
  CHECK(b.copy_to_host()(2, 1) == 2.0f * 11);
  b = DeviceArray<float>();  // calls the tensor's deleter, which releases the memory
}

TEST_CASE("DLPack: from_dlpack owns a foreign tensor and calls its deleter once") {
  AppBuffer app(8);
  app.write(iota_floats(8));
  struct Context {
    int deleted = 0;
    int64_t shape[1] = {8};
  } ctx;
  DLManagedTensor t{};
  t.dl_tensor.data = app.pointer;
  t.dl_tensor.device = {host_device() ? kDLCPU : kDLROCM, 0};
  t.dl_tensor.ndim = 1;
  t.dl_tensor.dtype = {kDLFloat, 32, 1};
  t.dl_tensor.shape = ctx.shape;
  t.dl_tensor.strides = nullptr;  // compact
  t.manager_ctx = &ctx;
  t.deleter = [](DLManagedTensor* self) { ++static_cast<Context*>(self->manager_ctx)->deleted; };
  if (!host_device()) {
    // The simulator's and HIP's device ids are the HIP library's ordinals.
    DLManagedTensor* probe = to_dlpack(device_array<float>({1}));
    t.dl_tensor.device.device_id = probe->dl_tensor.device.device_id;
    probe->deleter(probe);
  }

  // Wrong element type, rank, device type, negative strides: MemoryErrors, the tensor stays ours.
  CHECK_THROWS_WITH(from_dlpack<int32_t>(&t, test_device()),
                    Contains("the tensor holds float32 but the array is of i32") && Contains("interop_tests.cpp:"));
  DLManagedTensor wrong = t;
  int64_t shape4[4] = {1, 1, 2, 4};
  wrong.dl_tensor.ndim = 4;
  wrong.dl_tensor.shape = shape4;
  CHECK_THROWS_WITH(from_dlpack<float>(&wrong, test_device()), Contains("4 dimensions"));
  wrong = t;
  wrong.dl_tensor.device = {kDLCUDA, 0};
  CHECK_THROWS_WITH(from_dlpack<float>(&wrong, test_device()), Contains("DLPack device type 2"));
  wrong = t;
  wrong.dl_tensor.device = {host_device() ? kDLROCM : kDLCPU, 0};
  CHECK_THROWS_WITH(from_dlpack<float>(&wrong, test_device()), Contains("cannot use"));
  wrong = t;
  int64_t negative[1] = {-1};
  wrong.dl_tensor.strides = negative;
  CHECK_THROWS_WITH(from_dlpack<float>(&wrong, test_device()), Contains("not a positive multiple"));
  CHECK_THROWS_WITH(from_dlpack<float>(nullptr, test_device()), Contains("null"));
  CHECK(ctx.deleted == 0);

  {
    DeviceArray<float> a = from_dlpack<float>(&t, test_device());
    CHECK(a.shape() == Shape{8});
    CHECK(a.device_pointer() == app.pointer);
    a.slice({{0, 8, 2}}).fill(9.0f);
    CHECK(ctx.deleted == 0);
  }
  CHECK(ctx.deleted == 1);
  CHECK(app.read(8) == std::vector<float>{9, 1, 9, 3, 9, 5, 9, 7});
  app.release();
}

// 32-bit element offsets (docs/design.md, "32-bit element offsets"): on AMDGPU devices a launch
// whose C and F arrays all have fewer than 2^31 elements runs a copy of the kernel compiled with
// the small_arrays promise (32-bit offsets); one with a bigger array runs the kernel as traced
// (64-bit offsets). A 65536 x 65536 view of a two-row buffer is such a bigger array that needs no
// memory beyond the rows the kernel touches. Results are the same either way, on every device.
TEST_CASE("a launch with an array of 2^31 elements or more runs 64-bit element offsets, smaller ones 32-bit") {
  using namespace rocjit::dsl;
  const bool narrows = !host_device();  // HIP and the simulator
  Kernel k = kernel("offsets_by_size", [](Array<float, 2> a) {
    Int r = global_id(1), c = global_id(0);
    a(r, c) = 1.0f;
  });
  // The .rjir the device compiled for one launch (ROCJIT_DUMP=ir into a fresh directory).
  auto launch_and_dump = [&](const Shape& shape, AppBuffer& app) {
    char pattern[] = "/tmp/rocjit-offsets-XXXXXX";
    const std::string dir = mkdtemp(pattern);
    std::string ir;
    {
      ScopedDump dump(dir);
      DeviceArray<float> a = external_array(static_cast<float*>(app.pointer), shape, {.device = test_device()});
      k[{{1, 1}, {16, 2}}](a);
      test_device().synchronize();
      for (const auto& e : std::filesystem::directory_iterator(dir)) {
        std::ifstream in(e.path());
        ir += std::string(std::istreambuf_iterator<char>(in), {});
      }
    }
    std::filesystem::remove_all(dir);
    return ir;
  };
  const size_t row = 65536;
  for (const Shape& shape : {Shape{65536, 65536}, Shape{2, 65536}}) {
    AppBuffer app(2 * row);
    app.write(std::vector<float>(2 * row, 0.0f));
    const std::string ir = launch_and_dump(shape, app);
    const std::vector<float> got = app.read(2 * row);
    for (size_t r = 0; r < 2; ++r)
      for (size_t c = 0; c < 20; ++c) CHECK(got[r * row + c] == (c < 16 ? 1.0f : 0.0f));
    CHECK(got[row - 1] == 0.0f);
    if (narrows) {
      INFO(ir);
      REQUIRE_THAT(ir, Contains("kernel @offsets_by_size"));
      if (shape[0] == 65536) CHECK_THAT(ir, !Contains("small_arrays"));  // 2^32 elements
      else CHECK_THAT(ir, Contains("small_arrays"));
    }
    app.release();
  }
}
