// compile(): verifies the kernel and hands it to its target's pipeline.
#include "rocjit/compiler/compile.hpp"

#include <fmt/format.h>

#include "rocjit/compiler/error.hpp"
#include "rocjit/compiler/time_trace.hpp"
#include "rocjit/compiler/verifier.hpp"
#include "cache/kernel_cache.h"
#include "targets/amdgpu/compile_amdgpu.h"
#include "targets/amdgpu/target_machine.h"

namespace rocjit {

Target Target::amdgpu(std::string processor, std::string features) {
  Target t;
  t.kind = Kind::amdgpu;
  t.processor = std::move(processor);
  t.features = std::move(features);
  return t;
}

std::string Target::str() const {
  if (kind == Kind::host) return "host";
  return features.empty() ? fmt::format("amdgpu:{}", processor) : fmt::format("amdgpu:{}:{}", processor, features);
}

std::vector<std::string> amdgpu_processors() { return targets::amdgpu::processors(); }

uint64_t amdgpu_lds_limit(const std::string& processor) { return targets::amdgpu::lds_limit(processor); }

const KernelMetadata& CodeObject::kernel(const std::string& name) const {
  for (const auto& k : kernels)
    if (k.name == name) return k;
  throw Error(fmt::format("code object for {} has no kernel named '{}'", target.str(), name));
}

CodeObject compile(const ir::Kernel& kernel, const Target& target, const CompileOptions& options) {
  time_trace::Record record(kernel.name, target.str());
  {
    time_trace::Phase phase("verify");
    ir::verify(kernel);
  }
  switch (target.kind) {
    case Target::Kind::amdgpu:
      return cache::lookup_or_compile(kernel, target, options,
                                      [&] { return targets::amdgpu::compile(kernel, target, options); });
    case Target::Kind::host: break;
  }
  throw CompileError(fmt::format("kernel '{}': compile() produces code objects for AMDGPU targets; the host CPU "
                                 "target is compiled with compile_host()",
                                 kernel.name));
}

}  // namespace rocjit
