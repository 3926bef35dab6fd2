// sample-reverse: reverses every 256-element chunk of a vector through shared memory. Each
// work-group loads its chunk into a shared (LDS) tile, waits at a barrier until the whole tile
// is written, then reads it back in reverse order.
#include <numeric>

#include "common.hpp"
#include "sample_kernels.hpp"

using namespace rocjit;
using namespace rocjit::samples;

int main(int argc, char** argv) {
  const SampleInfo info{"reverse", "reverse each 256-element chunk via a shared tile and a barrier", "elements",
                        1 << 22};
  Options options = parse_options(argc, argv, info);
  return run_sample(info, options, [](Options& o) {
    const int64_t n = o.size;
    std::vector<float> in(n);
    std::iota(in.begin(), in.end(), 0.0f);  // exact for n < 2^24; distinct values show any mix-up

    Kernel k = reverse();
    DeviceArray<float> din = to_device(in), dout = device_array<float>({n});
    // The kernel needs exactly BLOCK work-items per group: its shared tile has BLOCK elements
    // and it was declared with max_block_size = BLOCK.
    const Dim3 grid(groups_for(n, BLOCK)), block(BLOCK);

    Outcome out;
    for (int run = 0; run <= o.repeat; ++run) {  // run 0: warm-up, includes the compile
      double ms = time_on_stream(Stream(), [&] { k[{grid, block}](din, dout); });
      if (run > 0) out.ms.push_back(ms);
    }

    // Host reference: chunk g holds in[g*BLOCK .. g*BLOCK+len) reversed; the last chunk may be short.
    std::vector<float> want(n);
    for (int64_t base = 0; base < n; base += BLOCK) {
      int64_t len = std::min<int64_t>(BLOCK, n - base);
      for (int64_t t = 0; t < len; ++t) want[base + t] = in[base + len - 1 - t];
    }
    out.failure = compare(dout.copy_to_host().to_vector(), want);
    return out;
  });
}
