// dlopen/dlsym of libamdhip64, and of libamdsim-hip.so (the simulator with the same functions).
#include "hip/hip_api.hpp"

#include <dlfcn.h>
#include <fmt/format.h>

#include <cstdlib>
#include <string_view>
#include <vector>

#include "rocjit/support/library_search.h"
#include "rocjit/support/settings.h"
#include "rocjit/compiler/error.hpp"

namespace rocjit::runtime::hip {

std::string Api::describe(hipError_t e, const char* call) const {
  const char* name = hipGetErrorName ? hipGetErrorName(e) : "hipError";
  std::string text = fmt::format("{} failed: {} ({})", call, name ? name : "unknown", static_cast<int>(e));
  if (amdsimLastError) {
    const char* detail = amdsimLastError();
    if (detail && *detail) text += fmt::format(": {}", detail);
  }
  return text;
}

void Api::check(hipError_t e, const char* call) const {
  if (e == hipSuccess) return;
  throw DeviceError(describe(e, call));
}

namespace {

// The first candidate that opens and has every function; `why` lists what was tried.
bool open_first(Api& api, const std::vector<std::string>& candidates, std::string& why) {
  std::vector<std::string> tried;
  for (const auto& c : candidates) {
    void* library = dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!library) {
      tried.push_back(c);
      continue;
    }
    api.library = library;
    api.path = c;
    break;
  }
  if (!api.library) {
    why = fmt::format("not found (tried {})", fmt::join(tried, ", "));
    return false;
  }
#define ROCJIT_HIP_LOAD(name, type)                                                                  \
  api.name = reinterpret_cast<Api::name##_type>(dlsym(api.library, #name));                          \
  if (!api.name) {                                                                                   \
    why = fmt::format("{} was loaded but lacks {}; rocjit needs ROCm 5 or later", api.path, #name); \
    return false;                                                                                    \
  }
  ROCJIT_HIP_FUNCTIONS(ROCJIT_HIP_LOAD)
#undef ROCJIT_HIP_LOAD
  api.amdsimLastError = reinterpret_cast<const char* (*)()>(dlsym(api.library, "amdsimLastError"));
  api.amdsimSetLaunchChecks = reinterpret_cast<void (*)(unsigned)>(dlsym(api.library, "amdsimSetLaunchChecks"));
  api.amdsimTakeReports = reinterpret_cast<const char* (*)()>(dlsym(api.library, "amdsimTakeReports"));
  return true;
}

}  // namespace

const Api* load(std::string& why) {
  // Never destroyed: kernels and arrays released during exit still call through it.
  static Api& api = *new Api;
  static std::string failure;
  static bool loaded = [] {
    std::vector<std::string> candidates;
    if (std::string path = support::current_settings()->hip_library; !path.empty()) candidates.push_back(path);
    for (const char* c : {"libamdhip64.so", "libamdhip64.so.6", "libamdhip64.so.5", "/opt/rocm/lib/libamdhip64.so"})
      candidates.push_back(c);
    if (open_first(api, candidates, failure)) return true;
    failure = "the HIP runtime library was " + failure;
    return false;
  }();
  if (!loaded) {
    why = failure;
    return nullptr;
  }
  return &api;
}

const Api* load_simulator(std::string& why) {
  // Never destroyed: kernels and arrays released during exit still call through it.
  static Api& api = *new Api;
  static std::string failure;
  static bool loaded = [] {
#ifndef ROCJIT_SIM_BUILD_LIBRARY
#define ROCJIT_SIM_BUILD_LIBRARY nullptr
#endif
#ifndef ROCJIT_SIM_INSTALL_LIBRARY
#define ROCJIT_SIM_INSTALL_LIBRARY nullptr
#endif
    const std::vector<std::string> candidates =
        support::own_library_candidates(support::current_settings()->sim_library, false, "libamdsim-hip.so",
                                        ROCJIT_SIM_BUILD_LIBRARY, ROCJIT_SIM_INSTALL_LIBRARY);
    if (open_first(api, candidates, failure)) return true;
    failure = "the AMDGPU simulator library libamdsim-hip.so was " + failure +
              "; build the amdsim-hip target or set ROCJIT_SIM_LIBRARY";
    return false;
  }();
  if (!loaded) {
    why = failure;
    return nullptr;
  }
  return &api;
}

}  // namespace rocjit::runtime::hip
