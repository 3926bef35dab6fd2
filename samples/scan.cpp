// sample-scan: exclusive prefix sum of n ints on the device. Each 256-work-item group scans its
// block with wave scans (wave::inclusive_scan_add per wavefront, then one more wave scan over
// the wavefronts' totals kept in shared memory) and writes its total; the totals are scanned the
// same way, level by level, and added back to the blocks. Work-items past the end leave with
// Return() once the group's wave operations are done.
#include <random>

#include "common.hpp"
#include "sample_kernels.hpp"

using namespace rocjit;
using namespace rocjit::dsl;
using namespace rocjit::samples;

int main(int argc, char** argv) {
  const SampleInfo info{"scan", "exclusive prefix sum of ints: wave scans per block, block totals scanned the same way",
                        "elements", 1 << 22};
  Options options = parse_options(argc, argv, info);
  return run_sample(info, options, [](Options& o) {
    const int64_t n = o.size;
    std::mt19937 rng(7);
    std::uniform_int_distribution<int32_t> dist(-100, 100);
    std::vector<int32_t> x(n);
    for (auto& v : x) v = dist(rng);

    Kernel scan = scan_blocks();
    Kernel add = add_offsets();
    // Level k scans the block totals of level k - 1: its input, output and totals arrays.
    struct Level {
      DeviceArray<int32_t> in, out, totals;
    };
    std::vector<Level> levels;
    DeviceArray<int32_t> input = to_device(x);
    for (DeviceArray<int32_t> in = input;;) {
      const int64_t len = in.size();
      Level l{in, device_array<int32_t>({len}), device_array<int32_t>({groups_for(len, SCAN_BLOCK)})};
      levels.push_back(l);
      if (groups_for(len, SCAN_BLOCK) == 1) break;
      in = l.totals;
    }
    auto scan_on_device = [&] {
      for (const Level& l : levels)
        scan[{Dim3(l.totals.size()), Dim3(SCAN_BLOCK)}](l.in, l.out, l.totals);
      // Level k's scanned totals are the offsets of level k - 1's blocks.
      for (size_t k = levels.size() - 1; k-- > 0;)
        add[{Dim3(levels[k + 1].in.size()), Dim3(SCAN_BLOCK)}](levels[k].out, levels[k + 1].out);
    };

    Outcome out;
    for (int run = 0; run <= o.repeat; ++run) {  // run 0: warm-up, includes the compiles
      double ms = time_on_stream(Stream(), scan_on_device);
      if (run > 0) out.ms.push_back(ms);
    }
    std::vector<int32_t> got = levels.front().out.copy_to_host().to_vector();
    std::printf("scan: %zu level%s\n", levels.size(), levels.size() == 1 ? "" : "s");
    int32_t sum = 0;
    for (int64_t i = 0; i < n; ++i) {
      if (got[i] != sum) {
        out.failure = "element " + std::to_string(i) + " is " + std::to_string(got[i]) + ", expected " +
                      std::to_string(sum);
        break;
      }
      sum += x[i];
    }
    return out;
  });
}
