// AMDGPU processors, feature validation and the per-processor TargetMachine pools.
#pragma once

#include <llvm/Target/TargetMachine.h>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "loader/amdgpu_facts.h"

namespace rocjit::targets::amdgpu {

inline constexpr const char* triple = "amdgcn-amd-amdhsa";

// Initialises LLVM's AMDGPU target once per process.
void initialize();

// Throws CompileError when `processor` is unknown (listing the known ones) or `features` names
// something rocjit does not accept; `kernel` is for the message.
void check_target(const std::string& kernel, const std::string& processor, const std::string& features);

std::vector<std::string> processors();
using loader::amdgpu::lds_limit;
using loader::amdgpu::wave32_by_default;
using loader::amdgpu::wavefront_size;

struct MachinePool;
// A TargetMachine for processor+features, leased from a per-target pool: every compile in flight
// has its own (a TargetMachine is not safe to use from two threads at once), so compiles for one
// processor run in parallel; the lease returns it to the pool for the next compile.
class Machine {
 public:
  Machine(MachinePool* pool, std::unique_ptr<llvm::TargetMachine> tm);
  Machine(Machine&&) = default;
  Machine& operator=(Machine&&) = delete;
  ~Machine();
  llvm::TargetMachine* operator->() const { return tm_.get(); }
  llvm::TargetMachine& operator*() const { return *tm_; }

 private:
  MachinePool* pool_;
  std::unique_ptr<llvm::TargetMachine> tm_;
};
Machine target_machine(const std::string& processor, const std::string& features);

}  // namespace rocjit::targets::amdgpu
