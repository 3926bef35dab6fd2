// rocjit's settings: read from the environment once, at first use, then changed only through
// set_settings / update_settings. The one file of the library that reads environment variables.
#include "rocjit/support/settings.h"

#include <pwd.h>
#include <unistd.h>

#include <atomic>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string_view>
#include <utility>
#include <vector>

#include "rocjit/compiler/error.hpp"
#include "rocjit/support/log.h"
#include "rocjit/support/text.h"

namespace rocjit {
namespace {

// A variable's value by name, or null when it is not set.
using Lookup = std::function<const char*(const char*)>;

constexpr LogLevel log_levels[] = {LogLevel::error, LogLevel::warning, LogLevel::info, LogLevel::debug};

// Reads the variables of one Settings, collecting a warning for each value it cannot use.
class Reader {
 public:
  Reader(const Lookup& lookup, std::vector<std::string>& warnings) : lookup_(lookup), warnings_(warnings) {}

  // The value of `name`, or null when it is unset or empty (both mean "the default").
  const char* text(const char* name) const {
    const char* v = lookup_(name);
    return v && *v ? v : nullptr;
  }
  void string(const char* name, std::string& field) const {
    if (const char* v = text(name)) field = v;
  }
  // A whole decimal number in [min, max]; anything else (a sign or space it cannot take,
  // trailing characters, out of range) is a warning and leaves the default.
  template <class T>
  void integer(const char* name, T& field, int64_t min, int64_t max, const char* what, const std::string& fallback) {
    const char* v = text(name);
    if (!v) return;
    const char* end = v + std::strlen(v);
    int64_t value = 0;
    auto [stop, error] = std::from_chars(v, end, value);
    if (error == std::errc() && stop == end && value >= min && value <= max) {
      field = static_cast<T>(value);
      return;
    }
    warn(fmt::format("{}='{}' is not {}; using {}", name, v, what, fallback));
  }
  // One of two spellings, each with what it means (the default's meaning says so): true for
  // `second`, false for `first`, nullopt when unset. Anything else is a warning naming both, and
  // nullopt (the default stays).
  std::optional<bool> either(const char* name, const char* first, const char* first_means, const char* second,
                             const char* second_means, bool second_is_default) {
    const char* v = text(name);
    if (!v) return std::nullopt;
    if (std::string_view(v) == first || std::string_view(v) == second) return std::string_view(v) == second;
    auto spelled = [](const char* word, const char* means) {
      return *means ? fmt::format("{} ({})", word, means) : std::string(word);
    };
    warn(fmt::format("{}='{}' is neither {} nor {}; using {}", name, v, spelled(first, first_means),
                     spelled(second, second_means), second_is_default ? second : first));
    return std::nullopt;
  }
  void warn(std::string message) { warnings_.push_back(std::move(message)); }

