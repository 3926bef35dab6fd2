// rocjit/support/library_search.h.
#include "rocjit/support/library_search.h"

#include <dlfcn.h>

namespace rocjit::support {

std::string own_directory() {
  Dl_info info{};
  if (!dladdr(reinterpret_cast<void*>(&own_directory), &info) || !info.dli_fname) return {};
  const std::string path = info.dli_fname;
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash + 1);
}

std::vector<std::string> own_library_candidates(const std::string& chosen, bool chosen_only, const char* file,
                                                const char* build_path, const char* install_path) {
  std::vector<std::string> out;
  if (!chosen.empty()) out.push_back(chosen);
  if (!chosen.empty() && chosen_only) return out;
  if (std::string dir = own_directory(); !dir.empty()) out.push_back(dir + file);
  if (build_path) out.push_back(build_path);
  if (install_path) out.push_back(install_path);
  return out;
}

}  // namespace rocjit::support
