// libamdsim-hip.so: the HIP runtime functions rocjit loads (runtime/hip/hip_api.hpp), implemented
// on the amdsim simulator, so the runtime's unchanged HIP device runs AMDGPU code objects on the
// host. The signatures are ROCm 5.2's (<hip/hip_runtime_api.h> is included, so the compiler checks
// them); every function has C linkage.
//
// Devices: AMDSIM_PROCESSOR is a processor (default gfx942), a comma-separated list of them, or
// "all"; device i simulates the i-th. All devices share one address space (amdsim::Memory).
// Streams: the null stream runs each operation in the calling thread; every other stream is an
// ordered queue run by a worker thread of its own. A failed launch (memory fault, unknown
// instruction, trap) never ends the process: a synchronous launch returns hipErrorLaunchFailure,
// an asynchronous one hands it to later callbacks and to the next hipStreamSynchronize. The
// simulator's message goes to stderr and to amdsimLastError().
// AMDSIM_HIP_VERSION sets what hipRuntimeGetVersion reports (60000000 selects code object v5 in
// rocjit); the default is ROCm 5.2's.
#ifndef __HIP_PLATFORM_AMD__
#define __HIP_PLATFORM_AMD__
#endif
#include <hip/hip_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "amdsim/amdsim.hpp"

#include <llvm/Object/OffloadBundle.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/MemoryBuffer.h>

#define AMDSIM_EXPORT extern "C" __attribute__((visibility("default")))

// The handle types of the HIP header are pointers to these incomplete structs.
struct ihipStream_t;
struct ihipEvent_t;
struct ihipModule_t;
struct ihipModuleSymbol_t;

namespace {

using Clock = std::chrono::steady_clock;

// ---- errors ------------------------------------------------------------------------------------

// The message of the last failing call on this thread (what amdsimLastError() returns).
thread_local std::string last_error_message;

hipError_t fail(hipError_t code, std::string message) {
  last_error_message = std::move(message);
  return code;
}

// ---- devices -----------------------------------------------------------------------------------

constexpr size_t kTotalMemory = size_t(4) << 30;  // what each device reports; the host backs it

struct Device {
  amdsim::Processor processor;
};

struct State {
  std::mutex lock;
  bool initialised = false;
  hipError_t init_error = hipSuccess;
  std::string init_message;
  std::vector<Device> devices;
  amdsim::LaunchOptions options;
  int runtime_version = 50221151;  // ROCm 5.2.3
  amdsim::Memory memory;
  size_t device_bytes = 0;                 // by hipMalloc
  std::map<void*, size_t> device_allocs;   // hipMalloc
  std::map<void*, size_t> host_allocs;     // hipHostMalloc: start -> bytes
  std::map<uintptr_t, size_t> registered;  // hipHostRegister: start -> bytes
};

State& state() {
  static State* s = new State;  // never destroyed: streams may still run at exit
  return *s;
}

thread_local int current_device = 0;

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t end = s.find(sep, start);
    if (end == std::string::npos) end = s.size();
    std::string part = s.substr(start, end - start);
    part.erase(0, part.find_first_not_of(" \t"));
    part.erase(part.find_last_not_of(" \t") + 1);
    if (!part.empty()) out.push_back(part);
    start = end + 1;
  }
  return out;
}

// Reads the environment once. Returns the initialisation result (sticky).
hipError_t initialise() {
  State& s = state();
  std::lock_guard<std::mutex> g(s.lock);
  if (s.initialised) {
    if (s.init_error != hipSuccess) last_error_message = s.init_message;
    return s.init_error;
  }
  s.initialised = true;
  try {
    const char* env = std::getenv("AMDSIM_PROCESSOR");
    std::string spec = env && *env ? env : "gfx942";
    std::vector<std::string> names = spec == "all" ? amdsim::Processor::supported() : split(spec, ',');
    if (names.empty()) throw amdsim::Error("AMDSIM_PROCESSOR='" + spec + "' names no processor");
    for (const auto& n : names) s.devices.push_back(Device{amdsim::Processor::get(n)});
    if (const char* v = std::getenv("AMDSIM_HIP_VERSION"); v && *v) {
      char* end = nullptr;
      long version = std::strtol(v, &end, 10);
      if (*end || version <= 0)
        throw amdsim::Error(std::string("AMDSIM_HIP_VERSION='") + v +
                            "' is not a HIP runtime version (e.g. 50221151 for 5.2, 60000000 for 6.0)");
      s.runtime_version = static_cast<int>(version);
    }
    s.options = amdsim::options_from_environment();
  } catch (const std::exception& e) {
    s.devices.clear();
    s.init_error = hipErrorInvalidDevice;
    s.init_message = std::string("amdsim-hip: ") + e.what();
    std::fprintf(stderr, "%s\n", s.init_message.c_str());
    last_error_message = s.init_message;
  }
  return s.init_error;
}

// Every entry point but hipGetErrorName starts here.
#define AMDSIM_INIT()                                 \
  do {                                                \
    if (hipError_t e_ = initialise(); e_ != hipSuccess) return e_; \
  } while (0)

const Device& device(int index) { return state().devices[static_cast<size_t>(index)]; }

// ---- events ------------------------------------------------------------------------------------

struct EventState {
  std::mutex lock;
  std::condition_variable changed;
  uint64_t recorded = 0;   // generations: hipEventRecord increments `recorded`
  uint64_t completed = 0;  // the generation whose completion `time` is
  Clock::time_point time;

