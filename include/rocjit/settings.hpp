/// \file
/// rocjit's configuration and its messages: one Settings value, read from the environment once (at
/// first use) and changeable through a thread-safe API, and one log sink an application can
/// redirect.
///
/// Every ROCJIT_* environment variable is a field of Settings; the library reads no variable
/// anywhere else. A program that wants other settings than its environment gives calls
/// update_settings() (or set_settings()) instead of setenv, at any time and from any thread: each
/// compile and launch takes the settings in force when it starts. Some fields are read once,
/// when what they configure is first needed (the comment of each field says so).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <string_view>

#include "rocjit/workarounds.hpp"

namespace rocjit {

/// How important a message is, most important first. A message reaches the log handler when its
/// level is at or above Settings::log_level (`error` is always delivered).
enum class LogLevel {
  error,    ///< something failed and no exception could say so (at process exit, in the background)
  warning,  ///< a setting or file rocjit could not use; what it does instead
  info,     ///< what a setting asked to be told (ROCJIT_LOG_PASSES)
  debug,    ///< details of the library's own decisions
};

/// "error", "warning", "info", "debug".
std::string_view log_level_name(LogLevel level);

/// What dsl::device_assert compiles to (Settings::asserts, ROCJIT_ASSERT).
enum class AssertMode {
  report,  ///< a failing work-item records the failure and carries on; the host raises DeviceAssertion
  trap,    ///< AMDGPU: it also traps (the launch fails; on a real GPU the queue is lost); CPU, interp: as report
  off,     ///< compiled out: the condition is not evaluated (release builds)
};

/// What ROCJIT_LOG_PASSES asks for.
enum class PassLog {
  off,     ///< nothing (unset, empty or "0")
  passes,  ///< each pass of the compile pipeline and its time ("1", or anything but "ir")
  ir,      ///< also the IR after each pass that rewrote it ("ir")
};

/// The compile stages ROCJIT_DUMP writes to Settings::dump_dir as `<kernel>.<target>.<stage>`.
struct DumpStages {
  bool ir = false;        ///< "ir": the kernel's .rjir text
  bool llvm = false;      ///< "llvm": the LLVM IR as lowered
  bool llvm_opt = false;  ///< "llvm-opt": the LLVM IR after optimisation
  bool assembly = false;  ///< "asm": the assembly
  bool meta = false;      ///< "meta": metadata_text() of the result
  /// Whether any stage is asked for.
  bool any() const { return ir || llvm || llvm_opt || assembly || meta; }
  /// Field by field.
  bool operator==(const DumpStages&) const = default;
};

/// Everything a program or its environment can configure in rocjit. A plain value: copy it, change
/// fields, pass it to set_settings(). Each field names the environment variable it comes from;
/// the defaults are those of an empty environment.
struct Settings {
  // ---- devices and launches ----------------------------------------------------------------

  /// ROCJIT_DEVICE: the default device's id (`cpu`, `hip`, `hip:N`, `sim`, `sim:<processor>`);
  /// empty: the first HIP GPU, else the CPU. Read by the first default_device() call.
  std::string device;
  /// ROCJIT_CPU_THREADS (1 to 1024): worker threads for CPU work-groups; 0: one per hardware
  /// thread. Read when the CPU worker pool starts (the first CPU launch).
  unsigned cpu_threads = 0;
  /// ROCJIT_CPU_TIERING (`1`, default; `0`): the CPU device compiles a work-group shape's first
  /// launch at O1 and tiers up to O3 in the background from its second launch. Off while `dump`
  /// or `llvm_args` is set (their output should describe the O3 compile). Read at each first
  /// launch of a shape.
  bool cpu_tiering = true;
  /// ROCJIT_DEVICE_KERNELS (at least 1): kernels each device keeps loaded (HIP modules, JIT'd
  /// host code), least recently launched freed first. Read at each compile.
  size_t device_kernels = 1024;
  /// ROCJIT_CODE_OBJECT_VERSION (4 or 5): the code object version of HIP launches; 0: 5 for HIP
  /// runtimes from ROCm 6 on, else 4. Read when a HIP device is opened.
  int code_object_version = 0;
  /// ROCJIT_HIP_LIBRARY: the HIP runtime library to load, tried before libamdhip64.so; empty:
  /// none. Read when HIP is first loaded.
  std::string hip_library;
  /// ROCJIT_SIM_LIBRARY: the simulator's HIP library (libamdsim-hip.so), tried before the one
  /// next to librocjit, in the build tree and in the install prefix. Read when the simulator is
  /// first loaded.
  std::string sim_library;
  /// ROCJIT_COMPILER_LIBRARY: rocjit's compiler (librocjit-compiler.so). When set, only this path
  /// is tried; else the one next to librocjit, in the build tree and in the install prefix. Loaded
  /// at the first compile that no bundle or the kernel cache answers; read then.
  std::string compiler_library;
  /// ROCJIT_BUNDLE: kernel bundles (rocjit/compiler/bundle.hpp), colon-separated paths, searched
  /// in order ahead of the disk cache, read-only. Each is opened once per process.
  std::string bundles;
  /// ROCJIT_BUNDLE_RECORD: a bundle file to which every kernel the process compiles or loads
  /// through the kernel cache is added (for the device it runs on); created if missing.
  std::string bundle_record;
  /// ROCJIT_COMPILE=never: a compile the kernel cache does not answer is a CompileError naming the
  /// kernel and the target, and the compiler library is never loaded (deployments that must run
  /// from a warm cache only). Default (`auto`): such compiles load the compiler.
  bool compile_never = false;
  /// AMDSIM_PROCESSOR: the processors the simulator's devices simulate (`all`, one processor, or
  /// a comma-separated list). rocjit passes it to libamdsim-hip when it loads it (as that
  /// library's AMDSIM_PROCESSOR). Read when the simulator is first loaded.
  std::string sim_processors = "all";

