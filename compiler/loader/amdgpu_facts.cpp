// AMDGPU facts read without LLVM (amdgpu_facts.h).
#include "loader/amdgpu_facts.h"

#include <filesystem>
#include <map>
#include <mutex>

namespace rocjit::loader::amdgpu {

bool wave32_by_default(const std::string& processor) {
  if (processor.rfind("gfx", 0) != 0) return false;
  size_t digits = 3;
  while (digits < processor.size() && std::isalnum(static_cast<unsigned char>(processor[digits]))) ++digits;
  // "gfx" + major (one or two digits) + minor + stepping: four or more characters from GFX10 on.
  return digits - 3 >= 4 && processor[3] == '1';
}

unsigned wavefront_size(const std::string& processor, const std::string& features) {
  if (!wave32_by_default(processor)) return 64;
  return features.find("+wavefrontsize64") != std::string::npos ? 64 : 32;
}

uint64_t lds_limit(const std::string& processor) {
  // gfx950 doubled (and then some) the LDS a work-group may address; every other
  // processor rocjit supports addresses 64 KiB.
  return processor == "gfx950" ? 163840 : 65536;
}

std::vector<std::string> device_lib_dirs(const std::string& device_libs) {
  std::vector<std::string> dirs;
  if (device_libs == "none") return dirs;
  if (!device_libs.empty()) dirs.push_back(device_libs);
  dirs.push_back("/usr/lib/x86_64-linux-gnu/amdgcn/bitcode");
  dirs.push_back("/usr/lib/amdgcn/bitcode");
  dirs.push_back("/opt/rocm/amdgcn/bitcode");
  dirs.push_back("/opt/rocm/lib/llvm/lib/clang/amdgcn/bitcode");
  return dirs;
}

const std::string& math_library(const std::string& device_libs) {
  static std::mutex& lock = *new std::mutex;
  static auto& named = *new std::map<std::string, std::string>;  // never destroyed: compiles may outlive exit
  std::lock_guard<std::mutex> guard(lock);
  auto [it, inserted] = named.try_emplace(device_libs);
  if (!inserted) return it->second;
  std::string& name = it->second;
  for (const auto& d : device_lib_dirs(device_libs)) {
    std::error_code ignored;
    if (std::filesystem::exists(std::filesystem::path(d) / "ocml.bc", ignored)) {
      name = "ocml " + (std::filesystem::path(d) / "ocml.bc").string();
      return name;
    }
  }
#ifdef ROCJIT_BUILTIN_MATH
  name = std::string("builtin (libclc ") + ROCJIT_LLVM_VERSION + ")";
#else
  name = "none";
#endif
  return name;
}

}  // namespace rocjit::loader::amdgpu
