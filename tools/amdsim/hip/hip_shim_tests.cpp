// libamdsim-hip.so through its HIP functions alone (linked directly, as an application linking
// libamdhip64 would): devices, memory, modules, both argument conventions, code objects v4 and v5,
// stream order, events, callbacks, and launch failures that leave the process and later launches
// intact. Kernels are rocjit's saxpy sample compiled in-process.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

#include <hip/hip_runtime_api.h>

#include <atomic>
#include <cstring>
#include <string>
#include <vector>

#include "rocjit/compiler/bundle.hpp"
#include "sample_kernels.hpp"

extern "C" const char* amdsimLastError();
extern "C" void amdsimSetLaunchChecks(unsigned flags);
extern "C" const char* amdsimTakeReports();

using Catch::Matchers::Contains;

namespace {

#define HIP_OK(call) REQUIRE((call) == hipSuccess)

std::string processor() {
  hipDeviceProp_t p{};
  REQUIRE(hipInit(0) == hipSuccess);
  REQUIRE(hipGetDeviceProperties(&p, 0) == hipSuccess);
  std::string arch = p.gcnArchName;
  return arch.substr(0, arch.find(':'));
}

// saxpy(a, x, y) compiled for the simulated processor; its argument layout from the metadata.
struct Saxpy {
  rocjit::CodeObject code;
  hipModule_t module = nullptr;
  hipFunction_t function = nullptr;
  explicit Saxpy(int version) {
    rocjit::CompileOptions o;
    o.code_object_version = version;
    code = rocjit::compile(rocjit::samples::saxpy().ir(), rocjit::Target::amdgpu(processor()), o);
    HIP_OK(hipModuleLoadData(&module, code.elf.data()));
    HIP_OK(hipModuleGetFunction(&function, module, "saxpy"));
  }
  ~Saxpy() { (void)hipModuleUnload(module); }
  const rocjit::KernelArgument& arg(const std::string& name) const {
    for (const auto& a : code.kernels[0].args)
      if (a.name == name) return a;
    FAIL("no argument " << name);
    return code.kernels[0].args.front();
  }
};

struct Buffers {
  int n;
  std::vector<float> x, y;
  float *dx = nullptr, *dy = nullptr;
  explicit Buffers(int n) : n(n), x(n), y(n) {
    for (int i = 0; i < n; ++i) x[i] = float(i), y[i] = 1000.0f + i;
    HIP_OK(hipMalloc(reinterpret_cast<void**>(&dx), n * sizeof(float)));
    HIP_OK(hipMalloc(reinterpret_cast<void**>(&dy), n * sizeof(float)));
    HIP_OK(hipMemcpyAsync(dx, x.data(), n * sizeof(float), hipMemcpyHostToDevice, nullptr));
    HIP_OK(hipMemcpyAsync(dy, y.data(), n * sizeof(float), hipMemcpyHostToDevice, nullptr));
  }
  ~Buffers() {
    (void)hipFree(dx);
    (void)hipFree(dy);
  }
  // Puts the original y back (after a faulting launch that may have written part of it).
  void reset() { HIP_OK(hipMemcpyAsync(dy, y.data(), n * sizeof(float), hipMemcpyHostToDevice, nullptr)); }
  std::vector<float> result(hipStream_t s = nullptr) {
    std::vector<float> out(n);
    HIP_OK(hipMemcpyAsync(out.data(), dy, n * sizeof(float), hipMemcpyDeviceToHost, s));
    HIP_OK(hipStreamSynchronize(s));
    return out;
  }
  // y = a * x + y, `times` times over.
  std::vector<float> expected(float a, int times) {
    std::vector<float> want = y;
    for (int t = 0; t < times; ++t)
      for (int i = 0; i < n; ++i) want[i] = a * x[i] + want[i];
    return want;
  }
};

hipError_t launch(const Saxpy& k, Buffers& b, float a, hipStream_t s, int blocks = -1) {
  int n = b.n;
  void* params[] = {&a, &b.dx, &n, &b.dy, &n};
  unsigned grid = blocks >= 0 ? unsigned(blocks) : unsigned((n + 63) / 64);
  return hipModuleLaunchKernel(k.function, grid, 1, 1, 64, 1, 1, 0, s, params, nullptr);
}

}  // namespace