 private:
  const Lookup& lookup_;
  std::vector<std::string>& warnings_;
};

void read_dump_stages(Reader& r, DumpStages& stages) {
  const char* spec = r.text("ROCJIT_DUMP");
  if (!spec) return;
  support::for_each_list_item(spec, ',', [&](std::string_view item) {
    if (item == "all") {
      stages = {true, true, true, true, true};
    } else if (item == "ir") {
      stages.ir = true;
    } else if (item == "llvm") {
      stages.llvm = true;
    } else if (item == "llvm-opt") {
      stages.llvm_opt = true;
    } else if (item == "asm") {
      stages.assembly = true;
    } else if (item == "meta") {
      stages.meta = true;
    } else if (!item.empty()) {
      r.warn(fmt::format("ROCJIT_DUMP: unknown stage '{}' ignored; the stages are ir, llvm, llvm-opt, asm, meta (or "
                         "all)",
                         item));
    }
  });
}

// ROCJIT_DISABLE_WORKAROUNDS: names from the workaround table, or `all`.
void read_disabled_workarounds(Reader& r, std::set<Workaround>& disabled) {
  const char* spec = r.text("ROCJIT_DISABLE_WORKAROUNDS");
  if (!spec) return;
  support::for_each_list_item(spec, ',', [&](std::string_view item) {
    if (item == "all") {
      for (const WorkaroundInfo& entry : workaround_table()) disabled.insert(entry.id);
    } else if (std::optional<Workaround> w = workaround_named(item)) {
      disabled.insert(*w);
    } else if (!item.empty()) {
      std::string names;
      for (const WorkaroundInfo& entry : workaround_table()) names += fmt::format("{}, ", entry.name);
      r.warn(fmt::format("ROCJIT_DISABLE_WORKAROUNDS: unknown workaround '{}' ignored; the workarounds are {}or all",
                         item, names));
    }
  });
}

// Which variables already tune glibc's malloc (then ROCJIT_MALLOC_TUNING=1 leaves it alone).
std::string malloc_tuned_by(const Reader& r) {
  if (const char* t = r.text("GLIBC_TUNABLES"); t && std::strstr(t, "glibc.malloc.")) return "GLIBC_TUNABLES";
  for (const char* v : {"MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_", "MALLOC_TOP_PAD_"})
    if (r.text(v)) return v;
  return {};
}

Settings read_settings(const Lookup& lookup, std::vector<std::string>& warnings) {
  Reader r(lookup, warnings);
  Settings s;
  r.string("ROCJIT_DEVICE", s.device);
  r.integer("ROCJIT_CPU_THREADS", s.cpu_threads, 1, 1024, "a thread count from 1 to 1024",
            "one per hardware thread");
  if (std::optional<bool> v = r.either("ROCJIT_CPU_TIERING", "0", "compile each work-group shape at O3 at its first launch",
                                       "1", "tiered compilation, the default", true))
    s.cpu_tiering = *v;
  r.integer("ROCJIT_DEVICE_KERNELS", s.device_kernels, 1, INT64_MAX, "a count of at least 1", "1024");
  r.integer("ROCJIT_CODE_OBJECT_VERSION", s.code_object_version, 4, 5, "a code object version (4 or 5)",
            "the HIP runtime's");
  r.string("ROCJIT_HIP_LIBRARY", s.hip_library);
  r.string("ROCJIT_SIM_LIBRARY", s.sim_library);
  r.string("ROCJIT_COMPILER_LIBRARY", s.compiler_library);
  r.string("ROCJIT_BUNDLE", s.bundles);
  r.string("ROCJIT_BUNDLE_RECORD", s.bundle_record);
  if (std::optional<bool> v = r.either("ROCJIT_COMPILE", "auto",
                                       "compile what no bundle or the kernel cache holds, the default", "never", "",
                                       false))
    s.compile_never = *v;
  r.string("AMDSIM_PROCESSOR", s.sim_processors);

  if (const char* v = r.text("ROCJIT_BOUNDS_CHECK")) s.bounds_check = std::string_view(v) != "0";
  r.string("ROCJIT_DEVICE_LIBS", s.device_libs);
  r.string("ROCJIT_LLVM_ARGS", s.llvm_args);
  read_disabled_workarounds(r, s.disabled_workarounds);
  if (r.either("ROCJIT_MALLOC_TUNING", "0", "leave glibc's malloc alone, the default", "1", "tune it for compiles",
               false) == true) {
    if (std::string by = malloc_tuned_by(r); !by.empty())
      r.warn(fmt::format("ROCJIT_MALLOC_TUNING=1 ignored: {} already tunes glibc's malloc", by));
    else
      s.tune_malloc = true;
  }

  if (const char* spec = r.text("ROCJIT_CHECK"))
    support::for_each_list_item(spec, ',', [&](std::string_view item) {
      if (item == "races") s.check_races = true;
      else if (item == "report-only") s.check_report_only = true;
      else if (item == "same-value") s.check_same_value = true;
      else if (!item.empty() && item != "0")
        r.warn(fmt::format("ROCJIT_CHECK: unknown check '{}' ignored; the checks are races, report-only and same-value",
                           item));
    });
  if (const char* v = r.text("ROCJIT_LINE_TABLES")) s.line_tables = std::string_view(v) != "0";
  if (const char* v = r.text("ROCJIT_ASSERT")) {
    const std::string_view mode(v);
    if (mode == "report" || mode == "1") s.asserts = AssertMode::report;
    else if (mode == "trap") s.asserts = AssertMode::trap;
    else if (mode == "off" || mode == "0") s.asserts = AssertMode::off;
    else r.warn(fmt::format("ROCJIT_ASSERT='{}' is not report, trap or off; using report", v));
  }
  if (const char* v = r.text("ROCJIT_MMA_MODEL")) {
    const std::string_view model(v);
    if (model == "fma_chain" || model == "cdna2" || model == "cdna3" || model.starts_with("gfx")) s.mma_model = v;
    else r.warn(fmt::format("ROCJIT_MMA_MODEL='{}' is not fma_chain, cdna2, cdna3 or a processor; using cdna3", v));
  }
  r.integer("ROCJIT_PRINT_BUFFER", s.print_buffer_bytes, 256, int64_t(1) << 30, "a size from 256 bytes to 1 GiB",
            "1048576");
  if (const char* v = r.text("ROCJIT_PRINT_SORT")) s.print_sorted = std::string_view(v) != "0";

  if (const char* v = r.text("ROCJIT_CACHE")) s.disk_cache = std::string_view(v) != "0";
  r.string("ROCJIT_CACHE_DIR", s.cache_dir);
  r.integer("ROCJIT_CACHE_MAX_MB", s.cache_max_mb, 1, int64_t(1) << 40, "a size of at least 1 MiB", "512");
  r.integer("ROCJIT_CACHE_MEMORY_ENTRIES", s.cache_memory_entries, 1, INT64_MAX, "a count of at least 1", "1024");

  read_dump_stages(r, s.dump);
  r.string("ROCJIT_DUMP_DIR", s.dump_dir);
  if (const char* v = r.text("ROCJIT_LOG_PASSES"); v && std::string_view(v) != "0")
    s.log_passes = std::string_view(v) == "ir" ? PassLog::ir : PassLog::passes;
  r.string("ROCJIT_TIME_TRACE", s.time_trace);
  r.integer("ROCJIT_TIME_TRACE_GRANULARITY_US", s.time_trace_granularity_us, 0, 100000000,
            "a number of microseconds", "500");
  if (const char* v = r.text("ROCJIT_LOG_LEVEL")) {
    bool known = false;
    for (LogLevel level : log_levels)
      if (log_level_name(level) == v) {
        s.log_level = level;
        known = true;
      }
    if (!known) r.warn(fmt::format("ROCJIT_LOG_LEVEL='{}' is not error, warning, info or debug; using info", v));
  }
  return s;
}

const char* from_environment(const char* name) { return std::getenv(name); }

// $XDG_CACHE_HOME/rocjit, else <home>/.cache/rocjit (as LLVM's sys::path::cache_directory finds
// them); empty without a home directory.
std::string home_cache_directory() {
  auto joined = [](std::string dir, const char* tail) {
    while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
    return dir + (dir == "/" ? "" : "/") + tail;
  };
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return joined(xdg, "rocjit");
  if (const char* home = std::getenv("HOME"); home && *home) return joined(home, ".cache/rocjit");
  long size = sysconf(_SC_GETPW_R_SIZE_MAX);
  std::vector<char> buffer(size > 0 ? static_cast<size_t>(size) : 16384);
  passwd entry{};
  passwd* found = nullptr;
  if (getpwuid_r(getuid(), &entry, buffer.data(), buffer.size(), &found) == 0 && found && found->pw_dir &&
      *found->pw_dir)
    return joined(found->pw_dir, ".cache/rocjit");
  return {};
}

// Throws Error naming the first field out of its range.
void validate(const Settings& s) {
  auto refuse = [](const char* field, auto value, const char* allowed) {
    throw Error(fmt::format("Settings::{} is {}; it must be {}", field, value, allowed));
  };
  if (s.cpu_threads > 1024) refuse("cpu_threads", s.cpu_threads, "0 (one per hardware thread) to 1024");
  if (s.device_kernels < 1) refuse("device_kernels", s.device_kernels, "at least 1");
  if (s.code_object_version != 0 && s.code_object_version != 4 && s.code_object_version != 5)
    refuse("code_object_version", s.code_object_version, "0 (from the HIP runtime), 4 or 5");
  if (s.sim_processors.empty()) refuse("sim_processors", "empty", "'all', a processor or a comma-separated list");
  if (s.cache_max_mb < 1 || s.cache_max_mb > (uint64_t(1) << 40))
    refuse("cache_max_mb", s.cache_max_mb, "1 to 2^40");
  if (s.cache_memory_entries < 1) refuse("cache_memory_entries", s.cache_memory_entries, "at least 1");
  if (s.print_buffer_bytes < 256 || s.print_buffer_bytes > (uint64_t(1) << 30))
    refuse("print_buffer_bytes", s.print_buffer_bytes, "256 to 2^30");
  if (static_cast<unsigned>(s.asserts) > static_cast<unsigned>(AssertMode::off))
    refuse("asserts", static_cast<int>(s.asserts), "report, trap or off");
  if (s.mma_model != "fma_chain" && s.mma_model != "cdna2" && s.mma_model != "cdna3" &&
      !s.mma_model.starts_with("gfx"))
    refuse("mma_model", s.mma_model, "fma_chain, cdna2, cdna3 or a processor (gfx90a)");
  if (s.time_trace_granularity_us > 100000000)
    refuse("time_trace_granularity_us", s.time_trace_granularity_us, "0 to 100000000");
  if (static_cast<unsigned>(s.log_level) > static_cast<unsigned>(LogLevel::debug))
    refuse("log_level", static_cast<int>(s.log_level), "error, warning, info or debug");
  if (static_cast<unsigned>(s.log_passes) > static_cast<unsigned>(PassLog::ir))
    refuse("log_passes", static_cast<int>(s.log_passes), "off, passes or ir");
}

// The fields as the environment would spell them, for the debug log of changes.
std::vector<std::pair<const char*, std::string>> spelled(const Settings& s) {
  auto flag = [](bool b) { return std::string(b ? "1" : "0"); };
  std::string stages;
  const std::pair<bool, const char*> named[] = {{s.dump.ir, "ir"}, {s.dump.llvm, "llvm"}, {s.dump.llvm_opt, "llvm-opt"},
                                                {s.dump.assembly, "asm"}, {s.dump.meta, "meta"}};
  for (const auto& [on, name] : named)
    if (on) stages += (stages.empty() ? "" : ",") + std::string(name);
  std::string disabled;
  for (Workaround w : s.disabled_workarounds)
    disabled += (disabled.empty() ? "" : ",") + std::string(workaround_info(w).name);
  const char* passes = s.log_passes == PassLog::off ? "0" : s.log_passes == PassLog::ir ? "ir" : "1";
  return {{"ROCJIT_DEVICE", s.device},
          {"ROCJIT_CPU_THREADS", std::to_string(s.cpu_threads)},
          {"ROCJIT_CPU_TIERING", flag(s.cpu_tiering)},
          {"ROCJIT_DEVICE_KERNELS", std::to_string(s.device_kernels)},
          {"ROCJIT_CODE_OBJECT_VERSION", std::to_string(s.code_object_version)},
          {"ROCJIT_HIP_LIBRARY", s.hip_library},
          {"ROCJIT_SIM_LIBRARY", s.sim_library},
          {"ROCJIT_COMPILER_LIBRARY", s.compiler_library},
          {"ROCJIT_BUNDLE", s.bundles},
          {"ROCJIT_BUNDLE_RECORD", s.bundle_record},
          {"ROCJIT_COMPILE", s.compile_never ? "never" : "auto"},
          {"AMDSIM_PROCESSOR", s.sim_processors},
          {"ROCJIT_BOUNDS_CHECK", flag(s.bounds_check)},
          {"ROCJIT_DEVICE_LIBS", s.device_libs},
          {"ROCJIT_LLVM_ARGS", s.llvm_args},
          {"ROCJIT_MALLOC_TUNING", flag(s.tune_malloc)},
          {"ROCJIT_DISABLE_WORKAROUNDS", disabled},
          {"ROCJIT_CHECK", std::string(s.check_races ? "races" : "") + (s.check_report_only ? ",report-only" : "") +
                               (s.check_same_value ? ",same-value" : "")},
          {"ROCJIT_LINE_TABLES", flag(s.line_tables)},
          {"ROCJIT_ASSERT", s.asserts == AssertMode::report ? "report" : s.asserts == AssertMode::trap ? "trap" : "off"},
          {"ROCJIT_MMA_MODEL", s.mma_model},
          {"ROCJIT_PRINT_BUFFER", std::to_string(s.print_buffer_bytes)},
          {"ROCJIT_PRINT_SORT", flag(s.print_sorted)},
          {"ROCJIT_CACHE", flag(s.disk_cache)},
          {"ROCJIT_CACHE_DIR", s.cache_dir},
          {"ROCJIT_CACHE_MAX_MB", std::to_string(s.cache_max_mb)},
          {"ROCJIT_CACHE_MEMORY_ENTRIES", std::to_string(s.cache_memory_entries)},
          {"ROCJIT_DUMP", stages},
          {"ROCJIT_DUMP_DIR", s.dump_dir},
          {"ROCJIT_LOG_PASSES", passes},
          {"ROCJIT_TIME_TRACE", s.time_trace},
          {"ROCJIT_TIME_TRACE_GRANULARITY_US", std::to_string(s.time_trace_granularity_us)},
          {"ROCJIT_LOG_LEVEL", std::string(log_level_name(s.log_level))}};
}

void log_changes(const Settings& before, const Settings& after) {
  if (!support::log_enabled(LogLevel::debug)) return;
  const auto a = spelled(before), b = spelled(after);
  std::string changes;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].second != b[i].second)
      changes += fmt::format("{}{}: '{}' -> '{}'", changes.empty() ? "" : ", ", a[i].first, a[i].second, b[i].second);
  if (!changes.empty()) support::log(LogLevel::debug, "settings changed: {}", changes);
}