  void complete(uint64_t generation) {
    {
      std::lock_guard<std::mutex> g(lock);
      if (generation > completed) {
        completed = generation;
        time = Clock::now();
      }
    }
    changed.notify_all();
  }
  void wait_for(uint64_t generation) {
    std::unique_lock<std::mutex> g(lock);
    changed.wait(g, [&] { return completed >= generation; });
  }
};

}  // namespace

struct ihipEvent_t {
  std::shared_ptr<EventState> state = std::make_shared<EventState>();
};

// ---- modules and kernels -----------------------------------------------------------------------

struct ihipModuleSymbol_t {
  std::shared_ptr<amdsim::Program> program;
  const amdsim::KernelInfo* kernel = nullptr;
};

struct ihipModule_t {
  std::vector<uint8_t> elf;
  std::shared_ptr<amdsim::Program> program;
  std::map<std::string, std::unique_ptr<ihipModuleSymbol_t>> functions;
};

// ---- streams -----------------------------------------------------------------------------------

struct ihipStream_t {
  using Operation = std::function<hipError_t(hipError_t pending)>;

  explicit ihipStream_t(bool blocking) : blocking(blocking), worker([this] { run(); }) {}
  ~ihipStream_t() {
    {
      std::lock_guard<std::mutex> g(lock);
      stopping = true;
    }
    changed.notify_all();
    worker.join();
  }

  // Operations receive the stream's pending error (hipSuccess or the first failure since the
  // last synchronize) and return their own result; a failure becomes the pending error.
  void enqueue(Operation op) {
    {
      std::lock_guard<std::mutex> g(lock);
      queue.push_back(std::move(op));
      ++submitted;
    }
    changed.notify_all();
  }

  // Waits for everything enqueued so far; returns and clears the pending error.
  hipError_t synchronize(std::string* message) {
    std::unique_lock<std::mutex> g(lock);
    uint64_t target = submitted;
    changed.wait(g, [&] { return finished >= target; });
    hipError_t e = pending;
    if (message) *message = pending_message;
    pending = hipSuccess;
    pending_message.clear();
    return e;
  }

  void run() {
    for (;;) {
      Operation op;
      hipError_t error;
      {
        std::unique_lock<std::mutex> g(lock);
        changed.wait(g, [&] { return stopping || !queue.empty(); });
        if (queue.empty()) return;  // stopping, and everything ran
        op = std::move(queue.front());
        queue.pop_front();
        error = pending;
      }
      last_error_message.clear();
      hipError_t result = op(error);
      {
        std::lock_guard<std::mutex> g(lock);
        if (result != hipSuccess && pending == hipSuccess) {
          pending = result;
          pending_message = last_error_message;
        }
        ++finished;
      }
      changed.notify_all();
    }
  }

  const bool blocking;  // created without hipStreamNonBlocking: the null stream waits for it
  std::mutex lock;
  std::condition_variable changed;
  std::deque<Operation> queue;
  uint64_t submitted = 0, finished = 0;
  hipError_t pending = hipSuccess;
  std::string pending_message;
  bool stopping = false;
  std::thread worker;  // last: starts after the members above exist
};

