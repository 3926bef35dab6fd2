// The CPU device: host memory, kernels through the host JIT, and streams as ordered queues
// served by a worker thread each (the default stream runs work inline, synchronously).
#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
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
#include "rocjit/compiler/interpret.hpp"
#include "rocjit/compiler/kernel_abi.hpp"
#include "rocjit/runtime/host_runner.hpp"
#include "rocjit/support/log.h"
#include "rocjit/support/settings.h"
#include "src/backend.hpp"

namespace rocjit::runtime {
namespace {

using Clock = std::chrono::steady_clock;

// ---- tiered compilation ---------------------------------------------------------------------
// A shape's first launch runs the O3 kernel if the kernel cache has it, or else one compiled at
// O1 (bench-compile: 8-20 ms on the samples against 15-60 ms at O3); from its second launch on,
// the O3 kernel is compiled on the tier-up thread and launches use it once it is ready. So a
// kernel launched once (most tests) never waits for O3, and one launched in a loop runs at O3
// soon after. A first launch of more than tier_direct_items work-items compiles O3 at once (O1
// code could cost it more than the O3 compile). Off with Settings::cpu_tiering false
// (ROCJIT_CPU_TIERING=0), and while Settings::dump or llvm_args is set (their output then
// describes the O3 compile).
constexpr uint64_t tier_direct_items = uint64_t(1) << 22;

std::atomic<uint64_t> quick_compiles{0}, cached_starts{0}, tier_ups{0}, tier_ups_failed{0};

// Whether a first launch compiles at O1, with the settings in force now.
bool tiering_enabled() {
  const std::shared_ptr<const Settings> s = support::current_settings();
  return s->cpu_tiering && !s->dump.any() && s->llvm_args.empty();
}

// One thread running posted tasks in order, started with the first task; tasks catch their own
// errors. At destruction it waits for the task in progress and, as asked, runs the tasks still
// queued (a stream's work) or drops them (tier-up compiles nobody waits for).
class SerialWorker {
 public:
  enum class AtExit { drain, drop };
  explicit SerialWorker(AtExit at_exit) : at_exit_(at_exit) {}
  SerialWorker(const SerialWorker&) = delete;
  SerialWorker& operator=(const SerialWorker&) = delete;
  ~SerialWorker() {
    {
      std::lock_guard<std::mutex> g(lock_);
      stop_ = true;
      if (at_exit_ == AtExit::drop) {
        pending_ -= queue_.size();
        queue_.clear();
      }
    }
    cv_.notify_all();
    idle_.notify_all();
    if (thread_.joinable()) thread_.join();
  }
  // Returns whether the worker was idle (nothing queued or running) before this task.
  bool post(std::function<void()> task) {
    bool was_idle;
    {
      std::lock_guard<std::mutex> g(lock_);
      if (stop_) return false;  // stopped for process exit: the task is dropped
      if (!thread_.joinable()) thread_ = std::thread([this] { serve(); });
      was_idle = pending_ == 0;
      queue_.push_back(std::move(task));
      ++pending_;
    }
    cv_.notify_one();
    return was_idle;
  }
  // For process exit: drops what is queued, refuses new tasks and waits for the one running.
  void stop_and_wait() {
    {
      std::lock_guard<std::mutex> g(lock_);
      stop_ = true;
      pending_ -= queue_.size();
      queue_.clear();
    }
    cv_.notify_all();
    wait_idle();
    // Nothing starts the thread again once stopped: join it, so that no thread outlives exit
    // unjoined (ThreadSanitizer reported the tier-up worker's thread as leaked in exit-under-load).
    if (thread_.joinable() && thread_.get_id() != std::this_thread::get_id()) thread_.join();
  }
  // Until every posted task has run (or been dropped).
  void wait_idle() {
    std::unique_lock<std::mutex> g(lock_);
    idle_.wait(g, [&] { return pending_ == 0; });
  }

