// AMD GPUs through HIP: device memory, streams, events, code objects loaded with
// hipModuleLoadData and launched with hipModuleLaunchKernel. The same code drives the AMDGPU
// simulator (libamdsim-hip.so, devices sim:<processor>), which implements those HIP functions.
#include <fmt/format.h>

#include <cstdlib>
#include <deque>
#include <sstream>

#include "rocjit/compiler/compile.hpp"
#include "rocjit/compiler/error.hpp"
#include "hip/hip_api.hpp"
#include "src/backend.hpp"
#include "rocjit/support/log.h"
#include "rocjit/support/settings.h"

namespace rocjit::runtime {
namespace {

using hip::Api;

// Pending launches hold their kernel, so the module is unloaded only after the last one ran.
struct HipKernel : CompiledKernel {
  const Api* api = nullptr;
  int device = 0;
  hipModule_t module = nullptr;
  hipFunction_t function = nullptr;
  CodeObject code;
  bool races_checked = false;  // compiled with CompileOptions::check_races (the simulator's markers)
  HipKernel() = default;
  HipKernel(const HipKernel&) = delete;
  HipKernel& operator=(const HipKernel&) = delete;
  ~HipKernel() override {
    if (!module) return;
    (void)api->hipSetDevice(device);  // destructors cannot report
    (void)api->hipModuleUnload(module);
  }
};

class HipEvent : public EventImpl {
 public:
  HipEvent(const Api* api, int device) : api_(api) {
    api_->check(api_->hipSetDevice(device), "hipSetDevice");
    api_->check(api_->hipEventCreate(&event_), "hipEventCreate");
  }
  ~HipEvent() override { (void)api_->hipEventDestroy(event_); }  // destructors cannot report
  void synchronize() override { api_->check(api_->hipEventSynchronize(event_), "hipEventSynchronize"); }
  bool query() override { return api_->hipEventQuery(event_) == hipSuccess; }
  float elapsed_ms(EventImpl& later) override {
    float ms = 0;
    api_->check(api_->hipEventElapsedTime(&ms, event_, static_cast<HipEvent&>(later).event_), "hipEventElapsedTime");
    return ms;
  }
  hipEvent_t handle() const { return event_; }

 private:
  const Api* api_;
  hipEvent_t event_ = nullptr;
};

// What an enqueued operation keeps alive; released by a stream callback. HIP forbids HIP calls
// inside callbacks (and freeing device memory is one), so callbacks only move the holder to a
// list that the stream drains from ordinary calls.
struct Pending {
  std::vector<std::shared_ptr<void>> keep;
  std::function<void()> host_work;
};

class HipStream : public StreamImpl {
 public:
  // The default stream is HIP's null stream, whose legacy semantics (it waits for the blocking
  // streams and they wait for it) the HIP runtime provides.
  HipStream(std::shared_ptr<DeviceImpl> d, const Api* api, int device, bool is_default, bool non_blocking)
      : StreamImpl(std::move(d), is_default, non_blocking), api_(api), device_(device) {
    api_->check(api_->hipSetDevice(device_), "hipSetDevice");
    if (!is_default)
      api_->check(api_->hipStreamCreateWithFlags(&stream_, non_blocking ? hipStreamNonBlocking : hipStreamDefault),
                  "hipStreamCreateWithFlags");
  }
  // A stream the application made (external_stream): used, never destroyed.
  HipStream(std::shared_ptr<DeviceImpl> d, const Api* api, int device, hipStream_t external, bool non_blocking)
      : StreamImpl(std::move(d), false, non_blocking), api_(api), device_(device), stream_(external),
        external_(true) {}
  ~HipStream() override {
    if (stream_) {
      (void)api_->hipStreamSynchronize(stream_);  // destructors cannot report; drain() runs callbacks
      drain();
      deliver_prints_at_destruction();
      if (!external_) (void)api_->hipStreamDestroy(stream_);
    }
  }
  void* native_handle() const override { return stream_; }

