// What a kernel is compiled for: an AMDGPU processor (plus features) or the host CPU.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace rocjit {

/// What to compile for: an AMDGPU processor with features, or the host CPU.
struct Target {
  /// AMDGPU or host.
  enum class Kind { amdgpu, host };
  /// AMDGPU or host.
  Kind kind = Kind::amdgpu;
  std::string processor;  ///< "gfx90a"; empty for host
  std::string features;   ///< LLVM feature string, e.g. "+wavefrontsize64"

  Target() = default;
  /// Target::parse(spec), so that APIs taking a Target also take "gfx90a" or "host".
  Target(const char* spec);         ///< NOLINT(google-explicit-constructor)
  Target(const std::string& spec);  ///< NOLINT(google-explicit-constructor)

  /// An AMD GPU by processor name. Features: "+wavefrontsize64" selects wave64 on gfx10+,
  /// "+xnack"/"-xnack", "+sramecc"/"-sramecc" as LLVM spells them.
  static Target amdgpu(std::string processor, std::string features = {});
  /// The CPU this process runs on (compile_host()).
  static Target host();
  /// "host", "gfx90a", "amdgpu:gfx90a" or "amdgpu:gfx1100:+wavefrontsize64" (what str() writes).
  /// Throws CompileError for anything else; whether the processor exists is checked when compiling.
  static Target parse(std::string_view spec);
  std::string str() const;  ///< "amdgpu:gfx90a", "amdgpu:gfx1100:+wavefrontsize64" or "host"
  /// A file-name-safe short form: "gfx90a", "gfx1100+wavefrontsize64", "host".
  std::string file_name() const;
  /// Same kind, processor and features.
  bool operator==(const Target&) const = default;
};

/// Every AMDGPU processor name the compiler accepts.
std::vector<std::string> amdgpu_processors();

}  // namespace rocjit
