// Host-side launch overhead and copy bandwidth on the CPU device: prints a table.
//   build/bin/bench-launch [--repeat=N]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <llvm/Support/ThreadPool.h>
#include <llvm/Support/Threading.h>
#include <rocjit/rocjit.hpp>

#include <atomic>
#include <thread>

#include "runtime/cpu/worker_pool.hpp"

using namespace rocjit;
using namespace rocjit::dsl;
using Clock = std::chrono::steady_clock;

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Median microseconds per launch over `rounds` rounds of `per_round` launches.
template <class F>
double time_launches(F&& launch_once, const Stream& s, int rounds, int per_round) {
  std::vector<double> samples;
  for (int r = 0; r < rounds; ++r) {
    auto t0 = Clock::now();
    for (int i = 0; i < per_round; ++i) launch_once();
    auto t1 = Clock::now();
    s.synchronize();
    samples.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / per_round);
  }
  return median(samples);
}

// One launch's fork-join on a team of `threads` (the caller included): each member takes
// work-groups from a shared counter until `groups` are done, each group a little arithmetic.
// Median microseconds per fork-join, for rocjit's WorkerPool and for llvm::DefaultThreadPool
// (threads - 1 tasks in a ThreadPoolTaskGroup, the caller's share, then wait).
struct ForkJoin {
  double rocjit_us, llvm_us;
};

ForkJoin fork_join(unsigned threads, int groups, int rounds, int per_round) {
  std::atomic<int> next{0};
  std::atomic<uint64_t> sink{0};
  auto share = [&](unsigned) {
    uint64_t local = 0;
    for (int g; (g = next.fetch_add(1, std::memory_order_relaxed)) < groups;)
      for (int i = 0; i < 64; ++i) local += static_cast<uint64_t>(g) * 2654435761u + static_cast<uint64_t>(i);
    sink.fetch_add(local, std::memory_order_relaxed);
  };
  const std::function<void(unsigned)> job = share;
  auto median_of = [&](auto&& once) {
    std::vector<double> samples;
    for (int r = 0; r < rounds; ++r) {
      auto t0 = Clock::now();
      for (int i = 0; i < per_round; ++i) {
        next.store(0, std::memory_order_relaxed);
        once();
      }
      samples.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count() / per_round);
    }
    return median(samples);
  };
  WorkerPool team(threads);
  const double ours = median_of([&] { team.run(threads, job); });
  llvm::DefaultThreadPool pool(llvm::hardware_concurrency(threads - 1 == 0 ? 1 : threads - 1));
  const double theirs = median_of([&] {
    llvm::ThreadPoolTaskGroup tasks(pool);
    for (unsigned w = 1; w < threads; ++w) tasks.async([&, w] { share(w); });
    share(0);
    tasks.wait();
  });
  return {ours, theirs};
}

}  // namespace

