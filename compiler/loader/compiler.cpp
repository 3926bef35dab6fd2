// Loading the compiler library (compiler.h).
#include "loader/compiler.h"

#include <dlfcn.h>
#include <sys/stat.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <atomic>
#include <cstring>
#include <mutex>

#include "cache/bundle.h"
#include "rocjit/compiler/cache.hpp"
#include "rocjit/compiler/error.hpp"
#include "rocjit/support/library_search.h"
#include "rocjit/support/settings.h"

namespace rocjit::loader {
namespace {

std::atomic<const CompilerInterface*> loaded{nullptr};

}  // namespace

const char* build_stamp() { return ROCJIT_VERSION " " ROCJIT_BUILD_STAMP; }

bool compiler_loaded() { return loaded.load(std::memory_order_acquire) != nullptr; }

namespace {

#ifndef ROCJIT_COMPILER_BUILD_LIBRARY
#define ROCJIT_COMPILER_BUILD_LIBRARY nullptr
#endif
#ifndef ROCJIT_COMPILER_INSTALL_LIBRARY
#define ROCJIT_COMPILER_INSTALL_LIBRARY nullptr
#endif

// A chosen library is the only one tried (a deployment names where the compiler is, or a path
// that does not exist to run without one).
std::vector<std::string> compiler_candidates(const Settings& settings) {
  return support::own_library_candidates(settings.compiler_library, true, "librocjit-compiler.so",
                                         ROCJIT_COMPILER_BUILD_LIBRARY, ROCJIT_COMPILER_INSTALL_LIBRARY);
}

}  // namespace

std::string compiler_file_identity() {
  for (const std::string& path : compiler_candidates(*support::current_settings())) {
    struct stat st {};
    if (stat(path.c_str(), &st) == 0)
      return fmt::format("{}, {} bytes, modified {}.{:09}", path, st.st_size, st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
  }
  return "no compiler library";
}

const CompilerInterface& compiler(const std::string& why, const std::string& kernel) {
  const Settings& settings = *support::current_settings();
  if (settings.compile_never)
    throw CompileError(fmt::format("{}: not in a bundle or the kernel cache ({}), and ROCJIT_COMPILE=never forbids "
                                   "compiling it; {}",
                                   why, cache_directory().empty() ? "disabled" : cache_directory(),
                                   cache::bundle_holdings(kernel, settings)));
  if (const CompilerInterface* c = loaded.load(std::memory_order_acquire)) return *c;
  static std::mutex lock;
  std::lock_guard<std::mutex> guard(lock);
  if (const CompilerInterface* c = loaded.load(std::memory_order_acquire)) return *c;
  const std::vector<std::string> candidates = compiler_candidates(settings);
  std::vector<std::string> tried;
  for (const std::string& path : candidates) {
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      const char* e = dlerror();
      tried.push_back(fmt::format("{} ({})", path, e ? e : "not loadable"));
      continue;
    }
    using Entry = const CompilerInterface* (*)(uint32_t, const char*);
    auto entry = reinterpret_cast<Entry>(dlsym(handle, "rocjit_compiler_v1"));
    const CompilerInterface* table = entry ? entry(compiler_abi, build_stamp()) : nullptr;
    if (!table) {
      tried.push_back(fmt::format("{} (not the compiler of this librocjit, {})", path, build_stamp()));
      dlclose(handle);
      continue;
    }
    // Never closed: compiled kernels' code and LLVM's state belong to it for the process's life.
    loaded.store(table, std::memory_order_release);
    return *table;
  }
  throw CompileError(fmt::format("{}: not in a bundle or the kernel cache, and rocjit's compiler "
                                 "(librocjit-compiler.so) is not installed or does not load; tried: {}. Set "
                                 "ROCJIT_COMPILER_LIBRARY to its path; {}",
                                 why, fmt::join(tried, "; "), cache::bundle_holdings(kernel, settings)));
}

}  // namespace rocjit::loader
