// The race and sync checker (LaunchOptions::check_races): a shadow of every LDS and global byte a
// launch touches, fed by the memory instructions' handlers (one call per lane and access), and the
// barrier checks at each barrier release. See race.cpp for the rules.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "inst.h"

namespace amdsim {

// rocjit's markers (mirroring compiler/targets/amdgpu/lower.h, same values): `s_ttracedata` with
// M0 = one of these, emitted only by compiles for race checking. On hardware, and here without
// the checker, the instruction does nothing. (0x524a5703, once "an acquire/release atomic or
// fence", is no longer emitted and is ignored.)
constexpr uint32_t race_marker_wavebarrier = 0x524a5701;     // a wavebarrier(): orders the wave's lanes
constexpr uint32_t race_marker_global_barrier = 0x524a5702;  // the next s_barrier also fences global memory
constexpr uint32_t race_marker_atomic = 0x524a5704;          // the wave's next memory instruction is atomic
constexpr uint32_t race_marker_barrier = 0x524a5705;         // after each s_barrier: in a group of one wave,
                                                             // whose s_barrier LLVM may drop, it is the barrier
constexpr uint32_t race_marker_acquire = 0x524a5706;         // before the atomic marker: the atomic acquires
constexpr uint32_t race_marker_release = 0x524a5707;         // before the atomic marker: the atomic releases
constexpr uint32_t race_marker_fence_acquire = 0x524a5708;   // a fence with acquire order (acq_rel, seq_cst:
constexpr uint32_t race_marker_fence_release = 0x524a5709;   // both markers, acquire first), release order

// Wave::order_pending / atomic_order bits.
constexpr uint8_t race_acquire = 1, race_release = 2;

enum class RaceKind : uint8_t { read, write, atomic };

// One access as the shadow remembers it (pc == none: no access).
struct RaceSide {
  static constexpr uint32_t none = 0xffffffffu;
  uint32_t pc = none;       // the instruction's offset in the program image
  uint32_t group = 0;       // linear work-group number
  uint32_t barrier = 0;     // barriers the wave had passed
  uint32_t global = 0;      // of them, barriers with a global fence
  uint32_t wave_epoch = 0;  // wavebarriers the wave had passed
  uint32_t inst = 0;        // the wave's instruction count: lanes of one instruction share it
  uint16_t item = 0;        // linear work-item id in the group (wave * wave size + lane)
  RaceKind kind = RaceKind::read;
};

// A byte's shadow: its last write, its last read and the last read by another work-item.
struct RaceCell {
  RaceSide write, read, other_read;
};

// What acquire/release makes known to happen before a point: per work-group, its accesses before
// a count of barriers with a global fence (epoch_bound), and per work-item of it its accesses
// before an instruction number (items, sorted by item).
struct RaceCoverage {
  uint32_t epoch_bound = 0;
  std::vector<std::pair<uint16_t, uint32_t>> items;
};
using RaceClock = std::map<uint32_t, RaceCoverage>;  // by linear group

// A work-group's LDS shadow (one cell per byte), reused by later groups, and its acquire/release
// state (only kernels with acquire/release atomics or fences fill it).
struct RaceGroupShadow {
  std::vector<RaceCell> cells;
  std::vector<uint32_t> touched;  // offsets with a cell in use
  RaceClock group_known;          // shared by a barrier with a global fence
  std::unordered_map<uint16_t, RaceClock> item_known;    // acquired by each work-item
  std::unordered_map<uint16_t, RaceClock> item_pending;  // read by relaxed atomics, for an acquire fence
  std::unordered_map<uint16_t, RaceClock> item_fenced;   // published by a release fence, for relaxed writes
  void clear_sync() {
    group_known.clear();
    item_known.clear();
    item_pending.clear();
    item_fenced.clear();
  }
};

class RaceChecker {
 public:
  RaceChecker(const Program& program, const KernelInfo& kernel, Dim3 grid, Dim3 block, int wave_size,
              uint32_t lds_bytes, std::span<const uint8_t> kernargs, const Memory& memory, bool same_value);
  ~RaceChecker();

  // Called by a memory instruction's handler after lane `lane` accessed `bytes` bytes at host
  // address `p` (LDS, global or private memory; private is ignored). `before` holds the bytes a
  // write replaced (null for reads and atomics). `vector`: false for scalar loads, which never
  // take the atomic marker (they may load addresses for the atomic instruction).
  void access(Wave& w, const Inst& i, const uint8_t* p, uint32_t bytes, int lane, RaceKind kind,
              const uint8_t* before, bool vector = true);
  // Before lane `lane`'s atomic write at `p` (the wave's next atomic instruction, or one
  // already taken): a release publishes its clock before another group can read what it writes.
  void before_atomic_write(Wave& w, const uint8_t* p, int lane, bool vector = true);
  // An s_ttracedata: one of rocjit's markers, or nothing.
  void marker(Wave& w, uint32_t m0);
  // Before a barrier releases `waves` (the group's): waves at different barriers, or ended while
  // others wait, are findings; then the waiting waves' barrier counts advance.
  void barrier(std::vector<Wave>& waves);
  std::unique_ptr<RaceGroupShadow> group_shadow();
  void release_shadow(std::unique_ptr<RaceGroupShadow> s);
  // "" when nothing was found, else one line per pair of sites and a summary.
  std::string report() const;