TEST_CASE("the simulated device describes itself as a simulator of a supported processor") {
  HIP_OK(hipInit(0));
  int count = 0;
  HIP_OK(hipGetDeviceCount(&count));
  REQUIRE(count >= 1);
  hipDeviceProp_t p{};
  HIP_OK(hipGetDeviceProperties(&p, 0));
  CHECK_THAT(std::string(p.name), Contains("simulator"));
  std::string proc = processor();
  CHECK((proc == "gfx942" || proc == "gfx90a" || proc == "gfx1100"));
  CHECK(p.warpSize == (proc == "gfx1100" ? 32 : 64));
  CHECK(p.maxThreadsPerBlock == 1024);
  CHECK(p.totalGlobalMem > 0);
  CHECK(hipGetDeviceProperties(&p, count) == hipErrorInvalidDevice);
  CHECK(hipSetDevice(count) == hipErrorInvalidDevice);
  int version = 0;
  HIP_OK(hipRuntimeGetVersion(&version));
  CHECK(version >= 50000000);
  CHECK(std::string(hipGetErrorName(hipErrorLaunchFailure)) == "hipErrorLaunchFailure");
}

TEST_CASE("hipMalloc memory is checked: bad frees and copies outside allocations are refused") {
  HIP_OK(hipInit(0));
  size_t free_before = 0, total = 0;
  HIP_OK(hipMemGetInfo(&free_before, &total));
  void* p = nullptr;
  HIP_OK(hipMalloc(&p, 4096));
  size_t free_after = 0;
  HIP_OK(hipMemGetInfo(&free_after, &total));
  CHECK(free_before - free_after == 4096);
  int local = 0;
  CHECK(hipFree(&local) == hipErrorInvalidValue);
  std::vector<char> host(8192);
  CHECK(hipMemcpyAsync(p, host.data(), 8192, hipMemcpyHostToDevice, nullptr) == hipErrorInvalidValue);
  CHECK_THAT(amdsimLastError(), Contains("destination"));
  HIP_OK(hipMemcpyAsync(p, host.data(), 4096, hipMemcpyHostToDevice, nullptr));
  HIP_OK(hipFree(p));
  CHECK(hipFree(p) == hipErrorInvalidValue);  // twice
  void* big = nullptr;
  CHECK(hipMalloc(&big, total + 1) == hipErrorOutOfMemory);

  // Registered and pinned host memory is memory the device may use.
  std::vector<float> registered(64, 1.0f);
  HIP_OK(hipHostRegister(registered.data(), 64 * sizeof(float), 0));
  CHECK(hipHostRegister(registered.data() + 8, 16, 0) == hipErrorHostMemoryAlreadyRegistered);
  void* pinned = nullptr;
  HIP_OK(hipHostMalloc(&pinned, 256, 0));
  HIP_OK(hipMemcpyAsync(pinned, registered.data(), 256, hipMemcpyDeviceToDevice, nullptr));
  CHECK(static_cast<float*>(pinned)[63] == 1.0f);
  // Mapped: the device pointer of pinned or registered memory (anywhere inside it) is its host
  // address; other host memory has none.
  void* mapped = nullptr;
  HIP_OK(hipHostGetDevicePointer(&mapped, static_cast<char*>(pinned) + 100, 0));
  CHECK(mapped == static_cast<char*>(pinned) + 100);
  HIP_OK(hipHostGetDevicePointer(&mapped, registered.data() + 63, 0));
  CHECK(mapped == registered.data() + 63);
  CHECK(hipHostGetDevicePointer(&mapped, registered.data() + 64, 0) == hipErrorInvalidValue);
  CHECK(hipHostGetDevicePointer(&mapped, host.data(), 0) == hipErrorInvalidValue);
  CHECK_THAT(amdsimLastError(), Contains("hipHostMalloc did not allocate and hipHostRegister did not register"));
  HIP_OK(hipHostFree(pinned));
  HIP_OK(hipHostUnregister(registered.data()));
  CHECK(hipHostUnregister(registered.data()) == hipErrorHostMemoryNotRegistered);
  CHECK(hipHostGetDevicePointer(&mapped, registered.data(), 0) == hipErrorInvalidValue);

  // Managed memory: one address for host and device, freed by hipFree.
  void* managed = nullptr;
  HIP_OK(hipMallocManaged(&managed, 128, hipMemAttachGlobal));
  static_cast<int*>(managed)[31] = 7;
  HIP_OK(hipMemcpyAsync(host.data(), managed, 128, hipMemcpyDeviceToHost, nullptr));
  CHECK(reinterpret_cast<int*>(host.data())[31] == 7);
  CHECK(hipMallocManaged(&managed, 128, 4) == hipErrorInvalidValue);
  HIP_OK(hipFree(managed));
}

