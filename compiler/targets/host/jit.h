// The host target's compile (compile() calls it for Target::host()) and the HostKernel
// implementation record.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "rocjit/compiler/compile.hpp"
#include "rocjit/compiler/host.hpp"
#include "rocjit/settings.hpp"
#include "targets/host/launch_context.h"
#include "targets/host/lower.h"

namespace rocjit {

struct HostKernel::Impl {
  std::string name;
  uint32_t max_block_size = 1024;
  std::vector<std::string> argument_names;
  uint64_t storage_bytes_per_work_item = 0;
  uint64_t shared_bytes = 0;  // static shared arrays
  int dynamic_shared_argument = -1;  // the argument holding the launch's dynamic shared bytes, if any
  unsigned region_count = 0;
  std::vector<targets::host::BoundsCheck> checks;
  std::shared_ptr<const PrintTable> prints;  // the kernel's print and assert sites (in the cache entry)
  bool bounds_check = false;
  bool check_races = false;  // CompileOptions::check_races: `checks` is also the race sites' table
  bool fast_math = false;  // CompileOptions::fast_math (the kernel's own flag is in its IR)
  std::optional<Dim3> fixed_block;  // CompileOptions::block
  int opt_level = 3;                // CompileOptions::opt_level
  std::string llvm_ir, llvm_ir_optimized, assembly;
  std::string cpu;  // "x86_64-pc-linux-gnu, znver3"
  targets::host::GroupFunction entry = nullptr;  // null when compiled with jit = false
  // Owns `entry`'s code in the JIT (one ORC ResourceTracker): released with the last reference
  // to this Impl, which removes the code from the process.
  std::shared_ptr<void> code;
};

namespace targets::host {

// What the host code is compiled for, in cache keys: triple, CPU and features.
const std::string& target_identity();

}  // namespace targets::host
}  // namespace rocjit
