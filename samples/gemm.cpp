// sample-gemm: C = A . B with matrix-core operations (dsl::mma): half (or, with --bf16, bfloat16)
// inputs, float accumulation, tiles staged in shared memory, one 16 x 16 x 16 fragment set per
// wave. On gfx90a, gfx942 and gfx950 the mma is an MFMA instruction, on gfx11 and gfx12 a WMMA
// instruction; every other device computes the same numerics from ordinary operations. The result
// is checked bit for bit against the device's numerics model (a chain of fmas in k order, or
// cdna2/cdna3's rounded groups: rocjit/compiler/mma.hpp; padded to a multiple of 16 with zeros)
// and against a double-precision product with a K-scaled tolerance.
#include <cmath>
#include <random>

#include "rocjit/compiler/mma.hpp"

#include "common.hpp"
#include "sample_kernels.hpp"

using namespace rocjit;
using namespace rocjit::samples;

namespace {

template <class T>
Outcome run(Options& o) {
  const int64_t m = o.size, n = o.size + 3, kd = o.size + 7;  // not multiples of the tile
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<T> a(m * kd), b(kd * n);
  for (auto& v : a) v = T(dist(rng));
  for (auto& v : b) v = T(dist(rng));
  Kernel k = gemm_mma<T>();
  DeviceArray<T> dA = to_device(std::span<const T>(a), {m, kd});
  DeviceArray<T> dB = to_device(std::span<const T>(b), {kd, n});
  DeviceArray<float> dC = device_array<float>({m, n});
  const Dim3 grid(groups_for(n, GEMM_TILE), groups_for(m, GEMM_TILE)), block(64, 4);
  Outcome out;
  for (int r = 0; r <= o.repeat; ++r) {
    double ms = time_on_stream(Stream(), [&] { k[{grid, block}](dA, dB, dC); });
    if (r > 0) out.ms.push_back(ms);
  }
  std::vector<float> got = dC.copy_to_host().to_vector(), want(m * n);
  // The device's numerics model (docs/mma.md, "Numerics"): its processor's on a GPU or simulator,
  // ROCJIT_MMA_MODEL on the CPU. Under cdna2/cdna3 each group of products (aligned in every
  // 16-long k tile) is added to the running sum exactly and rounded once; cdna2 reads subnormal
  // inputs as zeros.
  const std::string processor = o.device.processor();
  const ir::mma::Model model = processor.starts_with("gfx")
                                   ? ir::mma::model_of(processor)
                                   : ir::mma::model_named(settings().mma_model).value_or(ir::mma::Model::cdna3);
  const ir::mma::Numerics numbers = ir::mma::numerics(model, ir::type_of<T>());
  const double smallest = std::is_same_v<T, half> ? 0x1p-14 : 0x1p-126;
  auto input = [&](T v) {
    const double x = double(float(v));
    return numbers.flush && std::fabs(x) < smallest ? std::copysign(0.0, x) : x;
  };
  double worst = 0;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      float sum = 0;
      double exact = 0;
      for (int64_t q = 0; q < kd; ++q) exact += double(float(a[i * kd + q])) * double(float(b[q * n + j]));
      if (numbers.group == 1) {
        for (int64_t q = 0; q < kd; ++q) sum = std::fma(float(a[i * kd + q]), float(b[q * n + j]), sum);
      } else {
        for (int64_t q0 = 0; q0 < kd; q0 += numbers.group) {
          double terms[1 + 4] = {sum};
          for (unsigned g = 0; g < numbers.group; ++g) {
            const int64_t q = q0 + g;
            terms[1 + g] = q < kd ? input(a[i * kd + q]) * input(b[q * n + j]) : 0.0;
          }
          sum = ir::mma::round_sum_f32(terms, 1 + numbers.group, numbers.flush);
        }
      }
      want[i * n + j] = sum;
      worst = std::max(worst, std::fabs(double(got[i * n + j]) - exact));
    }
  out.failure = compare(got, want);
  // Against the exact product: at most K roundings of at most half an ulp of values below K.
  const double bound = double(kd) * double(kd) * std::ldexp(1.0, -24);
  if (out.failure.empty() && worst > bound)
    out.failure = "differs from the double-precision product by " + std::to_string(worst) + " (bound " +
                  std::to_string(bound) + ")";
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  const SampleInfo info{"gemm", "C = A . B (m x k half by k x n half, float result) with mma fragments",
                        "rows of C (m; n = m + 3, k = m + 7)", 512, 5};
  bool bf16 = false;
  ExtraFlag bf16_flag{" [--bf16]", "  --bf16     bfloat16 inputs instead of half\n", [&](std::string_view arg) {
                        if (arg != "--bf16") return false;
                        bf16 = true;
                        return true;
                      }};
  Options options = parse_options(argc, argv, info, bf16_flag);
  return run_sample(info, options, [&](Options& o) { return bf16 ? run<bfloat16>(o) : run<half>(o); });
}
