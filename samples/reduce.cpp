// sample-reduce: sums a float vector on the device. One launch of the reduce kernel turns every
// 256-element block into one partial sum (a shared-memory tree with barriers down to 32 values,
// finished by wave::reduce_add); launching it again on the partial sums repeats until a single value is left.
#include <random>

#include "common.hpp"
#include "sample_kernels.hpp"

using namespace rocjit;
using namespace rocjit::samples;

int main(int argc, char** argv) {
  const SampleInfo info{"reduce", "sum of a float vector: block tree reductions until one value is left",
                        "elements", 1 << 22};
  Options options = parse_options(argc, argv, info);
  return run_sample(info, options, [](Options& o) {
    const int64_t n = o.size;
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    std::vector<float> x(n);
    for (auto& v : x) v = dist(rng);

    Kernel k = reduce();
    DeviceArray<float> input = to_device(x);
    // One buffer of partial sums per pass, allocated before timing: pass 1 turns n values into
    // ceil(n/256) partials, pass 2 turns those into ceil(n/256^2), ... until one value is left.
    std::vector<DeviceArray<float>> partials;
    for (int64_t len = n;;) {
      len = groups_for(len, BLOCK);
      partials.push_back(device_array<float>({len}));
      if (len == 1) break;
    }
    auto sum_on_device = [&] {
      DeviceArray<float> in = input;
      for (const DeviceArray<float>& partial : partials) {
        // One group per partial sum; the kernel bounds its reads by in.shape(0).
        k[{Dim3(partial.size()), Dim3(BLOCK)}](in, partial);
        in = partial;
      }
    };

    Outcome out;
    for (int run = 0; run <= o.repeat; ++run) {  // run 0: warm-up, includes the compile
      double ms = time_on_stream(Stream(), sum_on_device);
      if (run > 0) out.ms.push_back(ms);
    }
    float result = 0;
    partials.back().copy_to_host(std::span<float>(&result, 1));
    std::printf("reduce: %zu pass%s, sum = %.6f\n", partials.size(), partials.size() == 1 ? "" : "es", result);

    // The device adds in a different order than the host, so compare with a double-precision
    // sum, allowing float rounding relative to the sum of magnitudes.
    double want = 0, magnitude = 0;
    for (float v : x) want += v, magnitude += std::fabs(v);
    if (std::fabs(result - want) > 1e-5 * magnitude + 1e-6)
      out.failure = "sum " + std::to_string(result) + ", expected " + std::to_string(want);
    return out;
  });
}