  void copy(void* dst, const void* src, size_t bytes, CopyKind kind, std::vector<std::shared_ptr<void>> keep) override {
    hipMemcpyKind k = kind == CopyKind::host_to_device   ? hipMemcpyHostToDevice
                      : kind == CopyKind::device_to_host ? hipMemcpyDeviceToHost
                                                         : hipMemcpyDeviceToDevice;
    api_->check(api_->hipSetDevice(device_), "hipSetDevice");
    api_->check(api_->hipMemcpyAsync(dst, src, bytes, k, stream_), "hipMemcpyAsync");
    finish(Pending{std::move(keep), nullptr});
  }
  void launch(std::shared_ptr<CompiledKernel> kernel, Dim3 grid, Dim3 block, uint32_t shared_bytes,
              std::shared_ptr<ArgumentPack> args) override {
    auto& k = static_cast<HipKernel&>(*kernel);
    api_->check(api_->hipSetDevice(device_), "hipSetDevice");
    // ROCJIT_CHECK=races: the simulator checks the launch (kernels compiled with its markers);
    // a real HIP runtime cannot, and says so rather than run unchecked.
    const std::shared_ptr<const Settings> now = support::current_settings();
    if (now->check_races && !api_->amdsimSetLaunchChecks)
      throw LaunchError(fmt::format("kernel '{}': race checking (ROCJIT_CHECK=races) is not available on device '{}' "
                                    "(a real GPU); run on the CPU device or a simulated one (sim:gfx942)",
                                    k.name, device_id()));
    if (api_->amdsimSetLaunchChecks) {
      unsigned checks = 0;
      if (k.races_checked && now->check_races) {
        checks = Api::amdsim_check_races;
        if (now->check_same_value) checks |= Api::amdsim_check_same_value;
        if (now->check_report_only) checks |= Api::amdsim_check_report_only;
      }
      api_->amdsimSetLaunchChecks(checks);
    }
    hipError_t e = api_->hipModuleLaunchKernel(
        k.function, static_cast<unsigned>(grid.x), static_cast<unsigned>(grid.y), static_cast<unsigned>(grid.z),
        static_cast<unsigned>(block.x), static_cast<unsigned>(block.y), static_cast<unsigned>(block.z), shared_bytes, stream_,
        const_cast<void**>(args->pointers.data()), nullptr);
    // A kernel that ran and failed (on the default stream launches run at once) is a LaunchError
    // carrying the simulator's message; the arguments were checked before, so others are too.
    if (e != hipSuccess)
      throw LaunchError(fmt::format("kernel '{}' failed on device '{}': {}", k.name, device_id(),
                                    api_->describe(e, "hipModuleLaunchKernel")));
    std::vector<std::shared_ptr<void>> keep = args->keep_alive;
    keep.push_back(args);
    keep.push_back(kernel);
    finish(Pending{std::move(keep), nullptr});
    log_race_reports();
  }
  // Report-only race checking on the simulator: the findings of launches that completed.
  void log_race_reports() const {
    if (!api_->amdsimTakeReports) return;
    const char* reports = api_->amdsimTakeReports();
    if (reports && *reports) support::log(LogLevel::warning, "{}", reports);
  }
  void host_callback(std::function<void()> f) override { finish(Pending{{}, std::move(f)}); }
  // The stream holds the event until it has passed it (hipEventDestroy of a pending event is
  // allowed, but the wrapper must not be destroyed under a waiting stream either).
  void record(std::shared_ptr<EventImpl> e) override {
    api_->check(api_->hipSetDevice(device_), "hipSetDevice");
    api_->check(api_->hipEventRecord(static_cast<HipEvent&>(*e).handle(), stream_), "hipEventRecord");
    finish(Pending{{std::move(e)}, nullptr});
  }
  void wait(std::shared_ptr<EventImpl> e) override {
    api_->check(api_->hipSetDevice(device_), "hipSetDevice");
    api_->check(api_->hipStreamWaitEvent(stream_, static_cast<HipEvent&>(*e).handle(), 0), "hipStreamWaitEvent");
    finish(Pending{{std::move(e)}, nullptr});
  }
  void synchronize() override {
    hipError_t e = api_->hipStreamSynchronize(stream_);
    drain();
    log_race_reports();
    if (e == hipErrorLaunchFailure)  // a kernel enqueued earlier failed
      throw LaunchError(fmt::format("a kernel launched on a stream of device '{}' failed: {}", device_id(),
                                    api_->describe(e, "hipStreamSynchronize")));
    api_->check(e, "hipStreamSynchronize");
  }

