// The host (CPU) target: rocjit kernels compiled into shared objects, loaded with dlopen and run with real
// work-group semantics (barrier fission, per-thread shared memory, work-groups in parallel).
// No LLVM types in this header.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "rocjit/compiler/target.hpp"
#include "rocjit/compiler/ir.hpp"

namespace rocjit {

/// The wavefront size the CPU back end emulates: wave operations and lane_id() see groups of 64
/// consecutive linear work-item ids (as gfx9 and CDNA GPUs run them).
inline constexpr unsigned host_wave_size = 64;

/// Launch geometry: work-groups per grid dimension, or work-items per group dimension.
struct Dim3 {
  /// Extents in x, y and z.
  ///@{
  int64_t x = 1, y = 1, z = 1;
  ///@}
  /// Extents (x, y, z); omitted ones are 1.
  Dim3(int64_t x_ = 1, int64_t y_ = 1, int64_t z_ = 1) : x(x_), y(y_), z(z_) {}
  /// The number of elements: x * y * z.
  int64_t count() const { return x * y * z; }
};

struct HostBoundsReport;
struct HostRaceState;

/// Race checking's shadow memory as the JIT'd code's inline checks read it (ROCJIT_CHECK=races;
/// runtime/cpu/race_checker.cpp keeps it). An access is a stamp: the checker's context (a number
/// per worker thread, new at each group, barrier, wavebarrier, fence and release, so a context
/// names the group, its barrier counts and its place in program order), the work-item and the site.
/// Contexts below the launch's first (bits host_race_launch_shift and up of any of its contexts)
/// are no access: never written, or written by an earlier launch.
struct HostRaceStamp {
  uint64_t context;  ///< the context the access was made in
  int32_t item;      ///< the work-item's linear local id
  int32_t site;      ///< the access site (HostKernel::access_site)
};
/// Where a context holds its launch's serial.
inline constexpr unsigned host_race_launch_shift = 44;
/// The shadow of one element: its last write, its last read, and the last read by another work-item.
struct HostRaceCell {
  HostRaceStamp write;       ///< the last write
  HostRaceStamp read;        ///< the last read
  HostRaceStamp other_read;  ///< the last read by another work-item than `read`'s
};
/// A page of the global shadow: lock words (a 32-bit word per host_race_lock_cells cells, 0 when
/// free), then the cells of host_race_page_cells consecutive granules.
inline constexpr uint64_t host_race_page_cells = 1024;
/// Cells per lock word.
inline constexpr uint64_t host_race_lock_cells = 16;
/// Bytes of lock words before a page's cells.
inline constexpr uint64_t host_race_page_header = 4 * (host_race_page_cells / host_race_lock_cells);
/// Pages are found through two tables: the first (host_race_top_entries pointers) indexed by the page
/// number's bits above host_race_leaf_bits, then a leaf of 2^host_race_leaf_bits page pointers.
inline constexpr unsigned host_race_leaf_bits = 18;
/// Entries of the first page table.
inline constexpr uint64_t host_race_top_entries = uint64_t{1} << 20;

/// What a worker's inline race checks read (HostLaunchContext::race_fast). Contexts of one worker
/// grow; those of the group it runs are group_first and above, up to context.
struct HostRaceFast {
  uint64_t context = 0;        ///< the current context (stamps of this worker's accesses now)
  uint64_t group_first = 0;    ///< the group's first context
  uint64_t barrier_floor = 0;  ///< the first context after the group's last barrier
  uint64_t global_floor = 0;   ///< ... after its last barrier with a global fence
  const void* shared = nullptr;    ///< the worker's shared buffer
  uint64_t shared_cells = 0;       ///< bytes of it with a flat shadow (a cell per byte offset), or 0
  HostRaceCell* shared_shadow = nullptr;  ///< the cells of the shared buffer, by byte offset
  void* const* global_top = nullptr;  ///< the first page table
  uint32_t granule_shift = 2;         ///< log2 of the bytes a global cell stands for
  /// Bit p: the accesses of array parameter p go unchecked at this launch (HostRaceArray).
  uint64_t unchecked = 0;
  /// Bit i: every element of HostKernel::race_shared()[i] held a write of the current group at
  /// its last barrier (set at barriers, cleared at the group's start): its listed reads go
  /// unchecked from then on.
  uint64_t initialized = 0;
};

/// A static shared array whose reads the race checker may stop checking once the group has
/// written every element of it (HostKernel::race_shared, HostRaceFast::initialized). The compile
/// proved (compiler/passes/race_free.h, reads_without_interval_writes) that no write of the array
/// shares a barrier interval with those reads, so a read of an element the group wrote before can
/// only be ordered after that write: what would remain to report is an uninitialised element.
struct HostRaceShared {
  uint32_t offset = 0;  ///< the array's first byte in the group's shared buffer
  uint32_t bytes = 0;   ///< its bytes
  uint32_t unit = 4;    ///< bytes of one element (the checker keeps a cell per element)
};

/// An array parameter of a race-checked kernel, as a launch decides whether its accesses need
/// checks (HostKernel::race_arrays; the proof is compiler/passes/race_free.h). The compile
/// proved that its accesses race with nothing if, at the launch, its bytes are disjoint from
/// those of every written array (read_only) or of every other accessed array (one_item), and,
/// for one_item, the launch's sizes meet `position_dims`. Parameters 64 and above are always
/// checked.
struct HostRaceArray {
  /// What the compile proved (compiler/passes/race_free.h).
  enum class Rule : uint8_t {
    checked,    ///< nothing: always checked
    read_only,  ///< never written
    one_item,   ///< each element accessed by one work-item
  };
  int32_t param = 0;              ///< the parameter's index (bit of HostRaceFast::unchecked)
  uint32_t pointer_argument = 0;  ///< run() argument of its base address; extents (i32) follow,
                                  ///< then, strided, its element strides (i64)
  uint32_t rank = 1;              ///< its dimensions
  uint32_t element_bytes = 4;     ///< bytes of one element
  bool strided = false;           ///< strided layout (else C or F)
  bool written = false;           ///< some access writes it
  Rule rule = Rule::checked;      ///< what the compile proved
  /// one_item: per index position, the group-id dimension its index uses (-1: none; also the
  /// global-id dimension of global_id(d)). The launch must have one work-group along every group
  /// dimension no position uses, and one work-item along every unused local dimension.
  std::vector<int8_t> position_dims;
  uint32_t slowest_position = 0;  ///< one_item: the position whose index varies slowest (C: 0)
  uint32_t lanes = 1;             ///< one_item: elements per access (a vector access)
  /// one_item: per index position, the local-id dimension its index uses (-1: none).
  std::vector<int8_t> position_locals;
  /// one_item: per index position, 0 (the index is global_id(d)) or C (it is group_id(g) * C +
  /// local_id(l): the launch's work-groups may have at most C work-items along l, and its values
  /// must fit in 32 bits). At positions other than `slowest_position`, the index's values (times
  /// `lanes` at the last position) must stay below the position's extent.
  std::vector<int64_t> position_bounds;
};

/// The block of launch state a host kernel's generated code reads: one per worker thread per
/// launch. Field offsets are part of the generated code's ABI (the host lowering reads them).
struct HostLaunchContext {
  int32_t block[3];   ///< work-items per group
  int32_t grid[3];    ///< groups per dimension
  void* shared;       ///< this worker's shared-memory buffer (HostKernel::shared_bytes)
  void* storage;      ///< this worker's per-work-item storage (work_item_storage_bytes * block)
  /// Called by bounds-checked code for an out-of-bounds access (check number, indices).
  void (*report)(HostBoundsReport*, int32_t check, int64_t i0, int64_t i1, int64_t i2);
  HostBoundsReport* report_state;  ///< passed to `report`
  void* scratch;      ///< 64 bytes where out-of-bounds accesses are redirected
  /// Race checking (CompileOptions::check_races): called before each access of shared or global
  /// memory with its site (HostKernel::access_site), address, the group's linear number, the
  /// work-item's linear local id and, for a scalar store, the stored bits.
  void (*race_access)(HostRaceState*, int32_t site, const void* address, int64_t group, int32_t item,
                      uint64_t value);
  /// ... at each barrier of a group, wavebarrier and fence, and after each atomic read (`kind`: a
  /// HostSync; `item`: the work-item's linear local id, -1 for barriers; `address`: the atomic's
  /// element, else null).
  void (*race_sync)(HostRaceState*, int32_t kind, int64_t group, int32_t item, const void* address);
  HostRaceState* race_state;  ///< passed to both
  /// What inline checks read (a scalar load or store checks its cell in the kernel's code and
  /// calls race_access only when the cell shows a possible conflict or has no page yet).
  HostRaceFast* race_fast;
};

/// What HostLaunchContext::race_sync is told (its `kind`).
enum class HostSync : int32_t {
  barrier = 0,         ///< a barrier fencing shared memory only
  barrier_global = 1,  ///< a barrier with a global fence
  wavebarrier = 2,     ///< wavebarrier()
  fence_acquire = 3,   ///< fence(acquire) by one work-item
  fence_release = 4,   ///< fence(release)
  fence_acq_rel = 5,   ///< fence(acq_rel or seq_cst)
  acquired = 6,        ///< an atomic read with acquire, acq_rel or seq_cst order has read `address`
  read_relaxed = 7,    ///< a relaxed atomic read has read `address` (an acquire fence may follow)
  group_begin = 8,     ///< a work-group starts (before its first access)
};

/// One array access of a host kernel compiled with bounds or race checks (HostKernel::access_site).
struct HostAccessSite {
  std::string array;   ///< the array's name
  std::string access;  ///< "load", "store" or "atomic"
  bool global = false; ///< a global array (else shared)
  uint32_t bytes = 0;  ///< bytes it moves (a vector access: all lanes)
  uint32_t element_bytes = 0;  ///< bytes of one element
  ir::SourceLoc loc;   ///< where the access was written
  bool reads = false;   ///< it reads the element (loads, read-modify-writes, atomic loads)
  bool writes = false;  ///< it writes the element (stores, read-modify-writes, atomic stores)
  ir::MemoryOrder order = ir::MemoryOrder::relaxed;  ///< an atomic's order
};

/// The first out-of-bounds access of a launch of a bounds-checked kernel, as its code reports it.
struct HostBoundsReport {
  /// Whether an access was reported; the first report wins.
  std::atomic<bool> hit{false};
  /// Which check (HostKernel::out_of_bounds_message names it).
  int32_t check = 0;
  /// The indices of the access.
  int64_t index[3] = {0, 0, 0};
};

/// A host kernel's entry point: runs work-groups [begin, end) (linear, x fastest) with
/// `args[i]` pointing to argument i (HostKernel::argument_names).
using HostGroupFunction = void (*)(const void* const* args, HostLaunchContext* context, int64_t begin, int64_t end);

/// A kernel compiled for the host. Cheap to copy (copies share the kernel); the JIT'd code is
/// removed from the process when the last copy, and the kernel cache's reference, are gone.
class HostKernel {
 public:
  struct Impl;
  HostKernel() = default;
  /// Wraps a compiled kernel (made by compile_host()).
  explicit HostKernel(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}

