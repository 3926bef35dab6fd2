// sample-saxpy: y = a * x + y, the "hello world" of GPU kernels: trace a lambda, copy two
// vectors to the device, launch one work-item per element, copy the result back and check it.
#include <random>

#include "common.hpp"
#include "sample_kernels.hpp"

using namespace rocjit;
using namespace rocjit::samples;

int main(int argc, char** argv) {
  const SampleInfo info{"saxpy", "y = a * x + y on float vectors", "elements", 1 << 22};
  Options options = parse_options(argc, argv, info);
  return run_sample(info, options, [](Options& o) {
    const int64_t n = o.size;
    const float a = 2.5f;
    std::mt19937 rng(42);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    std::vector<float> x(n), y(n);
    for (auto& v : x) v = dist(rng);
    for (auto& v : y) v = dist(rng);

    // Tracing runs the lambda once on the host and records the IR; the kernel is compiled for
    // the device on its first launch and the compiled code is reused afterwards.
    Kernel k = saxpy();
    DeviceArray<float> dx = to_device(x), dy = device_array<float>({n});
    const Dim3 grid(groups_for(n, BLOCK)), block(BLOCK);  // the kernel ignores the ragged tail

    Outcome out;
    // Run 0 is the warm-up (it includes the compile); runs 1..repeat are timed. saxpy updates
    // y in place, so every run starts from the original y (the refresh is not timed).
    for (int run = 0; run <= o.repeat; ++run) {
      dy.copy_to_device(std::span<const float>(y));
      double ms = time_on_stream(Stream(), [&] { k[{grid, block}](a, dx, dy); });
      if (run > 0) out.ms.push_back(ms);
    }

    std::vector<float> want(n);
    for (int64_t i = 0; i < n; ++i) want[i] = a * x[i] + y[i];
    std::vector<float> got = dy.copy_to_host().to_vector();
    out.failure = compare(got, want, 1e-6);  // the device may fuse a*x+y into one fma
    return out;
  });
}
