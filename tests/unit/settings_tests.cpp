// rocjit::Settings: parsing the environment's variables (valid values, and the warning and
// default for each value that is not), the thread-safe set/get API, the log handler, and settings
// that change between compiles.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "rocjit/rocjit.hpp"
#include "sample_kernels.hpp"
#include "scoped_settings.hpp"

using namespace rocjit;
using rocjit::testing::LogCapture;
using rocjit::testing::ScopedSettings;

TEST_CASE("settings: an empty environment gives the defaults, without a message") {
  LogCapture log;
  const Settings s = settings_from_variables({});
  CHECK(s == Settings{});
  CHECK(s.device.empty());
  CHECK(s.cpu_threads == 0);
  CHECK(s.cpu_tiering);
  CHECK(s.device_kernels == 1024);
  CHECK(s.code_object_version == 0);
  CHECK(s.sim_processors == "all");
  CHECK_FALSE(s.bounds_check);
  CHECK_FALSE(s.tune_malloc);  // malloc tuning is opt-in
  CHECK(s.disk_cache);
  CHECK(s.cache_dir.empty());
  CHECK(s.cache_max_mb == 512);
  CHECK(s.cache_memory_entries == 1024);
  CHECK_FALSE(s.dump.any());
  CHECK(s.dump_dir == ".");
  CHECK(s.log_passes == PassLog::off);
  CHECK(s.time_trace.empty());
  CHECK(s.time_trace_granularity_us == 500);
  CHECK(s.log_level == LogLevel::info);
  CHECK(s.disabled_workarounds.empty());
  CHECK(log.size() == 0);
  // Set but empty is the same as unset.
  CHECK(settings_from_variables({{"ROCJIT_CPU_THREADS", ""}, {"ROCJIT_DEVICE", ""}, {"ROCJIT_DUMP", ""}}) == Settings{});
  CHECK(log.size() == 0);
}

