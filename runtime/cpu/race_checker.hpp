// The CPU device's race and sync checker (ROCJIT_CHECK=races): kernels compiled with
// CompileOptions::check_races check each scalar access of shared or global memory inline against
// its shadow cell (HostRaceFast, HostRaceCell) and call race_access when the cell shows a possible
// conflict (or for atomics, vector accesses and cells without a page yet), and race_sync at each
// group's start, barrier and fence (HostLaunchContext); this file keeps the launch's shadow memory
// and reports what conflicts. Internal to the runtime.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "rocjit/compiler/host.hpp"

namespace rocjit {

// One access as the checker reasons about it (a HostRaceStamp decoded through its context).
struct RaceAccess {
  int32_t site = -1;  // -1: none
  int32_t item = 0;   // linear local id
  int64_t group = 0;  // linear group number
  uint32_t barrier_epoch = 0;  // barriers the group had passed
  uint32_t global_epoch = 0;   // of them, barriers with a global fence
  uint32_t wave_epoch = 0;     // wavebarriers passed
  uint32_t tick = 0;           // the group's contexts before this one (its work-items' program order)
  bool write = false, atomic = false;
};

// What a context stands for: the group, its barrier counts and its place in the group's order
// (a new context starts at each barrier, wavebarrier, fence and release, so accesses before a
// release are exactly those of earlier contexts).
struct RaceContext {
  int64_t group = 0;
  uint32_t barrier_epoch = 0, global_epoch = 0, wave_epoch = 0;
  uint32_t tick = 0;
};

// Acquire/release (race_checker.cpp): what one work-item's accesses are known to happen before.
// Of a group's accesses, those in global epochs before `epoch_bound` (a barrier with a global
// fence lies between them and the release), and each listed work-item's accesses before its tick.
struct RaceCoverage {
  uint32_t epoch_bound = 0;
  std::vector<std::pair<int32_t, uint32_t>> items;  // (work-item, tick), sorted by work-item
  bool operator==(const RaceCoverage&) const = default;
  // Per group the later epoch bound, per work-item the later tick.
  void join(const RaceCoverage& other);
};
// By group: a vector clock at the granularity the CPU device runs (a group on one thread), as
// runs of consecutive groups with one coverage. Groups that hand knowledge on one to the next (a
// decoupled look-back scan: each group acquires what every earlier group published) have equal
// coverages, so a clock holds a few runs, not one entry per group: joins and copies cost what
// the runs do, not the groups.
class RaceClock {
 public:
  RaceClock() = default;
  RaceClock(int64_t group, RaceCoverage coverage) { runs_.push_back({group, group, std::move(coverage)}); }
  bool empty() const { return runs_.empty(); }
  void clear() { runs_.clear(); }
  size_t runs() const { return runs_.size(); }
  // The coverage of `group`, or null.
  const RaceCoverage* find(int64_t group) const;
  // This clock joined with `other` (RaceCoverage::join per group).
  void join(const RaceClock& other);

 private:
  struct Run {
    int64_t first, last;  // groups first..last
    RaceCoverage coverage;
  };
  std::vector<Run> runs_;  // ascending, disjoint; neighbours with equal coverages merged
};

class RaceLaunch;

}  // namespace rocjit

// Per worker thread of a launch: the group it runs, its barrier counts, its contexts and its
// shared memory's shadow (valid for contexts of the current group, so never reset).
struct rocjit::HostRaceState {
  RaceLaunch* launch = nullptr;
  HostRaceFast fast;  // what the inline checks read
  uint32_t worker = 0;  // index in RaceLaunch::workers_; contexts are (worker + 1) << 40 | n
  int64_t group = -1;
  uint32_t barrier_epoch = 0, global_epoch = 0, wave_epoch = 0;
  uint32_t tick = 0;
  const std::byte* shared = nullptr;  // the worker's shared buffer
  size_t shared_bytes = 0;
  const std::byte* scratch = nullptr;  // where bounds-checked code redirects bad accesses
  std::vector<HostRaceCell> shared_cells;  // by byte offset of an element's first byte
  // Shared memory beyond flat_shared_limit bytes: cells in a map instead (a cell per byte of a
  // 64 MiB group would be 3 GiB).
  static constexpr size_t flat_shared_limit = size_t(1) << 20;
  std::unordered_map<uint32_t, HostRaceCell> shared_map;
  // Per HostKernel::race_shared entry: how many of its first bytes are known to hold writes of the
  // current group (a write of the group stays the group's, so each barrier's scan resumes there).
  std::vector<uint32_t> filled;
  // The contexts this worker made, by number (chunks that never move: other workers decode
  // stamps through them).
  static constexpr unsigned chunk_bits = 14;
  static constexpr size_t chunk_count = size_t(1) << 16;
  std::unique_ptr<std::atomic<RaceContext*>[]> contexts;
  uint64_t context_count = 0;
  // Acquire/release: what the group's work-items all know (joined at barriers with a global
  // fence), what each knows besides since then, what each read with relaxed atomics (a later
  // acquire fence makes it known), and each one's release fence not yet followed by an atomic
  // write (that write then publishes what the fence saw).
  RaceClock group_known;
  std::unordered_map<int32_t, RaceClock> item_known, item_pending, item_fenced;
  ~HostRaceState();
};

