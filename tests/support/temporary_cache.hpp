// A fresh kernel-cache directory for one test (ROCJIT_CACHE_DIR), removed afterwards; the
// memory cache is emptied too, so the test starts with nothing cached. The CPU device's
// background tier-up compiles finish first each time: they read the environment (setenv is not
// thread-safe) and write cache entries.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include "rocjit/compiler/cache.hpp"
#include "rocjit/runtime/host_runner.hpp"

namespace rocjit::testing {

struct TemporaryCache {
  std::string dir;
  TemporaryCache() {
    wait_for_cpu_tier_ups();
    char pattern[] = "/tmp/rocjit-cache-test-XXXXXX";
    dir = mkdtemp(pattern);
    dir += "/cache";
    setenv("ROCJIT_CACHE_DIR", dir.c_str(), 1);
    unsetenv("ROCJIT_CACHE");
    clear_memory_cache();
  }
  ~TemporaryCache() {
    wait_for_cpu_tier_ups();
    std::error_code ec;
    std::filesystem::remove_all(std::filesystem::path(dir).parent_path(), ec);
  }
  std::vector<std::filesystem::path> entries() const {
    std::vector<std::filesystem::path> out;
    for (const auto& e : std::filesystem::directory_iterator(dir))
      if (e.path().extension() == ".rjco") out.push_back(e.path());
    return out;
  }
};

}  // namespace rocjit::testing
