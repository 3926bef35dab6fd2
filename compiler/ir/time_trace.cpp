// Compile records and Chrome trace events (Settings::time_trace, ROCJIT_TIME_TRACE).
//
// A Record opened while Settings::time_trace is set is traced: its phases become trace events and
// an outermost one also runs LLVM's TimeTraceProfiler on its thread (the engine behind clang's
// -ftime-trace; granularity Settings::time_trace_granularity_us, default 500 like clang's): LLVM's events (optimisation passes, instruction selection, register
// allocation, lld) are taken from it when the record closes, moved onto the process's time line
// and the thread's track, and tagged with the record's kernel and target, so they nest under
// rocjit's phases. The file is written with llvm::json when the process exits.
#include "rocjit/compiler/time_trace.hpp"

#include <fmt/format.h>
#include <llvm/ADT/SmallString.h>
#include <llvm/Support/JSON.h>
#include <llvm/Support/Threading.h>
#include <llvm/Support/TimeProfiler.h>
#include <llvm/Support/raw_ostream.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <thread>

#include "support/atomic_file.h"
#include "support/log.h"
#include "support/settings.h"

namespace rocjit {
namespace {

using Clock = std::chrono::steady_clock;

struct Event {
  std::string name, kernel, target;
  double start_us, duration_us;
  size_t thread;
  const char* category = "rocjit";
  std::string detail;  // LLVM's events: the pass's function, file or module, if any
};

std::string valid_utf8(const std::string& s) { return llvm::json::isUTF8(s) ? s : llvm::json::fixUTF8(s); }

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
  // Chrome's JSON trace format: complete ("X") events with microsecond timestamps. Returns what
  // went wrong writing the file, if anything.
  std::string write() {
    if (path.empty()) return {};
    std::string text;
    llvm::raw_string_ostream out(text);
    {
      const int pid = static_cast<int>(getpid());
      llvm::json::OStream json(out);
      json.object([&] {
        json.attributeArray("traceEvents", [&] {
          for (const Event& e : events)
            json.object([&] {
              json.attribute("name", valid_utf8(e.name));
              json.attribute("cat", e.category);
              json.attribute("ph", "X");
              json.attribute("ts", e.start_us);
              json.attribute("dur", e.duration_us);
              json.attribute("pid", pid);
              json.attribute("tid", static_cast<int64_t>(e.thread));
              json.attributeObject("args", [&] {
                json.attribute("kernel", valid_utf8(e.kernel));
                json.attribute("target", valid_utf8(e.target));
                if (!e.detail.empty()) json.attribute("detail", valid_utf8(e.detail));
              });
            });
        });
        json.attribute("displayTimeUnit", "ms");
      });
    }
    out << "\n";
    return write_file_atomically(path, text);
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
size_t this_thread() { return static_cast<size_t>(llvm::get_threadid()); }

// LLVM's events of this thread since profiling_start, as ours; stops LLVM's profiler.
void take_llvm_events(const CompileRecord& record, std::vector<Event>& into) {
  llvm::SmallString<0> text;
  {
    llvm::raw_svector_ostream out(text);
    llvm::timeTraceProfilerWrite(out);
  }
  llvm::timeTraceProfilerCleanup();
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(text);
  if (!parsed) {
    llvm::consumeError(parsed.takeError());
    return;
  }
  const llvm::json::Object* root = parsed->getAsObject();
  const llvm::json::Array* events = root ? root->getArray("traceEvents") : nullptr;
  if (!events) return;
  const double offset_us = since_origin_us(profiling_start);
  const size_t thread = this_thread();
  for (const llvm::json::Value& v : *events) {
    const llvm::json::Object* e = v.getAsObject();
    if (!e || e->getString("ph") != "X") continue;  // metadata ("M") and others
    std::optional<llvm::StringRef> name = e->getString("name");
    std::optional<double> ts = e->getNumber("ts"), dur = e->getNumber("dur");
    if (!name || !ts || !dur || name->starts_with("Total ")) continue;  // LLVM's per-name totals
    Event out{name->str(), record.kernel, record.target, offset_us + *ts, *dur, thread, "llvm", {}};
    if (const llvm::json::Object* args = e->getObject("args"))
      if (std::optional<llvm::StringRef> detail = args->getString("detail")) out.detail = detail->str();
    into.push_back(std::move(out));
  }
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
  const std::shared_ptr<const Settings> settings = support::current_settings();
  traced_ = !settings->time_trace.empty();
  if (!traced_) return;
  State& s = state();
  {
    std::lock_guard<std::mutex> g(s.lock);
    if (s.path.empty()) s.path = settings->time_trace;
  }
  // LLVM's profiler for this thread, unless an outer record (or the program) already runs it.
  if (!llvm::timeTraceProfilerEnabled()) {
    profiling_start = Clock::now();
    llvm::timeTraceProfilerInitialize(settings->time_trace_granularity_us, "rocjit");
    profiling = this;
  }
}

Record::~Record() {
  current = outer_;
  auto end = Clock::now();
  data_.total_ms = std::chrono::duration<double, std::milli>(end - start_).count();
  std::vector<Event> llvm_events;
  if (profiling == this) {
    take_llvm_events(data_, llvm_events);
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
