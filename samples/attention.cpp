// sample-attention: one head of flash attention's forward pass with matrix-core operations
// (dsl::mma): O = softmax(Q Kᵀ / sqrt(d)) V for n queries and keys of dimension d = 32, Q, K and V in
// half, O in float, the softmax computed online in registers (samples/kernels/sample_kernels.hpp,
// attention_mma). Checked against a double-precision reference with a tolerance for P's rounding
// to half before P V.
#include <cmath>
#include <random>

#include "common.hpp"
#include "sample_kernels.hpp"

using namespace rocjit;
using namespace rocjit::samples;

int main(int argc, char** argv) {
  const SampleInfo info{"attention", "one head of flash attention (d = 32) with mma fragments", "queries and keys (n)",
                        1024, 5};
  Options options = parse_options(argc, argv, info);
  return run_sample(info, options, [](Options& o) {
    constexpr int d = 32;
    const int64_t n = o.size;
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    std::vector<half> q(n * d), k(n * d), v(n * d);
    for (auto* x : {&q, &k, &v})
      for (auto& e : *x) e = half(dist(rng) * 2.0f);
    Kernel kern = attention_mma<d>();
    DeviceArray<half> dq = to_device(std::span<const half>(q), {n, d});
    DeviceArray<half> dk = to_device(std::span<const half>(k), {n, d});
    DeviceArray<half> dv = to_device(std::span<const half>(v), {n, d});
    DeviceArray<float> dout = device_array<float>({n, d});
    const float scale = 1.0f / std::sqrt(float(d));
    Outcome out;
    for (int r = 0; r <= o.repeat; ++r) {
      double ms = time_on_stream(Stream(), [&] { kern[{Dim3(groups_for(n, 16)), Dim3(64)}](dq, dk, dv, dout, scale); });
      if (r > 0) out.ms.push_back(ms);
    }
    std::vector<float> got = dout.copy_to_host().to_vector();
    // The reference in double from the same half inputs.
    double worst = 0;
    std::vector<double> s(n);
    for (int64_t i = 0; i < n; ++i) {
      double top = -1e300;
      for (int64_t j = 0; j < n; ++j) {
        double dot = 0;
        for (int c = 0; c < d; ++c) dot += double(float(q[i * d + c])) * double(float(k[j * d + c]));
        s[j] = dot * double(scale);
        top = std::max(top, s[j]);
      }
      double total = 0;
      for (int64_t j = 0; j < n; ++j) total += (s[j] = std::exp(s[j] - top));
      for (int c = 0; c < d; ++c) {
        double acc = 0;
        for (int64_t j = 0; j < n; ++j) acc += s[j] * double(float(v[j * d + c]));
        worst = std::max(worst, std::fabs(acc / total - double(got[i * d + c])));
      }
    }
    // P is rounded to half (2^-11 relative) before P V; |V| <= 2.
    if (!(worst <= 4e-3)) out.failure = "largest error against the double reference is " + std::to_string(worst);
    std::printf("largest error against the double reference: %.2e\n", worst);
    return out;
  });
}