TEST_CASE("modules: bad images and unknown kernels are errors with a message") {
  HIP_OK(hipInit(0));
  hipModule_t m = nullptr;
  const char junk[64] = "not an ELF file";
  CHECK(hipModuleLoadData(&m, junk) == hipErrorInvalidImage);
  CHECK_THAT(amdsimLastError(), Contains("not an ELF"));
  // A code object for another processor than the one simulated.
  rocjit::CodeObject other = rocjit::compile(rocjit::samples::saxpy().ir(),
                                             rocjit::Target::amdgpu(processor() == "gfx942" ? "gfx90a" : "gfx942"));
  CHECK(hipModuleLoadData(&m, other.elf.data()) == hipErrorInvalidImage);
  CHECK(std::string(amdsimLastError()).size() > 0);
  Saxpy k(4);
  hipFunction_t f = nullptr;
  CHECK(hipModuleGetFunction(&f, k.module, "nope") == hipErrorNotFound);
  CHECK_THAT(amdsimLastError(), Contains("'nope'") && Contains("saxpy"));
}

TEST_CASE("kernelParams and the extra buffer run the same kernel, code objects v4 and v5") {
  for (int version : {4, 5}) {
    CAPTURE(version);
    Saxpy k(version);
    Buffers b(1000);
    HIP_OK(launch(k, b, 2.0f, nullptr));
    CHECK(b.result() == b.expected(2.0f, 1));

    // The same arguments packed at the metadata's offsets.
    std::vector<uint8_t> buffer(k.code.kernels[0].kernarg_segment_size);
    float a = 3.0f;
    int n = b.n;
    auto put = [&](const char* name, const void* v) {
      const auto& arg = k.arg(name);
      std::memcpy(buffer.data() + arg.offset, v, arg.size);
    };
    put("a", &a);
    put("x", &b.dx);
    put("x.shape0", &n);
    put("y", &b.dy);
    put("y.shape0", &n);
    size_t size = buffer.size();
    void* extra[] = {HIP_LAUNCH_PARAM_BUFFER_POINTER, buffer.data(), HIP_LAUNCH_PARAM_BUFFER_SIZE, &size,
                     HIP_LAUNCH_PARAM_END};
    HIP_OK(hipModuleLaunchKernel(k.function, (n + 63) / 64, 1, 1, 64, 1, 1, 0, nullptr, nullptr, extra));
    std::vector<float> want = b.expected(2.0f, 1);
    for (int i = 0; i < n; ++i) want[i] = 3.0f * b.x[i] + want[i];
    CHECK(b.result() == want);
  }
}

