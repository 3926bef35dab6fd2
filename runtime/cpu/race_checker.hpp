// The CPU device's race and sync checker (ROCJIT_CHECK=races): kernels compiled with
// CompileOptions::check_races call race_access before each access of shared or global memory and
// race_sync at each barrier (HostLaunchContext); this file keeps the launch's shadow memory and
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
  bool write = false, atomic = false;
};

// The shadow of one element: its last write, its last read, and the last read by another
// work-item than that one.
struct RaceCell {
  RaceAccess write, read, other_read;
};

class RaceLaunch;

}  // namespace rocjit

// Per worker thread of a launch: the group it runs, its barrier counts and its shared memory's
// shadow (reset when the worker moves to another group).
struct rocjit::HostRaceState {
  RaceLaunch* launch = nullptr;
  int64_t group = -1;
  uint32_t barrier_epoch = 0, global_epoch = 0, wave_epoch = 0;
  const std::byte* shared = nullptr;  // the worker's shared buffer
  size_t shared_bytes = 0;
  const std::byte* scratch = nullptr;  // where bounds-checked code redirects bad accesses
  std::vector<RaceCell> shared_cells;  // by byte offset of an element's first byte
  std::vector<uint32_t> touched;       // offsets with a cell in use
  // Shared memory beyond flat_shared_limit bytes: cells in a map instead (a cell per byte of a
  // 64 MiB group would be 6 GiB).
  static constexpr size_t flat_shared_limit = size_t(1) << 20;
  std::unordered_map<uint32_t, RaceCell> shared_map;
};

namespace rocjit {

class RaceLaunch {
 public:
  RaceLaunch(const HostKernel& kernel, Dim3 grid, Dim3 block, bool same_value);
  // The hooks the JIT'd code calls (HostLaunchContext::race_access / race_sync).
  static void access(HostRaceState* s, int32_t site, const void* address, int64_t group, int32_t item,
                     uint64_t value);
  static void sync(HostRaceState* s, int32_t kind, int64_t group);
  // The per-worker state for a worker whose shared buffer and scratch are these.
  std::unique_ptr<HostRaceState> worker(const void* shared, size_t shared_bytes, const void* scratch);
  // After the launch: "" when nothing was found, else one line per pair of sites and a summary.
  std::string report() const;

 private:
  void enter_group(HostRaceState& s, int64_t group);
  void check(HostRaceState& s, RaceCell& cell, const RaceAccess& now, const void* address, uint64_t value,
             uint32_t bytes, bool global);
  bool concurrent(const RaceAccess& a, const RaceAccess& b, bool global) const;
  void record(const RaceAccess& first, const RaceAccess& second, const void* address, bool global,
              const HostRaceState& s);
  std::string describe(const RaceAccess& a) const;

  const HostKernel& kernel_;
  Dim3 grid_, block_;
  bool same_value_;
  std::vector<HostAccessSite> sites_;
  struct Shard {
    std::mutex lock;
    std::unordered_map<uintptr_t, RaceCell> cells;
  };
  std::array<Shard, 64> global_;
  struct Finding {
    uint64_t count = 0;
    std::string text;  // the first instance
  };
  std::atomic<bool> ordered_by_atomics_{false};  // an acquire/release atomic or fence ran
  mutable std::mutex findings_lock_;
  std::map<std::tuple<int, int32_t, int32_t>, Finding> findings_;  // (kind, site, site)
};

}  // namespace rocjit