namespace {

std::mutex streams_lock;
std::set<ihipStream_t*>& streams() {
  static auto* s = new std::set<ihipStream_t*>;
  return *s;
}

bool valid_stream(hipStream_t s) {
  if (!s) return true;
  std::lock_guard<std::mutex> g(streams_lock);
  return streams().count(s) != 0;
}

// The null stream synchronises with every blocking stream before its own operations (HIP's
// legacy default stream). rocjit's streams are non-blocking, so this never waits for them.
void wait_for_blocking_streams() {
  std::vector<ihipStream_t*> blocking;
  {
    std::lock_guard<std::mutex> g(streams_lock);
    for (auto* s : streams())
      if (s->blocking) blocking.push_back(s);
  }
  for (auto* s : blocking) {
    std::unique_lock<std::mutex> g(s->lock);
    uint64_t target = s->submitted;
    s->changed.wait(g, [&] { return s->finished >= target; });
  }
}

// Runs `op` now on the null stream, or queues it on `stream`.
hipError_t submit(hipStream_t stream, ihipStream_t::Operation op) {
  if (!stream) {
    wait_for_blocking_streams();
    return op(hipSuccess);
  }
  stream->enqueue(std::move(op));
  return hipSuccess;
}

// ---- memory ------------------------------------------------------------------------------------

bool device_range(const void* p, size_t bytes) {
  return state().memory.contains(reinterpret_cast<uint64_t>(p), std::max<size_t>(bytes, 1));
}

constexpr std::string_view offload_bundle_magic = "__CLANG_OFFLOAD_BUNDLE__";

bool is_offload_bundle(const void* image) {
  return image && std::memcmp(image, offload_bundle_magic.data(), offload_bundle_magic.size()) == 0;
}

// The code object for `processor` in a clang-offload-bundler fat binary (uncompressed; its entries
// read by LLVM's OffloadBundleFatBin), or null with `why`. The image's extent is the end of its
// furthest entry, found from the header first (hipModuleLoadData is given no size).
const void* offload_bundle_entry(const uint8_t* p, const std::string& processor, std::string& why) {
  auto u64 = [&](size_t off) { uint64_t v; std::memcpy(&v, p + off, 8); return v; };
  constexpr uint64_t kLimit = uint64_t(1) << 32;
  const uint64_t count = u64(offload_bundle_magic.size());
  uint64_t at = offload_bundle_magic.size() + 8, end = at;
  if (count > 4096) {
    why = "the fat binary's entry count is implausible";
    return nullptr;
  }
  for (uint64_t i = 0; i < count; ++i) {
    const uint64_t offset = u64(at), size = u64(at + 8), id = u64(at + 16);
    if (offset > kLimit || size > kLimit || id > 4096) {
      why = "the fat binary's header is malformed";
      return nullptr;
    }
    at += 24 + id;
    end = std::max({end, at, offset + size});
  }
  llvm::MemoryBufferRef buffer(llvm::StringRef(reinterpret_cast<const char*>(p), end), "hipModuleLoadData image");
  auto fat = llvm::object::OffloadBundleFatBin::create(buffer, 0, "hipModuleLoadData image");
  if (!fat) {
    why = "not a readable fat binary: " + llvm::toString(fat.takeError());
    return nullptr;
  }
  std::string ids;
  for (const llvm::object::OffloadBundleEntry& e : (*fat)->getEntries()) {
    ids += (ids.empty() ? "" : ", ") + e.ID;
    // "hipv4-amdgcn-amd-amdhsa--gfx90a[:sramecc+:xnack-]": the target id after the triple.
    const size_t triple = e.ID.find("amdgcn-amd-amdhsa-");
    const size_t dash = triple == std::string::npos ? std::string::npos : e.ID.find('-', triple + 18);
    if (dash == std::string::npos || e.Size == 0) continue;
    const std::string target_id = e.ID.substr(dash + 1);
    if (target_id.substr(0, target_id.find(':')) == processor) return p + e.Offset;
  }
  why = "the fat binary has no code object for " + processor + " (entries: " + (ids.empty() ? "none" : ids) + ")";
  return nullptr;
}

size_t elf_size(const uint8_t* p, std::string& why) {
  // Only the headers are read; the image ends with its last section, program segment or the
  // section header table, whichever is furthest.
  static const uint8_t magic[4] = {0x7f, 'E', 'L', 'F'};
  if (!p) {
    why = "the image pointer is null";
    return 0;
  }
  if (std::memcmp(p, magic, 4) != 0) {
    why = "the image is not an ELF file (no \\x7fELF magic); amdsim loads AMDGPU code objects only";
    return 0;
  }
  if (p[4] != 2 || p[5] != 1) {
    why = "the image is not a 64-bit little-endian ELF file";
    return 0;
  }
  auto u16 = [&](size_t off) { uint16_t v; std::memcpy(&v, p + off, 2); return uint64_t(v); };
  auto u32 = [&](size_t off) { uint32_t v; std::memcpy(&v, p + off, 4); return uint64_t(v); };
  auto u64 = [&](size_t off) { uint64_t v; std::memcpy(&v, p + off, 8); return v; };
  const uint64_t ehsize = u16(52), phoff = u64(32), phentsize = u16(54), phnum = u16(56);
  const uint64_t shoff = u64(40), shentsize = u16(58), shnum = u16(60);
  constexpr uint64_t kLimit = uint64_t(1) << 32;  // no code object is this large
  if (phnum && (phentsize < 56 || phoff > kLimit)) {
    why = "the ELF program header table is malformed";
    return 0;
  }
  if (shnum && (shentsize < 64 || shoff > kLimit)) {
    why = "the ELF section header table is malformed";
    return 0;
  }
  uint64_t size = std::max<uint64_t>(ehsize, 64);
  size = std::max(size, phoff + phnum * phentsize);
  size = std::max(size, shoff + shnum * shentsize);
  for (uint64_t i = 0; i < phnum; ++i) {
    size_t h = phoff + i * phentsize;
    uint64_t offset = u64(h + 8), filesz = u64(h + 32);
    if (offset > kLimit || filesz > kLimit) {
      why = "an ELF program header has an impossible offset or size";
      return 0;
    }
    size = std::max(size, offset + filesz);
  }
  for (uint64_t i = 0; i < shnum; ++i) {
    size_t h = shoff + i * shentsize;
    uint64_t type = u32(h + 4), offset = u64(h + 24), bytes = u64(h + 32);
    if (type == 8 /* SHT_NOBITS */ || type == 0 /* SHT_NULL */) continue;
    if (offset > kLimit || bytes > kLimit) {
      why = "an ELF section header has an impossible offset or size";
      return 0;
    }
    size = std::max(size, offset + bytes);
  }
  return static_cast<size_t>(size);
}

// amdsimSetLaunchChecks: what the launches this thread submits next check (the race checker).
constexpr unsigned check_races = 1, check_same_value = 2, check_report_only = 4;
thread_local unsigned launch_checks = 0;
// Reports of checked launches that succeeded (report-only), until amdsimTakeReports.
std::mutex reports_lock;
std::string pending_reports;
thread_local std::string taken_reports;

// Runs one launch; never throws. A race-checked launch with findings fails with the report as
// its message, unless report-only: then the report waits for amdsimTakeReports.
hipError_t run_launch(const std::shared_ptr<amdsim::Program>& program, const amdsim::KernelInfo* kernel,
                      amdsim::Dim3 grid, amdsim::Dim3 block, uint32_t lds, const std::vector<uint8_t>& kernargs,
                      unsigned checks) {
  try {
    amdsim::LaunchOptions options = state().options;
    options.check_races = (checks & check_races) != 0;
    options.check_same_value = (checks & check_same_value) != 0;
    amdsim::LaunchStats stats = amdsim::launch(*program, *kernel, grid, block, lds, kernargs, state().memory, options);
    if (!stats.race_report.empty()) {
      if (!(checks & check_report_only)) return fail(hipErrorLaunchFailure, std::move(stats.race_report));
      std::lock_guard<std::mutex> g(reports_lock);
      if (!pending_reports.empty()) pending_reports += '\n';
      pending_reports += stats.race_report;
    }
    return hipSuccess;
  } catch (const std::exception& e) {
    std::string message = e.what();  // amdsim's messages name the kernel
    if (message.find(kernel->name) == std::string::npos)
      message = "amdsim: kernel '" + kernel->name + "' failed: " + message;
    std::fprintf(stderr, "%s\n", message.c_str());
    return fail(hipErrorLaunchFailure, std::move(message));
  }
}

const char* error_name(hipError_t e) {
  switch (e) {
#define AMDSIM_NAME(x) \
  case x:              \
    return #x;
    AMDSIM_NAME(hipSuccess)
    AMDSIM_NAME(hipErrorInvalidValue)
    AMDSIM_NAME(hipErrorOutOfMemory)
    AMDSIM_NAME(hipErrorNotInitialized)
    AMDSIM_NAME(hipErrorDeinitialized)
    AMDSIM_NAME(hipErrorInvalidConfiguration)
    AMDSIM_NAME(hipErrorInvalidDevicePointer)
    AMDSIM_NAME(hipErrorInvalidMemcpyDirection)
    AMDSIM_NAME(hipErrorInvalidDeviceFunction)
    AMDSIM_NAME(hipErrorNoDevice)
    AMDSIM_NAME(hipErrorInvalidDevice)
    AMDSIM_NAME(hipErrorInvalidImage)
    AMDSIM_NAME(hipErrorInvalidContext)
    AMDSIM_NAME(hipErrorInvalidHandle)
    AMDSIM_NAME(hipErrorNotFound)
    AMDSIM_NAME(hipErrorNotReady)
    AMDSIM_NAME(hipErrorIllegalAddress)
    AMDSIM_NAME(hipErrorLaunchOutOfResources)
    AMDSIM_NAME(hipErrorHostMemoryAlreadyRegistered)
    AMDSIM_NAME(hipErrorHostMemoryNotRegistered)
    AMDSIM_NAME(hipErrorLaunchFailure)
    AMDSIM_NAME(hipErrorNotSupported)
    AMDSIM_NAME(hipErrorUnknown)
#undef AMDSIM_NAME
    default:
      return "hipErrorUnknown";
  }
}

}  // namespace