TEST_CASE("a stream runs copies, launches, events and callbacks in order, asynchronously") {
  Saxpy k(4);
  Buffers b(777);
  hipStream_t s = nullptr;
  HIP_OK(hipStreamCreateWithFlags(&s, hipStreamNonBlocking));
  hipEvent_t start = nullptr, stop = nullptr;
  HIP_OK(hipEventCreate(&start));
  HIP_OK(hipEventCreate(&stop));
  float ms = 0;
  CHECK(hipEventElapsedTime(&ms, start, stop) == hipErrorInvalidHandle);  // never recorded
  std::atomic<int> calls{0};
  std::vector<int> order;
  struct Probe {
    std::atomic<int>* calls;
    std::vector<int>* order;
    int id;
    hipError_t status = hipErrorUnknown;
  };
  auto callback = [](hipStream_t, hipError_t status, void* user) {
    auto* p = static_cast<Probe*>(user);
    p->status = status;
    p->order->push_back(p->id);
    ++*p->calls;
  };
  Probe first{&calls, &order, 1}, second{&calls, &order, 2};
  HIP_OK(hipEventRecord(start, s));
  for (int t = 0; t < 5; ++t) HIP_OK(launch(k, b, 0.5f, s));
  HIP_OK(hipStreamAddCallback(s, callback, &first, 0));
  HIP_OK(launch(k, b, 0.5f, s));
  HIP_OK(hipEventRecord(stop, s));
  HIP_OK(hipStreamAddCallback(s, callback, &second, 0));
  std::vector<float> out(b.n);
  HIP_OK(hipMemcpyAsync(out.data(), b.dy, b.n * sizeof(float), hipMemcpyDeviceToHost, s));
  HIP_OK(hipEventSynchronize(stop));
  HIP_OK(hipEventQuery(stop));
  HIP_OK(hipStreamSynchronize(s));
  CHECK(out == b.expected(0.5f, 6));
  CHECK(calls == 2);
  CHECK(order == std::vector<int>{1, 2});
  CHECK(first.status == hipSuccess);
  HIP_OK(hipEventElapsedTime(&ms, start, stop));
  CHECK(ms >= 0);

  // A second stream waits for an event of the first.
  hipStream_t s2 = nullptr;
  HIP_OK(hipStreamCreateWithFlags(&s2, hipStreamNonBlocking));
  HIP_OK(launch(k, b, 1.0f, s));
  HIP_OK(hipEventRecord(stop, s));
  HIP_OK(hipStreamWaitEvent(s2, stop, 0));
  HIP_OK(hipMemcpyAsync(out.data(), b.dy, b.n * sizeof(float), hipMemcpyDeviceToHost, s2));
  HIP_OK(hipStreamSynchronize(s2));
  std::vector<float> want = b.expected(0.5f, 6);
  for (int i = 0; i < b.n; ++i) want[i] = b.x[i] + want[i];
  CHECK(out == want);
  HIP_OK(hipStreamSynchronize(s));
  HIP_OK(hipEventDestroy(start));
  HIP_OK(hipEventDestroy(stop));
  HIP_OK(hipStreamDestroy(s2));
  HIP_OK(hipStreamDestroy(s));
}

TEST_CASE("a kernel that faults is a launch error with the simulator's message; later launches work") {
  Saxpy k(4);
  Buffers b(256);
  float a = 1.0f;
  int n = 1 << 30;  // the kernel believes x and y are much longer than they are
  void* params[] = {&a, &b.dx, &n, &b.dy, &n};
  // Synchronous (null stream): the launch itself fails.
  CHECK(hipModuleLaunchKernel(k.function, 64, 1, 1, 64, 1, 1, 0, nullptr, params, nullptr) ==
        hipErrorLaunchFailure);
  CHECK_THAT(amdsimLastError(), Contains("saxpy") && Contains("memory"));
  b.reset();
  HIP_OK(launch(k, b, 1.0f, nullptr));
  CHECK(b.result() == b.expected(1.0f, 1));

  // Asynchronous: reported to the next callback and synchronize, then cleared.
  hipStream_t s = nullptr;
  HIP_OK(hipStreamCreateWithFlags(&s, hipStreamNonBlocking));
  hipError_t seen = hipSuccess;
  HIP_OK(hipModuleLaunchKernel(k.function, 64, 1, 1, 64, 1, 1, 0, s, params, nullptr));
  HIP_OK(hipStreamAddCallback(
      s, [](hipStream_t, hipError_t status, void* user) { *static_cast<hipError_t*>(user) = status; }, &seen, 0));
  CHECK(hipStreamSynchronize(s) == hipErrorLaunchFailure);
  CHECK(seen == hipErrorLaunchFailure);
  CHECK_THAT(amdsimLastError(), Contains("saxpy") && Contains("memory"));
  HIP_OK(hipStreamSynchronize(s));  // the error was reported once
  b.reset();
  HIP_OK(launch(k, b, 1.0f, s));
  HIP_OK(hipStreamSynchronize(s));
  CHECK(b.result() == b.expected(1.0f, 1));
  HIP_OK(hipStreamDestroy(s));
}

