// Compile latency of the sample kernels for AMDGPU, in-process: trace + verify + lower + O3 +
// codegen + lld link, per kernel and processor. Prints a table.
//   build/bin/bench-compile [--repeat=N]
// (Issue 6 extends this with cold-process, cache-hit and hipRTC columns.)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
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
  auto first_start = Clock::now();
  compile(samples::saxpy(), Target::amdgpu("gfx90a"));
  double first = std::chrono::duration<double, std::milli>(Clock::now() - first_start).count();
  std::printf("first compile in this process (LLVM target initialisation included): %.1f ms\n\n", first);
  std::printf("warm compile, median of %d, milliseconds\n", repeats);
  std::printf("%-10s %10s %12s %12s %12s %12s\n", "kernel", "trace", "gfx90a O3", "gfx1100 O3", "gfx90a O0",
              "host JIT O3");
  for (auto make : makers) {
    Kernel k = make();
    double trace = median_ms(repeats, [&] { make(); });
    double g90a = median_ms(repeats, [&] { compile(k, Target::amdgpu("gfx90a")); });
    double g1100 = median_ms(repeats, [&] { compile(k, Target::amdgpu("gfx1100")); });
    double o0 = median_ms(repeats, [&] { compile(k, Target::amdgpu("gfx90a"), CompileOptions{.opt_level = 0}); });
    double host = median_ms(repeats, [&] { compile_host(k.ir()); });
    std::printf("%-10s %10.3f %12.2f %12.2f %12.2f %12.2f\n", k.name().c_str(), trace, g90a, g1100, o0, host);
  }
  return 0;
}
