// Settings::tune_malloc: rocjit calls mallopt only when asked to. This program defines mallopt
// itself, so librocjit's calls come here (an executable's definition comes first in the dynamic
// linker's search), counts them and passes them on to glibc's.
//   rocjit-malloc-tuning default   compiles with the settings of the environment, then with
//                                  Settings::tune_malloc: mallopt is called only the second time
//   rocjit-malloc-tuning environ   run with ROCJIT_MALLOC_TUNING=1: the first compile tunes malloc
// Exits 0 when what happened is what should.
#include <dlfcn.h>
#include <malloc.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>

#include "rocjit/rocjit.hpp"
#include "sample_kernels.hpp"

namespace {
std::mutex calls_lock;
std::map<int, int> calls;  // parameter -> value, of every mallopt call
}  // namespace

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
  return calls.size();
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
    return tuned_as_documented("after update_settings") ? 0 : 1;
  }
  if (std::strcmp(argv[1], "environ") == 0) {
    compile(samples::saxpy(), Target::amdgpu("gfx90a"), fresh);
    return tuned_as_documented("with ROCJIT_MALLOC_TUNING=1") ? 0 : 1;
  }
  return 2;
}
