// bench-isa: rocjit's AMDGPU code against clang -O3 on the same algorithms. Every sample kernel
// is compiled by rocjit and its OpenCL C transliteration (bench/isa/<name>.cl: same algorithm,
// same argument list as rocjit's kernel ABI) by clang-22 with the ROCm device libraries, for
// gfx90a and gfx1030 (the processors Debian's device libraries cover); sample-gemm's kernel
// (gemm_mma) on processors with matrix cores, against clang's MFMA builtin. Printed side by side:
// instructions in the kernel body, VGPRs, SGPRs, LDS bytes, scratch bytes, and the ratio of
// instructions. Counts come from the same parser over both assembly texts.
//
//   bench-isa [--processor=gfx90a,gfx1030] [--clang=clang-22] [--show=KERNEL]
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <rocjit/compiler/mma.hpp>
#include <rocjit/compiler/occupancy.hpp>
#include <rocjit/rocjit.hpp>

#include <array>
#include <cctype>
#include <cstring>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "assembly.hpp"
#include "sample_kernels.hpp"

#ifndef ROCJIT_BENCH_ISA_DIR
#error "ROCJIT_BENCH_ISA_DIR must name bench/isa"
#endif

namespace {

struct Facts {
  int instructions = 0, vgprs = 0, sgprs = 0, lds = 0, scratch = 0, wavefront = 0;
  bool ok = false;
};

// VGPRs as the hardware allocates them: .vgpr_count rounded up to the processor's granule at the
// kernel's wavefront size (8 on gfx90a; 16 at wave32 and 8 at wave64 on gfx1030). Occupancy
// follows the allocated count, so two kernels with the same allocation fit as many waves.
int allocated_vgprs(const Facts& f, const std::string& processor) {
  unsigned granule = rocjit::amdgpu_simd_limits(processor, f.wavefront ? f.wavefront : 64).vgpr_granule;
  return granule ? static_cast<int>((f.vgprs + granule - 1) / granule * granule) : f.vgprs;
}

// Counts the instructions of `kernel` (between its label and .Lfunc_end) and reads its
// registers, LDS and scratch from the AMDGPU metadata of an LLVM assembly listing.
Facts parse_assembly(const std::string& text, const std::string& kernel) {
  Facts f;
  std::istringstream in(text);
  std::string line;
  bool in_metadata_for_kernel = false;
  Facts block;
  std::string block_name;
  auto value_after = [](const std::string& l, const char* key) {
    size_t at = l.find(key);
    return at == std::string::npos ? -1 : std::atoi(l.c_str() + at + std::strlen(key));
  };
  for (const std::string& l : rocjit::bench::function_lines(text, kernel)) f.instructions += rocjit::bench::is_instruction(l);
  f.ok = f.instructions > 0;
  while (std::getline(in, line)) {
    // The metadata (YAML) lists one block per kernel, each starting with "- .agpr_count" or
    // "- .args" and holding ".name" somewhere inside: keep the block whose name is `kernel`.
    if (line.find("  - .agpr_count:") != std::string::npos || line.find("  - .args:") != std::string::npos) {
      if (block_name == kernel) in_metadata_for_kernel = true;
      if (!in_metadata_for_kernel) block = Facts{}, block_name.clear();
    }
    if (in_metadata_for_kernel) continue;
    if (int v = value_after(line, ".vgpr_count:"); v >= 0) block.vgprs = v;
    if (int v = value_after(line, ".sgpr_count:"); v >= 0) block.sgprs = v;
    if (int v = value_after(line, ".group_segment_fixed_size:"); v >= 0) block.lds = v;
    if (int v = value_after(line, ".private_segment_fixed_size:"); v >= 0) block.scratch = v;
    if (int v = value_after(line, ".wavefront_size:"); v >= 0) block.wavefront = v;
    if (size_t at = line.find("    .name:"); at != std::string::npos) {
      block_name = line.substr(at + 10);
      block_name.erase(0, block_name.find_first_not_of(' '));
    }
  }
  if (block_name == kernel || in_metadata_for_kernel)
    f.vgprs = block.vgprs, f.sgprs = block.sgprs, f.lds = block.lds, f.scratch = block.scratch,
    f.wavefront = block.wavefront;
  return f;
}

std::string run(const std::string& command) {
  std::string out;
  FILE* p = popen(command.c_str(), "r");
  if (!p) return out;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  pclose(p);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> processors = {"gfx90a", "gfx1030"};
  std::string clang = "clang-22", show;
  std::string device_libs = "/usr/lib/x86_64-linux-gnu/amdgcn/bitcode";  // Debian's rocm-device-libs
  // clang links the same ocml as rocjit's AMDGPU compiles (Settings::device_libs, ROCJIT_DEVICE_LIBS).
  if (const std::string d = rocjit::settings().device_libs; !d.empty() && d != "none") device_libs = d;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--processor=", 0) == 0) {
      processors = rocjit::bench::split_list(a.substr(12));
    } else if (a.rfind("--clang=", 0) == 0) {
      clang = a.substr(8);
    } else if (a.rfind("--show=", 0) == 0) {
      show = a.substr(7);
    } else {
      std::fprintf(stderr, "usage: bench-isa [--processor=gfx90a,gfx1030] [--clang=clang-22] [--show=KERNEL]\n");
      return 2;
    }
  }
  using namespace rocjit::samples;
  std::vector<std::pair<const char*, std::function<rocjit::Kernel()>>> kernels = {
      {"saxpy", saxpy}, {"reverse", reverse}, {"matmul", matmul}, {"reduce", reduce},
      {"transpose", transpose}, {"histogram", histogram}, {"jacobi", jacobi},
      {"gemm_mma", [] { return gemm_mma<rocjit::half>(); }}};
  std::printf("VGPRs: .vgpr_count, and in parentheses as allocated (rounded up to the processor's granule at the\n"
              "kernel's wavefront size; occupancy follows the allocated count)\n\n");
  std::printf("%-10s %-8s | %-30s | %-30s | %s\n", "kernel", "cpu", "rocjit: inst  vgpr   sgpr   lds",
              "clang:  inst  vgpr   sgpr   lds", "inst ratio");
  int failures = 0;
  std::vector<std::string> over_instructions, over_vgprs, over_allocated, other;
  for (const auto& processor : processors) {
    for (auto& [name, make] : kernels) {
      // sample-gemm's kernel against clang's MFMA builtin: on processors with MFMA only.
      if (std::string(name) == "gemm_mma") {
        auto native = rocjit::ir::mma::native(processor, rocjit::ir::Type::f16, rocjit::ir::Type::f32, {16, 16, 16});
        if (!native) {
          std::printf("%-10s %-8s | no matrix cores: rocjit computes mma from ordinary operations, clang has no builtin\n",
                      name, processor.c_str());
          continue;
        }
        if (native->layout != rocjit::ir::mma::NativeLayout::mfma) {
          std::printf("%-10s %-8s | WMMA: gemm_mma.cl is written with the MFMA builtin, no comparison\n", name,
                      processor.c_str());
          continue;
        }
      }
      rocjit::Kernel k = make();
      std::string ours = k.assembly(rocjit::Target::amdgpu(processor));
      std::string cl = std::string(ROCJIT_BENCH_ISA_DIR) + "/" + name + ".cl";
      // The GEMM calls no library function: it needs no device libraries (which Debian has for
      // gfx90a and gfx1030 only), so it compiles for gfx942 and gfx950 too.
      const std::string libs =
          std::string(name) == "gemm_mma" ? std::string(" -nogpulib") : " --rocm-device-lib-path=" + device_libs;
      std::string theirs =
          run(clang + " -x cl -cl-std=CL1.2 -target amdgcn-amd-amdhsa -mcpu=" + processor +
              " -O3 -mcode-object-version=5 -Wno-everything" + libs + " -S -o - " + cl + " 2>/dev/null");
      Facts a = parse_assembly(ours, name), b = parse_assembly(theirs, name);
      if (!a.ok || !b.ok) {
        std::printf("%-10s %-8s | %s\n", name, processor.c_str(),
                    !a.ok ? "rocjit's assembly has no such kernel" : "clang failed (is clang-22 installed?)");
        ++failures;
        continue;
      }
      const int a_alloc = allocated_vgprs(a, processor), b_alloc = allocated_vgprs(b, processor);
      std::printf("%-10s %-8s | %6d %3d (%2d) %4d %6d%s | %6d %3d (%2d) %4d %6d%s | %5.2fx\n", name, processor.c_str(),
                  a.instructions, a.vgprs, a_alloc, a.sgprs, a.lds, a.scratch ? " SCR" : "    ", b.instructions,
                  b.vgprs, b_alloc, b.sgprs, b.lds, b.scratch ? " SCR" : "    ", double(a.instructions) / b.instructions);
      const std::string pair = std::string(name) + " " + processor;
      if (a.instructions > 1.05 * b.instructions) over_instructions.push_back(pair);
      if (a.vgprs > b.vgprs) over_vgprs.push_back(fmt::format("{} {} > {}", pair, a.vgprs, b.vgprs));
      if (a_alloc > b_alloc) over_allocated.push_back(pair);
      if (a.lds != b.lds || a.scratch) other.push_back(pair);
      if (show == name) std::printf("--- rocjit\n%s\n--- clang\n%s\n", ours.c_str(), theirs.c_str());
    }
  }
  auto verdict = [](const std::vector<std::string>& misses) {
    return misses.empty() ? std::string("met") : fmt::format("not met ({})", fmt::join(misses, ", "));
  };
  std::printf("\ngoals (stated, not asserted):\n");
  std::printf("  instructions <= 1.05x clang: %s\n", verdict(over_instructions).c_str());
  std::printf("  VGPRs (.vgpr_count) <= clang: %s\n", verdict(over_vgprs).c_str());
  std::printf("  VGPRs as allocated <= clang: %s\n", verdict(over_allocated).c_str());
  std::printf("  LDS = clang and no scratch: %s\n", verdict(other).c_str());
  return failures ? 1 : 0;
}
