// rocjit-parser-replay: runs the parser fuzz target (parser_fuzzer.cpp) over files and
// directories without libFuzzer, so every corpus and regression input is checked by the normal
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
  const auto found = rocjit::fuzz::replay_inputs("rocjit-parser-replay", argc, argv);
  if (!found) return 2;
  const std::vector<fs::path>& inputs = *found;
  for (const fs::path& p : inputs) {
    std::ifstream in(p, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), {});
    if (!in && !in.eof()) {
      std::fprintf(stderr, "rocjit-parser-replay: cannot read '%s'\n", p.c_str());
      return 2;
    }
    std::fprintf(stderr, "%s\n", p.c_str());
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  }
  std::printf("rocjit-parser-replay: %zu inputs passed\n", inputs.size());
  return 0;
}