// ---- the exported functions ----------------------------------------------------------------------

// The simulator's message for the last failing call on this thread ("" when there is none).
AMDSIM_EXPORT const char* amdsimLastError() { return last_error_message.c_str(); }

// The race and sync checker (docs/debugging.md, "Race checking"): flags for the launches this
// thread submits next (1: check races, 2: report racing writes of the value already held,
// 4: report-only: a launch with findings succeeds and its report waits for amdsimTakeReports).
AMDSIM_EXPORT void amdsimSetLaunchChecks(unsigned flags) { launch_checks = flags; }
// The reports of report-only checked launches that finished since the last call ("" if none),
// valid until this thread's next call.
AMDSIM_EXPORT const char* amdsimTakeReports() {
  std::lock_guard<std::mutex> g(reports_lock);
  taken_reports = std::move(pending_reports);
  pending_reports.clear();
  return taken_reports.c_str();
}

AMDSIM_EXPORT hipError_t hipInit(unsigned int flags) {
  if (flags != 0) return fail(hipErrorInvalidValue, "amdsim-hip: hipInit flags must be 0");
  return initialise();
}

AMDSIM_EXPORT hipError_t hipGetDeviceCount(int* count) {
  if (!count) return hipErrorInvalidValue;
  if (hipError_t e = initialise(); e != hipSuccess) {
    *count = 0;
    return hipErrorNoDevice;
  }
  *count = static_cast<int>(state().devices.size());
  return hipSuccess;
}

AMDSIM_EXPORT hipError_t hipGetDeviceProperties(hipDeviceProp_t* props, int index) {
  AMDSIM_INIT();
  if (!props) return hipErrorInvalidValue;
  if (index < 0 || static_cast<size_t>(index) >= state().devices.size()) return hipErrorInvalidDevice;
  const amdsim::Processor& p = device(index).processor;
  hipDeviceProp_t d{};
  std::snprintf(d.name, sizeof d.name, "AMD GPU simulator (amdsim, %s)", p.name.c_str());
  // gfx9 processors report their target features like a real device; gfx11 has none.
  if (p.major == 9)
    std::snprintf(d.gcnArchName, sizeof d.gcnArchName, "%s:sramecc+:xnack-", p.name.c_str());
  else
    std::snprintf(d.gcnArchName, sizeof d.gcnArchName, "%s", p.name.c_str());
  d.totalGlobalMem = kTotalMemory;
  d.sharedMemPerBlock = p.lds_bytes;
  d.maxSharedMemoryPerMultiProcessor = p.lds_bytes;
  d.regsPerBlock = 65536;
  d.warpSize = p.default_wave_size;
  d.maxThreadsPerBlock = 1024;
  d.maxThreadsDim[0] = d.maxThreadsDim[1] = d.maxThreadsDim[2] = 1024;
  d.maxGridSize[0] = 2147483647;
  d.maxGridSize[1] = d.maxGridSize[2] = 65535;
  d.clockRate = 1700000;  // kHz
  d.memoryClockRate = 1600000;
  d.memoryBusWidth = 4096;
  d.totalConstMem = 2147483647;
  d.major = p.major;
  d.minor = 0;
  d.multiProcessorCount = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  d.l2CacheSize = 8 << 20;
  d.maxThreadsPerMultiProcessor = 2048;
  d.clockInstructionRate = 1000000;
  d.concurrentKernels = 1;
  d.canMapHostMemory = 1;
  d.gcnArch = 0;
  std::string digits = p.name.substr(3);
  d.gcnArch = static_cast<int>(std::strtol(digits.c_str(), nullptr, 10));  // 942, 1100; 90a -> 90
  d.arch.hasGlobalInt32Atomics = d.arch.hasGlobalFloatAtomicExch = d.arch.hasSharedInt32Atomics = 1;
  d.arch.hasSharedFloatAtomicExch = d.arch.hasFloatAtomicAdd = d.arch.hasGlobalInt64Atomics = 1;
  d.arch.hasSharedInt64Atomics = d.arch.hasDoubles = d.arch.hasWarpVote = d.arch.hasWarpBallot = 1;
  d.arch.hasWarpShuffle = d.arch.hasFunnelShift = d.arch.hasThreadFenceSystem = d.arch.hasSyncThreadsExt = 1;
  d.arch.has3dGrid = 1;
  d.memPitch = 2147483647;
  d.textureAlignment = 256;
  d.texturePitchAlignment = 256;
  d.managedMemory = 0;
  d.pageableMemoryAccess = 0;
  *props = d;
  return hipSuccess;
}

