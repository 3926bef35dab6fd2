// Compile records and Chrome trace events (Settings::time_trace, ROCJIT_TIME_TRACE).
//
// A Record opened while Settings::time_trace is set is traced: its phases become trace events and
// an outermost one also runs LLVM's TimeTraceProfiler on its thread (the engine behind clang's
// -ftime-trace; granularity Settings::time_trace_granularity_us, default 500 like clang's): LLVM's events (optimisation passes, instruction selection, register
// allocation, lld) are taken from it when the record closes, moved onto the process's time line
// and the thread's track, and tagged with the record's kernel and target, so they nest under
// rocjit's phases. The file is written with llvm::json when the process exits.
//
// This file sees no LLVM: the profiler and the JSON file are the compiler back end's, through the
// hooks of rocjit/support/time_trace_backend.h (compiler/targets/time_trace_llvm.cpp).
#include "rocjit/compiler/time_trace.hpp"

#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <deque>
#include <mutex>
#include <thread>

#include "rocjit/support/log.h"
#include "rocjit/support/settings.h"
#include "rocjit/support/time_trace_backend.h"

namespace rocjit {
namespace {

using Clock = std::chrono::steady_clock;

using time_trace::Event;

std::atomic<const time_trace::Backend*> backend{nullptr};

struct State {
  std::mutex lock;
  std::deque<CompileRecord> records;
  std::vector<Event> events;
  Clock::time_point origin = Clock::now();
  std::string path;  // the time_trace setting of the first traced record; under lock
  ~State() {
    std::string failure;
    {
      std::lock_guard<std::mutex> g(lock);
      failure = write();
    }
    if (!failure.empty()) support::log(LogLevel::warning, "cannot write the time trace to {}: {}", path, failure);
  }
  // Chrome's JSON trace format (the back end writes it). Returns what went wrong writing the
  // file, if anything.
  std::string write() {
    if (path.empty()) return {};
    const time_trace::Backend* b = backend.load();
    if (!b) return "no compiler back end to write it";
    return b->write(path, events);
  }
};

State& state() {
  static State s;
  return s;
}

thread_local time_trace::Record* current = nullptr;
// The record that started LLVM's profiler on this thread (it takes LLVM's events when it closes).
thread_local const time_trace::Record* profiling = nullptr;
thread_local Clock::time_point profiling_start;

double since_origin_us(Clock::time_point t) {
  return std::chrono::duration<double, std::micro>(t - state().origin).count();
}

// The operating system's thread id (distinct for live threads, unlike a hash of std::thread::id).
size_t this_thread() { return static_cast<size_t>(::syscall(SYS_gettid)); }

}  // namespace

double CompileRecord::phase_ms(const std::string& name) const {
  double total = 0;
  for (const auto& p : phases)
    if (p.name == name) total += p.ms;
  return total;
}

std::vector<CompileRecord> compile_records() {
  State& s = state();
  std::lock_guard<std::mutex> g(s.lock);
  return {s.records.begin(), s.records.end()};
}

CompileRecord last_compile_record(const std::string& kernel, const std::string& target) {
  State& s = state();
  std::lock_guard<std::mutex> g(s.lock);
  for (auto it = s.records.rbegin(); it != s.records.rend(); ++it)
    if (it->kernel == kernel && (target.empty() || it->target == target)) return *it;
  return {};
}

namespace time_trace {

Record::Record(std::string kernel, std::string target) : start_(Clock::now()), outer_(current) {
  data_.kernel = std::move(kernel);
  data_.target = std::move(target);
  current = this;
  const std::shared_ptr<const Settings> settings = support::current_settings();
  traced_ = !settings->time_trace.empty();
  if (!traced_) return;
  State& s = state();
  {
    std::lock_guard<std::mutex> g(s.lock);
    if (s.path.empty()) s.path = settings->time_trace;
  }
  // LLVM's profiler for this thread, unless an outer record (or the program) already runs it.
  const time_trace::Backend* b = backend.load();
  const Clock::time_point start = Clock::now();
  if (b && b->start_profiler(settings->time_trace_granularity_us)) {
    profiling_start = start;
    profiling = this;
  }
}

Record::~Record() {
  current = outer_;
  auto end = Clock::now();
  data_.total_ms = std::chrono::duration<double, std::milli>(end - start_).count();
  std::vector<Event> llvm_events;
  if (profiling == this) {
    if (const time_trace::Backend* b = backend.load())
      b->take_events(data_.kernel, data_.target, since_origin_us(profiling_start), this_thread(), llvm_events);
    profiling = nullptr;
  }
  State& s = state();
  std::lock_guard<std::mutex> g(s.lock);
  if (traced_) {
    s.events.push_back(Event{"compile " + data_.kernel, data_.kernel, data_.target, since_origin_us(start_),
                             data_.total_ms * 1000, this_thread()});
    for (Event& e : llvm_events) s.events.push_back(std::move(e));
  }
  s.records.push_back(std::move(data_));
  if (s.records.size() > 4096) s.records.pop_front();
}

void set_backend(const Backend* b) { backend.store(b); }

void Record::set_cache(const char* outcome) { data_.cache = outcome; }

void current_record_cache(const char* outcome) {
  if (current) current->set_cache(outcome);
}

Phase::Phase(const char* name) : name_(name), start_(Clock::now()) {}

Phase::~Phase() {
  if (!current) return;
  auto end = Clock::now();
  double ms = std::chrono::duration<double, std::milli>(end - start_).count();
  current->data_.phases.push_back(CompilePhase{name_, ms});
  if (!current->traced_) return;
  State& s = state();
  std::lock_guard<std::mutex> g(s.lock);
  s.events.push_back(Event{name_, current->data_.kernel, current->data_.target, since_origin_us(start_), ms * 1000,
                           this_thread()});
}

}  // namespace time_trace
}  // namespace rocjit
