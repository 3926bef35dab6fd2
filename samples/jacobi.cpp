// sample-jacobi: relaxes the Laplace equation on an n x n grid with Jacobi sweeps of the
// 5-point stencil (each interior point becomes the mean of its four neighbours). The boundary is
// fixed: the top edge is held at 1, the other edges at 0. Each sweep reads one buffer and writes
// the other; swapping the two handles between sweeps costs nothing (no copy).
#include <utility>

#include "common.hpp"
#include "sample_kernels.hpp"

using namespace rocjit;
using namespace rocjit::samples;

namespace {
constexpr int SWEEPS = 8;
constexpr int BLOCK_EDGE = 16;  // 16x16 work-items per group
}  // namespace

int main(int argc, char** argv) {
  const SampleInfo info{"jacobi", "8 Jacobi sweeps of the 5-point Laplace stencil, swapping two buffers",
                        "grid points per side (n)", 1024};
  Options options = parse_options(argc, argv, info);
  return run_sample(info, options, [](Options& o) {
    const int64_t n = std::max<int64_t>(o.size, 3);  // at least one interior point
    std::vector<float> initial(n * n, 0.0f);
    for (int64_t j = 0; j < n; ++j) initial[j] = 1.0f;  // row 0: the hot edge

    Kernel k = jacobi();
    // Both buffers start with the boundary: the kernel writes only the interior, so the edges
    // of whichever buffer holds the latest sweep are always right.
    DeviceArray<float> current = to_device(std::span<const float>(initial), {n, n});
    DeviceArray<float> next = to_device(std::span<const float>(initial), {n, n});
    const Dim3 grid(groups_for(n, BLOCK_EDGE), groups_for(n, BLOCK_EDGE)), block(BLOCK_EDGE, BLOCK_EDGE);

    Outcome out;
    for (int run = 0; run <= o.repeat; ++run) {  // run 0: warm-up, includes the compile
      // Every run starts from the initial state, so the result does not depend on --repeat.
      current.copy_to_device(std::span<const float>(initial));
      next.copy_to_device(std::span<const float>(initial));
      double ms = time_on_stream(Stream(), [&] {
        for (int sweep = 0; sweep < SWEEPS; ++sweep) {
          k[{grid, block}](current, next);
          std::swap(current, next);  // the result of this sweep is the input of the next
        }
      });
      if (run > 0) out.ms.push_back(ms / SWEEPS);  // kernel time per sweep
    }

    std::printf("jacobi: %d sweeps per run; kernel_ms_median is per sweep\n", SWEEPS);

    // The same sweeps on the host, in the same order of additions.
    std::vector<float> a = initial, b = initial;
    for (int sweep = 0; sweep < SWEEPS; ++sweep) {
      for (int64_t i = 1; i < n - 1; ++i)
        for (int64_t j = 1; j < n - 1; ++j)
          b[i * n + j] = 0.25f * (a[(i - 1) * n + j] + a[(i + 1) * n + j] + a[i * n + j - 1] + a[i * n + j + 1]);
      std::swap(a, b);
    }
    // After every sweep's swap, `current` holds the latest result.
    out.failure = compare(current.copy_to_host().to_vector(), a, 1e-6);
    return out;
  });
}