 private:
  enum Kind { race = 0, uninitialized = 1, divergence = 2 };
  void check(RaceCell& cell, const RaceSide& now, const uint8_t* p, const uint8_t* before, bool global,
             uint32_t lds_offset, const RaceGroupShadow& sync);
  bool concurrent(const RaceSide& a, const RaceSide& b, bool global, const RaceGroupShadow& sync) const;
  bool known(const RaceGroupShadow& sync, const RaceSide& earlier, uint16_t item) const;
  // The first LDS or global access of a vector memory instruction after the atomic marker.
  static void take_atomic(Wave& w, bool vector) {
    if (w.atomic_pending && vector) {
      w.atomic_pending = false;
      w.atomic_inst = w.instructions;
      w.atomic_order = w.order_pending;
      w.order_pending = 0;
    }
  }
  uint64_t location(const Wave& w, const uint8_t* p) const;
  RaceClock published(const Wave& w, const RaceGroupShadow& sync, uint16_t item) const;
  void acquire(RaceGroupShadow& sync, uint16_t item, uint64_t location, bool relaxed);
  void record(const RaceSide& first, const RaceSide& second, const uint8_t* p, bool global, uint32_t lds_offset);
  void record_barrier(uint32_t pc_a, uint32_t pc_b, std::string text);
  std::string site(uint32_t pc) const;
  std::string describe(const RaceSide& a) const;
  std::string place(const uint8_t* p, bool global, uint32_t lds_offset) const;

  const Program& program_;
  const KernelInfo& kernel_;
  Dim3 grid_, block_;
  int wave_size_;
  uint32_t lds_bytes_;
  bool same_value_;
  // global_buffer arguments: the allocation each points into, for naming addresses.
  struct Buffer {
    std::string name;
    uint64_t start = 0, size = 0;
  };
  std::vector<Buffer> buffers_;
  std::vector<Buffer> unchecked_;  // rocjit's print buffer (argument "print.buffer"): runtime records
  // Global memory: cells per 64-byte line, in shards by line.
  struct Line {
    std::array<RaceCell, 64> cells;
  };
  struct Shard {
    std::mutex lock;
    std::unordered_map<uint64_t, std::unique_ptr<Line>> lines;
  };
  std::array<Shard, 64> global_;
  std::mutex shadows_lock_;
  std::vector<std::unique_ptr<RaceGroupShadow>> free_shadows_;
  struct Finding {
    uint64_t count = 0;
    std::string text;  // the first instance
  };
  // Acquire/release: set once the launch ran an acquire, release or fence (then pairs nothing
  // else orders consult the clocks), and once something was published.
  std::atomic<bool> synchronises_{false}, released_{false};
  std::mutex clocks_lock_;
  std::unordered_map<uint64_t, RaceClock> clocks_;  // by location: what releases there published
  mutable std::mutex findings_lock_;
  std::map<std::tuple<int, std::string, std::string>, Finding> findings_;  // (kind, file:line, file:line)
};

}  // namespace amdsim

namespace amdsim {

// Around one lane's access in a handler: keeps the bytes a write replaces, then (when the access
// is done) tells the checker. Costs a test of w.race without the checker.
struct RaceScope {
  Wave& w;
  const Inst& i;
  const uint8_t* p;
  uint32_t bytes;
  int lane;
  RaceKind kind;
  uint8_t before[16];
  RaceScope(Wave& w, const Inst& i, const uint8_t* p, uint32_t bytes, int lane, RaceKind kind)
      : w(w), i(i), p(p), bytes(std::min<uint32_t>(bytes, 16)), lane(lane), kind(kind) {
    if (w.race && kind != RaceKind::read) [[unlikely]] {
      if (kind == RaceKind::write) std::memcpy(before, p, this->bytes);
      // An atomic write (an atomic instruction, or the one rocjit's marker names) may release.
      if (kind == RaceKind::atomic || w.atomic_pending || w.atomic_inst == w.instructions)
        w.race->before_atomic_write(w, p, lane);
    }
  }
  ~RaceScope() {
    if (w.race) [[unlikely]] w.race->access(w, i, p, bytes, lane, kind, kind == RaceKind::write ? before : nullptr);
  }
  RaceScope(const RaceScope&) = delete;
  RaceScope& operator=(const RaceScope&) = delete;
};

}  // namespace amdsim
