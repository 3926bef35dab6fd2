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

int print_metadata(const std::string& processor) {
  try {
    Kernel k = matmul();
    CodeObject co = compile(k, Target::amdgpu(processor));
    const KernelMetadata& m = co.kernel("matmul");
    std::printf("kernel %s for %s (code object v%d, %zu bytes)\n", m.name.c_str(), co.target.str().c_str(),
                co.code_object_version, co.elf.size());
    std::printf("  wavefront size          %u\n", m.wavefront_size);
    std::printf("  max flat work-group     %u\n", m.max_flat_workgroup_size);
    std::printf("  LDS (group segment)     %llu bytes\n", (unsigned long long)m.group_segment_fixed_size);
    std::printf("  scratch (private)       %llu bytes\n", (unsigned long long)m.private_segment_fixed_size);
    std::printf("  VGPRs / SGPRs / AGPRs   %u / %u / %u\n", m.vgpr_count, m.sgpr_count, m.agpr_count);
    std::printf("  spills VGPR / SGPR      %u / %u\n", m.vgpr_spill_count, m.sgpr_spill_count);
    std::printf("  kernarg segment         %llu bytes, align %llu\n", (unsigned long long)m.kernarg_segment_size,
                (unsigned long long)m.kernarg_segment_align);
    for (const auto& a : m.args)
      std::printf("    +%-4llu %-3llu %-24s %s\n", (unsigned long long)a.offset, (unsigned long long)a.size,
                  a.name.c_str(), a.value_kind.c_str());
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
