// The inputs of the replay tools: every regular file named on the command line or found below
// a named directory, sorted so runs are reproducible.
#pragma once

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <vector>

namespace rocjit::fuzz {

// nullopt (after a message on stderr) when an argument is neither a file nor a directory, or
// nothing was found; the tools then exit with status 2.
inline std::optional<std::vector<std::filesystem::path>> replay_inputs(const char* tool, int argc, char** argv) {
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
      std::fprintf(stderr, "%s: '%s' is neither a file nor a directory\n", tool, argv[i]);
      return std::nullopt;
    }
  }
  if (inputs.empty()) {
    std::fprintf(stderr, "usage: %s FILE|DIR...  (no inputs found)\n", tool);
    return std::nullopt;
  }
  std::sort(inputs.begin(), inputs.end());
  return inputs;
}

}  // namespace rocjit::fuzz
