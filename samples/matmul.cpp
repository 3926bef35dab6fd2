// The tiled 16x16 matmul sample: traces the kernel, compiles it for an AMD GPU in-process and
// prints its code-object metadata. (Running it needs the runtime: see the README.)
#include <cstdio>
#include <cstring>
#include <string>

#include "sample_kernels.hpp"

int main(int argc, char** argv) {
  std::string processor = "gfx90a";
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], "--mcpu=", 7) == 0) processor = argv[i] + 7;
  try {
    rocjit::Kernel k = rocjit::samples::matmul();
    rocjit::CodeObject co = rocjit::compile(k, rocjit::Target::amdgpu(processor));
    const rocjit::KernelMetadata& m = co.kernel("matmul");
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
  } catch (const rocjit::Error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
