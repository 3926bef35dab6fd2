// sample-histogram: counts how many values fall in each of 256 bins (value % 256). Every
// work-group counts its share with atomics on a histogram in shared memory, which is fast
// because only the group contends for it, then adds its non-zero bins to the global histogram
// with global atomics: 256 global atomics per group instead of one per value.
#include <random>

#include "common.hpp"
#include "sample_kernels.hpp"

using namespace rocjit;
using namespace rocjit::samples;

int main(int argc, char** argv) {
  const SampleInfo info{"histogram", "256-bin histogram: shared-memory atomics merged with global atomics",
                        "values", 1 << 22};
  Options options = parse_options(argc, argv, info);
  return run_sample(info, options, [](Options& o) {
    const int64_t n = o.size;
    // Skewed data (a binomial-like pile-up in the middle bins) makes some bins hot, which is
    // where contention on atomics shows.
    std::mt19937 rng(3);
    std::binomial_distribution<uint32_t> dist(HISTOGRAM_BINS - 1, 0.5);
    std::vector<uint32_t> data(n);
    for (auto& v : data) v = dist(rng) + HISTOGRAM_BINS * (rng() % 4);  // % 256 folds these back

    Kernel k = histogram();
    DeviceArray<uint32_t> ddata = to_device(data);
    DeviceArray<uint32_t> dhist = device_array<uint32_t>({HISTOGRAM_BINS});
    const std::vector<uint32_t> zeros(HISTOGRAM_BINS, 0u);
    // The kernel walks the data with a grid-stride loop, so the grid need not cover every value:
    // a few groups per compute unit is enough, and fewer groups means fewer global atomics.
    const Dim3 grid(std::min<int64_t>(groups_for(n, BLOCK), 1024)), block(BLOCK);

    Outcome out;
    for (int run = 0; run <= o.repeat; ++run) {  // run 0: warm-up, includes the compile
      dhist.copy_to_device(std::span<const uint32_t>(zeros));  // the kernel adds to hist: clear it first
      double ms = time_on_stream(Stream(), [&] { k[{grid, block}](ddata, dhist); });
      if (run > 0) out.ms.push_back(ms);
    }

    std::vector<uint32_t> want(HISTOGRAM_BINS, 0u);
    for (uint32_t v : data) ++want[v % HISTOGRAM_BINS];
    out.failure = compare(dhist.copy_to_host().to_vector(), want);
    return out;
  });
}
