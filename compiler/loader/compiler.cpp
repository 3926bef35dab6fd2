// Loading the compiler library (compiler.h).
#include "loader/compiler.h"

#include <dlfcn.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <atomic>
#include <cstring>
#include <mutex>

#include "rocjit/compiler/cache.hpp"
#include "rocjit/compiler/error.hpp"
#include "rocjit/support/settings.h"

namespace rocjit::loader {
namespace {

std::atomic<const CompilerInterface*> loaded{nullptr};

// The directory holding librocjit.so, with a trailing slash; empty if unknown.
std::string own_directory() {
  Dl_info info{};
  if (!dladdr(reinterpret_cast<void*>(&own_directory), &info) || !info.dli_fname) return {};
  std::string path = info.dli_fname;
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash + 1);
}

}  // namespace

const char* build_stamp() { return ROCJIT_VERSION " " ROCJIT_BUILD_STAMP; }

bool compiler_loaded() { return loaded.load(std::memory_order_acquire) != nullptr; }

const CompilerInterface& compiler(const std::string& why) {
  if (support::current_settings()->compile_never)
    throw CompileError(fmt::format("{}: not in the kernel cache ({}), and ROCJIT_COMPILE=never forbids compiling it",
                                   why, cache_directory().empty() ? "disabled" : cache_directory()));
  if (const CompilerInterface* c = loaded.load(std::memory_order_acquire)) return *c;
  static std::mutex lock;
  std::lock_guard<std::mutex> guard(lock);
  if (const CompilerInterface* c = loaded.load(std::memory_order_acquire)) return *c;
  std::vector<std::string> candidates;
  if (std::string path = support::current_settings()->compiler_library; !path.empty()) candidates.push_back(path);
  // Next to librocjit.so first: an installed librocjit must not pick up the compiler of the tree
  // it was built in.
  if (std::string dir = own_directory(); !dir.empty()) candidates.push_back(dir + "librocjit-compiler.so");
#ifdef ROCJIT_COMPILER_BUILD_LIBRARY
  candidates.push_back(ROCJIT_COMPILER_BUILD_LIBRARY);
#endif
#ifdef ROCJIT_COMPILER_INSTALL_LIBRARY
  candidates.push_back(ROCJIT_COMPILER_INSTALL_LIBRARY);
#endif
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
  throw CompileError(fmt::format("{}: not in the kernel cache, and rocjit's compiler (librocjit-compiler.so) is "
                                 "not installed or does not load; tried: {}. Set ROCJIT_COMPILER_LIBRARY to its path",
                                 why, fmt::join(tried, "; ")));
}

}  // namespace rocjit::loader