 private:
  static void callback(hipStream_t, hipError_t, void* user) {
    auto* self_and_pending = static_cast<std::pair<HipStream*, Pending*>*>(user);
    HipStream* self = self_and_pending->first;
    std::lock_guard<std::mutex> g(self->lock_);
    self->done_.push_back(self_and_pending->second);
    delete self_and_pending;
  }

  void finish(Pending p) {
    if (is_default_) {  // Numba's default stream is synchronous
      api_->check(api_->hipStreamSynchronize(stream_), "hipStreamSynchronize");
      if (p.host_work) p.host_work();
      drain();
      return;
    }
    if (p.host_work) {  // host work needs ordering: wait for the stream first
      synchronize();
      p.host_work();
      return;
    }
    auto* user = new std::pair<HipStream*, Pending*>(this, new Pending(std::move(p)));
    api_->check(api_->hipStreamAddCallback(stream_, &HipStream::callback, user, 0), "hipStreamAddCallback");
    drain();
  }

  std::string device_id() const {
    auto d = device();
    return d ? d->id() : "hip";
  }

  void drain() {
    std::deque<Pending*> done;
    {
      std::lock_guard<std::mutex> g(lock_);
      done.swap(done_);
    }
    for (Pending* p : done) delete p;
  }

  const Api* api_;
  int device_;
  hipStream_t stream_ = nullptr;
  bool external_ = false;
  std::mutex lock_;
  std::deque<Pending*> done_;
};

// "gfx90a:sramecc+:xnack-" -> ("gfx90a", "+sramecc,-xnack")
std::pair<std::string, std::string> parse_arch(const std::string& arch) {
  std::stringstream ss(arch);
  std::string processor, part, features;
  std::getline(ss, processor, ':');
  while (std::getline(ss, part, ':')) {
    if (part.size() < 2) continue;
    char sign = part.back();
    if (!features.empty()) features += ",";
    features += std::string(1, sign) + part.substr(0, part.size() - 1);
  }
  return {processor, features};
}

class HipDevice : public DeviceImpl {
 public:
  // `kind` is "hip", or "sim" for the simulator (id "sim:<processor>").
  HipDevice(const Api* api, int index, const hipDeviceProp_t& props, int runtime_version, std::string kind = "hip")
      : api_(api), index_(index), props_(props), kind_(std::move(kind)) {
    std::tie(processor_, features_) = parse_arch(props.gcnArchName);
    id_ = kind_ == "hip" ? fmt::format("hip:{}", index_) : fmt::format("{}:{}", kind_, processor_);
    const int chosen = support::current_settings()->code_object_version;  // 0: the runtime's
    code_object_version_ = chosen != 0 ? chosen : runtime_version >= 60000000 ? 5 : 4;
  }
  std::string name() const override { return props_.name; }
  std::string kind() const override { return kind_; }
  std::string id() const override { return id_; }
  std::string target() const override { return processor_; }
  uint64_t total_memory() const override { return props_.totalGlobalMem; }
  uint64_t free_memory() const override {
    size_t free = 0, total = 0;
    select();
    api_->check(api_->hipMemGetInfo(&free, &total), "hipMemGetInfo");
    return free;
  }
  void* allocate(size_t bytes) override {
    check_open("allocate memory");
    if (bytes > props_.totalGlobalMem)
      throw MemoryError(fmt::format("cannot allocate {} bytes on device '{}': the device has {} bytes of memory ({} "
                                    "free)",
                                    bytes, id(), props_.totalGlobalMem, free_memory()));
    select();
    void* p = nullptr;
    hipError_t e = api_->hipMalloc(&p, std::max<size_t>(bytes, 1));
    if (e != hipSuccess)
      throw MemoryError(fmt::format("cannot allocate {} bytes on device '{}': hipMalloc failed: {} ({} bytes free)",
                                    bytes, id(), api_->hipGetErrorName(e), free_memory()));
    return p;
  }
  void deallocate(void* p) noexcept override { (void)api_->hipFree(p); }
  void* allocate_pinned(size_t bytes) override {
    select();
    void* p = nullptr;
    // Mapped, so kernels may use it in place (mapped_address).
    api_->check(api_->hipHostMalloc(&p, std::max<size_t>(bytes, 1), hipHostMallocMapped), "hipHostMalloc");
    return p;
  }
  void deallocate_pinned(void* p) noexcept override { (void)api_->hipHostFree(p); }
  void page_lock(const void* p, size_t bytes) override {
    select();
    api_->check(api_->hipHostRegister(const_cast<void*>(p), bytes, hipHostRegisterMapped), "hipHostRegister");
  }
  void* mapped_address(void* host_block) override {
    select();
    void* d = nullptr;
    api_->check(api_->hipHostGetDevicePointer(&d, host_block, 0), "hipHostGetDevicePointer");
    return d;
  }
  void* allocate_managed(size_t bytes) override {
    check_open("allocate managed memory");
    select();
    void* p = nullptr;
    hipError_t e = api_->hipMallocManaged(&p, std::max<size_t>(bytes, 1), hipMemAttachGlobal);
    if (e != hipSuccess)
      throw MemoryError(fmt::format("cannot allocate {} bytes of managed memory on device '{}': hipMallocManaged "
                                    "failed: {}",
                                    bytes, id(), api_->hipGetErrorName(e)));
    return p;
  }
  void deallocate_managed(void* p) noexcept override { (void)api_->hipFree(p); }
  void page_unlock(const void* p) override {
    api_->check(api_->hipHostUnregister(const_cast<void*>(p)), "hipHostUnregister");
  }
  std::shared_ptr<StreamImpl> create_stream(bool non_blocking) override {
    return std::make_shared<HipStream>(shared_from_this(), api_, index_, false, non_blocking);
  }
  std::shared_ptr<StreamImpl> create_stream_locked_default() override {
    return std::make_shared<HipStream>(shared_from_this(), api_, index_, true, false);
  }
  std::shared_ptr<EventImpl> create_event() override { return std::make_shared<HipEvent>(api_, index_); }
  std::shared_ptr<StreamImpl> wrap_stream(void* native) override {
    auto stream = static_cast<hipStream_t>(native);
    unsigned flags = 0;
    select();
    api_->check(api_->hipStreamGetFlags(stream, &flags), "hipStreamGetFlags (external_stream)");
    return std::make_shared<HipStream>(shared_from_this(), api_, index_, stream, (flags & hipStreamNonBlocking) != 0);
  }
  int native_index() const override { return index_; }
  std::shared_ptr<CompiledKernel> load_prebuilt(const CodeObject& code, const KernelMetadata& m) override {
    auto k = std::make_shared<HipKernel>();
    k->code = code;
    k->api = api_;
    k->device = index_;
    k->name = m.name;
    k->max_block_size = m.max_flat_workgroup_size ? m.max_flat_workgroup_size : 1024;
    k->static_shared_bytes = m.group_segment_fixed_size;
    k->wave_size = m.wavefront_size ? m.wavefront_size : wave_size();
    select();
    api_->check(api_->hipModuleLoadData(&k->module, k->code.elf.data()), "hipModuleLoadData (load_code_object)");
    api_->check(api_->hipModuleGetFunction(&k->function, k->module, m.name.c_str()),
                "hipModuleGetFunction (load_code_object)");
    return k;
  }

