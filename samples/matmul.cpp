// sample-matmul: C = A * B with 16x16 shared-memory tiles, run on the device and checked
// against a host reference. With --print-metadata[=gfx90a] it instead compiles the kernel for an
// AMD GPU in-process (no GPU or ROCm install needed) and prints the code object's metadata:
// registers, LDS, scratch and the kernarg layout.
#include <random>

#include "common.hpp"
#include "sample_kernels.hpp"

using namespace rocjit;
using namespace rocjit::samples;

namespace {

// Kernel::metadata() compiles for the processor and describes the code object: registers,
// spills, LDS, scratch, the kernarg layout and the occupancy they allow. llvm_ir() and
// assembly() show the other stages the same way.
int print_metadata(const std::string& processor) {
  try {
    std::fputs(matmul().metadata(processor).c_str(), stdout);
  } catch (const Error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const SampleInfo info{"matmul", "C = A * B (n x n floats) with 16x16 shared tiles", "rows and columns (n)", 512,
                        5};
  std::string metadata_for;  // empty: run on the device
  ExtraFlag print_metadata_flag{
      " [--print-metadata[=gfx90a]]",
      "  --print-metadata[=PROCESSOR]\n"
      "             instead of running, compile for an AMD GPU processor (default gfx90a) and print\n"
      "             the code-object metadata; needs no GPU\n",
      [&](std::string_view arg) {
        if (arg == "--print-metadata") metadata_for = "gfx90a";
        else if (arg.starts_with("--print-metadata=")) metadata_for = arg.substr(17);
        else return false;
        return !metadata_for.empty();
      }};
  Options options = parse_options(argc, argv, info, print_metadata_flag);
  if (!metadata_for.empty()) return print_metadata(metadata_for);

  return run_sample(info, options, [](Options& o) {
    const int64_t n = o.size;
    // Small integers keep every product and partial sum exact in float, so the device result
    // must equal the host's whatever order it adds in (as long as n * 9 < 2^24).
    std::mt19937 rng(7);
    std::uniform_int_distribution<int> dist(-3, 3);
    std::vector<float> a(n * n), b(n * n);
    for (auto& v : a) v = float(dist(rng));
    for (auto& v : b) v = float(dist(rng));

    Kernel k = matmul();
    DeviceArray<float> dA = to_device(std::span<const float>(a), {n, n});
    DeviceArray<float> dB = to_device(std::span<const float>(b), {n, n});
    DeviceArray<float> dC = device_array<float>({n, n});
    // Dimension 0 walks columns (x), dimension 1 rows (y): one 16x16 group per output tile.
    const Dim3 grid(groups_for(n, TPB), groups_for(n, TPB)), block(TPB, TPB);

    Outcome out;
    for (int run = 0; run <= o.repeat; ++run) {  // run 0: warm-up, includes the compile
      double ms = time_on_stream(Stream(), [&] { k[{grid, block}](dA, dB, dC); });
      if (run > 0) out.ms.push_back(ms);
    }

    std::vector<float> want(n * n, 0.0f);
    for (int64_t i = 0; i < n; ++i)
      for (int64_t q = 0; q < n; ++q) {
        float aiq = a[i * n + q];
        for (int64_t j = 0; j < n; ++j) want[i * n + j] += aiq * b[q * n + j];
      }
    out.failure = compare(dC.copy_to_host().to_vector(), want, 1e-6);
    return out;
  });
}
