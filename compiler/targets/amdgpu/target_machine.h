// AMDGPU processors, feature validation and the per-processor TargetMachine cache.
#pragma once

#include <llvm/Target/TargetMachine.h>

#include <mutex>
#include <string>
#include <vector>

namespace rocjit::targets::amdgpu {

inline constexpr const char* triple = "amdgcn-amd-amdhsa";

// Initialises LLVM's AMDGPU target once per process.
void initialize();

// Throws CompileError when `processor` is unknown (listing the known ones) or `features` names
// something rocjit does not accept; `kernel` is for the message.
void check_target(const std::string& kernel, const std::string& processor, const std::string& features);

std::vector<std::string> processors();
bool wave32_by_default(const std::string& processor);
unsigned wavefront_size(const std::string& processor, const std::string& features);
uint64_t lds_limit(const std::string& processor);

// A TargetMachine for processor+features, created once and reused. Codegen with one
// TargetMachine is serialised: hold `lock` while using it.
struct Machine {
  llvm::TargetMachine* tm;
  std::mutex* lock;
};
Machine target_machine(const std::string& processor, const std::string& features);

}  // namespace rocjit::targets::amdgpu