AMDSIM_EXPORT hipError_t hipSetDevice(int index) {
  AMDSIM_INIT();
  if (index < 0 || static_cast<size_t>(index) >= state().devices.size())
    return fail(hipErrorInvalidDevice, "amdsim-hip: no device " + std::to_string(index));
  current_device = index;
  return hipSuccess;
}

AMDSIM_EXPORT hipError_t hipRuntimeGetVersion(int* version) {
  AMDSIM_INIT();
  if (!version) return hipErrorInvalidValue;
  *version = state().runtime_version;
  return hipSuccess;
}

AMDSIM_EXPORT const char* hipGetErrorName(hipError_t e) { return error_name(e); }

AMDSIM_EXPORT hipError_t hipMalloc(void** ptr, size_t bytes) {
  AMDSIM_INIT();
  if (!ptr) return hipErrorInvalidValue;
  *ptr = nullptr;
  if (bytes == 0) return hipSuccess;
  State& s = state();
  std::lock_guard<std::mutex> g(s.lock);
  if (bytes > kTotalMemory - s.device_bytes)
    return fail(hipErrorOutOfMemory, "amdsim-hip: hipMalloc of " + std::to_string(bytes) + " bytes exceeds the " +
                                         std::to_string(kTotalMemory - s.device_bytes) + " bytes left");
  try {
    void* p = s.memory.allocate(bytes);
    if (!p) return hipErrorOutOfMemory;
    s.device_allocs[p] = bytes;
    s.device_bytes += bytes;
    *ptr = p;
    return hipSuccess;
  } catch (const std::exception& e) {
    return fail(hipErrorOutOfMemory, std::string("amdsim-hip: hipMalloc: ") + e.what());
  }
}

// Managed memory is host memory the simulated devices access at the same address: what
// hipMalloc returns already (all of amdsim's memory is the host's), freed by hipFree.
AMDSIM_EXPORT hipError_t hipMallocManaged(void** ptr, size_t bytes, unsigned int flags) {
  AMDSIM_INIT();
  if (flags != hipMemAttachGlobal && flags != hipMemAttachHost)
    return fail(hipErrorInvalidValue, "amdsim-hip: hipMallocManaged: flags must be hipMemAttachGlobal or "
                                      "hipMemAttachHost");
  return hipMalloc(ptr, bytes);
}

AMDSIM_EXPORT hipError_t hipFree(void* p) {
  AMDSIM_INIT();
  if (!p) return hipSuccess;
  State& s = state();
  std::lock_guard<std::mutex> g(s.lock);
  auto it = s.device_allocs.find(p);
  if (it == s.device_allocs.end() || !s.memory.release(p))
    return fail(hipErrorInvalidValue, "amdsim-hip: hipFree of a pointer hipMalloc did not return (or freed twice)");
  s.device_bytes -= it->second;
  s.device_allocs.erase(it);
  return hipSuccess;
}

AMDSIM_EXPORT hipError_t hipMemGetInfo(size_t* free, size_t* total) {
  AMDSIM_INIT();
  if (!free || !total) return hipErrorInvalidValue;
  State& s = state();
  std::lock_guard<std::mutex> g(s.lock);
  *total = kTotalMemory;
  *free = kTotalMemory - s.device_bytes;
  return hipSuccess;
}

AMDSIM_EXPORT hipError_t hipHostMalloc(void** ptr, size_t bytes, unsigned int flags) {
  AMDSIM_INIT();
  if (!ptr) return hipErrorInvalidValue;
  *ptr = nullptr;
  if (bytes == 0) return hipSuccess;
  State& s = state();
  std::lock_guard<std::mutex> g(s.lock);
  try {
    void* p = s.memory.allocate(bytes);  // host memory the simulated device may access
    if (!p) return hipErrorOutOfMemory;
    s.host_allocs[p] = bytes;
    *ptr = p;
    return hipSuccess;
  } catch (const std::exception& e) {
    return fail(hipErrorOutOfMemory, std::string("amdsim-hip: hipHostMalloc: ") + e.what());
  }
}

AMDSIM_EXPORT hipError_t hipHostFree(void* p) {
  AMDSIM_INIT();
  if (!p) return hipSuccess;
  State& s = state();
  std::lock_guard<std::mutex> g(s.lock);
  if (!s.host_allocs.count(p) || !s.memory.release(p))
    return fail(hipErrorInvalidValue, "amdsim-hip: hipHostFree of a pointer hipHostMalloc did not return");
  s.host_allocs.erase(p);
  return hipSuccess;
}

