// The device registry, the default device, and the handle classes Device, Stream and Event.
#include <fmt/format.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <optional>

#include "rocjit/compiler/error.hpp"
#include "rocjit/runtime/stream.hpp"
#include "src/backend.hpp"
#include "rocjit/support/log.h"
#include "rocjit/support/settings.h"

namespace rocjit {
namespace runtime {

void StreamImpl::deliver_prints() {
  std::vector<PrintJob> jobs;
  {
    std::lock_guard<std::mutex> g(prints_lock_);
    jobs.swap(prints_);
  }
  std::optional<DeviceAssertion> first;
  for (const PrintJob& job : jobs) {
    PrintDelivery d = rocjit::deliver_prints(*job.table, *job.host, job.kernel, job.grid, job.block, job.sorted);
    if (d.assertion && !first) first = std::move(d.assertion);
  }
  if (first) throw *first;
}

void StreamImpl::deliver_prints_at_destruction() noexcept {
  try {
    deliver_prints();
  } catch (const std::exception& e) {
    support::log(LogLevel::error, "{} (the stream was destroyed before a synchronisation reported it)", e.what());
  } catch (...) {
  }
}

Allocation::~Allocation() {
  if (!device || !pointer || external) return;
  switch (release) {
    case Release::device: device->deallocate(pointer); break;
    case Release::pinned: device->deallocate_pinned(host); break;
    case Release::managed: device->deallocate_managed(pointer); break;
    case Release::none: break;
  }
}

std::shared_ptr<CompiledKernel> DeviceImpl::load_prebuilt(const CodeObject&, const KernelMetadata& kernel) {
  throw DeviceError(fmt::format("device '{}' cannot run the AMDGPU code object's kernel '{}'", id(), kernel.name));
}

std::shared_ptr<StreamImpl> DeviceImpl::wrap_stream(void*) {
  throw DeviceError(fmt::format("external_stream: device '{}' has no native streams to wrap (HIP and simulator "
                                "devices do); use stream() on it",
                                id()));
}

HostStorage::~HostStorage() {
  if (!data) return;
  if (pinned_by)
    pinned_by->deallocate_pinned(data);
  else
    ::operator delete[](data, std::align_val_t(64));
}

size_t device_kernel_limit() { return support::current_settings()->device_kernels; }

std::shared_ptr<CompiledKernel> DeviceImpl::kernel(const std::shared_ptr<const ir::Kernel>& ir) {
  check_open("compile kernel '" + ir->name + "'");
  {
    std::lock_guard<std::mutex> g(lock_);
    auto it = kernels_.find(ir.get());
    if (it != kernels_.end() && it->second.ir.lock() == ir) {
      kernel_order_.splice(kernel_order_.begin(), kernel_order_, it->second.order);
      return it->second.compiled;
    }
  }
  // Compile outside the lock; a second thread racing here compiles too and one result wins.
  std::shared_ptr<CompiledKernel> compiled = compile(ir);
  // Devices whose code comes through the cache take the table from the entry (HIP, the
  // simulator); the CPU device compiles at its first launch, and with the interpreter runs the IR.
  if (!compiled->prints) compiled->prints = std::make_shared<const PrintTable>(print_table(*ir));
  std::vector<LoadedKernel> forgotten;  // freed after the lock is released (HIP calls, JIT removal)
  std::lock_guard<std::mutex> g(lock_);
  if (closed_) return compiled;  // closed meanwhile: close() already forgot every kernel
  sweep_unreachable_kernels(forgotten);
  auto [it, inserted] = kernels_.try_emplace(ir.get());
  if (!inserted) {
    kernel_order_.splice(kernel_order_.begin(), kernel_order_, it->second.order);
    return it->second.compiled;
  }
  kernel_order_.push_front(ir.get());
  it->second = LoadedKernel{ir, std::move(compiled), kernel_order_.begin()};
  std::shared_ptr<CompiledKernel> result = it->second.compiled;
  const size_t limit = device_kernel_limit();
  while (kernels_.size() > limit) {
    auto victim = kernels_.find(kernel_order_.back());
    kernel_order_.pop_back();
    forgotten.push_back(std::move(victim->second));
    kernels_.erase(victim);
  }
  return result;
}

void DeviceImpl::sweep_unreachable_kernels(std::vector<LoadedKernel>& out) {
  for (auto it = kernels_.begin(); it != kernels_.end();) {
    if (it->second.ir.expired()) {
      kernel_order_.erase(it->second.order);
      out.push_back(std::move(it->second));
      it = kernels_.erase(it);
    } else {
      ++it;
    }
  }
}

size_t DeviceImpl::kernel_count() {
  std::lock_guard<std::mutex> g(lock_);
  return kernels_.size();
}

std::shared_ptr<StreamImpl> DeviceImpl::default_stream() {
  std::lock_guard<std::mutex> g(lock_);
  if (!default_stream_) default_stream_ = create_stream_locked_default();
  return default_stream_;
}

void DeviceImpl::remember_stream(const std::shared_ptr<StreamImpl>& s) {
  std::lock_guard<std::mutex> g(lock_);
  std::erase_if(streams_, [](const auto& w) { return w.expired(); });
  streams_.push_back(s);
}

std::vector<std::shared_ptr<StreamImpl>> DeviceImpl::live_streams() {
  std::vector<std::shared_ptr<StreamImpl>> live;
  std::lock_guard<std::mutex> g(lock_);
  for (auto& w : streams_)
    if (auto s = w.lock()) live.push_back(s);
  return live;
}

void DeviceImpl::synchronize() {
  std::vector<std::shared_ptr<StreamImpl>> live;
  {
    std::lock_guard<std::mutex> g(lock_);
    for (auto& w : streams_)
      if (auto s = w.lock()) live.push_back(s);
    if (default_stream_) live.push_back(default_stream_);
  }
  for (auto& s : live) s->synchronize();
  std::optional<DeviceAssertion> first;
  for (auto& s : live) {
    try {
      s->deliver_prints();
    } catch (const DeviceAssertion& e) {
      if (!first) first = e;
    }
  }
  if (first) throw *first;
}

void DeviceImpl::close() {
  if (closed_) return;
  synchronize();
  std::unordered_map<const ir::Kernel*, LoadedKernel> forgotten;  // freed after the lock is released
  std::lock_guard<std::mutex> g(lock_);
  closed_ = true;
  forgotten.swap(kernels_);
  kernel_order_.clear();
}

void DeviceImpl::check_open(const std::string& what) const {
  if (closed_)
    throw DeviceError(fmt::format("cannot {}: device '{}' was closed; arrays, streams and kernels of a closed device "
                                  "can no longer be used",
                                  what, id()));
}

void DeviceImpl::register_range(const void* p, size_t bytes) {
  check_open("register host memory");
  std::lock_guard<std::mutex> g(lock_);
  auto it = registered_.upper_bound(p);
  if (it != registered_.begin()) {
    auto prev = std::prev(it);
    if (static_cast<const char*>(prev->first) + prev->second > p)
      throw MemoryError(fmt::format("host memory at {} ({} bytes) is already registered with device '{}'", p,
                                    bytes, id()));
  }
  if (it != registered_.end() && static_cast<const char*>(p) + bytes > it->first)
    throw MemoryError(fmt::format("host memory at {} ({} bytes) overlaps memory already registered with device '{}'",
                                  p, bytes, id()));
  page_lock(p, bytes);
  registered_[p] = bytes;
}

const void* DeviceImpl::registered_block(const void* p, size_t bytes) {
  std::lock_guard<std::mutex> g(lock_);
  auto it = registered_.upper_bound(p);
  if (it == registered_.begin()) return nullptr;
  --it;
  const auto* start = static_cast<const char*>(it->first);
  const auto* q = static_cast<const char*>(p);
  return q + bytes <= start + it->second ? it->first : nullptr;
}

void DeviceImpl::deregister_range(const void* p, size_t bytes) {
  std::lock_guard<std::mutex> g(lock_);
  auto it = registered_.find(p);
  if (it == registered_.end())
    throw MemoryError(fmt::format("host memory at {} was not registered with device '{}'; nothing to deregister", p,
                                  id()));
  page_unlock(p);
  registered_.erase(it);
}

namespace {

struct Registry {
  std::once_flag once;
  // The HIP devices, found at the first request that needs them (a HIP device id, devices(), or
  // the default device when no setting names one): opening `cpu` or `sim` loads no HIP runtime.
  std::once_flag hip_once;
  std::vector<std::shared_ptr<DeviceImpl>> hip;
  std::string hip_why;
  std::shared_ptr<DeviceImpl> cpu;
  std::shared_ptr<DeviceImpl> interp;  // the reference interpreter as a device
  std::mutex lock;
  std::shared_ptr<DeviceImpl> chosen_default;
  // The AMDGPU simulator's devices (sim:<processor>), loaded at the first request for one.
  std::once_flag sim_once;
  std::atomic<bool> sim_loaded{false};
  std::vector<std::shared_ptr<DeviceImpl>> sim;
  std::string sim_why;
  std::string sim_processors;  // what the simulator was asked for when it was loaded
};

// Never destroyed: streams, arrays and kernels that users keep in static objects, and the
// stream and tier-up threads still running at exit, use the devices until the very end.
Registry& registry() {
  static Registry& r = *new Registry;
  std::call_once(r.once, [&] {
    r.cpu = make_cpu_device();
    r.interp = make_interp_device();
  });
  return r;
}

std::vector<std::shared_ptr<DeviceImpl>>& hip_devices(Registry& r) {
  std::call_once(r.hip_once, [&] { r.hip = make_hip_devices(r.hip_why); });
  return r.hip;
}

std::vector<std::shared_ptr<DeviceImpl>>& sim_devices(Registry& r) {
  std::call_once(r.sim_once, [&] {
    r.sim_processors = support::current_settings()->sim_processors;
    r.sim = make_sim_devices(r.sim_why, r.sim_processors);
    r.sim_loaded = true;
  });
  return r.sim;
}

// "sim" (the simulator's first device: gfx942 unless Settings::sim_processors says otherwise) or
// "sim:<processor>".
Device get_sim_device(Registry& r, const std::string& id) {
  auto& sim = sim_devices(r);
  if (sim.empty()) throw DeviceError(fmt::format("no simulator device for '{}': {}", id, r.sim_why));
  if (id == "sim") return Device(sim.front());
  for (auto& d : sim)
    if (d->id() == id) return Device(d);
  std::string have;
  for (auto& d : sim) have += (have.empty() ? "" : ", ") + d->id();
  const bool chosen = r.sim_processors != "all";
  throw DeviceError(fmt::format("no simulator device '{}': the simulator has {}{}", id, have,
                                chosen ? " (Settings::sim_processors, AMDSIM_PROCESSOR, chose them)" : ""));
}

}  // namespace
}  // namespace runtime

using runtime::registry;

std::string Device::name() const { return impl().name(); }
std::string Device::kind() const { return impl().kind(); }
std::string Device::id() const { return impl().id(); }
std::string Device::target() const { return impl().target(); }
uint64_t Device::total_memory() const { return impl().total_memory(); }
uint64_t Device::free_memory() const { return impl().free_memory(); }
std::string Device::processor() const { return impl().target(); }
unsigned Device::wave_size() const { return impl().wave_size(); }
unsigned Device::compute_units() const { return impl().compute_units(); }
uint64_t Device::shared_memory_per_group() const { return impl().shared_memory_limit(); }
unsigned Device::max_group_size() const { return impl().max_group_size(); }
bool Device::is_simulator() const { return impl().is_simulator(); }
void Device::synchronize() const { impl().synchronize(); }
void Device::close() const { impl().close(); }
bool Device::closed() const { return impl().closed(); }

runtime::DeviceImpl& Device::impl() const {
  if (impl_) return *impl_;
  return *default_device().impl_;
}

std::vector<Device> devices() {
  auto& r = registry();
  std::vector<Device> out;
  for (auto& d : runtime::hip_devices(r)) out.emplace_back(d);
  if (r.sim_loaded)
    for (auto& d : r.sim) out.emplace_back(d);
  out.emplace_back(r.cpu);
  return out;
}

Device get_device(const std::string& id) {
  auto& r = registry();
  if (id == "cpu") return Device(r.cpu);
  if (id == "interp") return Device(r.interp);
  if (id == "sim" || id.rfind("sim:", 0) == 0) return runtime::get_sim_device(r, id);
  if (id == "hip" || id.rfind("hip:", 0) == 0) {
    size_t index = 0;
    if (id.size() > 4) {
      char* end = nullptr;
      long v = std::strtol(id.c_str() + 4, &end, 10);
      if (*end || v < 0)
        throw DeviceError(fmt::format("'{}' is not a device id; use cpu, interp, hip, hip:N, sim or sim:<processor>", id));
      index = static_cast<size_t>(v);
    }
    auto& hip = runtime::hip_devices(r);
    if (hip.empty()) throw DeviceError(fmt::format("no HIP device for '{}': {}", id, r.hip_why));
    if (index >= hip.size())
      throw DeviceError(fmt::format("no HIP device '{}': {} HIP device(s) present (hip:0 .. hip:{})", id, hip.size(),
                                    hip.size() - 1));
    return Device(hip[index]);
  }
  throw DeviceError(fmt::format("'{}' is not a device id; use cpu, interp, hip, hip:N, sim or sim:<processor>", id));
}

Device new_cpu_device() { return Device(runtime::make_cpu_device()); }

Device default_device() {
  auto& r = registry();
  std::lock_guard<std::mutex> g(r.lock);
  if (!r.chosen_default) {
    if (const std::string id = support::current_settings()->device; !id.empty())
      r.chosen_default = get_device(id).impl_ptr();
    else
      r.chosen_default = runtime::hip_devices(r).empty() ? r.cpu : runtime::hip_devices(r).front();
  }
  return Device(r.chosen_default);
}

void set_default_device(const Device& d) {
  auto& r = registry();
  std::lock_guard<std::mutex> g(r.lock);
  r.chosen_default = d.impl_ptr();
}

// ---- streams and events ------------------------------------------------------------------

Stream::Stream(std::shared_ptr<runtime::StreamImpl> impl) : impl_(std::move(impl)) {
  if (impl_) device_ = impl_->device();
}

runtime::StreamImpl& Stream::impl() const {
  if (impl_) return *impl_;
  return *default_stream().impl_;
}

void Stream::synchronize() const {
  impl().device()->check_open("synchronize a stream");
  impl().synchronize();
  impl().deliver_prints();
}
void Stream::wait(const Event& e) const {
  e.impl();  // a default-constructed Event throws here
  impl().wait(e.impl_ptr());
}
Device Stream::device() const { return Device(impl().device()); }
bool Stream::is_default() const { return !impl_ || impl_->is_default(); }
bool Stream::is_non_blocking() const { return impl_ && impl_->is_non_blocking(); }
void* Stream::native_handle() const { return impl().native_handle(); }

AutoSynchronize::~AutoSynchronize() noexcept(false) {
  if (std::uncaught_exceptions() > 0) {
    try {
      stream_.synchronize();
    } catch (...) {  // an exception is already propagating
    }
    return;
  }
  stream_.synchronize();
}

Stream stream(const Device& device) { return stream(StreamOptions{}, device); }

Stream stream(const StreamOptions& options, const Device& device) {
  Device d = device ? device : default_device();
  d.impl().check_open("create a stream");
  auto s = d.impl().create_stream(options.non_blocking);
  d.impl().remember_stream(s);
  return Stream(s);
}

Stream default_stream(const Device& device) {
  Device d = device ? device : default_device();
  return Stream(d.impl().default_stream());
}

runtime::EventImpl& Event::impl() const {
  if (!impl_) throw Error("this Event was default-constructed; create events with rocjit::event()");
  return *impl_;
}
void Event::record(const Stream& s) const {
  impl();  // a default-constructed Event throws here
  s.impl().record(impl_);
}
void Event::synchronize() const { impl().synchronize(); }
bool Event::query() const { return impl().query(); }
float Event::elapsed_time(const Event& later) const { return impl().elapsed_ms(later.impl()); }

Event event(const Device& device) {
  Device d = device ? device : default_device();
  d.impl().check_open("create an event");
  return Event(d.impl().create_event());
}

}  // namespace rocjit