TEST_CASE("settings: each variable sets its field") {
  LogCapture log;
  const Settings s = settings_from_variables({
      {"ROCJIT_DEVICE", "sim:gfx90a"},
      {"ROCJIT_CPU_THREADS", "3"},
      {"ROCJIT_CPU_TIERING", "0"},
      {"ROCJIT_DEVICE_KERNELS", "8"},
      {"ROCJIT_CODE_OBJECT_VERSION", "4"},
      {"ROCJIT_HIP_LIBRARY", "/opt/hip/libamdhip64.so"},
      {"ROCJIT_SIM_LIBRARY", "/tmp/libamdsim-hip.so"},
      {"ROCJIT_COMPILER_LIBRARY", "/opt/rocjit/librocjit-compiler.so"},
      {"ROCJIT_BUNDLE", "/opt/app/a.rjb:b.rjb"},
      {"ROCJIT_BUNDLE_RECORD", "rec.rjb"},
      {"ROCJIT_COMPILE", "never"},
      {"AMDSIM_PROCESSOR", "gfx90a,gfx1100"},
      {"ROCJIT_BOUNDS_CHECK", "1"},
      {"ROCJIT_DEVICE_LIBS", "none"},
      {"ROCJIT_LLVM_ARGS", "-print-after=instcombine"},
      {"ROCJIT_MALLOC_TUNING", "1"},
      {"ROCJIT_CACHE", "0"},
      {"ROCJIT_CACHE_DIR", "/tmp/kernels"},
      {"ROCJIT_CACHE_MAX_MB", "64"},
      {"ROCJIT_CACHE_MEMORY_ENTRIES", "16"},
      {"ROCJIT_DUMP", "ir,asm"},
      {"ROCJIT_DUMP_DIR", "dumps"},
      {"ROCJIT_LOG_PASSES", "ir"},
      {"ROCJIT_TIME_TRACE", "/tmp/trace.json"},
      {"ROCJIT_TIME_TRACE_GRANULARITY_US", "0"},
      {"ROCJIT_LOG_LEVEL", "debug"},
      {"ROCJIT_DISABLE_WORKAROUNDS", "host_rem_index, or_with_half_ones"},
  });
  CHECK(log.size() == 0);
  CHECK(s.device == "sim:gfx90a");
  CHECK(s.cpu_threads == 3);
  CHECK_FALSE(s.cpu_tiering);
  CHECK(s.device_kernels == 8);
  CHECK(s.code_object_version == 4);
  CHECK(s.hip_library == "/opt/hip/libamdhip64.so");
  CHECK(s.sim_library == "/tmp/libamdsim-hip.so");
  CHECK(s.compiler_library == "/opt/rocjit/librocjit-compiler.so");
  CHECK(s.bundles == "/opt/app/a.rjb:b.rjb");
  CHECK(s.bundle_record == "rec.rjb");
  CHECK(s.compile_never);
  CHECK(s.sim_processors == "gfx90a,gfx1100");
  CHECK(s.bounds_check);
  CHECK(s.device_libs == "none");
  CHECK(s.llvm_args == "-print-after=instcombine");
  CHECK(s.tune_malloc);
  CHECK_FALSE(s.disk_cache);
  CHECK(s.cache_dir == "/tmp/kernels");
  CHECK(s.cache_max_mb == 64);
  CHECK(s.cache_memory_entries == 16);
  CHECK(s.dump == DumpStages{.ir = true, .assembly = true});
  CHECK(s.dump_dir == "dumps");
  CHECK(s.log_passes == PassLog::ir);
  CHECK(s.time_trace == "/tmp/trace.json");
  CHECK(s.time_trace_granularity_us == 0);
  CHECK(s.log_level == LogLevel::debug);
  CHECK(s.disabled_workarounds == std::set<Workaround>{Workaround::host_rem_index, Workaround::or_with_half_ones});

  // The spellings of the switches and lists.
  CHECK(settings_from_variables({}).mma_model == "cdna3");
  CHECK(settings_from_variables({{"ROCJIT_MMA_MODEL", "cdna2"}}).mma_model == "cdna2");
  CHECK(settings_from_variables({{"ROCJIT_MMA_MODEL", "fma_chain"}}).mma_model == "fma_chain");
  CHECK(settings_from_variables({{"ROCJIT_MMA_MODEL", "gfx90a"}}).mma_model == "gfx90a");
  CHECK_FALSE(settings_from_variables({{"ROCJIT_BOUNDS_CHECK", "0"}}).bounds_check);
  CHECK(settings_from_variables({{"ROCJIT_BOUNDS_CHECK", "yes"}}).bounds_check);
  CHECK(settings_from_variables({{"ROCJIT_CACHE", "1"}}).disk_cache);
  CHECK_FALSE(settings_from_variables({{"ROCJIT_MALLOC_TUNING", "0"}}).tune_malloc);
  CHECK(settings_from_variables({{"ROCJIT_CPU_TIERING", "1"}}).cpu_tiering);
  CHECK(settings_from_variables({{"ROCJIT_LOG_PASSES", "1"}}).log_passes == PassLog::passes);
  CHECK(settings_from_variables({{"ROCJIT_LOG_PASSES", "0"}}).log_passes == PassLog::off);
  CHECK(settings_from_variables({{"ROCJIT_LOG_LEVEL", "error"}}).log_level == LogLevel::error);
  CHECK(settings_from_variables({{"ROCJIT_LOG_LEVEL", "warning"}}).log_level == LogLevel::warning);
  CHECK(settings_from_variables({{"ROCJIT_DUMP", "all"}}).dump == DumpStages{true, true, true, true, true});
  CHECK(settings_from_variables({{"ROCJIT_DUMP", " meta,\tllvm-opt ,llvm"}}).dump ==
        DumpStages{.llvm = true, .llvm_opt = true, .meta = true});
  CHECK(settings_from_variables({{"ROCJIT_CPU_THREADS", "1024"}}).cpu_threads == 1024);
  CHECK(log.size() == 0);
}

