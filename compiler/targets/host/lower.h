// rocjit IR -> LLVM IR for the host CPU, with barrier fission into work-item loops.
#pragma once

#include <llvm/IR/Module.h>

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "rocjit/compiler/ir.hpp"
#include "rocjit/settings.hpp"

namespace rocjit::targets::host {

// What a bounds-checked access reports on failure.
struct BoundsCheck {
  std::string array;
  std::string access;  // "load", "store", "atomic", or "uniform" (a broken uniform() promise)
  ir::Type type = ir::Type::none;     // uniform: the value's type
  unsigned rank = 1;
  unsigned lanes = 1;                 // a vector access: elements N*i ... N*i+N-1 of index i
  std::vector<int64_t> static_shape;  // shared/local arrays
  int param_index = -1;               // global arrays: shape comes from the arguments
  int first_extent = -1;              // global arrays: argument index of extent 0 (kernel ABI);
                                      // dynamic shared: of the dynamic bytes (u32)
  unsigned dynamic_element_bytes = 0; // dynamic shared: the extent is those bytes / this
  ir::SourceLoc loc;
  bool reads = true, writes = false;                // what the access does to the element
  ir::MemoryOrder order = ir::MemoryOrder::relaxed;  // an atomic's order (race checking)
};

struct HostModule {
  std::unique_ptr<llvm::Module> module;
  std::string function_name;
  std::vector<std::string> argument_names;
  uint64_t storage_bytes_per_work_item = 0;  // multiplied by the work-items of a group
  uint64_t shared_bytes = 0;
  unsigned region_count = 0;
  std::vector<BoundsCheck> checks;
};

// `block`: x, y, z of the work-group shape to compile for, or all 0 to read it at launch.
// `version_guards`: a region whose bounds guards hold for a whole work-group gets a copy without
// them, chosen per group (worth its compile time when optimising: O2 and O3).
// `check_races`: CompileOptions::check_races (hooks into HostLaunchContext::race_access/race_sync).
HostModule lower(const ir::Kernel& kernel, llvm::LLVMContext& context, const std::string& function_name,
                 bool bounds_check, bool check_races, const std::array<int32_t, 3>& block, bool fast_math,
                 bool version_guards, const Settings& settings);

}  // namespace rocjit::targets::host
