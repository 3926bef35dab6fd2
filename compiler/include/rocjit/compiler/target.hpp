// What a kernel is compiled for: an AMDGPU processor (plus features) or the host CPU.
#pragma once

#include <string>
#include <vector>

namespace rocjit {

struct Target {
  enum class Kind { amdgpu, host };
  Kind kind = Kind::amdgpu;
  std::string processor;  // "gfx90a"; empty for host
  std::string features;   // LLVM feature string, e.g. "+wavefrontsize64"

  // An AMD GPU by processor name. Features: "+wavefrontsize64" selects wave64 on gfx10+,
  // "+xnack"/"-xnack", "+sramecc"/"-sramecc" as LLVM spells them.
  static Target amdgpu(std::string processor, std::string features = {});
  std::string str() const;  // "amdgpu:gfx90a" or "amdgpu:gfx1100:+wavefrontsize64"
  bool operator==(const Target&) const = default;
};

// Every AMDGPU processor name the compiler accepts.
std::vector<std::string> amdgpu_processors();

}  // namespace rocjit
