// The CPU device's worker team (internal; no LLVM headers): one job at a time, run by the calling
// thread as worker 0 and up to size() - 1 parked threads. bench-launch compares its fork-join
// cost with llvm::DefaultThreadPool's.
#pragma once

#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace rocjit {

// Worker threads that execute one job at a time; the calling thread works too.
class WorkerPool {
 public:
  explicit WorkerPool(unsigned threads) {
    for (unsigned i = 1; i < threads; ++i) workers_.emplace_back([this, i] { loop(i); });
  }
  ~WorkerPool() {
    {
      std::lock_guard<std::mutex> g(lock_);
      stop_ = true;
    }
    wake_.notify_all();
    for (auto& t : workers_) t.join();
  }
  unsigned size() const { return static_cast<unsigned>(workers_.size() + 1); }

  // Calls job(worker) on `participants` workers (including the caller as worker 0) and waits for
  // all of them, also when some throw (the job lives on the caller's stack); then rethrows the
  // first exception.
  void run(unsigned participants, const std::function<void(unsigned)>& job) {
    std::lock_guard<std::mutex> serial(run_lock_);  // one launch at a time uses the pool
    participants = std::min(participants, size());
    {
      std::lock_guard<std::mutex> g(lock_);
      job_ = &job;
      wanted_ = participants - 1;
      remaining_ = participants - 1;
      error_ = nullptr;
      ++generation_;
    }
    if (participants > 1) wake_.notify_all();
    std::exception_ptr mine;
    try {
      job(0);
    } catch (...) {
      mine = std::current_exception();
    }
    std::unique_lock<std::mutex> g(lock_);
    done_.wait(g, [&] { return remaining_ == 0; });
    job_ = nullptr;
    if (mine) std::rethrow_exception(mine);
    if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
  }

 private:
  void loop(unsigned index) {
    uint64_t seen = 0;
    std::unique_lock<std::mutex> g(lock_);
    while (true) {
      wake_.wait(g, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
      if (index > wanted_) continue;
      const std::function<void(unsigned)>* job = job_;
      g.unlock();
      std::exception_ptr failed;
      try {
        (*job)(index);
      } catch (...) {
        failed = std::current_exception();
      }
      g.lock();
      if (failed && !error_) error_ = failed;
      if (--remaining_ == 0) done_.notify_one();
    }
  }

  std::vector<std::thread> workers_;
  std::mutex lock_, run_lock_;
  std::condition_variable wake_, done_;
  const std::function<void(unsigned)>* job_ = nullptr;
  unsigned wanted_ = 0, remaining_ = 0;
  std::exception_ptr error_;  // the first exception a worker's share threw
  uint64_t generation_ = 0;
  bool stop_ = false;
};

}  // namespace rocjit
