// What the compile records (rocjit/compiler/time_trace.hpp, support/time_trace.cpp) leave to the
// compiler back end: LLVM's TimeTraceProfiler on the compiling thread, and the Chrome trace file
// (written with llvm::json). The support layer sees no LLVM; the back end registers these hooks
// when librocjit is loaded (compiler/targets/time_trace_llvm.cpp). Without them (a layer-check
// library, say) records and phases still work and a trace file is not written.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace rocjit::time_trace {

/// One Chrome trace event: a complete ("X") event with microsecond times.
struct Event {
  std::string name, kernel, target;
  double start_us, duration_us;
  size_t thread;
  const char* category = "rocjit";
  std::string detail;  // LLVM's events: the pass's function, file or module, if any
};

/// The back end's part of the time trace.
struct Backend {
  /// Starts LLVM's profiler on this thread (granularity in microseconds) unless it (or the
  /// program) already runs it there; returns whether it started it.
  bool (*start_profiler)(unsigned granularity_us);
  /// Appends LLVM's events of this thread since the profiler started, as ours (tagged with
  /// `kernel` and `target`, moved `offset_us` onto the process's time line, on track `thread`),
  /// and stops the profiler.
  void (*take_events)(const std::string& kernel, const std::string& target, double offset_us, size_t thread,
                      std::vector<Event>& into);
  /// Writes `events` as Chrome's JSON trace format to `path`; returns what went wrong, if anything.
  std::string (*write)(const std::string& path, const std::vector<Event>& events);
};

/// Installs the back end's hooks (`backend` must live as long as the process).
void set_backend(const Backend* backend);

}  // namespace rocjit::time_trace
