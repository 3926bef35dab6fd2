// Settings::tune_malloc: rocjit calls mallopt, and advises heap for huge pages, only when asked
// to. This program defines mallopt and madvise itself, so the compiler's calls come here (an
// executable's definition comes first in the dynamic linker's search), records them and passes
// them on to glibc's.
//   rocjit-malloc-tuning default   compiles with the settings of the environment, then with
//                                  Settings::tune_malloc: mallopt and madvise(MADV_HUGEPAGE) are
//                                  called only the second time
//   rocjit-malloc-tuning environ   run with ROCJIT_MALLOC_TUNING=1: the first compile tunes malloc
// Exits 0 when what happened is what should.
#include <dlfcn.h>
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "rocjit/rocjit.hpp"
#include "sample_kernels.hpp"

namespace {
std::mutex calls_lock;
std::map<int, int> calls;  // parameter -> value, of every mallopt call
std::vector<std::pair<uintptr_t, size_t>> advised;  // every madvise(MADV_HUGEPAGE) range
}  // namespace

// Records the calls with MADV_HUGEPAGE that the kernel accepted (a kernel without transparent
// huge pages refuses them, and rocjit then keeps nothing).
extern "C" int madvise(void* address, size_t length, int advice) {
  using Madvise = int (*)(void*, size_t, int);
  static const auto real = reinterpret_cast<Madvise>(dlsym(RTLD_NEXT, "madvise"));
  const int result = real ? real(address, length, advice) : -1;
  if (advice == MADV_HUGEPAGE && result == 0) {
    std::lock_guard<std::mutex> g(calls_lock);
    advised.emplace_back(reinterpret_cast<uintptr_t>(address), length);
  }
  return result;
}

extern "C" int mallopt(int parameter, int value) {
  {
    std::lock_guard<std::mutex> g(calls_lock);
    calls[parameter] = value;
  }
  using Mallopt = int (*)(int, int);
  static const auto real = reinterpret_cast<Mallopt>(dlsym(RTLD_NEXT, "mallopt"));
  return real ? real(parameter, value) : 0;
}

namespace {

bool tuned_as_documented(const char* when) {
  std::lock_guard<std::mutex> g(calls_lock);
  const bool ok = calls.size() == 2 && calls.count(M_MMAP_THRESHOLD) && calls[M_MMAP_THRESHOLD] == 1 << 20 &&
                  calls.count(M_TRIM_THRESHOLD) && calls[M_TRIM_THRESHOLD] == 8 << 20;
  if (!ok) std::fprintf(stderr, "%s: mallopt was called %zu times, not M_MMAP_THRESHOLD 1 MiB and M_TRIM_THRESHOLD 8 MiB\n",
                        when, calls.size());
  return ok;
}

size_t call_count() {
  std::lock_guard<std::mutex> g(calls_lock);
  return calls.size() + advised.size();
}

// Whether [start, start + length) lies inside one mapping that is readable and writable, from
// /proc/self/maps.
bool mapped_read_write(uintptr_t start, size_t length) {
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);) {
    std::istringstream in(line);
    uintptr_t low = 0, high = 0;
    char dash = 0;
    std::string permissions;
    in >> std::hex >> low >> dash >> high >> permissions;
    if (low <= start && start + length <= high) return permissions.compare(0, 2, "rw") == 0;
  }
  return false;
}

// The compiling thread's heap region: advised once (the compiles after the first on a thread
// reuse it), at least 2 MiB, and still mapped after the compile (the pin kept it from the trim).
bool heap_advised(const char* when) {
  std::lock_guard<std::mutex> g(calls_lock);
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  // The sanitizer's allocator replaces glibc's: where its blocks land is its own.
  std::fprintf(stderr, "%s: a sanitizer's malloc: the heap region is not checked\n", when);
  return true;
#endif
  if (advised.empty() && access("/sys/kernel/mm/transparent_hugepage/enabled", F_OK) != 0) {
    std::fprintf(stderr, "%s: this kernel has no transparent huge pages: the heap region is not checked\n", when);
    return true;
  }
  if (advised.size() != 1) {
    std::fprintf(stderr, "%s: madvise(MADV_HUGEPAGE) was called %zu times, not once\n", when, advised.size());
    return false;
  }
  const auto [start, length] = advised.front();
  if (length < (size_t{2} << 20) || start % (size_t{2} << 20) != 0 || !mapped_read_write(start, length)) {
    std::fprintf(stderr, "%s: the advised range %#zx + %zu is not 2 MiB-aligned, mapped and writable\n", when,
                 static_cast<size_t>(start), length);
    return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace rocjit;
  if (argc != 2) return 2;
  CompileOptions fresh;
  fresh.cache = false;
  if (std::strcmp(argv[1], "default") == 0) {
    if (settings().tune_malloc) {
      std::fprintf(stderr, "run without ROCJIT_MALLOC_TUNING\n");
      return 2;
    }
    compile(samples::saxpy(), Target::host(), fresh);
    compile(samples::saxpy(), Target::amdgpu("gfx90a"), fresh);
    if (call_count() != 0) {
      std::fprintf(stderr, "mallopt was called by default\n");
      return 1;
    }
    update_settings([](Settings& s) { s.tune_malloc = true; });
    compile(samples::reverse(), Target::host(), fresh);
    compile(samples::reverse(), Target::amdgpu("gfx942"), fresh);
    return tuned_as_documented("after update_settings") && heap_advised("after update_settings") ? 0 : 1;
  }
  if (std::strcmp(argv[1], "environ") == 0) {
    compile(samples::saxpy(), Target::amdgpu("gfx90a"), fresh);
    return tuned_as_documented("with ROCJIT_MALLOC_TUNING=1") && heap_advised("with ROCJIT_MALLOC_TUNING=1") ? 0 : 1;
  }
  return 2;
}