TEST_CASE("race checking: a launch with findings fails with the report, or keeps it for amdsimTakeReports") {
  Saxpy k(4);
  Buffers b(256);
  float a = 2.0f;
  int n = 255;
  // x is y shifted by one element: work-item i reads y[i + 1], which work-item i + 1 writes (in
  // the same wave, and across the groups' boundaries at 64, 128 and 192).
  float* shifted = b.dy + 1;
  void* params[] = {&a, &shifted, &n, &b.dy, &n};
  amdsimSetLaunchChecks(1);
  CHECK(hipModuleLaunchKernel(k.function, 4, 1, 1, 64, 1, 1, 0, nullptr, params, nullptr) == hipErrorLaunchFailure);
  // One finding per pair of sites: the pairs across the groups' boundaries have the same sites.
  // The finding describes the instance seen first, and amdsim runs work-groups on several
  // threads: two lanes of one wavefront, or two work-groups (under load, a later group can
  // reach the pair first).
  CHECK_THAT(amdsimLastError(), Contains("race check: kernel 'saxpy'") &&
                                    (Contains("lanes of one wavefront") || Contains("different work-groups of one launch")) &&
                                    Contains("1 race and 0 uninitialised shared reads") &&
                                    Contains("(ROCJIT_CHECK=races)"));
  // Report-only on a stream: the launch succeeds, the report waits for amdsimTakeReports.
  amdsimSetLaunchChecks(1 | 4);
  hipStream_t s = nullptr;
  HIP_OK(hipStreamCreateWithFlags(&s, hipStreamNonBlocking));
  HIP_OK(hipModuleLaunchKernel(k.function, 4, 1, 1, 64, 1, 1, 0, s, params, nullptr));
  amdsimSetLaunchChecks(0);  // the queued launch keeps the checks it was submitted with
  HIP_OK(hipStreamSynchronize(s));
  CHECK_THAT(std::string(amdsimTakeReports()), Contains("race check: kernel 'saxpy'"));
  CHECK(std::string(amdsimTakeReports()).empty());
  // Unchecked: nothing.
  HIP_OK(hipModuleLaunchKernel(k.function, 4, 1, 1, 64, 1, 1, 0, s, params, nullptr));
  HIP_OK(hipStreamSynchronize(s));
  CHECK(std::string(amdsimTakeReports()).empty());
  HIP_OK(hipStreamDestroy(s));
  // A clean launch under the checker succeeds and reports nothing.
  amdsimSetLaunchChecks(1);
  b.reset();
  HIP_OK(launch(k, b, 1.0f, nullptr));
  CHECK(b.result() == b.expected(1.0f, 1));
  amdsimSetLaunchChecks(0);
}

TEST_CASE("modules: a clang-offload-bundler fat binary loads the entry for the simulated processor") {
  HIP_OK(hipInit(0));
  const std::string mine = processor(), other = mine == "gfx942" ? "gfx90a" : "gfx942";
  const rocjit::CodeObject code = rocjit::compile(rocjit::samples::saxpy().ir(), rocjit::Target::amdgpu(mine));
  const rocjit::CodeObject foreign = rocjit::compile(rocjit::samples::saxpy().ir(), rocjit::Target::amdgpu(other));
  // The wrong processor's code object first: picking by position would load it and fail.
  const std::vector<uint8_t> fat = rocjit::bundle::fat_binary_of({{other, foreign.elf}, {mine, code.elf}});
  hipModule_t m = nullptr;
  HIP_OK(hipModuleLoadData(&m, fat.data()));
  hipFunction_t f = nullptr;
  HIP_OK(hipModuleGetFunction(&f, m, "saxpy"));
  HIP_OK(hipModuleUnload(m));

  const std::vector<uint8_t> without = rocjit::bundle::fat_binary_of({{other, foreign.elf}});
  CHECK(hipModuleLoadData(&m, without.data()) == hipErrorNoBinaryForGpu);
  CHECK_THAT(amdsimLastError(), Contains("no code object for " + mine) && Contains("hipv4-amdgcn-amd-amdhsa--" + other));
}