 private:
  void serve() {
    std::unique_lock<std::mutex> g(lock_);
    while (true) {
      cv_.wait(g, [&] { return stop_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopped, and nothing (more) to run
      auto task = std::move(queue_.front());
      queue_.pop_front();
      g.unlock();
      task();
      task = nullptr;  // release what the task kept alive before reporting idle
      g.lock();
      if (--pending_ == 0) idle_.notify_all();
    }
  }
  const AtExit at_exit_;
  std::mutex lock_;
  std::condition_variable cv_, idle_;
  std::deque<std::function<void()>> queue_;
  size_t pending_ = 0;  // queued and running
  bool stop_ = false;
  std::thread thread_;
};

// The tier-up compiles, one at a time, on a worker that is never destroyed (nor its thread and
// what the compiles use, so no late destructor can pull them from under a compile).
//
// A compile may still run when the process exits. exit() runs the atexit handlers and the
// destructors of static objects together, in the reverse order of their registration, and a
// compile registers destructors itself: LLVM constructs function-local statics on first use
// (SelectionDAG's table of extended value types, for one), and their destructors run before any
// handler registered before the compile began. A handler that waits for the compile comes too
// late for them: exit destroyed such a static under a running tier-up (SIGSEGV in
// SelectionDAG::getNode, 2 exits in 1,500 of tests/stress/exit_under_load.sh).
//
// What runs first at exit is the destructors of the exiting thread's thread_local objects
// ([basic.start.term]; glibc calls them before any exit handler). So the thread that posts a
// tier-up, when it is the process's main thread, gets a thread_local guard whose destructor
// stops the worker and waits for the compile in progress: when main returns, nothing is
// destroyed before the compile ends. The main thread's thread_locals are destroyed only by
// exit(). For exits from other threads, an atexit handler registered each time the worker
// turns busy does the same, as well as it can (after the destructors registered since).
SerialWorker& tier_up_worker() {
  static SerialWorker& worker = *new SerialWorker(SerialWorker::AtExit::drop);
  return worker;
}

void stop_tier_ups_at_exit() { tier_up_worker().stop_and_wait(); }

struct TierUpExitGuard {
  ~TierUpExitGuard() { stop_tier_ups_at_exit(); }
};

void post_tier_up(std::function<void()> task) {
  if (gettid() == getpid()) {
    static thread_local TierUpExitGuard guard;  // constructed on the first post from main
    (void)guard;
  }
  if (tier_up_worker().post(std::move(task))) std::atexit(stop_tier_ups_at_exit);
}

// The kernel one work-group shape of a CpuKernel runs, and how far its tiering has got.
struct Shape {
  Dim3 block;
  std::mutex lock;
  HostKernel kernel;     // what launches run now
  bool final = false;    // O3, or no tier-up will come
  unsigned launches = 0;
};

// A kernel the CPU device or the interpreter device runs on the host.
struct HostRunKernel : CompiledKernel {
  // Weak, so that the device can forget the kernel once nobody holds its IR; every use is during
  // a launch, which holds the IR.
  std::weak_ptr<const ir::Kernel> ir;
  // At a launch, on the caller's thread (so errors are the launch's own).
  virtual void prepare_launch(Dim3 grid, Dim3 block) const = 0;
  // On the stream's thread.
  virtual void run(Dim3 grid, Dim3 block, const ArgumentPack& args) const = 0;
  // What a queued launch must keep alive until it has run (called when it is queued).
  virtual std::shared_ptr<const void> hold_for_launch() const { return nullptr; }
};

// A kernel on the interpreter device (`interp`): ir::interpret, the reference semantics, runs it
// with the launch's arguments decoded through the kernel ABI (the same packing every device
// gets). Slow, and checks what the interpreter checks: out-of-bounds accesses, reads of unwritten
// shared or local memory and variables, work-items at different barriers.
struct InterpKernel : HostRunKernel {
  KernelAbi abi;
  AssertMode asserts = AssertMode::report;  // Settings::asserts when the device "compiled" it

  void prepare_launch(Dim3, Dim3) const override {}
  // The interpreter runs the IR itself: a queued launch holds it (the device refers to it weakly).
  std::shared_ptr<const void> hold_for_launch() const override { return ir.lock(); }
  void run(Dim3 grid, Dim3 block, const ArgumentPack& args) const override {
    std::shared_ptr<const ir::Kernel> k = ir.lock();
    if (!k) throw LaunchError(fmt::format("kernel '{}': its IR is gone (launches hold it; this is a bug)", name));
    auto cell = [&](size_t i) { return static_cast<const unsigned char*>(args.pointers.at(i)); };
    std::vector<InterpretArgument> bound(k->params.size());
    InterpretOptions options;
    options.wave_size = wave_size;
    options.asserts = asserts;
    for (size_t i = 0; i < abi.arguments.size(); ++i) {
      const AbiArgument& a = abi.arguments[i];
      switch (a.kind) {
        case AbiArgument::Kind::scalar: {
          InterpretArgument& s = bound[a.param];
          s.kind = InterpretArgument::Kind::scalar;
          s.type = a.type;
          std::memcpy(&s.bits, cell(i), a.size);
          break;
        }
        case AbiArgument::Kind::pointer: {
          InterpretArgument& arr = bound[a.param];
          arr.kind = InterpretArgument::Kind::array;
          arr.type = a.type;
          std::memcpy(&arr.data, cell(i), sizeof(void*));
          break;
        }
        case AbiArgument::Kind::extent: {
          int32_t e = 0;
          std::memcpy(&e, cell(i), sizeof e);
          bound[a.param].shape.push_back(e);
          break;
        }
        case AbiArgument::Kind::stride: {
          int64_t s = 0;
          std::memcpy(&s, cell(i), sizeof s);
          bound[a.param].strides.push_back(s);
          break;
        }
        case AbiArgument::Kind::dynamic_shared: {
          uint32_t bytes = 0;
          std::memcpy(&bytes, cell(i), sizeof bytes);
          options.dynamic_shared_bytes = bytes;
          break;
        }
        case AbiArgument::Kind::print_buffer:
          std::memcpy(&options.print_buffer, cell(i), sizeof(void*));
          break;
      }
    }
    // Each array's buffer: its elements (contiguous layouts) or up to its last strided element.
    for (InterpretArgument& a : bound) {
      if (a.kind != InterpretArgument::Kind::array) continue;
      int64_t size = 1;
      if (a.strides.empty()) {
        for (int64_t e : a.shape) size *= e;
      } else {
        for (size_t d = 0; d < a.shape.size(); ++d) {
          if (a.shape[d] == 0) size = 0;
          if (size) size += (a.shape[d] - 1) * a.strides[d];
        }
      }
      a.size = size;
    }
    interpret(*k, grid, block, bound, options);
  }
};

// A kernel on the CPU device. The host backend compiles it for each of the first few work-group
// shapes it is launched with (constant trip counts in the work-item loops: LLVM unrolls and
// vectorises them without runtime checks), then once more for any further shape.
struct CpuKernel : HostRunKernel {
  static constexpr size_t max_shapes = 4;
  mutable std::mutex lock;
  mutable std::vector<std::shared_ptr<Shape>> shapes;
  mutable HostKernel any;

  // At a launch (on the caller's thread, so CompileErrors are the launch's own): compiles on
  // first use of a shape, counts the launch and starts the tier-up at the second.
  void run(Dim3 grid, Dim3 block, const ArgumentPack& args) const override {
    run_host(for_block(block), grid, block, args.pointers.data());
  }

  void prepare_launch(Dim3 grid, Dim3 block) const override {
    std::shared_ptr<Shape> shape = find(block, grid.count() * block.count());
    if (!shape) return;  // beyond max_shapes: `any`, compiled at O3
    std::lock_guard<std::mutex> g(shape->lock);
    if (shape->final || ++shape->launches != 2) return;
    ++tier_ups;
    post_tier_up([ir = source(), shape] {
      HostKernel better;
      try {
        CompileOptions options;
        options.block = shape->block;
        // Under ROCJIT_COMPILE=never only a bundled or cached O3 kernel can replace the O1 one.
        options.cached_only = support::current_settings()->compile_never;
        better = compile(ir, Target::host(), options).host;
      } catch (const std::exception& e) {  // keep running the O1 kernel
        ++tier_ups_failed;
        support::log(LogLevel::warning, "kernel '{}': the O3 compile for work-group shape {}x{}x{} failed, so its "
                     "launches keep the O1 code: {}", ir->name, shape->block.x, shape->block.y, shape->block.z,
                     e.what());
      } catch (...) {
        ++tier_ups_failed;
      }
      const bool improved = static_cast<bool>(better);
      {
        std::lock_guard<std::mutex> g(shape->lock);
        if (improved) shape->kernel = std::move(better);
        shape->final = true;
      }
      if (improved)
        support::log(LogLevel::debug, "kernel '{}': the O3 code for work-group shape {}x{}x{} is in use (a background "
                     "tier-up)", ir->name, shape->block.x, shape->block.y, shape->block.z);
    });
  }

  // prepare_launch(): the O3 code for `block` now. A new shape compiles at O3 at once (as a
  // large first launch does); one running O1 code gets its O3 code here, in the caller's thread
  // (a tier-up of it in flight finds the same kernel in the kernel cache, or compiles it again).
  void compile_final(Dim3 block) const override {
    std::shared_ptr<Shape> shape = find(block, tier_direct_items + 1);
    if (!shape) return;  // beyond max_shapes: `any`, compiled at O3
    std::lock_guard<std::mutex> g(shape->lock);
    if (shape->final) return;
    CompileOptions options;
    options.block = shape->block;
    shape->kernel = compile(source(), Target::host(), options).host;
    shape->final = true;
  }

  // The kernel a launch with this shape runs now (prepare_launch came first).
  HostKernel for_block(Dim3 block) const {
    std::shared_ptr<Shape> shape = find(block, 0);
    if (!shape) return any;
    std::lock_guard<std::mutex> g(shape->lock);
    return shape->kernel;
  }

 private:
  std::shared_ptr<const ir::Kernel> source() const {
    std::shared_ptr<const ir::Kernel> k = ir.lock();
    if (!k) throw LaunchError(fmt::format("kernel '{}': its IR is gone (launches hold it; this is a bug)", name));
    return k;
  }

  // The shape's entry, compiled on first use (nullptr: the shape uses `any`).
  std::shared_ptr<Shape> find(Dim3 block, uint64_t items) const {
    std::lock_guard<std::mutex> g(lock);
    for (const std::shared_ptr<Shape>& s : shapes)
      if (s->block.x == block.x && s->block.y == block.y && s->block.z == block.z) return s;
    if (shapes.size() >= max_shapes) {
      if (!any) any = compile(source(), Target::host()).host;
      return nullptr;
    }
    auto shape = std::make_shared<Shape>();
    shape->block = block;
    CompileOptions options;
    options.block = block;
    bool quick = false;  // compiled at O1: a tier-up follows
    if (tiering_enabled() && items <= tier_direct_items) {
      options.cached_only = true;
      shape->kernel = compile(source(), Target::host(), options).host;
      if (shape->kernel) {
        ++cached_starts;
      } else {
        quick = true;
        options.cached_only = false;
        options.opt_level = 1;
        shape->kernel = compile(source(), Target::host(), options).host;
        ++quick_compiles;
      }
    } else {
      shape->kernel = compile(source(), Target::host(), options).host;
    }
    shape->final = !quick;
    shapes.push_back(shape);
    return shape;
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
  CpuStream(std::shared_ptr<DeviceImpl> d, bool is_default, bool non_blocking)
      : StreamImpl(std::move(d), is_default, non_blocking) {}
  ~CpuStream() override {
    wait_idle();
    deliver_prints_at_destruction();
  }

  void copy(void* dst, const void* src, size_t bytes, CopyKind, std::vector<std::shared_ptr<void>> keep) override {
    submit([dst, src, bytes, keep = std::move(keep)] { std::memmove(dst, src, bytes); });
  }
  // The dynamic shared bytes travel in the arguments (kernel ABI), where run_host reads them.
  void launch(std::shared_ptr<CompiledKernel> kernel, Dim3 grid, Dim3 block, uint32_t,
              std::shared_ptr<ArgumentPack> args) override {
    submit([kernel, grid, block, args, hold = static_cast<const HostRunKernel&>(*kernel).hold_for_launch()] {
      static_cast<const HostRunKernel&>(*kernel).run(grid, block, *args);
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
    wait_idle();
    std::exception_ptr f;
    {
      std::lock_guard<std::mutex> g(failure_lock_);
      std::swap(f, failure_);
    }
    if (f) std::rethrow_exception(f);
  }

 private:
  // Until every task posted so far has run (failures stay for synchronize()).
  void wait_idle() { worker_.wait_idle(); }

  void submit(std::function<void()> task) {
    if (is_default_) {
      wait_for_blocking_streams();
      task();  // the default stream is synchronous
      return;
    }
    // The first failure is kept for synchronize(); later tasks still run.
    worker_.post([this, task = std::move(task)] {
      serving_ = this;
      try {
        task();
      } catch (...) {
        std::lock_guard<std::mutex> f(failure_lock_);
        if (!failure_) failure_ = std::current_exception();
      }
    });
  }

  // The default stream's legacy semantics: its operation starts after everything enqueued on the
  // blocking streams. A stream's own task (a host callback) that uses the default stream does
  // not wait for its own stream, which could never finish first.
  void wait_for_blocking_streams() {
    auto device = this->device();
    if (!device) return;
    for (const auto& s : device->live_streams())
      if (!s->is_non_blocking() && s.get() != serving_) static_cast<CpuStream&>(*s).wait_idle();
  }

  static thread_local const CpuStream* serving_;  // the stream whose worker runs this thread's task
  std::mutex failure_lock_;
  std::exception_ptr failure_;
  SerialWorker worker_{SerialWorker::AtExit::drain};  // last: joined before the members it uses go
};

thread_local const CpuStream* CpuStream::serving_ = nullptr;

uint64_t physical_memory() {
  return static_cast<uint64_t>(sysconf(_SC_PHYS_PAGES)) * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
}
uint64_t available_memory() {
  return static_cast<uint64_t>(sysconf(_SC_AVPHYS_PAGES)) * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
}

// The CPU device, or with `interpret` the interpreter device (`interp`): the same memory, streams
// and events, kernels run by ir::interpret instead of the host JIT.
class CpuDevice : public DeviceImpl {
 public:
  explicit CpuDevice(bool interpret = false) : interpret_(interpret) {}
  std::string name() const override {
    return interpret_ ? std::string("reference interpreter") : fmt::format("CPU ({} threads)", host_thread_count());
  }
  std::string kind() const override { return interpret_ ? "interp" : "cpu"; }
  std::string id() const override { return interpret_ ? "interp" : "cpu"; }
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
  // Kernels run in this process: every host address is theirs, and managed memory is memory.
  void* mapped_address(void* host_block) override { return host_block; }
  bool shares_host_memory() const override { return true; }
  void* allocate_managed(size_t bytes) override { return allocate(bytes); }
  void deallocate_managed(void* p) noexcept override { deallocate(p); }

  std::shared_ptr<StreamImpl> create_stream(bool non_blocking) override {
    return std::make_shared<CpuStream>(shared_from_this(), false, non_blocking);
  }
  std::shared_ptr<StreamImpl> create_stream_locked_default() override {
    return std::make_shared<CpuStream>(shared_from_this(), true, false);
  }
  std::shared_ptr<EventImpl> create_event() override { return std::make_shared<CpuEvent>(); }

  void check_geometry(const CompiledKernel& k, Dim3 grid, Dim3 block) override {
    // The shape is checked before a kernel is compiled for it; compiling here (not on the
    // stream's thread) makes a CompileError the launch's own error. A kernel for_block() returns
    // always accepts this shape.
    check_host_geometry(k.name, k.max_block_size, grid, block);
    static_cast<const HostRunKernel&>(k).prepare_launch(grid, block);
  }
  // Not through prepare_launch, which would compile the shape at O1 first.
  void prepare_final(const CompiledKernel& k, Dim3 grid, Dim3 block) override {
    check_host_geometry(k.name, k.max_block_size, grid, block);
    k.compile_final(block);
  }
  uint64_t shared_memory_limit() const override { return host_shared_bytes_limit; }
  unsigned wave_size() const override { return host_wave_size; }
  unsigned compute_units() const override { return host_thread_count(); }
  unsigned max_group_size() const override { return host_max_group_size; }

 protected:
  std::shared_ptr<CompiledKernel> compile(const std::shared_ptr<const ir::Kernel>& ir) override {
    std::shared_ptr<HostRunKernel> k;
    if (interpret_) {
      // What every compile checks (verify, uniformity) before the interpreter runs the IR.
      check_interpretable(*ir);
      auto interp = std::make_shared<InterpKernel>();
      interp->abi = kernel_abi(*ir);
      interp->asserts = settings().asserts;
      k = interp;
    } else {
      k = std::make_shared<CpuKernel>();
    }
    k->ir = ir;
    k->name = ir->name;
    k->max_block_size = ir->max_block_size;
    k->static_shared_bytes = static_cast<uint64_t>(ir->shared_bytes());
    k->wave_size = host_wave_size;
    k->wave_rows = describe_wave_rows(*ir);
    k->mma_site = describe_mma(*ir);
    return k;
  }

 private:
  bool interpret_;
};

}  // namespace

std::shared_ptr<DeviceImpl> make_cpu_device() { return std::make_shared<CpuDevice>(); }
std::shared_ptr<DeviceImpl> make_interp_device() { return std::make_shared<CpuDevice>(true); }

}  // namespace rocjit::runtime

namespace rocjit {

CpuTieringStats cpu_tiering_stats() {
  using namespace runtime;
  return {quick_compiles.load(), cached_starts.load(), tier_ups.load(), tier_ups_failed.load()};
}

void wait_for_cpu_tier_ups() { runtime::tier_up_worker().wait_idle(); }

}  // namespace rocjit