int main(int argc, char** argv) {
  int rounds = 11;
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], "--repeat=", 9) == 0) rounds = std::max(1, std::atoi(argv[i] + 9));
  Device cpu = get_device("cpu");
  set_default_device(cpu);

  Kernel empty0 = kernel("empty0", [] {}, {.max_block_size = 64});
  Kernel empty4 = kernel("empty4", [](Array<float> a, Array<float> b, Float x, Int n) {}, {.max_block_size = 64});
  DeviceArray<float> a = device_array<float>({64}), b = device_array<float>({64});
  Stream async = stream();
  Stream sync = default_stream();
  empty0[{1, 64}]();  // compile outside the timed region
  empty4[{1, 64}](a, b, 1.0f, 64);

  const int per_round = 2000;
  double d0 = time_launches([&] { empty0[{1, 64}](); }, sync, rounds, per_round);
  double d4 = time_launches([&] { empty4[{1, 64}](a, b, 1.0f, 64); }, sync, rounds, per_round);
  double a0 = time_launches([&] { empty0[{1, 64, async}](); }, async, rounds, per_round);
  double a4 = time_launches([&] { empty4[{1, 64, async}](a, b, 1.0f, 64); }, async, rounds, per_round);

  std::printf("launch overhead, empty kernel, CPU device (%u worker threads), median of %d rounds x %d launches\n",
              host_thread_count(), rounds, per_round);
  std::printf("%-28s %12s %12s\n", "stream", "0 args (us)", "4 args (us)");
  std::printf("%-28s %12.2f %12.2f\n", "default (synchronous)", d0, d4);
  std::printf("%-28s %12.2f %12.2f\n", "async (enqueue only)", a0, a4);
  std::printf("goal: async launch < 5 us\n\n");

  // The same elementwise add written four ways: what vectorize and host memory in place cost
  // on top of a hand-written launch (the kernel's own work is the same in all four).
  {
    const int64_t n = 4096;
    Kernel add = kernel("add_forall", [](Array<float> x, Array<float> y, Array<float> out) {
      Int i = global_id(0);
      If(i < out.shape(0), [&] { out(i) = x(i) + y(i); });
    });
    auto vadd = vectorize("vadd", [](auto x, auto y) { return x + y; });
    DeviceArray<float> x = device_array<float>({n}), y = device_array<float>({n}), r = device_array<float>({n});
    HostArray<float> px = pinned_array<float>({n}), py = pinned_array<float>({n}), pr = pinned_array<float>({n});
    x.fill(1.0f);
    y.fill(2.0f);
    const int calls = per_round / 4;
    add.forall(n, async)(x, y, r);  // compile outside the timed region
    vadd.on(async).out(r)(x, y);
    async.synchronize();
    const double hand = time_launches([&] { add.forall(n, async)(x, y, r); }, async, rounds, calls);
    const double pinned = time_launches([&] { add.forall(n, async)(px, py, pr); }, async, rounds, calls);
    const double into = time_launches([&] { vadd.on(async).out(r)(x, y); }, async, rounds, calls);
    const double alloc = time_launches([&] { (void)vadd.on(async)(x, y); }, async, rounds, calls);
    std::printf("elementwise add of %lld floats, CPU device, async stream, median of %d rounds x %d calls\n",
                static_cast<long long>(n), rounds, calls);
    std::printf("%-48s %12s\n", "call (enqueued; the kernel runs after)", "us per call");
    std::printf("%-48s %12.2f\n", "hand-written kernel, add.forall(n, s)(x, y, r)", hand);
    std::printf("%-48s %12.2f\n", "same, on pinned HostArrays in place", pinned);
    std::printf("%-48s %12.2f\n", "vectorize, vadd.on(s).out(r)(x, y)", into);
    std::printf("%-48s %12.2f\n", "vectorize, vadd.on(s)(x, y) (allocates r)", alloc);
    std::printf("\n");
  }

  std::printf("fork-join of one launch's worker team (caller included), median of %d rounds x %d\n", rounds,
              per_round / 4);
  std::printf("%-8s %-8s %22s %26s\n", "threads", "groups", "rocjit WorkerPool (us)", "llvm::DefaultThreadPool (us)");
  const unsigned hardware = std::max(1u, std::thread::hardware_concurrency());
  std::vector<unsigned> teams = {1, 2};
  if (hardware > 2) teams.push_back(hardware);
  for (unsigned threads : teams)
    for (int groups : {1, 64}) {
      ForkJoin f = fork_join(threads, groups, rounds, per_round / 4);
      std::printf("%-8u %-8d %22.2f %26.2f\n", threads, groups, f.rocjit_us, f.llvm_us);
    }
  std::printf("\n");

  std::printf("copy bandwidth, CPU device, median of %d copies\n", rounds);
  std::printf("%-12s %14s %14s %14s\n", "size", "H2D (GB/s)", "D2H (GB/s)", "H2D pinned");
  for (int64_t n : {int64_t(1) << 16, int64_t(1) << 20, int64_t(1) << 24}) {
    std::vector<float> host(n, 1.0f);
    HostArray<float> pinned_host = pinned_array<float>({n});
    DeviceArray<float> d = device_array<float>({n});
    std::vector<double> h2d, d2h, pin;
    for (int r = 0; r < rounds; ++r) {
      auto t0 = Clock::now();
      d.copy_to_device(std::span<const float>(host));
      auto t1 = Clock::now();
      d.copy_to_host(std::span<float>(host));
      auto t2 = Clock::now();
      d.copy_to_device(pinned_host);
      auto t3 = Clock::now();
      double bytes = static_cast<double>(n) * sizeof(float);
      h2d.push_back(bytes / std::chrono::duration<double>(t1 - t0).count() / 1e9);
      d2h.push_back(bytes / std::chrono::duration<double>(t2 - t1).count() / 1e9);
      pin.push_back(bytes / std::chrono::duration<double>(t3 - t2).count() / 1e9);
    }
    std::printf("%-12s %14.2f %14.2f %14.2f\n", (std::to_string(n * 4 / 1024) + " KiB").c_str(), median(h2d),
                median(d2h), median(pin));
  }
  return 0;
}