TEST_CASE("settings: a value that cannot be used is a warning through the log handler, and the default stays") {
  struct Bad {
    const char* name;
    const char* value;
    const char* says;
  };
  const Bad bad[] = {
      {"ROCJIT_CPU_THREADS", "0", "is not a thread count from 1 to 1024; using one per hardware thread"},
      {"ROCJIT_CPU_THREADS", "1025", "is not a thread count"},
      {"ROCJIT_CPU_THREADS", "4x", "is not a thread count"},
      {"ROCJIT_CPU_THREADS", " 4", "is not a thread count"},
      {"ROCJIT_CPU_THREADS", "4 ", "is not a thread count"},
      {"ROCJIT_CPU_THREADS", "0x10", "is not a thread count"},
      {"ROCJIT_CPU_THREADS", "-3", "is not a thread count"},
      {"ROCJIT_CPU_THREADS", "99999999999999999999", "is not a thread count"},
      {"ROCJIT_CPU_TIERING", "maybe", "is neither 0 (compile each work-group shape at O3 at its first launch) nor 1"},
      {"ROCJIT_DEVICE_KERNELS", "0", "is not a count of at least 1; using 1024"},
      {"ROCJIT_CODE_OBJECT_VERSION", "3", "is not a code object version (4 or 5); using the HIP runtime's"},
      {"ROCJIT_CODE_OBJECT_VERSION", "x", "is not a code object version"},
      {"ROCJIT_MALLOC_TUNING", "yes", "is neither 0 (leave glibc's malloc alone, the default) nor 1"},
      {"ROCJIT_CACHE_MAX_MB", "0", "is not a size of at least 1 MiB; using 512"},
      {"ROCJIT_CACHE_MEMORY_ENTRIES", "abc", "is not a count of at least 1; using 1024"},
      {"ROCJIT_TIME_TRACE_GRANULARITY_US", "-1", "is not a number of microseconds; using 500"},
      {"ROCJIT_LOG_LEVEL", "loud", "is not error, warning, info or debug; using info"},
      {"ROCJIT_MMA_MODEL", "native", "is not fma_chain, cdna2, cdna3 or a processor; using cdna3"},
      {"ROCJIT_COMPILE", "sometimes", "is neither auto (compile what no bundle or the kernel cache holds, the default) nor never; using auto"},
  };
  for (const Bad& b : bad) {
    INFO(b.name << "=" << b.value);
    LogCapture log;
    const Settings s = settings_from_variables({{b.name, b.value}});
    CHECK(s == Settings{});
    CHECK(log.size() == 1);
    CHECK(log.has(LogLevel::warning, std::string(b.name) + "='" + b.value + "' " + b.says));
  }
  SECTION("an unknown ROCJIT_DUMP stage is ignored with a warning; the others stay") {
    LogCapture log;
    const Settings s = settings_from_variables({{"ROCJIT_DUMP", "llvm,bogus"}});
    CHECK(s.dump == DumpStages{.llvm = true});
    CHECK(log.has(LogLevel::warning, "ROCJIT_DUMP: unknown stage 'bogus' ignored; the stages are ir, llvm"));
  }
  SECTION("an unknown workaround name is ignored with a warning naming the known ones; the others stay") {
    LogCapture log;
    const Settings s = settings_from_variables({{"ROCJIT_DISABLE_WORKAROUNDS", "no_such_fix,fsub_of_positive_zero"}});
    CHECK(s.disabled_workarounds == std::set<Workaround>{Workaround::fsub_of_positive_zero});
    CHECK(log.size() == 1);
    CHECK(log.has(LogLevel::warning, "ROCJIT_DISABLE_WORKAROUNDS: unknown workaround 'no_such_fix' ignored; the "
                                     "workarounds are fsub_of_positive_zero, or_with_half_ones,"));
  }
  SECTION("ROCJIT_MALLOC_TUNING=1 leaves malloc alone when the environment already tunes it") {
    for (const char* tuner : {"GLIBC_TUNABLES", "MALLOC_TOP_PAD_", "MALLOC_MMAP_THRESHOLD_"}) {
      INFO(tuner);
      LogCapture log;
      const std::string value = std::string(tuner) == "GLIBC_TUNABLES" ? "glibc.malloc.trim_threshold=1" : "1";
      CHECK_FALSE(settings_from_variables({{"ROCJIT_MALLOC_TUNING", "1"}, {tuner, value}}).tune_malloc);
      CHECK(log.has(LogLevel::warning, std::string("ROCJIT_MALLOC_TUNING=1 ignored: ") + tuner));
    }
    LogCapture log;
    CHECK(settings_from_variables({{"ROCJIT_MALLOC_TUNING", "1"}, {"GLIBC_TUNABLES", "glibc.pthread.rseq=0"}}).tune_malloc);
    CHECK(log.size() == 0);
  }
}

