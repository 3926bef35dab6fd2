// Target: how a target is named and spelt. Here, with the IR, rather than with the compiler that
// builds for it: the passes (legalize_types, expand_math) and the DSL name targets too.
#include "rocjit/compiler/target.hpp"

#include <fmt/format.h>

#include "rocjit/compiler/error.hpp"

namespace rocjit {

Target Target::amdgpu(std::string processor, std::string features) {
  Target t;
  t.kind = Kind::amdgpu;
  t.processor = std::move(processor);
  t.features = std::move(features);
  return t;
}

Target::Target(const char* spec) : Target(parse(spec ? std::string_view(spec) : std::string_view())) {}
Target::Target(const std::string& spec) : Target(parse(spec)) {}

Target Target::host() {
  Target t;
  t.kind = Kind::host;
  return t;
}

Target Target::parse(std::string_view spec) {
  if (spec == "host") return host();
  std::string_view rest = spec;
  if (rest.starts_with("amdgpu:")) rest.remove_prefix(7);
  const size_t colon = rest.find(':');
  const std::string_view processor = rest.substr(0, colon);
  const std::string_view features = colon == std::string_view::npos ? std::string_view() : rest.substr(colon + 1);
  const bool name_ok = processor.size() > 3 && processor.starts_with("gfx") &&
                       processor.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-") == std::string_view::npos;
  const bool features_ok = colon == std::string_view::npos ||
                           (!features.empty() && (features[0] == '+' || features[0] == '-') &&
                            features.find_first_of(": ") == std::string_view::npos);
  if (!name_ok || !features_ok)
    throw CompileError(fmt::format("'{}' is not a target; write \"host\", a processor such as \"gfx90a\", or "
                                   "\"amdgpu:<processor>[:<features>]\" such as \"amdgpu:gfx1100:+wavefrontsize64\"",
                                   spec));
  return amdgpu(std::string(processor), std::string(features));
}

std::string Target::file_name() const {
  if (kind == Kind::host) return "host";
  std::string name = processor;
  for (char c : features)
    if (c != ',') name += c;  // "+xnack,-sramecc" -> "gfx90a+xnack-sramecc"
  return name;
}

std::string Target::str() const {
  if (kind == Kind::host) return "host";
  return features.empty() ? fmt::format("amdgpu:{}", processor) : fmt::format("amdgpu:{}:{}", processor, features);
}

}  // namespace rocjit
