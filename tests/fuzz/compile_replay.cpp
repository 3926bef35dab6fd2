// rocjit-compile-replay: every kernel in the given .rjir files and folders that parses goes
// through the whole pipeline — AMDGPU code objects for gfx90a (wave64) and gfx1100 (wave32),
// and the host backend with its assembly — and must either compile or be refused with a
// rocjit::Error. Anything else (another exception, a crash, an LLVM abort) is a bug; the input
// being compiled is printed first so a crash names it. Run over the fuzz corpus, whose mutated
// kernels reach corners of the lowering that hand-written tests do not.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <rocjit/compiler/compile.hpp>
#include <rocjit/compiler/error.hpp>
#include <rocjit/compiler/host.hpp>
#include <rocjit/compiler/parser.hpp>

#include "replay_inputs.hpp"

namespace {

struct Counts {
  size_t files = 0, kernels = 0, compiled = 0, refused = 0;
};

template <class F>
void attempt(const char* what, const std::string& input, Counts& counts, F&& f) {
  try {
    f();
    ++counts.compiled;
  } catch (const rocjit::Error&) {
    ++counts.refused;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rocjit-compile-replay: %s of %s threw a non-rocjit exception: %s\n", what, input.c_str(),
                 e.what());
    std::abort();
  }
}

}  // namespace

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  const auto found = rocjit::fuzz::replay_inputs("rocjit-compile-replay", argc, argv);
  if (!found) return 2;
  const std::vector<fs::path>& inputs = *found;
  Counts counts;
  for (const fs::path& p : inputs) {
    std::ifstream in(p, std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(in)), {});
    ++counts.files;
    std::vector<rocjit::ir::Kernel> kernels;
    try {
      kernels = rocjit::ir::parse_all(text, p.string());
    } catch (const rocjit::Error&) {
      continue;
    }
    for (const rocjit::ir::Kernel& k : kernels) {
      ++counts.kernels;
      std::fprintf(stderr, "%s: %s\n", p.c_str(), k.name.c_str());
      for (const char* processor : {"gfx90a", "gfx1100"})
        attempt(processor, p.string(), counts, [&] { rocjit::compile(k, rocjit::Target::amdgpu(processor)); });
      attempt("host", p.string(), counts, [&] {
        rocjit::HostCompileOptions o;
        o.jit = false;
        o.emit_assembly = true;
        rocjit::compile_host(k, o);
      });
    }
  }
  std::printf("rocjit-compile-replay: %zu files, %zu kernels parsed, %zu compiles succeeded, %zu refused with a "
              "rocjit::Error\n",
              counts.files, counts.kernels, counts.compiled, counts.refused);
  return 0;
}
