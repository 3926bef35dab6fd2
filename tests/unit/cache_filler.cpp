// Helper process for the concurrent-cache test: compiles the seven sample kernels for gfx90a
// into the cache named by ROCJIT_CACHE_DIR; exits 0 when all compiled.
#include <cstdio>

#include "sample_kernels.hpp"

int main() {
  using namespace rocjit;
  try {
    for (auto make : {samples::saxpy, samples::reverse, samples::matmul, samples::reduce, samples::transpose,
                      samples::histogram, samples::jacobi})
      compile(make(), Target::amdgpu("gfx90a"));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