AMDSIM_EXPORT hipError_t hipHostRegister(void* p, size_t bytes, unsigned int flags) {
  AMDSIM_INIT();
  if (!p || bytes == 0) return hipErrorInvalidValue;
  State& s = state();
  std::lock_guard<std::mutex> g(s.lock);
  uintptr_t start = reinterpret_cast<uintptr_t>(p);
  auto next = s.registered.upper_bound(start);
  bool overlaps = (next != s.registered.end() && next->first < start + bytes);
  if (next != s.registered.begin()) {
    auto prev = std::prev(next);
    overlaps |= prev->first + prev->second > start;
  }
  if (overlaps)
    return fail(hipErrorHostMemoryAlreadyRegistered, "amdsim-hip: hipHostRegister: the range is already registered");
  s.memory.add_host_range(p, bytes);
  s.registered[start] = bytes;
  return hipSuccess;
}

// Mapped host memory: the simulated devices use the host's addresses, so the device pointer of
// memory inside a hipHostMalloc block or a registered range is the host pointer itself.
AMDSIM_EXPORT hipError_t hipHostGetDevicePointer(void** device_pointer, void* host_pointer, unsigned int flags) {
  AMDSIM_INIT();
  if (!device_pointer || !host_pointer || flags != 0) return hipErrorInvalidValue;
  *device_pointer = nullptr;
  State& s = state();
  std::lock_guard<std::mutex> g(s.lock);
  const auto at = reinterpret_cast<uintptr_t>(host_pointer);
  auto inside = [&](const auto& blocks) {
    auto it = blocks.upper_bound(reinterpret_cast<typename std::decay_t<decltype(blocks)>::key_type>(at));
    if (it == blocks.begin()) return false;
    --it;
    const auto start = reinterpret_cast<uintptr_t>(it->first);
    return at < start + it->second;
  };
  if (!inside(s.host_allocs) && !inside(s.registered))
    return fail(hipErrorInvalidValue, "amdsim-hip: hipHostGetDevicePointer of memory that hipHostMalloc did not "
                                      "allocate and hipHostRegister did not register");
  *device_pointer = host_pointer;
  return hipSuccess;
}

AMDSIM_EXPORT hipError_t hipHostUnregister(void* p) {
  AMDSIM_INIT();
  State& s = state();
  std::lock_guard<std::mutex> g(s.lock);
  auto it = s.registered.find(reinterpret_cast<uintptr_t>(p));
  if (it == s.registered.end() || !s.memory.release(p))
    return fail(hipErrorHostMemoryNotRegistered, "amdsim-hip: hipHostUnregister of memory hipHostRegister did not register");
  s.registered.erase(it);
  return hipSuccess;
}

AMDSIM_EXPORT hipError_t hipMemcpyAsync(void* dst, const void* src, size_t bytes, hipMemcpyKind kind,
                                        hipStream_t stream) {
  AMDSIM_INIT();
  if (!valid_stream(stream)) return hipErrorInvalidHandle;
  if (bytes == 0) return hipSuccess;
  if (!dst || !src) return fail(hipErrorInvalidValue, "amdsim-hip: hipMemcpyAsync with a null pointer");
  bool dst_device = device_range(dst, bytes), src_device = device_range(src, bytes);
  const char* wrong = nullptr;
  switch (kind) {
    case hipMemcpyHostToDevice: wrong = dst_device ? nullptr : "the destination is not device memory"; break;
    case hipMemcpyDeviceToHost: wrong = src_device ? nullptr : "the source is not device memory"; break;
    case hipMemcpyDeviceToDevice:
      wrong = !src_device ? "the source is not device memory" : !dst_device ? "the destination is not device memory"
                                                                            : nullptr;
      break;
    case hipMemcpyHostToHost:
    case hipMemcpyDefault: break;
    default: return fail(hipErrorInvalidMemcpyDirection, "amdsim-hip: hipMemcpyAsync: unknown direction");
  }
  if (wrong)
    return fail(hipErrorInvalidValue, std::string("amdsim-hip: hipMemcpyAsync of ") + std::to_string(bytes) +
                                          " bytes: " + wrong + " (or the range runs past its allocation)");
  return submit(stream, [=](hipError_t) {
    std::memmove(dst, src, bytes);
    return hipSuccess;
  });
}

AMDSIM_EXPORT hipError_t hipStreamCreateWithFlags(hipStream_t* stream, unsigned int flags) {
  AMDSIM_INIT();
  if (!stream) return hipErrorInvalidValue;
  if (flags & ~unsigned(hipStreamNonBlocking)) return hipErrorInvalidValue;
  auto* s = new ihipStream_t((flags & hipStreamNonBlocking) == 0);
  {
    std::lock_guard<std::mutex> g(streams_lock);
    streams().insert(s);
  }
  *stream = s;
  return hipSuccess;
}

AMDSIM_EXPORT hipError_t hipStreamGetFlags(hipStream_t stream, unsigned int* flags) {
  AMDSIM_INIT();
  if (!flags) return hipErrorInvalidValue;
  if (!valid_stream(stream)) return hipErrorInvalidHandle;
  *flags = !stream || stream->blocking ? hipStreamDefault : hipStreamNonBlocking;
  return hipSuccess;
}

AMDSIM_EXPORT hipError_t hipStreamDestroy(hipStream_t stream) {
  AMDSIM_INIT();
  if (!stream) return hipErrorInvalidHandle;
  {
    std::lock_guard<std::mutex> g(streams_lock);
    if (!streams().erase(stream)) return hipErrorInvalidHandle;
  }
  delete stream;  // runs what was queued, then ends the worker
  return hipSuccess;
}