TEST_CASE("settings_from_environment reads the process's environment") {
  // ctest gives every unit test ROCJIT_CACHE_DIR (tests/unit/CMakeLists.txt).
  const char* dir = std::getenv("ROCJIT_CACHE_DIR");
  REQUIRE(dir);
  CHECK(settings_from_environment().cache_dir == dir);
}

TEST_CASE("set_settings: settings() gives back what was set, and a field out of range is refused") {
  ScopedSettings restore([](Settings&) {});
  Settings s = settings();
  s.device = "cpu";
  s.cpu_threads = 3;
  s.bounds_check = true;
  s.dump.meta = true;
  s.cache_memory_entries = 7;
  s.log_level = LogLevel::warning;
  set_settings(s);
  CHECK(settings() == s);
  update_settings([](Settings& t) { t.cache_memory_entries += 1; });
  CHECK(settings().cache_memory_entries == 8);
  CHECK(settings().device == "cpu");

  const Settings before = settings();
  struct Refused {
    const char* field;
    std::function<void(Settings&)> change;
  };
  const Refused refused[] = {
      {"cpu_threads", [](Settings& t) { t.cpu_threads = 1025; }},
      {"device_kernels", [](Settings& t) { t.device_kernels = 0; }},
      {"code_object_version", [](Settings& t) { t.code_object_version = 3; }},
      {"sim_processors", [](Settings& t) { t.sim_processors.clear(); }},
      {"cache_max_mb", [](Settings& t) { t.cache_max_mb = 0; }},
      {"cache_memory_entries", [](Settings& t) { t.cache_memory_entries = 0; }},
      {"time_trace_granularity_us", [](Settings& t) { t.time_trace_granularity_us = 100000001; }},
      {"log_level", [](Settings& t) { t.log_level = static_cast<LogLevel>(7); }},
  };
  for (const Refused& r : refused) {
    INFO(r.field);
    Settings t = before;
    r.change(t);
    CHECK_THROWS_AS(set_settings(t), Error);
    CHECK_THROWS_WITH(set_settings(t), Catch::Matchers::Contains(std::string("Settings::") + r.field));
    CHECK_THROWS_AS(update_settings(r.change), Error);
    CHECK(settings() == before);
  }
}

TEST_CASE("settings change atomically while several threads read and change them") {
  ScopedSettings restore([](Settings& s) {
    s.cache_memory_entries = 1;
    s.device_kernels = 1;
  });
  constexpr int writers = 4, rounds = 300;
  std::atomic<bool> stop{false};
  std::atomic<int> torn{0};
  // Every change keeps device_kernels == cache_memory_entries: a reader never sees them differ.
  std::vector<std::thread> readers;
  for (int r = 0; r < 2; ++r)
    readers.emplace_back([&] {
      while (!stop.load()) {
        const Settings s = settings();
        if (s.device_kernels != s.cache_memory_entries) ++torn;
      }
    });
  std::vector<std::thread> threads;
  for (int w = 0; w < writers; ++w)
    threads.emplace_back([&] {
      for (int i = 0; i < rounds; ++i)
        update_settings([](Settings& s) {
          s.cache_memory_entries += 1;
          s.device_kernels = s.cache_memory_entries;
        });
    });
  for (auto& t : threads) t.join();
  stop = true;
  for (auto& t : readers) t.join();
  CHECK(torn == 0);
  // No update was lost.
  CHECK(settings().cache_memory_entries == 1 + writers * rounds);
  CHECK(settings().device_kernels == 1 + writers * rounds);
}

