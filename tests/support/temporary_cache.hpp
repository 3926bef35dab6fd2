// A fresh kernel-cache directory for one test (Settings::cache_dir, disk cache on), removed
// afterwards, with the previous settings put back; the memory cache is emptied too, so the test
// starts with nothing cached. The CPU device's background tier-up compiles finish first each time:
// they write cache entries (into the directory in force when they start) and count in
// cache_stats().
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include "child_environment.hpp"
#include "rocjit/compiler/cache.hpp"
#include "rocjit/runtime/host_runner.hpp"
#include "rocjit/settings.hpp"

namespace rocjit::testing {

struct TemporaryCache {
  std::string dir;
  Settings saved;
  TemporaryCache() {
    wait_for_cpu_tier_ups();
    char pattern[] = "/tmp/rocjit-cache-test-XXXXXX";
    dir = mkdtemp(pattern);
    dir += "/cache";
    saved = settings();
    update_settings([&](Settings& s) {
      s.cache_dir = dir;
      s.disk_cache = true;
    });
    clear_memory_cache();
  }
  ~TemporaryCache() {
    wait_for_cpu_tier_ups();
    set_settings(saved);
    std::error_code ec;
    std::filesystem::remove_all(std::filesystem::path(dir).parent_path(), ec);
  }
  TemporaryCache(const TemporaryCache&) = delete;
  TemporaryCache& operator=(const TemporaryCache&) = delete;
  std::vector<std::filesystem::path> entries() const {
    std::vector<std::filesystem::path> out;
    for (const auto& e : std::filesystem::directory_iterator(dir))
      if (e.path().extension() == ".rjco") out.push_back(e.path());
    return out;
  }
  // The environment for a child process that uses this cache.
  ChildEnvironment child_environment() const {
    ChildEnvironment env;
    env.set("ROCJIT_CACHE_DIR", dir).unset("ROCJIT_CACHE");
    return env;
  }
};

}  // namespace rocjit::testing