AMDSIM_EXPORT hipError_t hipStreamSynchronize(hipStream_t stream) {
  AMDSIM_INIT();
  if (!valid_stream(stream)) return hipErrorInvalidHandle;
  if (!stream) {
    wait_for_blocking_streams();
    return hipSuccess;
  }
  std::string message;
  hipError_t e = stream->synchronize(&message);
  if (e != hipSuccess) last_error_message = message;
  return e;
}

AMDSIM_EXPORT hipError_t hipStreamWaitEvent(hipStream_t stream, hipEvent_t event, unsigned int flags) {
  AMDSIM_INIT();
  if (!event || !valid_stream(stream)) return hipErrorInvalidHandle;
  if (flags != 0) return hipErrorInvalidValue;
  std::shared_ptr<EventState> es = event->state;
  uint64_t generation;
  {
    std::lock_guard<std::mutex> g(es->lock);
    generation = es->recorded;  // the most recent record; later ones do not count
  }
  return submit(stream, [es, generation](hipError_t) {
    es->wait_for(generation);
    return hipSuccess;
  });
}

AMDSIM_EXPORT hipError_t hipStreamAddCallback(hipStream_t stream, hipStreamCallback_t callback, void* user,
                                              unsigned int flags) {
  AMDSIM_INIT();
  if (!callback || flags != 0) return hipErrorInvalidValue;
  if (!valid_stream(stream)) return hipErrorInvalidHandle;
  return submit(stream, [stream, callback, user](hipError_t pending) {
    callback(stream, pending, user);
    return hipSuccess;
  });
}

AMDSIM_EXPORT hipError_t hipEventCreate(hipEvent_t* event) {
  AMDSIM_INIT();
  if (!event) return hipErrorInvalidValue;
  *event = new ihipEvent_t;
  return hipSuccess;
}

AMDSIM_EXPORT hipError_t hipEventDestroy(hipEvent_t event) {
  AMDSIM_INIT();
  if (!event) return hipErrorInvalidHandle;
  delete event;  // a stream that still has to reach or wait for it holds its state
  return hipSuccess;
}

AMDSIM_EXPORT hipError_t hipEventRecord(hipEvent_t event, hipStream_t stream) {
  AMDSIM_INIT();
  if (!event || !valid_stream(stream)) return hipErrorInvalidHandle;
  std::shared_ptr<EventState> es = event->state;
  uint64_t generation;
  {
    std::lock_guard<std::mutex> g(es->lock);
    generation = ++es->recorded;
  }
  return submit(stream, [es, generation](hipError_t) {
    es->complete(generation);
    return hipSuccess;
  });
}

AMDSIM_EXPORT hipError_t hipEventSynchronize(hipEvent_t event) {
  AMDSIM_INIT();
  if (!event) return hipErrorInvalidHandle;
  std::shared_ptr<EventState> es = event->state;
  uint64_t generation;
  {
    std::lock_guard<std::mutex> g(es->lock);
    generation = es->recorded;
  }
  es->wait_for(generation);
  return hipSuccess;
}

AMDSIM_EXPORT hipError_t hipEventQuery(hipEvent_t event) {
  AMDSIM_INIT();
  if (!event) return hipErrorInvalidHandle;
  std::lock_guard<std::mutex> g(event->state->lock);
  return event->state->completed >= event->state->recorded ? hipSuccess : hipErrorNotReady;
}

AMDSIM_EXPORT hipError_t hipEventElapsedTime(float* ms, hipEvent_t start, hipEvent_t stop) {
  AMDSIM_INIT();
  if (!ms) return hipErrorInvalidValue;
  if (!start || !stop) return hipErrorInvalidHandle;
  Clock::time_point a, b;
  for (auto [e, t] : {std::pair{start, &a}, std::pair{stop, &b}}) {
    std::lock_guard<std::mutex> g(e->state->lock);
    if (e->state->recorded == 0) return hipErrorInvalidHandle;  // never recorded
    if (e->state->completed < e->state->recorded) return hipErrorNotReady;
    *t = e->state->time;
  }
  *ms = std::chrono::duration<float, std::milli>(b - a).count();
  return hipSuccess;
}

AMDSIM_EXPORT hipError_t hipModuleLoadData(hipModule_t* module, const void* image) {
  AMDSIM_INIT();
  if (!module) return hipErrorInvalidValue;
  std::string why;
  if (is_offload_bundle(image)) {
    // A fat binary, as HIP's runtime takes: its entry for this device's processor.
    image = offload_bundle_entry(static_cast<const uint8_t*>(image), device(current_device).processor.name, why);
    if (!image) return fail(hipErrorNoBinaryForGpu, "amdsim-hip: hipModuleLoadData: " + why);
  }
  size_t size = elf_size(static_cast<const uint8_t*>(image), why);
  if (size == 0) return fail(hipErrorInvalidImage, "amdsim-hip: hipModuleLoadData: " + why);
  auto m = std::make_unique<ihipModule_t>();
  const auto* bytes = static_cast<const uint8_t*>(image);
  m->elf.assign(bytes, bytes + size);
  try {
    m->program = amdsim::Program::load(m->elf, device(current_device).processor);
  } catch (const std::exception& e) {
    std::string message = std::string("amdsim-hip: hipModuleLoadData: ") + e.what();
    std::fprintf(stderr, "%s\n", message.c_str());
    return fail(hipErrorInvalidImage, std::move(message));
  }
  *module = m.release();
  return hipSuccess;
}

AMDSIM_EXPORT hipError_t hipModuleUnload(hipModule_t module) {
  AMDSIM_INIT();
  if (!module) return hipErrorInvalidHandle;
  delete module;  // pending launches hold the program
  return hipSuccess;
}