struct Store {
  std::mutex lock;
  std::shared_ptr<const Settings> current;  // under lock
  std::string default_cache_directory;
  std::vector<std::string> startup_warnings;
  std::atomic<bool> warned{false};
};

// Never destroyed: compiles and log messages may come while the process exits.
Store& store() {
  static Store* const s = [] {
    auto* st = new Store;
    st->current = std::make_shared<const Settings>(read_settings(from_environment, st->startup_warnings));
    st->default_cache_directory = home_cache_directory();
    return st;
  }();
  // The environment's warnings, once, after the settings exist (logging reads them).
  if (!s->warned.load(std::memory_order_acquire) && !s->warned.exchange(true))
    for (const std::string& w : s->startup_warnings) support::log(LogLevel::warning, "{}", w);
  return *s;
}

Settings logged(const Lookup& lookup) {
  std::vector<std::string> warnings;
  Settings s = read_settings(lookup, warnings);
  for (const std::string& w : warnings) support::log(LogLevel::warning, "{}", w);
  return s;
}

}  // namespace

namespace support {

std::shared_ptr<const Settings> current_settings() {
  Store& s = store();
  std::lock_guard<std::mutex> g(s.lock);
  return s.current;
}

const std::string& default_cache_directory() { return store().default_cache_directory; }

}  // namespace support

Settings settings() { return *support::current_settings(); }

void set_settings(const Settings& settings) {
  validate(settings);
  auto next = std::make_shared<const Settings>(settings);
  std::shared_ptr<const Settings> before;
  {
    Store& s = store();
    std::lock_guard<std::mutex> g(s.lock);
    before = std::exchange(s.current, next);
  }
  log_changes(*before, *next);
}

void update_settings(const std::function<void(Settings&)>& change) {
  Store& s = store();
  while (true) {
    const std::shared_ptr<const Settings> seen = support::current_settings();
    Settings next = *seen;
    change(next);
    validate(next);
    auto replacement = std::make_shared<const Settings>(std::move(next));
    {
      std::lock_guard<std::mutex> g(s.lock);
      if (s.current != seen) continue;  // replaced meanwhile: change theirs
      s.current = replacement;
    }
    log_changes(*seen, *replacement);
    return;
  }
}

Settings settings_from_environment() { return logged(from_environment); }

Settings settings_from_variables(const std::map<std::string, std::string>& variables) {
  return logged([&](const char* name) -> const char* {
    auto it = variables.find(name);
    return it == variables.end() ? nullptr : it->second.c_str();
  });
}

}  // namespace rocjit
