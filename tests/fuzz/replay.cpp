// rocjit-parser-replay: runs the parser fuzz target (parser_fuzzer.cpp) over files and
// directories without libFuzzer, so every corpus and regression input is checked by the normal
// test suite with the normal compiler. Exit status 0 when every input passed; a failing input
// aborts with its name printed first.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  std::vector<fs::path> inputs;
  for (int i = 1; i < argc; ++i) {
    std::error_code ec;
    if (fs::is_directory(argv[i], ec)) {
      for (const auto& entry : fs::recursive_directory_iterator(argv[i]))
        if (entry.is_regular_file()) inputs.push_back(entry.path());
    } else if (fs::is_regular_file(argv[i], ec)) {
      inputs.emplace_back(argv[i]);
    } else {
      std::fprintf(stderr, "rocjit-parser-replay: '%s' is neither a file nor a directory\n", argv[i]);
      return 2;
    }
  }
  if (inputs.empty()) {
    std::fprintf(stderr, "usage: rocjit-parser-replay FILE|DIR...  (no inputs found)\n");
    return 2;
  }
  std::sort(inputs.begin(), inputs.end());
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