AMDSIM_EXPORT hipError_t hipModuleGetFunction(hipFunction_t* function, hipModule_t module, const char* name) {
  AMDSIM_INIT();
  if (!function || !name) return hipErrorInvalidValue;
  if (!module) return hipErrorInvalidHandle;
  auto it = module->functions.find(name);
  if (it == module->functions.end()) {
    const amdsim::KernelInfo* k = module->program->kernel(name);
    if (!k) {
      std::string known;
      for (const auto& info : module->program->kernels()) known += (known.empty() ? "" : ", ") + info.name;
      return fail(hipErrorNotFound, std::string("amdsim-hip: the code object has no kernel '") + name +
                                        "' (it has: " + (known.empty() ? "none" : known) + ")");
    }
    auto f = std::make_unique<ihipModuleSymbol_t>();
    f->program = module->program;
    f->kernel = k;
    it = module->functions.emplace(name, std::move(f)).first;
  }
  *function = it->second.get();
  return hipSuccess;
}

AMDSIM_EXPORT hipError_t hipModuleLaunchKernel(hipFunction_t f, unsigned int gridDimX, unsigned int gridDimY,
                                               unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY,
                                               unsigned int blockDimZ, unsigned int sharedMemBytes,
                                               hipStream_t stream, void** kernelParams, void** extra) {
  AMDSIM_INIT();
  if (!f) return hipErrorInvalidHandle;
  if (!valid_stream(stream)) return hipErrorInvalidHandle;
  const amdsim::KernelInfo& k = *f->kernel;
  uint64_t threads = uint64_t(blockDimX) * blockDimY * blockDimZ;
  if (!gridDimX || !gridDimY || !gridDimZ || !threads || threads > 1024 || blockDimX > 1024 || blockDimY > 1024 ||
      blockDimZ > 1024 || gridDimY > 65535 || gridDimZ > 65535 || gridDimX > 2147483647u)
    return fail(hipErrorInvalidConfiguration, "amdsim-hip: kernel '" + k.name + "': invalid launch geometry");
  const uint32_t lds_limit = f->program->processor().lds_bytes;
  if (uint64_t(k.group_segment_size) + sharedMemBytes > lds_limit)
    return fail(hipErrorInvalidValue, "amdsim-hip: kernel '" + k.name + "': " + std::to_string(k.group_segment_size) +
                                          " static + " + std::to_string(sharedMemBytes) +
                                          " dynamic LDS bytes exceed " + std::to_string(lds_limit));
  amdsim::Dim3 grid{gridDimX, gridDimY, gridDimZ}, block{blockDimX, blockDimY, blockDimZ};

  // The explicit arguments' bytes: kernelParams[i], or inside the `extra` buffer at the offsets
  // the metadata gives (HIP's HIP_LAUNCH_PARAM_BUFFER_POINTER convention).
  std::vector<void*> values;
  if (kernelParams && extra)
    return fail(hipErrorInvalidValue, "amdsim-hip: kernelParams and extra cannot both be given");
  size_t explicit_count = 0;
  for (const auto& a : k.args)
    if (a.value_kind.rfind("hidden_", 0) != 0) ++explicit_count;
  if (extra) {
    const uint8_t* buffer = nullptr;
    size_t buffer_size = 0;
    bool have_size = false;
    for (size_t i = 0; extra[i] != HIP_LAUNCH_PARAM_END; i += 2) {
      if (extra[i] == HIP_LAUNCH_PARAM_BUFFER_POINTER)
        buffer = static_cast<const uint8_t*>(extra[i + 1]);
      else if (extra[i] == HIP_LAUNCH_PARAM_BUFFER_SIZE && extra[i + 1])
        buffer_size = *static_cast<const size_t*>(extra[i + 1]), have_size = true;
      else
        return fail(hipErrorInvalidValue, "amdsim-hip: unknown entry in the launch's extra array");
    }
    if (!buffer || !have_size)
      return fail(hipErrorInvalidValue, "amdsim-hip: extra needs HIP_LAUNCH_PARAM_BUFFER_POINTER and _SIZE");
    for (const auto& a : k.args) {
      if (a.value_kind.rfind("hidden_", 0) == 0) continue;
      if (uint64_t(a.offset) + a.size > buffer_size)
        return fail(hipErrorInvalidValue, "amdsim-hip: kernel '" + k.name + "': argument '" + a.name + "' at offset " +
                                              std::to_string(a.offset) + " lies outside the " +
                                              std::to_string(buffer_size) + "-byte extra buffer");
      values.push_back(const_cast<uint8_t*>(buffer + a.offset));
    }
  } else if (explicit_count) {
    if (!kernelParams)
      return fail(hipErrorInvalidValue, "amdsim-hip: kernel '" + k.name + "' has " + std::to_string(explicit_count) +
                                            " arguments but neither kernelParams nor extra was given");
    values.assign(kernelParams, kernelParams + explicit_count);
  }
  std::vector<uint8_t> kernargs;
  try {
    kernargs = amdsim::layout_arguments(k, values.data(), grid, block, sharedMemBytes);
  } catch (const std::exception& e) {
    return fail(hipErrorInvalidValue, std::string("amdsim-hip: ") + e.what());
  }
  std::shared_ptr<amdsim::Program> program = f->program;
  const amdsim::KernelInfo* kernel = f->kernel;
  const unsigned checks = launch_checks;
  return submit(stream, [program, kernel, grid, block, sharedMemBytes, kernargs = std::move(kernargs), checks](hipError_t) {
    return run_launch(program, kernel, grid, block, sharedMemBytes, kernargs, checks);
  });
}
