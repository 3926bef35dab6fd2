// Running host kernels: geometry checks, a worker pool that takes chunks of work-groups, and
// per-worker shared memory and per-work-item storage. The code comes from compile(kernel,
// Target::host()); this file only calls its entry point (HostKernel::entry).
#include "rocjit/runtime/host_runner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <functional>
#include <limits>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "rocjit/compiler/error.hpp"
#include "rocjit/support/settings.h"
#include "rocjit/support/log.h"
#include "cpu/race_checker.hpp"
#include "cpu/worker_pool.hpp"

namespace rocjit {
namespace {

void report_out_of_bounds(HostBoundsReport* r, int32_t check, int64_t i0, int64_t i1, int64_t i2) {
  bool expected = false;
  if (r->hit.compare_exchange_strong(expected, true)) {
    r->check = check;
    r->index[0] = i0;
    r->index[1] = i1;
    r->index[2] = i2;
  }
}

// Never destroyed: a stream's worker may still run a launch while the process exits (its
// threads wait on the pool's own state, which therefore stays valid).
// Its size: Settings::cpu_threads when it starts (the first launch).
std::atomic<unsigned> pool_size{0};  // 0 until the pool exists
WorkerPool& pool() {
  static WorkerPool& instance = [] () -> WorkerPool& {
    auto& p = *new WorkerPool(host_thread_count());
    pool_size = p.size();
    return p;
  }();
  return instance;
}

struct AlignedFree {
  void operator()(void* p) const { ::operator delete(p, std::align_val_t(64)); }
};
using AlignedBuffer = std::unique_ptr<void, AlignedFree>;

// Per-worker buffers, grown on demand and kept between launches.
struct WorkerBuffers {
  AlignedBuffer shared, storage;
  size_t shared_size = 0, storage_size = 0;
  alignas(64) std::byte scratch[64];
};

void* aligned_buffer(AlignedBuffer& buffer, size_t& size, size_t wanted) {
  if (wanted > size) {
    buffer.reset(::operator new(wanted, std::align_val_t(64)));
    size = wanted;
  }
  return buffer.get();
}

}  // namespace

unsigned host_thread_count() {
  if (const unsigned started = pool_size.load()) return started;
  if (const unsigned chosen = support::current_settings()->cpu_threads) return chosen;
  return std::max(1u, std::thread::hardware_concurrency());
}

void check_host_geometry(const std::string& name, uint32_t max_block_size, Dim3 grid, Dim3 block) {
  const char* axis[] = {"x", "y", "z"};
  int64_t g[] = {grid.x, grid.y, grid.z}, b[] = {block.x, block.y, block.z};
  for (int d = 0; d < 3; ++d) {
    if (g[d] <= 0)
      throw LaunchError(fmt::format("kernel '{}': grid.{} is {}; every grid dimension must be at least 1", name,
                                    axis[d], g[d]));
    if (b[d] <= 0)
      throw LaunchError(fmt::format("kernel '{}': block.{} is {}; every block dimension must be at least 1", name,
                                    axis[d], b[d]));
  }
  int64_t threads = 0;
  if (__builtin_mul_overflow(b[0], b[1], &threads) || __builtin_mul_overflow(threads, b[2], &threads))
    throw LaunchError(fmt::format("kernel '{}': a block of {}x{}x{} work-items exceeds the limit of {}", name, b[0],
                                  b[1], b[2], host_max_group_size));
  if (threads > host_max_group_size)
    throw LaunchError(fmt::format("kernel '{}': a block of {}x{}x{} = {} work-items exceeds the limit of {}", name,
                                  b[0], b[1], b[2], threads, host_max_group_size));
  if (threads > max_block_size)
    throw LaunchError(fmt::format("kernel '{}': a block of {} work-items exceeds the kernel's declared maximum of {} "
                                  "(KernelOptions::max_block_size)",
                                  name, threads, max_block_size));
  int64_t total = threads;
  bool overflow = false;
  for (int64_t n : g) overflow = overflow || __builtin_mul_overflow(total, n, &total);
  if (overflow)
    throw LaunchError(fmt::format("kernel '{}': grid {}x{}x{} of blocks {}x{}x{} has more work-items than a 64-bit "
                                  "count can hold",
                                  name, g[0], g[1], g[2], b[0], b[1], b[2]));
  for (int d = 0; d < 3; ++d)
    if (static_cast<__int128>(g[d]) * b[d] > std::numeric_limits<int32_t>::max())
      throw LaunchError(fmt::format("kernel '{}': grid.{} * block.{} = {} work-items; global ids are 32-bit, so each "
                                    "dimension holds at most 2147483647",
                                    name, axis[d], axis[d], static_cast<int64_t>(static_cast<__int128>(g[d]) * b[d])));
}

void check_host_geometry(const HostKernel& kernel, Dim3 grid, Dim3 block) {
  if (!kernel) throw LaunchError("cannot run an empty HostKernel; compile one with compile(kernel, Target::host())");
  const std::string& name = kernel.name();
  if (!kernel.entry())
    throw LaunchError(fmt::format("kernel '{}' was compiled with CompileOptions::jit = false (for its texts "
                                  "only) and cannot run",
                                  name));
  check_host_geometry(name, kernel.max_block_size(), grid, block);
  if (const std::optional<Dim3> f = kernel.fixed_block();
      f && (f->x != block.x || f->y != block.y || f->z != block.z))
    throw LaunchError(fmt::format("kernel '{}': it was compiled for work-groups of {}x{}x{} "
                                  "(CompileOptions::block) and cannot run with {}x{}x{}",
                                  name, f->x, f->y, f->z, block.x, block.y, block.z));
}

void run_host(const HostKernel& kernel, Dim3 grid, Dim3 block, const void* const* args) {
  check_host_geometry(kernel, grid, block);
  const HostGroupFunction entry = kernel.entry();
  const int64_t groups = grid.count();
  const uint64_t threads = static_cast<uint64_t>(block.count());
  const size_t storage_bytes = kernel.work_item_storage_bytes() * threads;
  size_t shared_bytes = kernel.shared_bytes();
  if (const int a = kernel.dynamic_shared_argument(); a >= 0) {
    shared_bytes += *static_cast<const uint32_t*>(args[a]);
    if (shared_bytes > host_shared_bytes_limit)
      throw LaunchError(fmt::format("kernel '{}': {} bytes of shared memory per work-group ({} static + {} dynamic) "
                                    "exceed the {} bytes the host backend gives a work-group",
                                    kernel.name(), shared_bytes, kernel.shared_bytes(),
                                    *static_cast<const uint32_t*>(args[a]), host_shared_bytes_limit));
  }
  HostBoundsReport report;
  // ROCJIT_CHECK=races: the launch's shadow memory (race_checker.hpp), one state per worker.
  const std::shared_ptr<const Settings> now = support::current_settings();
  WorkerPool& workers = pool();
  std::unique_ptr<RaceLaunch> races;
  if (kernel.races_checked())
    races = std::make_unique<RaceLaunch>(kernel, grid, block, args, now->check_same_value, workers.size());
  // Chunks small enough to balance, large enough to amortise the call.
  const int64_t chunk = std::max<int64_t>(1, groups / (static_cast<int64_t>(workers.size()) * 8));
  std::atomic<int64_t> next{0};
  auto job = [&](unsigned) {
    thread_local WorkerBuffers buffers;
    HostLaunchContext context{};
    context.block[0] = static_cast<int32_t>(block.x);
    context.block[1] = static_cast<int32_t>(block.y);
    context.block[2] = static_cast<int32_t>(block.z);
    context.grid[0] = static_cast<int32_t>(grid.x);
    context.grid[1] = static_cast<int32_t>(grid.y);
    context.grid[2] = static_cast<int32_t>(grid.z);
    context.shared = aligned_buffer(buffers.shared, buffers.shared_size, std::max<size_t>(shared_bytes, 64));
    context.storage = aligned_buffer(buffers.storage, buffers.storage_size, std::max<size_t>(storage_bytes, 64));
    context.report = &report_out_of_bounds;
    context.report_state = &report;
    context.scratch = buffers.scratch;
    if (races) {
      HostRaceState* race_state = races->worker(context.shared, shared_bytes, context.scratch);
      context.race_access = &RaceLaunch::access;
      context.race_sync = &RaceLaunch::sync;
      context.race_state = race_state;
      context.race_fast = &race_state->fast;
    }
    for (int64_t begin = next.fetch_add(chunk); begin < groups; begin = next.fetch_add(chunk))
      entry(args, &context, begin, std::min(groups, begin + chunk));
  };
  unsigned participants = static_cast<unsigned>(std::min<int64_t>(workers.size(), (groups + chunk - 1) / chunk));
  workers.run(participants, job);
  if (report.hit.load()) throw LaunchError(kernel.out_of_bounds_message(report, args));
  if (races) {
    if (std::string found = races->report(); !found.empty()) {
      if (!now->check_report_only) throw LaunchError(found);
      support::log(LogLevel::warning, "{}", found);
    }
  }
}

}  // namespace rocjit
