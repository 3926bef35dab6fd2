// Helper process for the cache tests, compiling into the cache named by ROCJIT_CACHE_DIR:
//   rocjit-cache-filler              the seven sample kernels for gfx90a
//   rocjit-cache-filler host FILE    the seven for the host, then runs saxpy and checks it; writes
//                                    "memory disk misses rejected" (cache_stats deltas) to FILE
//   rocjit-cache-filler trace       (for ROCJIT_TIME_TRACE) two threads compile at once: matmul
//                                    for gfx90a, and a kernel named with every kind of character
//                                    the verifier allows for gfx1100 and the host
//   rocjit-cache-filler cache-dir FILE   writes cache_directory() (what this process's
//                                    environment gives) to FILE; compiles nothing
// Exits 0 when everything compiled (and saxpy computed the right result).
#include <cstdio>
#include <cstring>
#include <fstream>
#include <thread>
#include <vector>

#include "host_args.hpp"
#include "sample_kernels.hpp"

int main(int argc, char** argv) {
  using namespace rocjit;
  auto makers = {samples::saxpy,     samples::reverse,   samples::matmul, samples::reduce,
                 samples::transpose, samples::histogram, samples::jacobi};
  try {
    if (argc == 3 && std::strcmp(argv[1], "cache-dir") == 0) {
      std::ofstream(argv[2]) << cache_directory() << '\n';
      return 0;
    }
    if (argc == 3 && std::strcmp(argv[1], "host") == 0) {
      CacheStats before = cache_stats();
      std::vector<HostKernel> kernels;
      for (auto make : makers) kernels.push_back(compile_host(make().ir()));
      CacheStats after = cache_stats();
      std::ofstream(argv[2]) << after.memory_hits - before.memory_hits << ' ' << after.disk_hits - before.disk_hits
                             << ' ' << after.misses - before.misses << ' '
                             << after.disk_rejected - before.disk_rejected << '\n';
      const int n = 1000;
      std::vector<float> x(n), y(n);
      for (int i = 0; i < n; ++i) x[i] = float(i), y[i] = 1.0f;
      run_host(kernels.at(0), {(n + 127) / 128}, {128},
               testing::HostArgs().scalar(2.0f).array(x).array(y).data());
      for (int i = 0; i < n; ++i)
        if (y[i] != 2.0f * float(i) + 1.0f) {
          std::fprintf(stderr, "saxpy from the cache computed y[%d] = %g\n", i, y[i]);
          return 1;
        }
      return 0;
    }
    if (argc == 2 && std::strcmp(argv[1], "trace") == 0) {
      std::exception_ptr failure;
      std::thread other([&] {
        try {
          compile(samples::matmul(), Target::amdgpu("gfx90a"));
        } catch (...) {
          failure = std::current_exception();
        }
      });
      Kernel odd = rocjit::kernel("Odd.name-09_Z", [](dsl::Array<float, 1> x) {
        dsl::Int i = dsl::global_id(0);
        x(i) = x(i) * 2.0f;
      });
      compile(odd, Target::amdgpu("gfx1100"));
      compile_host(odd.ir());
      other.join();
      if (failure) std::rethrow_exception(failure);
      return 0;
    }
    for (auto make : makers) compile(make(), Target::amdgpu("gfx90a"));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