  // ---- compiling -------------------------------------------------------------------------------

  /// ROCJIT_BOUNDS_CHECK (set, not `0`): every compile as with CompileOptions::bounds_check.
  bool bounds_check = false;
  /// ROCJIT_DEVICE_LIBS: a directory holding ROCm's ocml.bc, searched before the Debian and ROCm
  /// locations; `none`: rocjit's built-in AMDGPU math library serves every kernel. Read at each
  /// AMDGPU compile that calls math functions (each directory's ocml.bc is loaded once).
  std::string device_libs;
  /// ROCJIT_LLVM_ARGS: options for LLVM itself, like clang's `-mllvm` (e.g. `-print-after-all`).
  /// LLVM's options are process-wide: a compile that starts with other llvm_args than the
  /// previous one resets them to LLVM's defaults and sets these. (A few LLVM options act once
  /// when set, such as `-opt-bisect-limit`; a reset does not undo those.) Compiles with llvm_args
  /// bypass the kernel cache.
  std::string llvm_args;
  /// ROCJIT_MALLOC_TUNING=1 (default off): at the next compile, rocjit sets glibc's
  /// M_MMAP_THRESHOLD to 1 MiB and M_TRIM_THRESHOLD to 8 MiB with mallopt, for the whole
  /// process, so each compile reuses the previous one's memory instead of page-faulting it back
  /// in (up to 3x faster warm compiles); and each thread's first compile keeps 28 MiB of its
  /// malloc arena free and advised for transparent huge pages (MADV_HUGEPAGE), which the
  /// compiles' memory comes from (a fresh process's compile ~20% faster). Ignored (with a
  /// warning) from the environment when GLIBC_TUNABLES or MALLOC_*_ variables already tune
  /// malloc. Once applied it stays.
  bool tune_malloc = false;
  /// ROCJIT_DISABLE_WORKAROUNDS (comma-separated names of rocjit/workarounds.def, or `all`): the
  /// workarounds for LLVM bugs that compiles leave out, e.g. to check whether a newer LLVM still
  /// needs one. An unknown name is a warning listing the known ones. Compiles with any workaround
  /// disabled bypass the kernel cache. Read at each compile.
  std::set<Workaround> disabled_workarounds;

  /// ROCJIT_CHECK (a comma-separated list): `races` turns on the race and sync checker of the CPU
  /// device (every CPU compile as with CompileOptions::check_races) and of the simulated devices
  /// (amdsim checks their launches; a real GPU's launches fail: it cannot); a launch with findings
  /// is a LaunchError; `report-only` reports findings as warnings instead; `same-value` also reports
  /// racing writes of the value the memory already holds. Read at each compile and launch.
  bool check_races = false;
  bool check_report_only = false;   ///< ROCJIT_CHECK's `report-only`
  bool check_same_value = false;    ///< ROCJIT_CHECK's `same-value`
  /// ROCJIT_LINE_TABLES (`1`, default; `0`): AMDGPU code objects and host JIT code carry DWARF
  /// line tables built from the ops' source locations (llvm-objdump --line-numbers, rocgdb, and
  /// the simulator's reports name the user's file:line). Kernels compiled with them are cached by
  /// their source locations too. Read at each compile.
  bool line_tables = true;
  /// ROCJIT_ASSERT (`report`, default; `trap`; `off`): what dsl::device_assert compiles to. Part
  /// of the kernel cache key. Read at each compile.
  AssertMode asserts = AssertMode::report;
  /// ROCJIT_MMA_MODEL (`cdna3`, default; `cdna2`; `fma_chain`; or a processor, `gfx90a`, for
  /// its model): the numerics model of mma on the CPU device and the interpreter
  /// (rocjit/compiler/mma.hpp, ir::mma::Model; docs/mma.md, "Numerics"). The default is gfx942's,
  /// the processor `sim` simulates, so CPU results equal `sim:gfx942`'s bit for bit. AMDGPU
  /// targets always follow their processor's model. Part of the CPU kernel cache key. Read at
  /// each compile (CPU) and launch (interpreter).
  std::string mma_model = "cdna3";

