// Compile records and Chrome trace events (ROCJIT_TIME_TRACE).
#include "rocjit/compiler/time_trace.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <thread>

namespace rocjit {
namespace {

using Clock = std::chrono::steady_clock;

struct Event {
  std::string name, kernel, target;
  double start_us, duration_us;
  size_t thread;
};

struct State {
  std::mutex lock;
  std::deque<CompileRecord> records;
  std::vector<Event> events;
  Clock::time_point origin = Clock::now();
  std::string path;
  State() {
    if (const char* p = std::getenv("ROCJIT_TIME_TRACE"); p && *p) path = p;
  }
  ~State() { write(); }
  // Chrome's JSON trace format: complete ("X") events with microsecond timestamps.
  void write() {
    if (path.empty()) return;
    std::FILE* f = std::fopen(path.c_str(), "w");
    if (!f) {
      std::fprintf(stderr, "rocjit: warning: cannot write the time trace to %s\n", path.c_str());
      return;
    }
    std::fputs("{\"traceEvents\":[\n", f);
    for (size_t i = 0; i < events.size(); ++i) {
      const Event& e = events[i];
      std::fprintf(f, "%s{\"name\":\"%s\",\"cat\":\"rocjit\",\"ph\":\"X\",\"ts\":%.3f,\"dur\":%.3f,\"pid\":%d,"
                   "\"tid\":%zu,\"args\":{\"kernel\":\"%s\",\"target\":\"%s\"}}\n",
                   i ? "," : "", e.name.c_str(), e.start_us, e.duration_us, static_cast<int>(getpid()), e.thread,
                   e.kernel.c_str(), e.target.c_str());
    }
    std::fputs("],\"displayTimeUnit\":\"ms\"}\n", f);
    std::fclose(f);
  }
};

State& state() {
  static State s;
  return s;
}

thread_local time_trace::Record* current = nullptr;

double since_origin_us(Clock::time_point t) {
  return std::chrono::duration<double, std::micro>(t - state().origin).count();
}

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
}

Record::~Record() {
  current = outer_;
  auto end = Clock::now();
  data_.total_ms = std::chrono::duration<double, std::milli>(end - start_).count();
  State& s = state();
  std::lock_guard<std::mutex> g(s.lock);
  if (!s.path.empty())
    s.events.push_back(Event{"compile " + data_.kernel, data_.kernel, data_.target, since_origin_us(start_),
                             data_.total_ms * 1000, std::hash<std::thread::id>{}(std::this_thread::get_id()) % 100000});
  s.records.push_back(std::move(data_));
  if (s.records.size() > 4096) s.records.pop_front();
}

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
  State& s = state();
  if (s.path.empty()) return;
  std::lock_guard<std::mutex> g(s.lock);
  s.events.push_back(Event{name_, current->data_.kernel, current->data_.target, since_origin_us(start_), ms * 1000,
                           std::hash<std::thread::id>{}(std::this_thread::get_id()) % 100000});
}

}  // namespace time_trace
}  // namespace rocjit