namespace rocjit {

// Bit p set: the accesses of array parameter p race with nothing at this launch of `kernel`
// (its HostRaceArray rule holds for the arguments `args` and the launch's sizes), so they go
// unchecked.
uint64_t unchecked_arrays(const HostKernel& kernel, Dim3 grid, Dim3 block, const void* const* args);

class RaceLaunch {
 public:
  RaceLaunch(const HostKernel& kernel, Dim3 grid, Dim3 block, const void* const* args, bool same_value,
             unsigned max_workers);
  ~RaceLaunch();
  // The hooks the JIT'd code calls (HostLaunchContext::race_access / race_sync).
  static void access(HostRaceState* s, int32_t site, const void* address, int64_t group, int32_t item,
                     uint64_t value);
  static void sync(HostRaceState* s, int32_t kind, int64_t group, int32_t item, const void* address);
  // The per-worker state for a worker whose shared buffer and scratch are these.
  // The launch keeps it (other workers decode its contexts until the end).
  HostRaceState* worker(const void* shared, size_t shared_bytes, const void* scratch);
  // After the launch: "" when nothing was found, else one line per pair of sites and a summary.
  std::string report() const;

 private:
  // A site's facts, decided once per launch.
  struct Site {
    bool global = false, write = false, atomic = false, release = false;
    uint32_t bytes = 0, unit = 1;
  };
  static constexpr size_t page_bytes = host_race_page_header + host_race_page_cells * sizeof(HostRaceCell);
  static constexpr size_t leaf_entries = size_t(1) << host_race_leaf_bits;

  void enter_group(HostRaceState& s, int64_t group);
  // At a barrier: HostRaceFast::initialized's bits for the shared arrays now written throughout.
  void note_filled(HostRaceState& s) const;
  void new_context(HostRaceState& s);
  RaceAccess decode(const HostRaceState& s, const HostRaceStamp& stamp, bool global) const;
  std::byte* page(uintptr_t number);
  std::byte* new_page();
  // A context: the launch's serial (bits host_race_launch_shift and up), the worker + 1 (bits 32
  // to 43), its number on the worker.
  static constexpr unsigned context_worker_shift = 32, context_launch_shift = host_race_launch_shift;
  static constexpr size_t arena_bytes = size_t(64) << 20;
  static constexpr size_t pooled_arenas = 64;  // 4 GiB of shadow kept for later launches
  void check(HostRaceState& s, HostRaceCell& cell, const RaceAccess& now, const HostRaceStamp& stamp,
             const void* address, uint64_t value, uint32_t bytes, bool global);
  bool concurrent(const HostRaceState& s, const RaceAccess& a, const RaceAccess& b, bool global) const;
  bool known(const HostRaceState& s, const RaceAccess& earlier, int32_t item) const;
  RaceClock published(HostRaceState& s, int32_t item) const;
  void acquire(HostRaceState& s, int32_t item, uintptr_t location, bool relaxed);
  void release(HostRaceState& s, int32_t item, uintptr_t location, bool relaxed);
  void record(const RaceAccess& first, const RaceAccess& second, const void* address, bool global,
              const HostRaceState& s);
  std::string describe(const RaceAccess& a) const;

  const HostKernel& kernel_;
  Dim3 grid_, block_;
  bool same_value_;
  std::vector<HostAccessSite> sites_;
  std::vector<Site> facts_;
  uint32_t granule_ = 4;  // bytes per global cell: the smallest element a global site accesses, up to 4
  uint32_t granule_shift_ = 2;
  uint64_t unchecked_ = 0;  // unchecked_arrays()
  // The workers' states (contexts name them), at most max_workers_.
  unsigned max_workers_;
  std::unique_ptr<std::atomic<HostRaceState*>[]> workers_;
  std::atomic<unsigned> worker_count_{0};
  // The global shadow: host_race_top_entries pointers to leaves of page pointers (mmap'd, zero
  // until touched); pages come from mmap'd arenas.
  void** top_ = nullptr;
  std::mutex pages_lock_;
  std::vector<std::pair<void*, size_t>> mappings_;  // the tables, unmapped at the end
  std::unordered_map<uintptr_t, std::byte*> far_pages_;  // pages beyond the tables' reach
  std::byte* arena_ = nullptr;
  size_t arena_left_ = 0;
  std::vector<std::byte*> arenas_;  // back to the pool at the end
  uint64_t cycle_ = 0;              // ArenaPool::cycle when the launch began
  uint64_t launch_first_ = 0;       // contexts of this launch are this and above
  // Acquire/release: the clock each atomic location holds (what its releases published).
  std::atomic<bool> synchronises_{false};  // an acquire or release ran: consult the clocks
  std::atomic<bool> released_{false};      // a location holds a clock
  // In shards by location, each under its own lock: a group spinning on one flag (a look-back
  // scan's acquire loop) does not hold up the release of another.
  struct ClockShard {
    std::mutex lock;
    std::unordered_map<uintptr_t, RaceClock> clocks;
  };
  static constexpr size_t clock_shards = 64;
  std::array<ClockShard, clock_shards> clocks_;
  ClockShard& shard(uintptr_t location) { return clocks_[(location >> 2) % clock_shards]; }
  struct Finding {
    uint64_t count = 0;
    std::string text;  // the first instance
  };
  mutable std::mutex findings_lock_;
  std::map<std::tuple<int, int32_t, int32_t>, Finding> findings_;  // (kind, site, site)
};

}  // namespace rocjit
