// The kernel cache: never compile twice, in memory or on disk; bad entries are ignored and
// replaced; an unusable directory only costs a warning; concurrent processes share a cache.
#include <catch2/catch.hpp>

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#define XXH_INLINE_ALL
#include <xxhash.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/JSON.h>

#include <algorithm>

#include "rocjit/compiler/device_print.hpp"

#include "host_args.hpp"
#include "sample_kernels.hpp"
#include "scoped_settings.hpp"
#include "temporary_cache.hpp"

using namespace rocjit;
namespace fs = std::filesystem;
using rocjit::testing::ChildEnvironment;
using rocjit::testing::LogCapture;
using rocjit::testing::ScopedSettings;
using rocjit::testing::TemporaryCache;

namespace {

CacheStats delta(const CacheStats& before) {
  CacheStats now = cache_stats();
  return CacheStats{now.memory_hits - before.memory_hits, now.disk_hits - before.disk_hits,
                    now.misses - before.misses, now.disk_writes - before.disk_writes,
                    now.disk_rejected - before.disk_rejected};
}

uint64_t bundle_hits_since(const CacheStats& before) { return cache_stats().bundle_hits - before.bundle_hits; }

// rocjit-cache-filler in a new process (not fork(): the test process already runs LLVM's threads
// and locks) with environment `env` and arguments `args` (its mode and the mode's arguments):
// the child's pid, or 0 when it did not start.
pid_t start_filler(ChildEnvironment env, std::vector<std::string> args) {
  std::vector<char*> argv{const_cast<char*>(ROCJIT_CACHE_FILLER)};
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  return posix_spawn(&pid, ROCJIT_CACHE_FILLER, nullptr, nullptr, argv.data(), env.data()) == 0 ? pid : 0;
}

// Waits for a filler start_filler started: its exit code, -1 when it did not start, 128 when it
// did not exit normally.
int wait_filler(pid_t pid) {
  if (pid == 0) return -1;
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

int run_filler(ChildEnvironment env, std::vector<std::string> args = {}) {
  return wait_filler(start_filler(std::move(env), std::move(args)));
}

}  // namespace

TEST_CASE("a kernel compiled again, or an identical second kernel, is not recompiled") {
  TemporaryCache cache;
  CacheStats before = cache_stats();
  CodeObject first = compile(samples::matmul(), Target::amdgpu("gfx90a"));
  CodeObject again = compile(samples::matmul(), Target::amdgpu("gfx90a"));  // a second trace, same IR
  CacheStats d = delta(before);
  CHECK(d.misses == 1);
  CHECK(d.memory_hits == 1);
  CHECK(again.elf == first.elf);
  compile(samples::matmul(), Target::amdgpu("gfx1100"));  // another target is another key
  CompileOptions v4;
  v4.code_object_version = 4;
  compile(samples::matmul(), Target::amdgpu("gfx90a"), v4);  // so are other options
  CHECK(delta(before).misses == 3);
}

TEST_CASE("the on-disk cache serves a new process (simulated by clearing memory) with identical results") {
  TemporaryCache cache;
  CodeObject compiled = compile(samples::histogram(), Target::amdgpu("gfx942"));
  REQUIRE(cache.entries().size() == 1);
  CHECK((fs::status(cache.dir).permissions() & fs::perms::all) == fs::perms::owner_all);
  clear_memory_cache();
  CacheStats before = cache_stats();
  CodeObject loaded = compile(samples::histogram(), Target::amdgpu("gfx942"));
  CHECK(delta(before).disk_hits == 1);
  CHECK(delta(before).misses == 0);
  CHECK(loaded.elf == compiled.elf);
  const auto& a = loaded.kernel("histogram");
  const auto& b = compiled.kernel("histogram");
  CHECK(a.group_segment_fixed_size == b.group_segment_fixed_size);
  REQUIRE(a.args.size() == b.args.size());
  for (size_t i = 0; i < a.args.size(); ++i) CHECK(a.args[i].name == b.args[i].name);
}

TEST_CASE("corrupt, truncated, empty and wrong-version entries are ignored and replaced") {
  TemporaryCache cache;
  CodeObject good = compile(samples::saxpy(), Target::amdgpu("gfx90a"));
  fs::path entry = cache.entries().at(0);
  std::string original;
  {
    std::ifstream in(entry, std::ios::binary);
    original.assign((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  }
  auto damage = [&](const std::string& bytes) {
    std::ofstream out(entry, std::ios::binary | std::ios::trunc);
    out << bytes;
  };
  std::string flipped = original;
  flipped[flipped.size() - 100] ^= 0x5a;
  std::string wrong_version = original;
  wrong_version[8] = 99;
  for (const std::string& bad : {flipped, original.substr(0, original.size() / 2), std::string(),
                                 wrong_version, std::string("not a rocjit cache entry at all")}) {
    damage(bad);
    clear_memory_cache();
    CacheStats before = cache_stats();
    CodeObject co = compile(samples::saxpy(), Target::amdgpu("gfx90a"));
    CHECK(delta(before).disk_rejected == 1);
    CHECK(delta(before).misses == 1);
    CHECK(co.elf == good.elf);
    // The entry was replaced by a valid one.
    clear_memory_cache();
    CacheStats after = cache_stats();
    compile(samples::saxpy(), Target::amdgpu("gfx90a"));
    CHECK(delta(after).disk_hits == 1);
  }
}

TEST_CASE("entries of older cache formats (1 FNV-1a checksums / 2 no print table / 3 metadata from the ELF and ORC objects / 4 no race-checked arrays / 5 no race-free shared arrays) are ignored and replaced by format 6") {
  TemporaryCache cache;
  CodeObject good = compile(samples::saxpy(), Target::amdgpu("gfx90a"));
  const fs::path entry = cache.entries().at(0);
  CHECK(entry.stem().string().size() == 32);  // an XXH3-128 key: 32 hex digits
  std::string bytes;
  {
    std::ifstream in(entry, std::ios::binary);
    bytes.assign((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  }
  // Header: magic[8], version u32 at 8, reserved u32, key[32], payload bytes u64 at 48, checksum u64 at 56.
  REQUIRE(bytes.size() > 64);
  uint32_t version = 0;
  std::memcpy(&version, bytes.data() + 8, sizeof version);
  CHECK(version == 6);
  // The same bytes labelled format 2 (whose payloads had no print table), 3 (whose code-object
  // payloads held argument names, not metadata), 4 (whose race-checked host entries had no
  // array table) or 5 (no shared-array table): rejected, rewritten.
  for (uint32_t older : {2u, 3u, 4u, 5u}) {
    std::string labelled = bytes;
    version = older;
    std::memcpy(labelled.data() + 8, &version, sizeof version);
    std::ofstream(entry, std::ios::binary | std::ios::trunc) << labelled;
    clear_memory_cache();
    CacheStats before = cache_stats();
    compile(samples::saxpy(), Target::amdgpu("gfx90a"));
    CHECK(delta(before).disk_rejected == 1);
  }
  // The same payload as a format-1 writer left it: version 1 and an FNV-1a checksum that verifies.
  uint64_t fnv = 1469598103934665603ull;
  for (size_t i = 64; i < bytes.size(); ++i) fnv = (fnv ^ static_cast<unsigned char>(bytes[i])) * 1099511628211ull;
  std::string old_format = bytes;
  version = 1;
  std::memcpy(old_format.data() + 8, &version, sizeof version);
  std::memcpy(old_format.data() + 56, &fnv, sizeof fnv);
  std::ofstream(entry, std::ios::binary | std::ios::trunc) << old_format;
  clear_memory_cache();
  CacheStats before = cache_stats();
  CodeObject co = compile(samples::saxpy(), Target::amdgpu("gfx90a"));
  CHECK(delta(before).disk_rejected == 1);
  CHECK(delta(before).misses == 1);
  CHECK(co.elf == good.elf);
  {
    std::ifstream in(entry, std::ios::binary);
    std::string replaced((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    CHECK(replaced == bytes);  // rewritten in format 6
  }
  clear_memory_cache();
  before = cache_stats();
  compile(samples::saxpy(), Target::amdgpu("gfx90a"));
  CHECK(delta(before).disk_hits == 1);
}

TEST_CASE("an unusable cache directory costs a warning, never a failed compile") {
  TemporaryCache cache;
  fs::create_directories(fs::path(cache.dir).parent_path());
  std::string blocker = fs::path(cache.dir).parent_path() / "a-file";
  std::ofstream(blocker) << "x";
  {
    ScopedSettings below_a_file([&](Settings& s) { s.cache_dir = blocker + "/cache"; });
    clear_memory_cache();
    CodeObject co = compile(samples::jacobi(), Target::amdgpu("gfx90a"));
    CHECK(co.kernel("jacobi").vgpr_count > 0);
  }
  ScopedSettings disabled([](Settings& s) { s.disk_cache = false; });  // no directory at all
  CHECK(cache_directory().empty());
  clear_memory_cache();
  CHECK_NOTHROW(compile(samples::jacobi(), Target::amdgpu("gfx90a")));
}

namespace {

// What cache_directory() is in a new process with environment `env` (rocjit-cache-filler's
// cache-dir mode); "(failed)" if the process did not run.
std::string cache_directory_in(ChildEnvironment env, const std::string& scratch) {
  const std::string answer = scratch + "/cache-directory.txt";
  if (run_filler(env, {"cache-dir", answer}) != 0) return "(failed)";
  std::ifstream in(answer);
  std::string dir;
  std::getline(in, dir);
  return dir;
}

}  // namespace

TEST_CASE("the cache directory is ROCJIT_CACHE_DIR, else $XDG_CACHE_HOME/rocjit, else ~/.cache/rocjit") {
  TemporaryCache cache;
  CHECK(cache_directory() == cache.dir);
  const std::string scratch = fs::path(cache.dir).parent_path();
  // Settings::cache_dir empty: the default directory, as the process's environment gave it.
  ChildEnvironment env = cache.child_environment();
  CHECK(cache_directory_in(env, scratch) == cache.dir);
  env.unset("ROCJIT_CACHE_DIR").set("XDG_CACHE_HOME", "/tmp/rocjit-xdg");
  CHECK(cache_directory_in(env, scratch) == "/tmp/rocjit-xdg/rocjit");
  env.unset("XDG_CACHE_HOME").set("HOME", "/tmp/rocjit-home/");
  CHECK(cache_directory_in(env, scratch) == "/tmp/rocjit-home/.cache/rocjit");
  env.set("ROCJIT_CACHE", "0");
  CHECK(cache_directory_in(env, scratch).empty());
  {
    ScopedSettings default_directory([](Settings& s) { s.cache_dir.clear(); });
    CHECK(cache_directory() != cache.dir);
    CHECK_THAT(cache_directory(), Catch::Matchers::EndsWith("/rocjit"));
  }
}

TEST_CASE("two processes filling the same cache concurrently leave only valid entries") {
  TemporaryCache cache;
  Kernel (*makers[])() = {samples::saxpy,     samples::reverse,   samples::matmul, samples::reduce,
                          samples::transpose, samples::histogram, samples::jacobi};
  std::vector<pid_t> children;
  for (int p = 0; p < 2; ++p) {
    children.push_back(start_filler(cache.child_environment(), {}));
    REQUIRE(children.back() != 0);
  }
  for (pid_t pid : children) CHECK(wait_filler(pid) == 0);
  CHECK(cache.entries().size() == 7);
  for (const auto& e : fs::directory_iterator(cache.dir)) CHECK(e.path().extension() == ".rjco");  // no temp files left
  clear_memory_cache();
  CacheStats before = cache_stats();
  for (auto make : makers) compile(make(), Target::amdgpu("gfx90a"));
  CHECK(delta(before).disk_hits == 7);
  CHECK(delta(before).disk_rejected == 0);
}

TEST_CASE("the disk cache is bounded with least-recently-used eviction") {
  TemporaryCache cache;
  compile(samples::saxpy(), Target::amdgpu("gfx90a"));
  CHECK(cache.entries().size() == 1);
  // Fill past a limit of 1 MiB with padding entries older than everything else.
  for (int i = 0; i < 3; ++i) {
    fs::path pad = fs::path(cache.dir) / ("old" + std::to_string(i) + ".rjco");
    std::ofstream(pad) << std::string(400 * 1024, 'x');
    fs::last_write_time(pad, fs::file_time_type::clock::now() - std::chrono::hours(24 + i));
  }
  {
    ScopedSettings one_mib([](Settings& s) { s.cache_max_mb = 1; });
    clear_memory_cache();
    compile(samples::reverse(), Target::amdgpu("gfx90a"));  // a write triggers eviction
  }
  auto left = cache.entries();
  uint64_t total = 0;
  for (const auto& e : left) total += fs::file_size(e);
  CHECK(total <= (1u << 20));
  CHECK_FALSE(fs::exists(fs::path(cache.dir) / "old2.rjco"));  // the oldest went first
  size_t kernels = 0;
  for (const auto& e : left) kernels += e.filename().string().rfind("old", 0) != 0;
  CHECK(kernels == 2);  // the recently used kernel entries stayed
}

TEST_CASE("the bound holds against other processes' files, counted once this process has written a sixteenth of it") {
  TemporaryCache cache;
  ScopedSettings one_mib([](Settings& s) { s.cache_max_mb = 1; });
  compile(samples::saxpy(), Target::amdgpu("gfx90a"));  // the first write under this bound scans
  // Another process's files, older than everything else, fill the directory past the bound.
  for (int i = 0; i < 3; ++i) {
    fs::path pad = fs::path(cache.dir) / ("other" + std::to_string(i) + ".rjco");
    std::ofstream(pad) << std::string(400 * 1024, 'x');
    fs::last_write_time(pad, fs::file_time_type::clock::now() - std::chrono::hours(24 + i));
  }
  // This process's writes: until they pass 64 KiB, its estimate says the directory is small.
  Kernel (*makers[])() = {samples::reverse,   samples::matmul, samples::reduce, samples::transpose,
                          samples::histogram, samples::jacobi};
  uint64_t written = 0;
  for (const char* processor : {"gfx90a", "gfx1100", "gfx942", "gfx1030"}) {
    for (auto make : makers) {
      if (written > (64u << 10)) break;
      const auto before = cache.entries();
      compile(make(), Target::amdgpu(processor));
      for (const auto& e : cache.entries())
        if (std::find(before.begin(), before.end(), e) == before.end()) written += fs::file_size(e);
    }
  }
  REQUIRE(written > (64u << 10));
  uint64_t total = 0;
  for (const auto& e : cache.entries()) total += fs::file_size(e);
  CHECK(total <= (1u << 20));
  CHECK_FALSE(fs::exists(fs::path(cache.dir) / "other2.rjco"));  // the oldest went first
}

TEST_CASE("every compile leaves a per-kernel record of its phases and cache outcome") {
  TemporaryCache cache;
  Kernel k = samples::reduce();
  CompileRecord traced = last_compile_record("reduce", "dsl");
  CHECK(traced.phase_ms("trace") > 0);
  CHECK(traced.phase_ms("verify") > 0);
  compile(k, Target::amdgpu("gfx90a"));
  CompileRecord miss = last_compile_record("reduce", "amdgpu:gfx90a");
  CHECK(miss.cache == "miss");
  for (const char* phase : {"verify", "cache lookup", "lower", "optimise", "codegen", "link", "metadata"})
    CHECK(miss.phase_ms(phase) > 0);
  CHECK(miss.total_ms >= miss.phase_ms("codegen") + miss.phase_ms("optimise"));
  compile(k, Target::amdgpu("gfx90a"));
  CHECK(last_compile_record("reduce", "amdgpu:gfx90a").cache == "memory");
  clear_memory_cache();
  compile(k, Target::amdgpu("gfx90a"));
  CompileRecord disk = last_compile_record("reduce", "amdgpu:gfx90a");
  CHECK(disk.cache == "disk");
  CHECK(disk.phase_ms("load") > 0);
  CHECK(disk.phase_ms("codegen") == 0);
}

TEST_CASE("a traced kernel is verified and fingerprinted once; a plain IR reference every time") {
  TemporaryCache cache;
  Kernel k = samples::transpose();
  compile(k, Target::amdgpu("gfx906"));
  CompileRecord first = last_compile_record("transpose", "amdgpu:gfx906");
  CHECK(first.cache == "miss");
  CHECK(first.phase_ms("verify") > 0);
  CHECK(first.phase_ms("fingerprint") > 0);
  compile(k, Target::amdgpu("gfx906"));
  CompileRecord again = last_compile_record("transpose", "amdgpu:gfx906");
  CHECK(again.cache == "memory");
  CHECK(again.phase_ms("verify") == 0);
  CHECK(again.phase_ms("fingerprint") == 0);
  // The same IR through a reference: checked again, and the same cache entry (content, not identity).
  compile(k.ir(), Target::amdgpu("gfx906"));
  CompileRecord by_ref = last_compile_record("transpose", "amdgpu:gfx906");
  CHECK(by_ref.cache == "memory");
  CHECK(by_ref.phase_ms("verify") > 0);
  // A kernel traced again is another object with the same content: a memory hit as well.
  compile(samples::transpose(), Target::amdgpu("gfx906"));
  CHECK(last_compile_record("transpose", "amdgpu:gfx906").cache == "memory");
  CHECK_THROWS_AS(compile(std::shared_ptr<const ir::Kernel>(), Target::amdgpu("gfx906")), CompileError);
}

TEST_CASE("a kernel freed and replaced at the same address is never mistaken for the old one") {
  TemporaryCache cache;
  using namespace rocjit::dsl;
  // Many short-lived kernels of different content: the allocator reuses addresses, and each
  // compile must still describe its own kernel.
  for (int i = 0; i < 64; ++i) {
    const std::string name = "k" + std::to_string(i % 4);
    Kernel k = kernel(name, [i](Array<int, 1> x) { x(global_id(0)) = i; });
    CodeObject co = compile(k, Target::amdgpu("gfx900"));
    REQUIRE(co.kernels.size() == 1);
    CHECK(co.kernels[0].name == name);
    CHECK(last_compile_record(name, "amdgpu:gfx900").cache == "miss");  // new content every time
  }
}

TEST_CASE("ROCJIT_TIME_TRACE writes Chrome trace events when the process exits") {
  TemporaryCache cache;
  std::string trace = fs::path(cache.dir).parent_path() / "trace.json";
  fs::create_directories(fs::path(cache.dir).parent_path());
  ChildEnvironment env = cache.child_environment();
  env.set("ROCJIT_TIME_TRACE", trace);
  REQUIRE(run_filler(env) == 0);
  std::ifstream in(trace);
  std::string json((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(json.rfind("{\"traceEvents\":[", 0) == 0);
  for (const char* name : {"\"name\":\"trace\"", "\"name\":\"lower\"", "\"name\":\"optimise\"", "\"name\":\"codegen\"",
                           "\"name\":\"link\"", "\"name\":\"cache lookup\"", "\"kernel\":\"matmul\"", "\"ph\":\"X\""})
    CHECK(json.find(name) != std::string::npos);
  CHECK(json.find("]") != std::string::npos);
}

namespace {

struct TraceEvent {
  std::string name, category, kernel, target, detail;
  double start = 0, end = 0;
  int64_t thread = 0;
};

// The events of a ROCJIT_TIME_TRACE file, which must be valid JSON in Chrome's trace format.
std::vector<TraceEvent> read_trace(const std::string& path) {
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(text);
  if (!parsed) FAIL("the trace is not valid JSON: " << llvm::toString(parsed.takeError()));
  const llvm::json::Object* root = parsed->getAsObject();
  REQUIRE(root);
  const llvm::json::Array* events = root->getArray("traceEvents");
  REQUIRE(events);
  std::vector<TraceEvent> out;
  for (const llvm::json::Value& v : *events) {
    const llvm::json::Object* e = v.getAsObject();
    REQUIRE(e);
    REQUIRE(e->getString("ph") == "X");
    REQUIRE(e->getString("name"));
    REQUIRE(e->getNumber("ts"));
    REQUIRE(e->getNumber("dur"));
    REQUIRE(e->getInteger("tid"));
    const llvm::json::Object* args = e->getObject("args");
    REQUIRE(args);
    TraceEvent t;
    t.name = e->getString("name")->str();
    t.category = e->getString("cat").value_or("").str();
    t.kernel = args->getString("kernel").value_or("").str();
    t.target = args->getString("target").value_or("").str();
    t.detail = args->getString("detail").value_or("").str();
    t.start = *e->getNumber("ts");
    t.end = t.start + *e->getNumber("dur");
    t.thread = *e->getInteger("tid");
    out.push_back(t);
  }
  return out;
}

// The rocjit event named `name` of the same kernel, target and thread that encloses `inner`.
bool nested_in(const std::vector<TraceEvent>& events, const TraceEvent& inner, const std::string& name) {
  const double slack_us = 2;  // the two profilers' clocks are read a few microseconds apart
  for (const TraceEvent& e : events)
    if (e.category == "rocjit" && e.name == name && e.kernel == inner.kernel && e.target == inner.target &&
        e.thread == inner.thread && e.start <= inner.start + slack_us && inner.end <= e.end + slack_us)
      return true;
  return false;
}

}  // namespace

TEST_CASE("ROCJIT_TIME_TRACE is JSON holding rocjit's phases and LLVM's passes nested, per kernel, target and thread") {
  TemporaryCache cache;
  std::string trace = fs::path(cache.dir).parent_path() / "trace.json";
  fs::create_directories(fs::path(cache.dir).parent_path());
  ChildEnvironment env = cache.child_environment();
  env.set("ROCJIT_TIME_TRACE", trace)
      .set("ROCJIT_TIME_TRACE_GRANULARITY_US", "0")  // every LLVM event, however short
      .set("ROCJIT_CACHE", "0");
  REQUIRE(run_filler(env, {"trace"}) == 0);
  const std::vector<TraceEvent> events = read_trace(trace);

  const std::string odd = "Odd.name-09_Z";
  for (const auto& [kernel, target] : {std::pair<std::string, std::string>{"matmul", "amdgpu:gfx90a"},
                                       {odd, "amdgpu:gfx1100"}, {odd, "host"}}) {
    CAPTURE(kernel, target);
    auto count = [&](const std::string& category, const std::string& name) {
      return std::count_if(events.begin(), events.end(), [&](const TraceEvent& e) {
        return e.kernel == kernel && e.target == target && e.category == category && (name.empty() || e.name == name);
      });
    };
    CHECK(count("rocjit", "compile " + kernel) == 1);
    for (const char* phase : {"lower", "optimise", "codegen"}) CHECK(count("rocjit", phase) == 1);
    // LLVM's own events: new-pass-manager passes (InstCombinePass, ...) and the legacy codegen
    // pipeline's per-function passes (RunPass within OptFunction).
    CHECK(count("llvm", "InstCombinePass") > 0);
    CHECK(count("llvm", "RunPass") > 0);
    CHECK(count("llvm", "OptFunction") > 0);
    for (const TraceEvent& e : events) {
      if (e.category != "llvm" || e.kernel != kernel || e.target != target) continue;
      CAPTURE(e.name, e.detail, e.start, e.end);
      CHECK(nested_in(events, e, "compile " + kernel));
      if (e.name == "InstCombinePass") CHECK(nested_in(events, e, "optimise"));
      if (e.name == "RunPass" || e.name == "OptFunction") CHECK(nested_in(events, e, "codegen"));
    }
  }
  // The two threads' compiles are on their own tracks.
  auto thread_of = [&](const std::string& kernel) {
    return std::find_if(events.begin(), events.end(), [&](const TraceEvent& e) { return e.kernel == kernel; })->thread;
  };
  CHECK(thread_of("matmul") != thread_of(odd));
  // lld's events nest in the AMDGPU link phase.
  const bool linked = std::any_of(events.begin(), events.end(), [&](const TraceEvent& e) {
    return e.category == "llvm" && e.target == "amdgpu:gfx1100" && nested_in(events, e, "link");
  });
  CHECK(linked);
}

TEST_CASE("two threads asking for the same kernel at once compile it once") {
  TemporaryCache cache;
  Kernel k = samples::transpose();
  CacheStats before = cache_stats();
  CodeObject a, b;
  std::thread t1([&] { a = compile(k, Target::amdgpu("gfx1030")); });
  std::thread t2([&] { b = compile(k, Target::amdgpu("gfx1030")); });
  t1.join();
  t2.join();
  CHECK(delta(before).misses == 1);
  CHECK(delta(before).memory_hits == 1);
  CHECK(a.elf == b.elf);
}

TEST_CASE("different kernels compile on four threads at once, for one processor, another and the host") {
  // Four threads each compile their own kernels for gfx942 (leasing TargetMachines from one
  // pool), gfx1100 and the host, all cache misses; the code objects equal serial compiles.
  const std::vector<Kernel> kernels = {samples::saxpy(), samples::reduce(), samples::transpose(), samples::jacobi(),
                                       samples::histogram(), samples::matmul(), samples::reverse(), samples::scan_blocks()};
  const std::vector<Target> targets = {Target::amdgpu("gfx942"), Target::amdgpu("gfx1100")};
  std::vector<std::vector<uint8_t>> serial;
  {
    TemporaryCache cache;
    for (const Kernel& k : kernels)
      for (const Target& t : targets) serial.push_back(compile(k, t).elf);
  }
  TemporaryCache cache;
  CacheStats before = cache_stats();
  std::vector<std::vector<uint8_t>> parallel(serial.size());
  std::vector<int> host_ran(kernels.size(), 0);
  std::vector<std::thread> threads;
  for (size_t worker = 0; worker < 4; ++worker)
    threads.emplace_back([&, worker] {
      for (size_t k = worker; k < kernels.size(); k += 4) {
        for (size_t t = 0; t < targets.size(); ++t) parallel[k * targets.size() + t] = compile(kernels[k], targets[t]).elf;
        host_ran[k] = compile(kernels[k], Target::host()).host ? 1 : 0;
      }
    });
  for (std::thread& t : threads) t.join();
  CHECK(delta(before).misses == kernels.size() * (targets.size() + 1));
  for (size_t i = 0; i < serial.size(); ++i) {
    INFO("kernel " << i / targets.size() << " on " << targets[i % targets.size()].str());
    CHECK(!parallel[i].empty());
    CHECK(parallel[i] == serial[i]);
  }
  CHECK(std::count(host_ran.begin(), host_ran.end(), 1) == static_cast<long>(kernels.size()));
}

TEST_CASE("compile_all compiles a batch in parallel, in order, and rethrows the first failing kernel's error") {
  const std::vector<Kernel> kernels = {samples::saxpy(), samples::reduce(), samples::transpose(), samples::matmul()};
  std::vector<std::vector<uint8_t>> serial;
  {
    TemporaryCache cache;
    for (const Kernel& k : kernels) serial.push_back(compile(k, Target::amdgpu("gfx90a")).elf);
  }
  TemporaryCache cache;
  CacheStats before = cache_stats();
  std::vector<CodeObject> all = compile_all(kernels, Target::amdgpu("gfx90a"), {}, 3);
  CHECK(delta(before).misses == kernels.size());
  REQUIRE(all.size() == kernels.size());
  for (size_t i = 0; i < kernels.size(); ++i) {
    INFO("kernel " << kernels[i].name());
    CHECK(all[i].elf == serial[i]);
  }
  std::vector<CodeObject> hosts = compile_all(kernels, Target::host());
  for (const CodeObject& c : hosts) CHECK(c.host);
  CHECK(compile_all(std::span<const Kernel>(), Target::host()).empty());

  // Two kernels over the LDS limit: the error names the first of them, and the others compile.
  auto too_big = [](const char* name) {
    using namespace rocjit::dsl;
    return kernel(name, [](Array<float> out) {
      auto s = shared::array<float>({20000});  // 80,000 bytes of LDS
      s(local_id(0)) = 1.0f;
      barrier();
      out(global_id(0)) = s(0);
    }, {.max_block_size = 64});
  };
  const std::vector<Kernel> mixed = {samples::saxpy(), too_big("lds_first"), samples::reverse(), too_big("lds_second")};
  try {
    compile_all(mixed, Target::amdgpu("gfx90a"));
    FAIL("compile_all accepted a kernel over the LDS limit");
  } catch (const CompileError& e) {
    CHECK_THAT(e.what(), Catch::Matchers::Contains("lds_first"));
  }
  CHECK_THROWS_AS(compile_all(std::vector<Kernel>{Kernel()}, Target::host()), Error);
}

namespace {
struct HostFill {
  int memory = -1, disk = -1, misses = -1, rejected = -1;
  int exit_code = -1;
};

// Runs the filler's host mode in a new process (the memory level lasts as long as a process).
HostFill fill_host(const TemporaryCache& cache) {
  std::string stats = cache.dir + "-stats.txt";
  HostFill out;
  out.exit_code = run_filler(cache.child_environment(), {"host", stats});
  if (out.exit_code == -1) return out;
  std::ifstream in(stats);
  in >> out.memory >> out.disk >> out.misses >> out.rejected;
  return out;
}

std::vector<fs::path> host_entries(const std::string& dir) {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".rjho") out.push_back(e.path());
  return out;
}
}  // namespace

TEST_CASE("host kernels are cached: once per process in memory, and on disk for the next process") {
  TemporaryCache cache;
  HostFill first = fill_host(cache);
  CHECK(first.exit_code == 0);
  CHECK(first.misses == 7);
  CHECK(first.disk == 0);
  REQUIRE(host_entries(cache.dir).size() == 7);

  HostFill second = fill_host(cache);  // a new process: every kernel from disk, and saxpy runs right
  CHECK(second.exit_code == 0);
  CHECK(second.disk == 7);
  CHECK(second.misses == 0);
  CHECK(second.rejected == 0);

  // A damaged entry (a byte of the object flipped, or cut short) is rejected and rebuilt.
  for (int damage = 0; damage < 2; ++damage) {
    std::string bytes;
    fs::path victim;
    for (const auto& e : host_entries(cache.dir))
      if (victim.empty() || fs::file_size(e) > fs::file_size(victim)) victim = e;
    {
      std::ifstream in(victim, std::ios::binary);
      bytes.assign((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    }
    if (damage == 0) bytes[bytes.size() - 64] ^= 0x21;
    else bytes.resize(bytes.size() / 2);
    std::ofstream(victim, std::ios::binary | std::ios::trunc) << bytes;
    HostFill third = fill_host(cache);
    CHECK(third.exit_code == 0);
    CHECK(third.rejected == 1);
    CHECK(third.misses == 1);
    CHECK(third.disk == 6);
  }

  // An entry whose checksum verifies but whose shared object does not load (its ELF magic
  // broken, the checksum recomputed): dlopen refuses it, and it is rejected and rebuilt.
  {
    fs::path victim = host_entries(cache.dir).at(0);
    std::string bytes;
    {
      std::ifstream in(victim, std::ios::binary);
      bytes.assign((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    }
    const size_t elf = bytes.find("\x7f" "ELF", 64);
    REQUIRE(elf != std::string::npos);
    bytes[elf + 3] = 'G';
    const uint64_t checksum = XXH3_64bits(bytes.data() + 64, bytes.size() - 64);
    std::memcpy(bytes.data() + 56, &checksum, sizeof checksum);
    std::ofstream(victim, std::ios::binary | std::ios::trunc) << bytes;
    HostFill fourth = fill_host(cache);
    CHECK(fourth.exit_code == 0);
    CHECK(fourth.rejected == 1);
    CHECK(fourth.misses == 1);
  }

  // In this process: the second compile of the same kernel is a memory hit with the same code.
  CacheStats before = cache_stats();
  HostKernel a = compile_host(samples::jacobi().ir());
  HostKernel b = compile_host(samples::jacobi().ir());
  CHECK(delta(before).memory_hits == 1);
  CHECK(delta(before).misses + delta(before).disk_hits == 1);
  CHECK(a.region_count() == b.region_count());
  CHECK(a.argument_names() == b.argument_names());
  CHECK(metadata_text(a) == metadata_text(b));
}

TEST_CASE("host compiles that ask for texts or no cache compile afresh") {
  TemporaryCache cache;
  HostCompileOptions texts, uncached;
  texts.emit_assembly = true;
  uncached.cache = false;
  for (const HostCompileOptions& options : {texts, uncached}) {
    CacheStats before = cache_stats();
    compile_host(samples::reduce().ir(), options);
    compile_host(samples::reduce().ir(), options);
    CHECK(delta(before).memory_hits == 0);
    CHECK(delta(before).disk_hits == 0);
    CHECK(delta(before).misses == 0);
    CHECK(last_compile_record("reduce", "host").cache == "bypassed");
  }
  CHECK((!fs::exists(cache.dir) || host_entries(cache.dir).empty()));
}

TEST_CASE("bounds-checked compiles are cached, keyed by their source locations as well as the IR") {
  TemporaryCache cache;
  HostCompileOptions checked;
  checked.bounds_check = true;
  // One body recorded at two lines: the same IR fingerprint, different reports.
  int lines[2] = {0, 0};
  using namespace rocjit::dsl;
  const Kernel first = kernel("overrun", [&](Array<float> x) {
    lines[0] = __LINE__ + 1;
    x(global_id(0) + 1) = 1.0f;
  }, {.param_names = {"x"}});
  const Kernel second = kernel("overrun", [&](Array<float> x) {
    lines[1] = __LINE__ + 1;
    x(global_id(0) + 1) = 1.0f;
  }, {.param_names = {"x"}});
  REQUIRE(lines[0] != lines[1]);
  CacheStats before = cache_stats();
  HostKernel a = compile_host(first.ir(), checked);
  compile_host(second.ir(), checked);  // not kept: its next compile must come from disk
  CHECK(delta(before).misses == 2);  // not one entry: the reports differ
  HostKernel a_again = compile_host(first.ir(), checked);
  CHECK(delta(before).memory_hits == 1);
  clear_memory_cache();
  HostKernel b_from_disk = compile_host(second.ir(), checked);
  CHECK(delta(before).disk_hits == 1);
  CHECK(host_entries(cache.dir).size() == 2);
  auto report = [&](const HostKernel& hk) {
    std::vector<float> x(8, 0.0f);
    try {
      run_host(hk, {1}, {8}, testing::HostArgs().array(x).data());
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  for (const auto& [hk, which] : {std::pair<const HostKernel*, int>{&a_again, 0}, {&b_from_disk, 1}}) {
    CHECK(hk->bounds_checked());
    CHECK_THAT(report(*hk), Catch::Matchers::Contains("out-of-bounds store of array 'x'") &&
                                Catch::Matchers::Contains(std::string(__FILE__) + ":" + std::to_string(lines[which])));
  }
}

TEST_CASE("a host kernel compiled for a work-group shape is its own cache entry") {
  TemporaryCache cache;
  HostCompileOptions shaped;
  shaped.block = Dim3{32, 8};
  CacheStats before = cache_stats();
  HostKernel any = compile_host(samples::transpose().ir());
  HostKernel fixed = compile_host(samples::transpose().ir(), shaped);
  HostKernel again = compile_host(samples::transpose().ir(), shaped);
  CHECK(delta(before).misses + delta(before).disk_hits == 2);
  CHECK(delta(before).memory_hits == 1);
  CHECK_FALSE(any.fixed_block());
  REQUIRE(again.fixed_block());
  CHECK(again.fixed_block()->y == 8);
}

TEST_CASE("compile() takes the host target too: one entry, one key builder, a runnable kernel") {
  using Catch::Matchers::Contains;
  TemporaryCache cache;
  Kernel k = samples::saxpy();
  CodeObject co = compile(k, Target::host());
  CHECK(co.target == Target::host());
  REQUIRE(co.host);
  CHECK(co.elf.empty());
  CHECK(co.host.name() == "saxpy");
  CHECK(last_compile_record("saxpy", "host").cache == "miss");
  CHECK_THAT(metadata_text(co), Contains("kernel saxpy") && Contains("barrier-free regions"));
  // An immutable kernel is verified and fingerprinted once, on the host as on AMDGPU.
  compile(k, Target::host());
  CompileRecord again = last_compile_record("saxpy", "host");
  CHECK(again.cache == "memory");
  CHECK(again.phase_ms("verify") == 0);
  CHECK(again.phase_ms("fingerprint") == 0);
  // compile_host is the same compile, and finds the same entry.
  CHECK(&compile_host(k.ir()).impl() == &co.host.impl());
  // The key names the target: the host entry is not an AMDGPU entry of the same IR.
  compile(k, Target::amdgpu("gfx90a"));
  CHECK(last_compile_record("saxpy", "amdgpu:gfx90a").cache == "miss");
  // Texts for the host come back in the CodeObject like AMDGPU's.
  CompileOptions texts;
  texts.emit_llvm_ir = true;
  texts.emit_assembly = true;
  texts.jit = false;
  CodeObject inspected = compile(k, Target::host(), texts);
  CHECK_THAT(inspected.llvm_ir, Contains("define"));
  CHECK(!inspected.assembly.empty());
  CHECK(inspected.host.entry() == nullptr);
  // It runs: y = a * x + y.
  std::vector<float> x = {1, 2, 3, 4}, y = {10, 20, 30, 40};
  rocjit::testing::HostArgs args;
  args.scalar(2.0f).array(x).array(y);
  run_host(co.host, Dim3(1), Dim3(4), args.data());
  CHECK(y == std::vector<float>{12, 24, 36, 48});
}

TEST_CASE("a printing kernel's entry carries its print table: a disk hit has it without the IR, at the right lines") {
  TemporaryCache cache;
  ScopedSettings no_lines([](Settings& s) { s.line_tables = false; });  // prints alone key by location
  using namespace rocjit::dsl;
  int lines[2] = {0, 0};
  const Kernel first = kernel("speaks", [&](Array<float> x) {
    lines[0] = __LINE__ + 1;
    print("x={:.2f} i={}\n", x(global_id(0)), global_id(0));
    device_assert(x(0) > 0.0f, "x0 {}", x(0));
  }, {.param_names = {"x"}});
  const Kernel second = kernel("speaks", [&](Array<float> x) {
    lines[1] = __LINE__ + 1;
    print("x={:.2f} i={}\n", x(global_id(0)), global_id(0));
    device_assert(x(0) > 0.0f, "x0 {}", x(0));
  }, {.param_names = {"x"}});
  const PrintTable expected = print_table(first.ir());
  REQUIRE(expected.sites.size() == 2);
  for (const Target& target : {Target::amdgpu("gfx942"), Target::host()}) {
    INFO(target.str());
    CacheStats before = cache_stats();
    CHECK(compile(first.ir(), target).prints);  // not kept: a host kernel alive is found in memory
    compile(second.ir(), target);
    CHECK(delta(before).misses == 2);  // the same IR at other lines is another entry
    clear_memory_cache();
    for (int which : {0, 1}) {
      before = cache_stats();
      CodeObject loaded = compile((which == 0 ? first : second).ir(), target);
      CHECK(delta(before).disk_hits == 1);
      REQUIRE(loaded.prints);
      REQUIRE(loaded.prints->sites.size() == expected.sites.size());
      CHECK(loaded.prints->assert_slot_bytes == expected.assert_slot_bytes);
      for (size_t i = 0; i < expected.sites.size(); ++i) {
        const PrintSite& got = loaded.prints->sites[i];
        CHECK(got.is_assert == expected.sites[i].is_assert);
        CHECK(got.format == expected.sites[i].format);
        CHECK(got.args == expected.sites[i].args);
        CHECK(got.words == expected.sites[i].words);
        CHECK(got.loc.file == std::string(__FILE__));
        CHECK(got.loc.line == static_cast<uint32_t>(lines[which] + static_cast<int>(i)));
      }
    }
  }
}

TEST_CASE("ROCJIT_COMPILE=never: cached kernels still load; a kernel the cache lacks is a CompileError naming it") {
  TemporaryCache cache;
  compile(samples::saxpy(), Target::amdgpu("gfx90a"));
  compile_host(samples::saxpy().ir());
  clear_memory_cache();
  ScopedSettings never([](Settings& s) { s.compile_never = true; });
  CacheStats before = cache_stats();
  CHECK(compile(samples::saxpy(), Target::amdgpu("gfx90a")).elf.size() > 0);
  CHECK(compile_host(samples::saxpy().ir()).entry() != nullptr);
  CHECK(delta(before).disk_hits == 2);
  try {
    compile(samples::reduce(), Target::amdgpu("gfx942"));
    FAIL("compiled under ROCJIT_COMPILE=never");
  } catch (const CompileError& e) {
    CHECK_THAT(e.what(), Catch::Contains("kernel 'reduce' for amdgpu:gfx942"));
    CHECK_THAT(e.what(), Catch::Contains("ROCJIT_COMPILE=never"));
    CHECK_THAT(e.what(), Catch::Contains("no bundle is mounted (ROCJIT_BUNDLE)"));
  }
  CHECK_THROWS_WITH(compile_host(samples::reduce().ir()),
                    Catch::Contains("kernel 'reduce' for host") && Catch::Contains("not in a bundle or the kernel cache"));
}

namespace {

// A bundle file in a fresh directory, removed afterwards.
struct TemporaryBundle {
  std::string dir = [] {
    char pattern[] = "/tmp/rocjit-bundle-test-XXXXXX";
    return std::string(mkdtemp(pattern));
  }();
  std::string path = dir + "/kernels.rjb";
  ~TemporaryBundle() {
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
  }
};

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

}  // namespace

TEST_CASE("bundles: a recorded bundle serves compiles without the disk cache, under ROCJIT_COMPILE=never") {
  TemporaryBundle bundle;
  CodeObject recorded;
  {
    TemporaryCache cache;
    ScopedSettings record([&](Settings& s) { s.bundle_record = bundle.path; });
    recorded = compile(samples::saxpy(), Target::amdgpu("gfx90a"));
    compile_host(samples::saxpy().ir());
    compile(samples::saxpy(), Target::amdgpu("gfx90a"));  // a memory hit: recorded once
    clear_memory_cache();
    compile(samples::saxpy(), Target::amdgpu("gfx90a"));  // a disk hit: recorded once
  }
  std::vector<bundle::Entry> entries = bundle::list(bundle.path);
  REQUIRE(entries.size() == 2);
  CHECK(entries[0].kernel == "saxpy");
  CHECK(entries[0].target == "amdgpu:gfx90a");
  CHECK_FALSE(entries[0].host);
  CHECK(entries[1].target == "host");
  CHECK(entries[1].host);
  CHECK(entries[0].key.size() == 32);

  TemporaryCache empty;  // nothing on disk, nothing in memory
  ScopedSettings mounted([&](Settings& s) {
    s.bundles = "/nonexistent/first.rjb:" + bundle.path;
    s.compile_never = true;
  });
  LogCapture log;
  const CacheStats before = cache_stats();
  CodeObject co = compile(samples::saxpy(), Target::amdgpu("gfx90a"));
  CHECK(co.elf == recorded.elf);
  HostKernel host = compile_host(samples::saxpy().ir());
  CHECK(host.entry() != nullptr);
  CHECK(bundle_hits_since(before) == 2);
  CHECK(delta(before).misses == 0);
  CHECK(delta(before).disk_writes == 0);  // bundle hits are not copied into the disk cache
  CHECK(log.has(LogLevel::warning, "/nonexistent/first.rjb"));
  try {
    compile(samples::saxpy(), Target::amdgpu("gfx942"));
    FAIL("compiled under ROCJIT_COMPILE=never");
  } catch (const CompileError& e) {
    CHECK_THAT(e.what(), Catch::Contains("kernel 'saxpy' for amdgpu:gfx942"));
    CHECK_THAT(e.what(), Catch::Contains("holds kernel 'saxpy' for amdgpu:gfx90a, host"));
    CHECK_THAT(e.what(), Catch::Contains("'/nonexistent/first.rjb' is not used"));
  }
  CHECK_THROWS_WITH(compile(samples::reduce(), Target::amdgpu("gfx90a")),
                    Catch::Contains("kernel 'reduce' for amdgpu:gfx90a") &&
                        Catch::Contains("holds no kernel 'reduce' (2 entries)"));
}

TEST_CASE("bundles: merge, list and fat binaries; damaged and foreign bundles are refused with their name") {
  TemporaryBundle a, b;
  CodeObject gfx90a, gfx942;
  {
    TemporaryCache cache;
    ScopedSettings record([&](Settings& s) { s.bundle_record = a.path; });
    gfx90a = compile(samples::saxpy(), Target::amdgpu("gfx90a"));
    compile(samples::reduce(), Target::amdgpu("gfx90a"));
  }
  {
    TemporaryCache cache;
    ScopedSettings record([&](Settings& s) { s.bundle_record = b.path; });
    gfx942 = compile(samples::saxpy(), Target::amdgpu("gfx942"));
    compile(samples::saxpy(), Target::amdgpu("gfx90a"));  // also in a: merged once
  }
  const std::string merged = a.dir + "/merged.rjb";
  bundle::merge(merged, {a.path, b.path});
  std::vector<bundle::Entry> entries = bundle::list(merged);
  REQUIRE(entries.size() == 3);
  CHECK(entries[2].target == "amdgpu:gfx942");

  // The fat binary of saxpy: one entry per processor, each the code object compiled for it.
  std::vector<uint8_t> fat = bundle::fat_binary(merged, "saxpy");
  CHECK(bundle::is_fat_binary(fat.data(), fat.size()));
  CHECK(std::string(fat.begin(), fat.begin() + 24) == "__CLANG_OFFLOAD_BUNDLE__");
  CHECK(bundle::fat_binary_entry(fat.data(), fat.size(), "gfx90a") == gfx90a.elf);
  CHECK(bundle::fat_binary_entry(fat.data(), fat.size(), "gfx942") == gfx942.elf);
  CHECK_THROWS_WITH(bundle::fat_binary_entry(fat.data(), fat.size(), "gfx1100"),
                    Catch::Contains("no code object for gfx1100") &&
                        Catch::Contains("hipv4-amdgcn-amd-amdhsa--gfx90a") &&
                        Catch::Contains("host-x86_64-unknown-linux-gnu-"));
  CHECK_THROWS_WITH(bundle::fat_binary(merged, "transpose"),
                    Catch::Contains("holds no AMDGPU code object of kernel 'transpose'") &&
                        Catch::Contains("reduce, saxpy"));
  CHECK_THROWS_WITH(bundle::fat_binary_entry(gfx90a.elf.data(), gfx90a.elf.size(), "gfx90a"),
                    Catch::Contains("not a clang-offload-bundler fat binary"));
  // The fat binary read back by load_code_object's path lies outside the image when truncated.
  std::vector<uint8_t> cut(fat.begin(), fat.begin() + static_cast<long>(fat.size() / 2));
  CHECK_THROWS_WITH(bundle::fat_binary_entry(cut.data(), cut.size(), "gfx942"), Catch::Contains("outside the image"));

  // Not a bundle; truncated; one payload byte changed; written by another rocjit.
  const std::string bytes = file_bytes(merged);
  const std::string junk = a.dir + "/junk.rjb", truncated = a.dir + "/truncated.rjb",
                    damaged = a.dir + "/damaged.rjb", foreign = a.dir + "/foreign.rjb";
  write_bytes(junk, "hello");
  write_bytes(truncated, bytes.substr(0, bytes.size() - 10));
  std::string flipped = bytes;
  flipped[flipped.size() - 100] ^= 0x20;
  write_bytes(damaged, flipped);
  std::string other = bytes;
  other[12 + 4 + 7] ^= 1;  // a character of the identity ("rocjit <version>|...")
  write_bytes(foreign, other);
  CHECK_THROWS_WITH(bundle::list(junk), Catch::Contains(junk) && Catch::Contains("not a rocjit kernel bundle"));
  CHECK_THROWS_WITH(bundle::list(truncated), Catch::Contains(truncated) && Catch::Contains("truncated"));
  CHECK_THROWS_WITH(bundle::list(foreign), Catch::Contains(foreign) && Catch::Contains("written by"));
  CHECK_THROWS_WITH(bundle::list(a.dir + "/none.rjb"), Catch::Contains("cannot open"));
  CHECK_THROWS_WITH(bundle::merge(a.dir + "/out.rjb", {damaged}), Catch::Contains("corrupt"));

  // Mounted, the damaged entry (the last one: saxpy for gfx942) is skipped with a warning and
  // compiled afresh; the others still serve.
  TemporaryCache cache;
  LogCapture log;
  ScopedSettings mounted([&](Settings& s) { s.bundles = damaged; });
  const CacheStats before = cache_stats();
  CHECK(compile(samples::saxpy(), Target::amdgpu("gfx942")).elf == gfx942.elf);
  CHECK(log.has(LogLevel::warning, "is corrupt; not used"));
  CHECK(compile(samples::saxpy(), Target::amdgpu("gfx90a")).elf == gfx90a.elf);
  CHECK(bundle_hits_since(before) == 1);
  CHECK(delta(before).misses == 1);
}

TEST_CASE("the disk cache's entries belong to one compiler library: another one (rebuilt, or elsewhere) does not read them") {
  TemporaryCache cache;
  const fs::path library = fs::path(ROCJIT_CACHE_FILLER).parent_path().parent_path() / "lib" / "librocjit-compiler.so";
  REQUIRE(fs::exists(library));
  const fs::path other = fs::path(cache.dir).parent_path() / "elsewhere" / "librocjit-compiler.so";
  fs::create_directories(other.parent_path());
  fs::create_symlink(library, other);  // the same file under another name: a different library to the cache
  auto fill = [&](const fs::path& compiler) {
    ChildEnvironment env = cache.child_environment();
    env.set("ROCJIT_COMPILER_LIBRARY", compiler.string());
    const std::string stats = (fs::path(cache.dir).parent_path() / "stats.txt").string();
    REQUIRE(run_filler(env, {"host", stats}) == 0);
    std::ifstream in(stats);
    uint64_t memory = 0, disk = 0, misses = 0, rejected = 0;
    in >> memory >> disk >> misses >> rejected;
    return std::make_pair(disk, misses);
  };
  CHECK(fill(library) == std::make_pair(uint64_t(0), uint64_t(7)));
  CHECK(fill(library) == std::make_pair(uint64_t(7), uint64_t(0)));
  CHECK(fill(other) == std::make_pair(uint64_t(0), uint64_t(7)));
  CHECK(fill(other) == std::make_pair(uint64_t(7), uint64_t(0)));
}
