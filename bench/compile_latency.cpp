// Compile latency of the sample kernels for AMDGPU, in-process: trace + verify + lower + O3 +
// codegen + lld link, per kernel and processor. Prints a table.
//   build/bin/bench-compile [--repeat=N]
// (Issue 6 extends this with cold-process, cache-hit and hipRTC columns.)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "sample_kernels.hpp"

using namespace rocjit;
using Clock = std::chrono::steady_clock;

namespace {
template <class F>
double median_ms(int repeats, F&& f) {
  std::vector<double> t;
  for (int i = 0; i < repeats; ++i) {
    auto a = Clock::now();
    f();
    t.push_back(std::chrono::duration<double, std::milli>(Clock::now() - a).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}
}  // namespace

int main(int argc, char** argv) {
  int repeats = 15;
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], "--repeat=", 9) == 0) repeats = std::max(1, std::atoi(argv[i] + 9));
  Kernel (*makers[])() = {samples::saxpy,     samples::reverse,   samples::matmul, samples::reduce,
                          samples::transpose, samples::histogram, samples::jacobi};
  setenv("ROCJIT_CACHE", "0", 1);  // compiles measure compiling: no disk cache (the memory cache is cleared per run)
  char pattern[] = "/tmp/rocjit-bench-cache-XXXXXX";
  std::string disk_dir = std::string(mkdtemp(pattern)) + "/cache";
  auto first_start = Clock::now();
  compile(samples::saxpy(), Target::amdgpu("gfx90a"));
  double first = std::chrono::duration<double, std::milli>(Clock::now() - first_start).count();
  std::printf("first compile in this process (LLVM target initialisation included): %.1f ms\n\n", first);
  std::printf("warm compile, median of %d, milliseconds\n", repeats);
  std::printf("%-10s %10s %12s %12s %12s %12s %14s %12s\n", "kernel", "trace", "gfx90a O3", "gfx1100 O3", "gfx90a O0",
              "host JIT O3", "mem hit (us)", "disk hit");
  for (auto make : makers) {
    Kernel k = make();
    double trace = median_ms(repeats, [&] { make(); });
    auto cold = [&](const Target& t, CompileOptions o = {}) {
      return median_ms(repeats, [&] {
        clear_memory_cache();
        compile(k, t, o);
      });
    };
    double g90a = cold(Target::amdgpu("gfx90a"));
    double g1100 = cold(Target::amdgpu("gfx1100"));
    double o0 = cold(Target::amdgpu("gfx90a"), CompileOptions{.opt_level = 0});
    double host = median_ms(repeats, [&] { compile_host(k.ir()); });
    double memory_hit = 1000 * median_ms(repeats, [&] { compile(k, Target::amdgpu("gfx90a")); });
    setenv("ROCJIT_CACHE_DIR", disk_dir.c_str(), 1);
    unsetenv("ROCJIT_CACHE");
    clear_memory_cache();
    compile(k, Target::amdgpu("gfx90a"));  // fills the disk entry
    double disk_hit = median_ms(repeats, [&] {
      clear_memory_cache();
      compile(k, Target::amdgpu("gfx90a"));
    });
    setenv("ROCJIT_CACHE", "0", 1);
    std::printf("%-10s %10.3f %12.2f %12.2f %12.2f %12.2f %14.2f %12.3f\n", k.name().c_str(), trace, g90a, g1100, o0,
                host, memory_hit, disk_hit);
  }
  std::error_code ec;
  std::filesystem::remove_all(std::filesystem::path(disk_dir).parent_path(), ec);
  std::printf("goals: warm compile <= 10 ms, memory hit <= 2 us, disk hit <= 1 ms\n");
  return 0;
}
