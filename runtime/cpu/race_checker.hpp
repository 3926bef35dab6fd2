// The CPU device's race and sync checker (ROCJIT_CHECK=races): kernels compiled with
// CompileOptions::check_races call race_access before each access of shared or global memory and
// race_sync at each barrier and fence (HostLaunchContext); this file keeps the launch's shadow memory and
// reports what conflicts. Internal to the runtime.
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

// One access as the shadow memory remembers it.
struct RaceAccess {
  int32_t site = -1;  // -1: none
  int32_t item = 0;   // linear local id
  int64_t group = 0;  // linear group number
  uint32_t barrier_epoch = 0;  // barriers the group had passed
  uint32_t global_epoch = 0;   // of them, barriers with a global fence
  uint32_t wave_epoch = 0;     // wavebarriers passed
  uint32_t tick = 0;           // the group's accesses before this one (its work-items' program order)
  bool write = false, atomic = false;
};

// The shadow of one element: its last write, its last read, and the last read by another
// work-item than that one.
struct RaceCell {
  RaceAccess write, read, other_read;
};

// Acquire/release (race_checker.cpp): what one work-item's accesses are known to happen before.
// Of a group's accesses, those in global epochs before `epoch_bound` (a barrier with a global
// fence lies between them and the release), and each listed work-item's accesses before its tick.
struct RaceCoverage {
  uint32_t epoch_bound = 0;
  std::vector<std::pair<int32_t, uint32_t>> items;  // (work-item, tick), sorted by work-item
};
// By group: a vector clock at the granularity the CPU device runs (a group on one thread).
using RaceClock = std::unordered_map<int64_t, RaceCoverage>;

class RaceLaunch;
struct RacePage;

}  // namespace rocjit

// Per worker thread of a launch: the group it runs, its barrier counts and its shared memory's
// shadow (reset when the worker moves to another group).
struct rocjit::HostRaceState {
  RaceLaunch* launch = nullptr;
  int64_t group = -1;
  uint32_t barrier_epoch = 0, global_epoch = 0, wave_epoch = 0;
  uint32_t tick = 0;
  const std::byte* shared = nullptr;  // the worker's shared buffer
  size_t shared_bytes = 0;
  const std::byte* scratch = nullptr;  // where bounds-checked code redirects bad accesses
  std::vector<RaceCell> shared_cells;  // by byte offset of an element's first byte
  std::vector<uint32_t> touched;       // offsets with a cell in use
  // Shared memory beyond flat_shared_limit bytes: cells in a map instead (a cell per byte of a
  // 64 MiB group would be 6 GiB).
  static constexpr size_t flat_shared_limit = size_t(1) << 20;
  std::unordered_map<uint32_t, RaceCell> shared_map;
  // The global shadow page this worker used last (RaceLaunch::page).
  uintptr_t page_number = ~uintptr_t{0};
  RacePage* page = nullptr;
  // Acquire/release: what the group's work-items all know (joined at barriers with a global
  // fence), what each knows besides since then, what each read with relaxed atomics (a later
  // acquire fence makes it known), and each one's release fence not yet followed by an atomic
  // write (that write then publishes what the fence saw).
  RaceClock group_known;
  std::unordered_map<int32_t, RaceClock> item_known, item_pending, item_fenced;
};

namespace rocjit {

// A page of the global shadow: the cells of page_cells consecutive elements' first bytes
// (RaceLaunch::granule bytes apart); a cell is checked under the lock of its stripe of
// stripe_cells (workers contending for a few hot words, as histogram bins are, rarely share one).
struct RacePage {
  static constexpr size_t stripe_cells = 16;
  std::array<std::mutex, 64> locks;
  std::vector<RaceCell> cells;
};

class RaceLaunch {
 public:
  RaceLaunch(const HostKernel& kernel, Dim3 grid, Dim3 block, bool same_value);
  // The hooks the JIT'd code calls (HostLaunchContext::race_access / race_sync).
  static void access(HostRaceState* s, int32_t site, const void* address, int64_t group, int32_t item,
                     uint64_t value);
  static void sync(HostRaceState* s, int32_t kind, int64_t group, int32_t item, const void* address);
  // The per-worker state for a worker whose shared buffer and scratch are these.
  std::unique_ptr<HostRaceState> worker(const void* shared, size_t shared_bytes, const void* scratch);
  // After the launch: "" when nothing was found, else one line per pair of sites and a summary.
  std::string report() const;

 private:
  // A site's facts, decided once per launch.
  struct Site {
    bool global = false, write = false, atomic = false, release = false;
    uint32_t bytes = 0, unit = 1;
  };
  static constexpr size_t page_cells = 1024;

  void enter_group(HostRaceState& s, int64_t group);
  RacePage& page(HostRaceState& s, uintptr_t address);
  void check(HostRaceState& s, RaceCell& cell, const RaceAccess& now, const void* address, uint64_t value,
             uint32_t bytes, bool global);
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
  std::mutex pages_lock_;
  std::unordered_map<uintptr_t, std::unique_ptr<RacePage>> pages_;
  // Acquire/release: the clock each atomic location holds (what its releases published).
  std::atomic<bool> synchronises_{false};  // an acquire or release ran: consult the clocks
  std::atomic<bool> released_{false};      // a location holds a clock
  std::mutex clocks_lock_;
  std::unordered_map<uintptr_t, RaceClock> clocks_;
  struct Finding {
    uint64_t count = 0;
    std::string text;  // the first instance
  };
  mutable std::mutex findings_lock_;
  std::map<std::tuple<int, int32_t, int32_t>, Finding> findings_;  // (kind, site, site)
};

}  // namespace rocjit