  /// The kernel's name.
  const std::string& name() const;
  /// Names of the arguments in the order run() expects them: "x", "x.shape0", ..., scalars.
  const std::vector<std::string>& argument_names() const;
  /// Bytes of per-work-item storage one work-item needs (values and variables that live across
  /// a barrier, local arrays used in more than one barrier-free region). 0 without barriers.
  uint64_t work_item_storage_bytes() const;
  /// Number of barrier-free regions the body was split into.
  unsigned region_count() const;
  /// Bytes of static shared memory one work-group needs.
  uint64_t shared_bytes() const;
  /// The argument (a u32) holding the launch's bytes of dynamic shared memory, which follow the
  /// static bytes; -1 when the kernel has no shared::dynamic array.
  int dynamic_shared_argument() const;
  /// Largest work-group the kernel accepts.
  uint32_t max_block_size() const;
  /// Whether array accesses are checked (ROCJIT_BOUNDS_CHECK).
  bool bounds_checked() const;
  /// Whether shared and global accesses call HostLaunchContext::race_access (ROCJIT_CHECK=races).
  bool races_checked() const;
  /// Site `site` of a checked kernel's accesses (0 to access_site_count() - 1).
  HostAccessSite access_site(int32_t site) const;
  /// How many sites a checked kernel's accesses have.
  size_t access_site_count() const;
  /// A race-checked kernel's accessed array parameters (what a launch may leave unchecked).
  const std::vector<HostRaceArray>& race_arrays() const;
  /// A race-checked kernel's static shared arrays whose reads stop being checked once the group
  /// has written all of them (bit i of HostRaceFast::initialized is entry i).
  const std::vector<HostRaceShared>& race_shared() const;
  /// The work-group shape the kernel was compiled for, if it was (HostCompileOptions::block).
  std::optional<Dim3> fixed_block() const;
  /// The optimisation level it was compiled at (CompileOptions::opt_level).
  int opt_level() const;
  /// The LLVM IR as lowered, if requested.
  const std::string& llvm_ir() const;
  /// The LLVM IR after optimisation, if requested.
  const std::string& llvm_ir_optimized() const;
  /// The host assembly, if requested.
  const std::string& assembly() const;
  /// The JIT'd entry point; null when compiled with CompileOptions::jit = false.
  HostGroupFunction entry() const;
  /// What a launch reported in `report` (kernel, array, file:line, index and shape), for `args`.
  std::string out_of_bounds_message(const HostBoundsReport& report, const void* const* args) const;
  /// Whether this holds a kernel.
  explicit operator bool() const { return impl_ != nullptr; }
  /// The implementation (for the runtime).
  const Impl& impl() const { return *impl_; }

 private:
  std::shared_ptr<const Impl> impl_;
};

/// What the host backend made of a kernel: target CPU, work-group limit, barrier-free regions,
/// per-work-item storage, shared bytes and the argument order of run_host(). This is
/// `rocjit-dump --target=host --emit=meta`, ROCJIT_DUMP=meta and Kernel::metadata(Target::host()).
std::string metadata_text(const HostKernel& kernel);

/// What the host backend gives a kernel: shared arrays live in one buffer per worker thread,
/// local arrays on the worker's stack or in per-work-item storage.
inline constexpr uint64_t host_shared_bytes_limit = 64ull << 20;  ///< per work-group
inline constexpr uint64_t host_local_bytes_limit = 256ull << 10;  ///< per work-item

}  // namespace rocjit