TEST_CASE("the log level: messages less important than Settings::log_level are not delivered") {
  LogCapture log;
  {
    ScopedSettings quiet([](Settings& s) { s.log_level = LogLevel::error; });
    settings_from_variables({{"ROCJIT_CPU_THREADS", "x"}});
    CHECK(log.size() == 0);
  }
  settings_from_variables({{"ROCJIT_CPU_THREADS", "x"}});
  CHECK(log.has(LogLevel::warning, "ROCJIT_CPU_THREADS='x'"));
  // At debug, a change of the settings is told field by field.
  ScopedSettings verbose([](Settings& s) { s.log_level = LogLevel::debug; });
  update_settings([](Settings& s) { s.bounds_check = !s.bounds_check; });
  CHECK(log.has(LogLevel::debug, "settings changed: ROCJIT_BOUNDS_CHECK: '"));
  update_settings([](Settings& s) { s.bounds_check = !s.bounds_check; });
}

TEST_CASE("without a handler, messages go to stderr as 'rocjit: <level>: <message>', and a throwing handler is ignored") {
  set_log_handler(nullptr);
  char path[] = "/tmp/rocjit-stderr-XXXXXX";
  const int file = mkstemp(path);
  REQUIRE(file >= 0);
  std::fflush(stderr);
  const int saved = dup(2);
  dup2(file, 2);
  settings_from_variables({{"ROCJIT_CACHE_MAX_MB", "lots"}});
  std::fflush(stderr);
  dup2(saved, 2);
  close(saved);
  close(file);
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  std::remove(path);
  CHECK(text.str() == "rocjit: warning: ROCJIT_CACHE_MAX_MB='lots' is not a size of at least 1 MiB; using 512\n");

  set_log_handler([](LogLevel, std::string_view) { throw std::runtime_error("the handler failed"); });
  CHECK_NOTHROW(settings_from_variables({{"ROCJIT_CACHE_MAX_MB", "lots"}}));
  set_log_handler(nullptr);
}

TEST_CASE("Settings::llvm_args reach LLVM at the next compile, a bad one is a CompileError, and clearing them restores LLVM's defaults") {
  const Kernel k = samples::matmul();
  const Target gfx90a = Target::amdgpu("gfx90a");
  CompileOptions fresh;
  fresh.cache = false;
  const std::vector<uint8_t> plain = compile(k, gfx90a, fresh).elf;
  {
    // Without the machine scheduler: other code.
    ScopedSettings unscheduled([](Settings& s) { s.llvm_args = "-enable-misched=false"; });
    CHECK(compile(k, gfx90a, fresh).elf != plain);
    CHECK(last_compile_record("matmul", gfx90a.str()).cache == "bypassed");
  }
  CHECK(compile(k, gfx90a, fresh).elf == plain);
  {
    ScopedSettings bad([](Settings& s) { s.llvm_args = "--no-such-option"; });
    CHECK_THROWS_AS(compile(k, gfx90a), CompileError);
    CHECK_THROWS_WITH(compile(k, Target::host()),
                      Catch::Matchers::Contains("kernel 'matmul': ROCJIT_LLVM_ARGS='--no-such-option' is not a valid set "
                                                "of LLVM options: Unknown command line argument '--no-such-option'"));
  }
  CHECK(compile(k, gfx90a, fresh).elf == plain);
}

