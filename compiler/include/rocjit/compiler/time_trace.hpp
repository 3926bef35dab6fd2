// Where compile time goes: per-kernel records of each phase (trace, verify, lower, optimise,
// codegen, link, cache lookup, load) and, with Settings::time_trace (ROCJIT_TIME_TRACE=<file.json>),
// Chrome trace events (open in Perfetto or chrome://tracing) written when the process exits.
#pragma once

#include <chrono>
#include <string>
#include <vector>

namespace rocjit {

/// The time of one phase of a compile.
struct CompilePhase {
  /// The phase: "trace", "verify", "lower", "optimise", "codegen", ...
  std::string name;
  /// Milliseconds.
  double ms = 0;
};

/// One compile() call (or one trace) of one kernel.
struct CompileRecord {
  /// The kernel's name.
  std::string kernel;
  std::string target;       ///< "amdgpu:gfx90a", or "dsl" for tracing
  /// "miss", "memory", "disk"; "bypassed" when the compile asked for texts or an object, for
  /// no loaded code (CompileOptions::jit = false) or no cache (CompileOptions::cache = false), or
  /// Settings::llvm_args or Settings::dump were set (those always compile afresh); "" for records
  /// of tracing
  std::string cache;
  /// Phases in the order they ended.
  std::vector<CompilePhase> phases;
  /// Milliseconds of the whole compile.
  double total_ms = 0;
  double phase_ms(const std::string& name) const;  ///< 0 when absent
};

/// The most recent records, oldest first (bounded to the last 4096).
std::vector<CompileRecord> compile_records();
/// The most recent record for `kernel` (and target, if not empty); empty kernel name if none.
CompileRecord last_compile_record(const std::string& kernel, const std::string& target = {});

namespace time_trace {

/// Opens a record for `kernel` on this thread; phases timed while it is open are added to it (and
/// are trace events when Settings::time_trace was set as it opened).
class Record {
 public:
  /// Opens the record of compiling `kernel` for `target` on this thread.
  Record(std::string kernel, std::string target);
  ~Record();
  /// Sets the cache outcome: "miss", "memory", "disk" or "bypassed".
  void set_cache(const char* outcome);
  Record(const Record&) = delete;
  Record& operator=(const Record&) = delete;

 private:
  std::chrono::steady_clock::time_point start_;
  Record* outer_;
  CompileRecord data_;
  bool traced_ = false;  // Settings::time_trace was set when it opened
  friend class Phase;
};

/// Sets the cache outcome ("miss", "memory", "disk") of this thread's open record, if any.
void current_record_cache(const char* outcome);

/// Times one phase of the open record (and emits a trace event).
class Phase {
 public:
  /// Starts timing phase `name` (a string literal).
  explicit Phase(const char* name);
  ~Phase();
  Phase(const Phase&) = delete;
  Phase& operator=(const Phase&) = delete;

 private:
  const char* name_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace time_trace
}  // namespace rocjit