  // ---- the kernel cache ------------------------------------------------------------------------

  /// ROCJIT_CACHE (`0` disables): the on-disk kernel cache. The in-memory cache stays.
  bool disk_cache = true;
  /// ROCJIT_CACHE_DIR: the on-disk cache's directory (created with mode 0700); empty: the default,
  /// $XDG_CACHE_HOME/rocjit, else ~/.cache/rocjit (those two read with the rest of the
  /// environment, once).
  std::string cache_dir;
  /// ROCJIT_CACHE_MAX_MB (1 to 2^40): the on-disk cache's bound in MiB, least recently used
  /// entries evicted first.
  uint64_t cache_max_mb = 512;
  /// ROCJIT_CACHE_MEMORY_ENTRIES (at least 1): AMDGPU code objects and, separately, host kernels
  /// the in-memory cache keeps, least recently used forgotten first.
  size_t cache_memory_entries = 1024;

  // ---- seeing what happens ---------------------------------------------------------------------

  /// ROCJIT_DUMP (`ir,llvm,llvm-opt,asm,meta`, any subset, or `all`): the stages every compile
  /// writes. Such compiles always compile afresh (no kernel cache).
  DumpStages dump;
  /// ROCJIT_DUMP_DIR: where `dump` writes (created if missing).
  std::string dump_dir = ".";
  /// ROCJIT_PRINT_BUFFER (256 to 2^30): bytes of device print records one launch may write
  /// (dsl::print; each record is 32 bytes plus 8 per value); records beyond it are dropped and
  /// counted in a warning. Read at each launch of a kernel that prints.
  uint64_t print_buffer_bytes = uint64_t(1) << 20;
  /// ROCJIT_PRINT_SORT (`1`; default `0`): deliver each launch's print records ordered by
  /// (group, work-item) instead of the order the device wrote them, for deterministic output.
  bool print_sorted = false;
  /// ROCJIT_LOG_PASSES: log each pass of the compile pipeline (level info).
  PassLog log_passes = PassLog::off;
  /// ROCJIT_TIME_TRACE: a file to write Chrome trace events of every compile to when the process
  /// exits; empty: none. Compiles that start while it is set are traced; the file is the one set
  /// when the first traced compile started.
  std::string time_trace;
  /// ROCJIT_TIME_TRACE_GRANULARITY_US (0 to 10^8): the shortest LLVM event kept in the time trace.
  unsigned time_trace_granularity_us = 500;
  /// ROCJIT_LOG_LEVEL (`error`, `warning`, `info`, `debug`): the least important messages
  /// delivered to the log handler.
  LogLevel log_level = LogLevel::info;

  /// Field by field.
  bool operator==(const Settings&) const = default;
};

/// The settings in force now (a copy). The first call of any rocjit function that needs them
/// reads them from the environment (settings_from_environment()).
Settings settings();
/// Replaces the settings, for every compile and launch that starts afterwards. Thread-safe.
/// Throws rocjit::Error (and changes nothing) for a field out of its range.
void set_settings(const Settings& settings);
/// Changes the settings in one step: `change` is called with a copy of the settings in force and
/// its result replaces them, unless another thread replaced them meanwhile (then `change` runs
/// again on theirs). `change` must not call set_settings or update_settings itself. Throws
/// rocjit::Error (and changes nothing) when the result has a field out of its range.
void update_settings(const std::function<void(Settings&)>& change);
/// The settings the process's environment gives now, without changing the ones in force. Each
/// variable that is set but not valid is reported as a warning through the log handler and its
/// default used.
Settings settings_from_environment();
/// The same, from `variables` (name to value, as in the environment) instead of the process's
/// environment: for a program that keeps rocjit's settings in its own configuration.
Settings settings_from_variables(const std::map<std::string, std::string>& variables);

/// Receives every message rocjit has for the user. It may be called from any thread, and from
/// several at once; a message has no trailing newline (a multi-line one has newlines inside).
/// Exceptions it throws are ignored.
using LogHandler = std::function<void(LogLevel level, std::string_view message)>;
/// Receives the text of device print records (dsl::print): one call per record, the record's
/// prefix ("[group 3 item 17] ") included, ending in a newline. Called from the thread that
/// synchronised the stream; exceptions it throws are ignored.
using PrintHandler = std::function<void(std::string_view text)>;
/// Sends device print output to `handler` from now on; nullptr restores the default, which
/// writes each record to stdout (one write per record, then a flush).
void set_print_handler(PrintHandler handler);

/// Sends rocjit's messages to `handler` from now on; nullptr restores the default, which writes
/// each message to stderr as one line "rocjit: <level>: <message>".
void set_log_handler(LogHandler handler);

}  // namespace rocjit
