// The CPU device: host memory, kernels through the host JIT, and streams as ordered queues
// served by a worker thread each (the default stream runs work inline, synchronously).
#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <mutex>
#include <new>
#include <thread>
#include <vector>

#include "rocjit/compiler/compile.hpp"
#include "rocjit/compiler/error.hpp"
#include "rocjit/runtime/host_runner.hpp"
#include "runtime/src/backend.hpp"

namespace rocjit::runtime {
namespace {

using Clock = std::chrono::steady_clock;

// A kernel on the CPU device. The host backend compiles it for each of the first few work-group
// shapes it is launched with (constant trip counts in the work-item loops: LLVM unrolls and
// vectorises them without runtime checks), then once more for any further shape.
struct CpuKernel : CompiledKernel {
  static constexpr size_t max_shapes = 4;
  std::shared_ptr<const ir::Kernel> ir;
  mutable std::mutex lock;
  mutable std::vector<HostKernel> shapes;  // each with a fixed_block
  mutable HostKernel any;

  // Compiles on first use of a shape (so CompileErrors surface at the launch), then looks up.
  HostKernel for_block(Dim3 block) const {
    std::lock_guard<std::mutex> g(lock);
    for (const HostKernel& k : shapes) {
      const Dim3 f = *k.fixed_block();
      if (f.x == block.x && f.y == block.y && f.z == block.z) return k;
    }
    if (shapes.size() < max_shapes) {
      CompileOptions options;
      options.block = block;
      shapes.push_back(compile(ir, Target::host(), options).host);
      return shapes.back();
    }
    if (!any) any = compile(ir, Target::host()).host;
    return any;
  }
};

class CpuEvent : public EventImpl {
 public:
  void reset() {
    std::lock_guard<std::mutex> g(lock_);
    done_ = false;
  }
  void complete() {
    {
      std::lock_guard<std::mutex> g(lock_);
      done_ = true;
      time_ = Clock::now();
    }
    cv_.notify_all();
  }
  void synchronize() override {
    std::unique_lock<std::mutex> g(lock_);
    cv_.wait(g, [&] { return done_; });
  }
  bool query() override {
    std::lock_guard<std::mutex> g(lock_);
    return done_;
  }
  float elapsed_ms(EventImpl& later) override {
    auto& other = dynamic_cast<CpuEvent&>(later);
    if (!query() || !other.query())
      throw Error("Event::elapsed_time: both events must have completed (record them, then synchronize)");
    return std::chrono::duration<float, std::milli>(other.time_ - time_).count();
  }

 private:
  std::mutex lock_;
  std::condition_variable cv_;
  bool done_ = true;  // a never-recorded event counts as complete, as in CUDA
  Clock::time_point time_ = Clock::now();
};

class CpuStream : public StreamImpl {
 public:
  CpuStream(std::shared_ptr<DeviceImpl> d, bool is_default) : StreamImpl(std::move(d), is_default) {
    if (!is_default) worker_ = std::thread([this] { serve(); });
  }
  ~CpuStream() override {
    if (!worker_.joinable()) return;
    {
      std::lock_guard<std::mutex> g(lock_);
      stop_ = true;
    }
    cv_.notify_all();
    worker_.join();
  }

  void copy(void* dst, const void* src, size_t bytes, CopyKind, std::vector<std::shared_ptr<void>> keep) override {
    submit([dst, src, bytes, keep = std::move(keep)] { std::memmove(dst, src, bytes); });
  }
  // The dynamic shared bytes travel in the arguments (kernel ABI), where run_host reads them.
  void launch(std::shared_ptr<CompiledKernel> kernel, Dim3 grid, Dim3 block, uint32_t,
              std::shared_ptr<ArgumentPack> args) override {
    submit([kernel, grid, block, args] {
      run_host(static_cast<CpuKernel&>(*kernel).for_block(block), grid, block, args->pointers.data());
    });
  }
  void host_callback(std::function<void()> f) override { submit(std::move(f)); }
  // The queued task owns the event: the caller's Event may be gone before the worker gets there.
  void record(std::shared_ptr<EventImpl> e) override {
    auto ev = std::dynamic_pointer_cast<CpuEvent>(std::move(e));
    if (!ev) throw Error("Event::record: the event belongs to another kind of device than this CPU stream");
    ev->reset();
    submit([ev = std::move(ev)] { ev->complete(); });
  }
  void wait(std::shared_ptr<EventImpl> e) override {
    auto ev = std::dynamic_pointer_cast<CpuEvent>(std::move(e));
    if (!ev) throw Error("Stream::wait: the event belongs to another kind of device than this CPU stream");
    submit([ev = std::move(ev)] { ev->synchronize(); });
  }
  void synchronize() override {
    if (is_default_) return;
    std::unique_lock<std::mutex> g(lock_);
    idle_.wait(g, [&] { return queue_.empty() && !busy_; });
    if (failure_) {
      auto f = failure_;
      failure_ = nullptr;
      std::rethrow_exception(f);
    }
  }

