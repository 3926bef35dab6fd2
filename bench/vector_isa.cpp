// bench-vector-isa: the N-body inner loop (samples::nbody) reading each body with one vload<4>
// against four scalar loads, as AMDGPU machine code. For each processor and variant it prints the
// kernel's instructions, the innermost loop's instructions (from its label to the branch back),
// how many source-loop iterations one trip through it runs (LLVM may unroll: counted by its
// v_rsq_f32, one per iteration), the instructions and the memory instructions per source iteration, and
// VGPRs. Static counts from rocjit's own assembly, no timing.
//
//   bench-vector-isa [--processor=gfx90a,gfx942,gfx1100] [--show=nbody_vload4|nbody_scalar|gather_vload4|gather_scalar]
#include <rocjit/rocjit.hpp>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "assembly.hpp"
#include "sample_kernels.hpp"

namespace {

using rocjit::bench::function_lines;
using rocjit::bench::is_instruction;

struct Loop {
  int kernel_instructions = 0;
  int loop_instructions = 0;  // innermost loop: label .. backward branch
  int loop_loads = 0;         // global/buffer/flat/scalar loads in it
  int loop_rsqrts = 0;        // v_rsq_f32: one per source iteration
  int vgprs = 0;
  bool found = false;
};

bool is_load(const std::string& line) {
  return line.find("global_load") != std::string::npos || line.find("buffer_load") != std::string::npos ||
         line.find("flat_load") != std::string::npos || line.find("s_load") != std::string::npos ||
         line.find("s_buffer_load") != std::string::npos;
}

// The kernel's instructions and its innermost loop: the shortest range from a block label to a
// later branch back to it.
Loop analyse(const std::string& assembly, const std::string& kernel) {
  Loop out;
  const std::vector<std::string> body = function_lines(assembly, kernel);
  std::istringstream in(assembly);
  for (std::string line; std::getline(in, line);)
    if (size_t at = line.find(".vgpr_count:"); at != std::string::npos) out.vgprs = std::atoi(line.c_str() + at + 12);
  static const std::regex label(R"(^(\.LBB[0-9_]+):)");
  int best = -1;
  for (size_t i = 0; i < body.size(); ++i) {
    std::smatch m;
    if (!std::regex_search(body[i], m, label)) continue;
    const std::string name = m[1];
    for (size_t j = i + 1; j < body.size(); ++j) {
      if (!is_instruction(body[j]) || body[j].find("branch") == std::string::npos) continue;
      const size_t at = body[j].find(name);
      if (at == std::string::npos || at + name.size() != body[j].size()) continue;
      int count = 0, loads = 0, rsqrts = 0;
      for (size_t k = i + 1; k <= j; ++k)
        if (is_instruction(body[k]))
          ++count, loads += is_load(body[k]), rsqrts += body[k].find("v_rsq_f32") != std::string::npos;
      if (loads > 0 && (best < 0 || count < best))
        best = count, out.loop_instructions = count, out.loop_loads = loads, out.loop_rsqrts = rsqrts;
    }
  }
  for (const std::string& l : body) out.kernel_instructions += is_instruction(l);
  out.found = best >= 0;
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> processors = {"gfx90a", "gfx942", "gfx1100"};
  std::string show;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--processor=", 0) == 0) {
      processors = rocjit::bench::split_list(a.substr(12));
    } else if (a.rfind("--show=", 0) == 0) {
      show = a.substr(7);
    } else {
      std::fprintf(stderr, "usage: bench-vector-isa [--processor=gfx90a,gfx942,gfx1100] [--show=KERNEL]\n");
      return 2;
    }
  }
  std::printf("N-body inner loop: one vload<4> per body against four scalar loads; 'all' reads body j of a\n"
              "loop over all bodies (samples::nbody, j the same in every lane), 'gather' body nbr(i*K+m)\n");
  std::printf("%-9s %-6s %-6s | %6s | %6s %6s %6s | %9s %9s | %5s\n", "processor", "bodies", "loads", "kernel", "loop",
              "loads", "unroll", "inst/iter", "load/iter", "vgprs");
  int failures = 0;
  for (const std::string& processor : processors) {
    for (int variant = 0; variant < 4; ++variant) {
      const bool vector = variant % 2 == 0, gather = variant >= 2;
      rocjit::Kernel k = gather ? rocjit::samples::nbody_neighbours(vector) : rocjit::samples::nbody(vector);
      const std::string assembly = k.assembly(rocjit::Target::amdgpu(processor));
      if (show == k.name()) std::printf("%s\n", assembly.c_str());
      const Loop l = analyse(assembly, k.name());
      if (!l.found || l.loop_loads == 0) {
        std::printf("%-9s %-6s %-6s | no inner loop with loads found\n", processor.c_str(), gather ? "gather" : "all",
                    vector ? "vload4" : "scalar");
        ++failures;
        continue;
      }
      // One rsqrt per source iteration: how many iterations one trip through the loop runs.
      const int unroll = std::max(1, l.loop_rsqrts);
      std::printf("%-9s %-6s %-6s | %6d | %6d %6d %6d | %9.1f %9d | %5d\n", processor.c_str(), gather ? "gather" : "all",
                  vector ? "vload4" : "scalar",
                  l.kernel_instructions, l.loop_instructions, l.loop_loads, unroll,
                  static_cast<double>(l.loop_instructions) / unroll, l.loop_loads / unroll, l.vgprs);
    }
  }
  return failures == 0 ? 0 : 1;
}
