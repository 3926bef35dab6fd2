// sample-streams: two asynchronous streams overlap copies and kernels. The vector is split in two
// chunks; each stream copies its chunk to the device, runs saxpy on it and copies it back, so
// one stream's copies can run while the other's kernel does. Events order the streams where the
// data requires it (stream 1's second kernel reads chunk 0, which stream 0 produces) and time the
// whole pipeline. The same pipeline on a single stream is timed for comparison.
#include <random>

#include "common.hpp"
#include "sample_kernels.hpp"

using namespace rocjit;
using namespace rocjit::samples;

int main(int argc, char** argv) {
  const SampleInfo info{"streams", "two streams overlapping copies and saxpy kernels, ordered and timed by events",
                        "elements (split in two chunks)", 1 << 22};
  Options options = parse_options(argc, argv, info);
  return run_sample(info, options, [](Options& o) {
    const int64_t n = std::max<int64_t>(o.size, 2);
    const int64_t len[2] = {n / 2, n - n / 2}, offset[2] = {0, n / 2};  // len[0] <= len[1]
    const float a = 2.0f, b = 0.5f;

    // Pinned (page-locked) host memory: copies from and to it can run asynchronously, which is
    // what lets them overlap with kernels.
    HostArray<float> x = pinned_array<float>({n}), y = pinned_array<float>({n}), result = pinned_array<float>({n});
    std::mt19937 rng(5);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    for (int64_t i = 0; i < n; ++i) x.data()[i] = dist(rng), y.data()[i] = dist(rng);
    auto chunk = [&](HostArray<float>& h, int c) { return h.span().subspan(offset[c], len[c]); };

    Kernel k = saxpy();
    DeviceArray<float> dx[2] = {device_array<float>({len[0]}), device_array<float>({len[1]})};
    DeviceArray<float> dy[2] = {device_array<float>({len[0]}), device_array<float>({len[1]})};
    Event start = event(), stop = event(), chunk_ready[2] = {event(), event()}, copied_back = event();

    // Enqueues the whole pipeline on s[0] and s[1] (which may be the same stream) and returns the
    // milliseconds between `start` and `stop` as the device measured them.
    auto pipeline = [&](const Stream (&s)[2]) {
      start.record(s[0]);
      s[1].wait(start);  // both streams begin together, after `start`
      for (int c = 0; c < 2; ++c) {
        dx[c].copy_to_device(chunk(x, c), s[c]);
        dy[c].copy_to_device(chunk(y, c), s[c]);
        k[{Dim3(groups_for(len[c], BLOCK)), Dim3(BLOCK), s[c]}](a, dx[c], dy[c]);  // y_c = a x_c + y_c
        chunk_ready[c].record(s[c]);
      }
      // y_1 += b * y_0 (over the first len[0] elements) reads chunk 0: stream 1 must wait for
      // stream 0's kernel, and for nothing else.
      s[1].wait(chunk_ready[0]);
      k[{Dim3(groups_for(len[0], BLOCK)), Dim3(BLOCK), s[1]}](b, dy[0], dy[1]);
      // Stream 0 copies its chunk back while stream 1 still works: both only read dy[0].
      dy[0].copy_to_host(chunk(result, 0), s[0]);
      dy[1].copy_to_host(chunk(result, 1), s[1]);
      copied_back.record(s[0]);
      s[1].wait(copied_back);  // `stop` on stream 1 then marks the end of both streams' work
      stop.record(s[1]);
      stop.synchronize();
      s[0].synchronize();  // rethrows a failure of anything enqueued
      s[1].synchronize();
      return static_cast<double>(start.elapsed_time(stop));
    };

    const Stream two[2] = {stream(), stream()};
    const Stream one[2] = {two[0], two[0]};
    Outcome out;
    std::vector<double> single;
    for (int run = 0; run <= o.repeat; ++run) {  // run 0: warm-up, includes the compile
      double overlapped = pipeline(two);
      double serial = pipeline(one);
      if (run > 0) out.ms.push_back(overlapped), single.push_back(serial);
    }
    std::printf("streams: copies + kernels, median ms: two streams %.4f, one stream %.4f\n", median(out.ms),
                median(single));

    std::vector<float> want(n);
    for (int64_t i = 0; i < n; ++i) want[i] = a * x.data()[i] + y.data()[i];
    for (int64_t j = 0; j < len[0]; ++j) want[offset[1] + j] += b * want[j];
    out.failure = compare(result.to_vector(), want, 1e-5);  // the device may contract into fma
    return out;
  });
}
