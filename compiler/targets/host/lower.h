// rocjit IR -> LLVM IR for the host CPU, with barrier fission into work-item loops.
#pragma once

#include <llvm/IR/Module.h>

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "rocjit/compiler/ir.hpp"
#include "loader/host_kernel.h"
#include "rocjit/settings.hpp"

namespace rocjit::targets::host {

// What a bounds-checked access reports on failure.
using BoundsCheck = loader::BoundsCheck;

struct HostModule {
  std::unique_ptr<llvm::Module> module;
  std::string function_name;
  std::vector<std::string> argument_names;
  uint64_t storage_bytes_per_work_item = 0;  // multiplied by the work-items of a group
  uint64_t shared_bytes = 0;
  unsigned region_count = 0;
  std::vector<BoundsCheck> checks;
  std::vector<HostRaceArray> race_arrays;  // check_races
  std::vector<HostRaceShared> race_shared;  // check_races
};

// `block`: x, y, z of the work-group shape to compile for, or all 0 to read it at launch.
// `version_guards`: a region whose bounds guards hold for a whole work-group gets a copy without
// them, chosen per group (worth its compile time when optimising: O2 and O3).
// `check_races`: CompileOptions::check_races (hooks into HostLaunchContext::race_access/race_sync).
HostModule lower(const ir::Kernel& kernel, llvm::LLVMContext& context, const std::string& function_name,
                 bool bounds_check, bool check_races, const std::array<int32_t, 3>& block, bool fast_math,
                 bool version_guards, const Settings& settings);

}  // namespace rocjit::targets::host