  uint64_t shared_memory_limit() const override { return amdgpu_lds_limit(processor_); }
  unsigned wave_size() const override { return amdgpu_wavefront_size(processor_, features_); }
  unsigned compute_units() const override { return static_cast<unsigned>(std::max(props_.multiProcessorCount, 1)); }
  unsigned max_group_size() const override { return static_cast<unsigned>(props_.maxThreadsPerBlock); }
  bool is_simulator() const override { return kind_ == "sim"; }
  bool narrow_offsets() const override { return true; }

  void check_geometry(const CompiledKernel& k, Dim3 grid, Dim3 block) override {
    int64_t g[] = {grid.x, grid.y, grid.z}, b[] = {block.x, block.y, block.z};
    const char* axis[] = {"x", "y", "z"};
    for (int d = 0; d < 3; ++d) {
      if (g[d] <= 0 || b[d] <= 0)
        throw LaunchError(fmt::format("kernel '{}': grid.{} = {} and block.{} = {}; every dimension must be at least 1",
                                      k.name, axis[d], g[d], axis[d], b[d]));
      if (b[d] > props_.maxThreadsDim[d] || g[d] > props_.maxGridSize[d])
        throw LaunchError(fmt::format("kernel '{}': block.{} = {} / grid.{} = {} exceed device '{}' limits ({} / {})",
                                      k.name, axis[d], b[d], axis[d], g[d], id(), props_.maxThreadsDim[d],
                                      props_.maxGridSize[d]));
    }
    int64_t threads = block.count();
    if (threads > k.max_block_size || threads > props_.maxThreadsPerBlock)
      throw LaunchError(fmt::format("kernel '{}': a block of {} work-items exceeds the kernel's maximum of {} (device "
                                    "limit {})",
                                    k.name, threads, k.max_block_size, props_.maxThreadsPerBlock));
  }

