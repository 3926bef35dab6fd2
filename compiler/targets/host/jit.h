// The process-wide ORC LLJIT for host kernels and the HostKernel implementation record.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "rocjit/compiler/host.hpp"
#include "targets/host/launch_context.h"
#include "targets/host/lower.h"

namespace rocjit {

struct HostKernel::Impl {
  std::string name;
  uint32_t max_block_size = 1024;
  std::vector<std::string> argument_names;
  uint64_t storage_bytes_per_work_item = 0;
  uint64_t shared_bytes = 0;
  unsigned region_count = 0;
  std::vector<targets::host::BoundsCheck> checks;
  bool bounds_check = false;
  std::optional<Dim3> fixed_block;  // HostCompileOptions::block
  std::string llvm_ir, llvm_ir_optimized, assembly;
  std::string cpu;  // "x86_64-pc-linux-gnu, znver3"
  targets::host::GroupFunction entry = nullptr;  // null when compiled with jit = false
  // Owns `entry`'s code in the JIT (one ORC ResourceTracker): released with the last reference
  // to this Impl, which removes the code from the process.
  std::shared_ptr<void> code;
};

}  // namespace rocjit
