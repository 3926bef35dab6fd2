// A host kernel as the runtime holds it (HostKernel::Impl): its facts, its loaded code and what
// its checks report, and its kernel-cache entry (`<key>.rjho`). No LLVM: a cache hit decodes the
// entry and loads the shared object (loader/host_library.h) without the compiler.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rocjit/compiler/device_print.hpp"
#include "rocjit/compiler/host.hpp"
#include "rocjit/compiler/ir.hpp"

namespace rocjit {
namespace loader {

// One checked access of a bounds- or race-checked host kernel (HostKernel::access_site), or a
// uniform() promise: what its report names.
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

}  // namespace loader

struct HostKernel::Impl {
  std::string name;
  uint32_t max_block_size = 1024;
  std::vector<std::string> argument_names;
  uint64_t storage_bytes_per_work_item = 0;
  uint64_t shared_bytes = 0;  // static shared arrays
  int dynamic_shared_argument = -1;  // the argument holding the launch's dynamic shared bytes, if any
  unsigned region_count = 0;
  std::vector<loader::BoundsCheck> checks;
  std::vector<HostRaceArray> race_arrays;  // check_races: the accessed array parameters
  std::vector<HostRaceShared> race_shared;  // check_races: shared arrays read unchecked once written
  std::shared_ptr<const PrintTable> prints;  // the kernel's print and assert sites (in the cache entry)
  bool bounds_check = false;
  bool check_races = false;  // CompileOptions::check_races: `checks` is also the race sites' table
  bool fast_math = false;  // CompileOptions::fast_math (the kernel's own flag is in its IR)
  std::optional<Dim3> fixed_block;  // CompileOptions::block
  int opt_level = 3;                // CompileOptions::opt_level
  std::string llvm_ir, llvm_ir_optimized, assembly;
  std::string cpu;  // "x86_64-pc-linux-gnu, znver3"
  HostGroupFunction entry = nullptr;  // null when compiled with jit = false
  // Owns `entry`'s code (its shared object, loader/host_library.h): released with the last
  // reference to this Impl, which unloads the code.
  std::shared_ptr<void> code;
};

namespace loader {

// A host kernel's cache entry: the facts a HostKernel needs besides those its Job gives (name,
// options), its entry point's symbol and its shared object.
std::string encode_host_entry(const HostKernel::Impl& impl, const std::string& symbol, std::string_view shared_object);

struct HostEntry {
  std::string symbol;
  std::string shared_object;
};
// Fills `impl`'s facts from an entry; nullopt for an entry that is truncated or inconsistent.
std::optional<HostEntry> decode_host_entry(std::string_view payload, HostKernel::Impl& impl);

}  // namespace loader
}  // namespace rocjit
