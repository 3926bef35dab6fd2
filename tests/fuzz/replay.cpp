// rocjit-parser-replay and rocjit-dsl-replay: run a fuzz target (parser_fuzzer.cpp or
// dsl_fuzzer.cpp, whichever is linked in) over files and directories without libFuzzer, so every corpus and regression input is checked by the normal
// test suite with the normal compiler. Exit status 0 when every input passed; a failing input
// aborts with its name printed first.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "replay_inputs.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  const std::string tool = fs::path(argv[0]).filename().string();
  const auto found = rocjit::fuzz::replay_inputs(tool.c_str(), argc, argv);
  if (!found) return 2;
  const std::vector<fs::path>& inputs = *found;
  for (const fs::path& p : inputs) {
    std::ifstream in(p, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), {});
    if (!in && !in.eof()) {
      std::fprintf(stderr, "%s: cannot read '%s'\n", tool.c_str(), p.c_str());
      return 2;
    }
    std::fprintf(stderr, "%s\n", p.c_str());
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  }
  std::printf("%s: %zu inputs passed\n", tool.c_str(), inputs.size());
  return 0;
}
