// dlopen/dlsym of libamdhip64.
#include "runtime/hip/hip_api.hpp"

#include <dlfcn.h>
#include <fmt/format.h>

#include <cstdlib>
#include <vector>

#include "rocjit/compiler/error.hpp"

namespace rocjit::runtime::hip {

void Api::check(hipError_t e, const char* call) const {
  if (e == hipSuccess) return;
  const char* name = hipGetErrorName ? hipGetErrorName(e) : "hipError";
  throw DeviceError(fmt::format("{} failed: {} ({})", call, name ? name : "unknown", static_cast<int>(e)));
}

const Api* load(std::string& why) {
  static Api api;
  static std::string failure;
  static bool loaded = [] {
    std::vector<std::string> candidates;
    if (const char* env = std::getenv("ROCJIT_HIP_LIBRARY"); env && *env) candidates.push_back(env);
    for (const char* c : {"libamdhip64.so", "libamdhip64.so.6", "libamdhip64.so.5", "/opt/rocm/lib/libamdhip64.so"})
      candidates.push_back(c);
    for (const auto& c : candidates) {
      api.library = dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (api.library) {
        api.path = c;
        break;
      }
    }
    if (!api.library) {
      failure = fmt::format("the HIP runtime library was not found (tried {})", fmt::join(candidates, ", "));
      return false;
    }
#define ROCJIT_HIP_LOAD(name, type)                                                                  \
  api.name = reinterpret_cast<Api::name##_type>(dlsym(api.library, #name));                                    \
  if (!api.name) {                                                                                   \
    failure = fmt::format("{} was loaded but lacks {}; rocjit needs ROCm 5 or later", api.path, #name); \
    return false;                                                                                    \
  }
    ROCJIT_HIP_FUNCTIONS(ROCJIT_HIP_LOAD)
#undef ROCJIT_HIP_LOAD
    return true;
  }();
  if (!loaded) {
    why = failure;
    return nullptr;
  }
  return &api;
}

}  // namespace rocjit::runtime::hip