 private:
  void submit(std::function<void()> task) {
    if (is_default_) {
      task();  // the default stream is synchronous
      return;
    }
    {
      std::lock_guard<std::mutex> g(lock_);
      queue_.push_back(std::move(task));
    }
    cv_.notify_one();
  }

  void serve() {
    std::unique_lock<std::mutex> g(lock_);
    while (true) {
      cv_.wait(g, [&] { return stop_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stop requested and drained
      auto task = std::move(queue_.front());
      queue_.pop_front();
      busy_ = true;
      g.unlock();
      try {
        task();
      } catch (...) {
        std::lock_guard<std::mutex> f(failure_lock_);
        if (!failure_) failure_ = std::current_exception();
      }
      task = nullptr;  // release what the task kept alive before reporting idle
      g.lock();
      busy_ = false;
      if (queue_.empty()) idle_.notify_all();
    }
  }

  std::mutex lock_, failure_lock_;
  std::condition_variable cv_, idle_;
  std::deque<std::function<void()>> queue_;
  bool busy_ = false, stop_ = false;
  std::exception_ptr failure_;
  std::thread worker_;
};

uint64_t physical_memory() {
  return static_cast<uint64_t>(sysconf(_SC_PHYS_PAGES)) * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
}
uint64_t available_memory() {
  return static_cast<uint64_t>(sysconf(_SC_AVPHYS_PAGES)) * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
}

class CpuDevice : public DeviceImpl {
 public:
  std::string name() const override { return fmt::format("CPU ({} threads)", host_thread_count()); }
  std::string kind() const override { return "cpu"; }
  std::string id() const override { return "cpu"; }
  std::string target() const override { return "host"; }
  uint64_t total_memory() const override { return physical_memory(); }
  uint64_t free_memory() const override { return available_memory(); }

  void* allocate(size_t bytes) override {
    check_open("allocate memory");
    uint64_t total = physical_memory();
    if (bytes > total)
      throw MemoryError(fmt::format("cannot allocate {} bytes on device 'cpu': the device has {} bytes of memory "
                                    "({} available)",
                                    bytes, total, available_memory()));
    try {
      return ::operator new[](std::max<size_t>(bytes, 1), std::align_val_t(64));
    } catch (const std::bad_alloc&) {
      throw MemoryError(fmt::format("cannot allocate {} bytes on device 'cpu': out of memory ({} bytes available)",
                                    bytes, available_memory()));
    }
  }
  void deallocate(void* p) noexcept override { ::operator delete[](p, std::align_val_t(64)); }
  // Host memory is already directly usable by the CPU device: pinning is bookkeeping.
  void* allocate_pinned(size_t bytes) override { return allocate(bytes); }
  void deallocate_pinned(void* p) noexcept override { deallocate(p); }
  void page_lock(const void*, size_t) override {}
  void page_unlock(const void*) override {}

  std::shared_ptr<StreamImpl> create_stream() override {
    return std::make_shared<CpuStream>(shared_from_this(), false);
  }
  std::shared_ptr<StreamImpl> create_stream_locked_default() override {
    return std::make_shared<CpuStream>(shared_from_this(), true);
  }
  std::shared_ptr<EventImpl> create_event() override { return std::make_shared<CpuEvent>(); }

  void check_geometry(const CompiledKernel& k, Dim3 grid, Dim3 block) override {
    // The shape is checked before a kernel is compiled for it; compiling here (not on the
    // stream's thread) makes a CompileError the launch's own error. A kernel for_block() returns
    // always accepts this shape.
    check_host_geometry(k.name, k.max_block_size, grid, block);
    static_cast<const CpuKernel&>(k).for_block(block);
  }
  uint64_t shared_memory_limit() const override { return host_shared_bytes_limit; }

 protected:
  std::shared_ptr<CompiledKernel> compile(const std::shared_ptr<const ir::Kernel>& ir) override {
    auto k = std::make_shared<CpuKernel>();
    k->ir = ir;
    k->name = ir->name;
    k->max_block_size = ir->max_block_size;
    k->static_shared_bytes = static_cast<uint64_t>(ir->shared_bytes());
    k->wave_size = host_wave_size;
    k->wave_rows = describe_wave_rows(*ir);
    return k;
  }
};

}  // namespace

std::shared_ptr<DeviceImpl> make_cpu_device() { return std::make_shared<CpuDevice>(); }

}  // namespace rocjit::runtime