 protected:
  std::shared_ptr<CompiledKernel> compile(const std::shared_ptr<const ir::Kernel>& kernel) override {
    const ir::Kernel& ir = *kernel;
    auto k = std::make_shared<HipKernel>();
    CompileOptions options;
    options.code_object_version = code_object_version_;
    // The simulator's race checker needs the markers (amdgpu/lower.h); real GPUs get none.
    options.check_races = support::current_settings()->check_races && api_->amdsimSetLaunchChecks;
    k->races_checked = options.check_races;
    k->code = rocjit::compile(ir, Target::amdgpu(processor_, features_), options);
    k->api = api_;
    k->device = index_;
    k->name = ir.name;
    k->max_block_size = ir.max_block_size;
    k->static_shared_bytes = k->code.kernel(ir.name).group_segment_fixed_size;
    k->wave_size = k->code.kernel(ir.name).wavefront_size;
    k->wave_rows = describe_wave_rows(ir);
    k->mma_site = describe_mma(ir);
    k->prints = k->code.prints;  // from the cache entry on a hit
    select();
    api_->check(api_->hipModuleLoadData(&k->module, k->code.elf.data()), "hipModuleLoadData");
    api_->check(api_->hipModuleGetFunction(&k->function, k->module, ir.name.c_str()), "hipModuleGetFunction");
    return k;
  }

 private:
  void select() const { api_->check(api_->hipSetDevice(index_), "hipSetDevice"); }
  const Api* api_;
  int index_;
  hipDeviceProp_t props_;
  std::string kind_, id_;
  std::string processor_, features_;
  int code_object_version_ = 5;
};

}  // namespace

namespace {

// The devices `api` reports, as HipDevices of `kind`.
std::vector<std::shared_ptr<DeviceImpl>> make_devices(const Api* api, const std::string& kind, std::string& why) {
  std::vector<std::shared_ptr<DeviceImpl>> out;
  hipError_t e = api->hipInit(0);
  if (e != hipSuccess) {
    why = fmt::format("{} was loaded, but {}", api->path,
                      kind == "hip" ? fmt::format("hipInit failed with {}: no usable AMD GPU", api->hipGetErrorName(e))
                                    : api->describe(e, "hipInit"));
    return out;
  }
  int count = 0;
  e = api->hipGetDeviceCount(&count);
  if (e != hipSuccess || count == 0) {
    why = fmt::format("{} was loaded, but it reports no HIP device ({})", api->path,
                      e == hipSuccess ? "0 devices" : api->hipGetErrorName(e));
    return out;
  }
  int version = 0;
  if (api->hipRuntimeGetVersion(&version) != hipSuccess) version = 0;  // unknown: code object v4
  for (int i = 0; i < count; ++i) {
    hipDeviceProp_t props{};
    if (api->hipGetDeviceProperties(&props, i) != hipSuccess) continue;
    out.push_back(std::make_shared<HipDevice>(api, i, props, version, kind));
  }
  if (out.empty()) why = fmt::format("{} was loaded, but no device's properties could be read", api->path);
  return out;
}

}  // namespace

std::vector<std::shared_ptr<DeviceImpl>> make_hip_devices(std::string& why) {
  const Api* api = hip::load(why);
  if (!api) return {};
  return make_devices(api, "hip", why);
}

std::vector<std::shared_ptr<DeviceImpl>> make_sim_devices(std::string& why, const std::string& processors) {
  // libamdsim-hip reads its processors from AMDSIM_PROCESSOR when it starts: the one way to tell it.
  setenv("AMDSIM_PROCESSOR", processors.c_str(), 1);
  const Api* api = hip::load_simulator(why);
  if (!api) return {};
  return make_devices(api, "sim", why);
}

}  // namespace rocjit::runtime
