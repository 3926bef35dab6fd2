// sample-transpose: out = in^T for a rows x cols float matrix. Each 16x16 work-group reads a
// tile row by row into shared memory and writes it out column by column, so both the global
// reads and the global writes are coalesced; the tile is 16x17 so that reading a column of it
// does not hit the same LDS bank 16 times.
#include <numeric>

#include "common.hpp"
#include "sample_kernels.hpp"

using namespace rocjit;
using namespace rocjit::samples;

int main(int argc, char** argv) {
  const SampleInfo info{"transpose", "transpose an n x (n + n/2) float matrix through a padded shared tile",
                        "rows (n); the matrix has n + n/2 columns", 2048};
  Options options = parse_options(argc, argv, info);
  return run_sample(info, options, [](Options& o) {
    // Not square, so swapping the wrong pair of indices cannot go unnoticed.
    const int64_t rows = o.size, cols = o.size + o.size / 2;
    std::vector<float> in(rows * cols);
    std::iota(in.begin(), in.end(), 0.0f);

    Kernel k = transpose();
    DeviceArray<float> din = to_device(std::span<const float>(in), {rows, cols});
    DeviceArray<float> dout = device_array<float>({cols, rows});
    // One group per 16x16 tile of the input: dimension 0 walks its columns, 1 its rows.
    const Dim3 grid(groups_for(cols, TPB), groups_for(rows, TPB)), block(TPB, TPB);

    Outcome out;
    for (int run = 0; run <= o.repeat; ++run) {  // run 0: warm-up, includes the compile
      double ms = time_on_stream(Stream(), [&] { k[{grid, block}](din, dout); });
      if (run > 0) out.ms.push_back(ms);
    }

    std::vector<float> want(rows * cols);
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j) want[j * rows + i] = in[i * cols + j];
    out.failure = compare(dout.copy_to_host().to_vector(), want);
    return out;
  });
}
