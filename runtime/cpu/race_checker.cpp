// The CPU device's race and sync checker; see race_checker.hpp and the README's "Race checking".
//
// Two accesses to one element conflict when different work-items make them, at least one
// writes, and not both are atomic. They are ordered (no race) when:
//   - shared memory: a barrier of the group lies between them, or both work-items are lanes of
//     one wavefront and a wavebarrier lies between them;
//   - global memory: both are in one work-group and a barrier with a global fence (or, within one
//     wavefront, a wavebarrier) lies between them;
//   - either: acquire/release orders them. A release (an atomic write with release, acq_rel or
//     seq_cst order, or any atomic write after a release fence) publishes, on its location, what
//     the releasing work-item's accesses are known to follow: its own earlier accesses, its group's
//     accesses before the last barrier with a global fence, and whatever it acquired. An acquire
//     (an atomic read with acquire, acq_rel or seq_cst order, or an acquire fence after relaxed
//     atomic reads) joins the location's published knowledge into the work-item's; a barrier
//     with a global fence shares it with the whole group. Read-modify-writes extend a location's
//     release sequence, so its knowledge accumulates over the launch.
// The CPU runs a group's work-items one after another between barriers, so a kernel that relies
// on lockstep within a wavefront (Numba's warp-synchronous scan) may compute the wrong answer
// there; the checker reports such communication on every device's behalf, since rocjit does not
// promise lockstep anywhere.
#include "cpu/race_checker.hpp"

#include "rocjit/support/log.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

namespace rocjit {
namespace {

enum Kind { race = 0, uninitialized = 1 };

}  // namespace

namespace {

// `into` joined with `from`: per group the later epoch bound, per work-item the later tick.
void join(RaceClock& into, const RaceClock& from) {
  for (const auto& [group, theirs] : from) {
    RaceCoverage& mine = into[group];
    mine.epoch_bound = std::max(mine.epoch_bound, theirs.epoch_bound);
    for (const auto& [item, tick] : theirs.items) {
      auto it = std::lower_bound(mine.items.begin(), mine.items.end(), std::make_pair(item, uint32_t{0}));
      if (it != mine.items.end() && it->first == item)
        it->second = std::max(it->second, tick);
      else
        mine.items.insert(it, {item, tick});
    }
  }
}

bool covers(const RaceClock& clock, const RaceAccess& a) {
  auto it = clock.find(a.group);
  if (it == clock.end()) return false;
  if (a.global_epoch < it->second.epoch_bound) return true;
  auto at = std::lower_bound(it->second.items.begin(), it->second.items.end(), std::make_pair(a.item, uint32_t{0}));
  return at != it->second.items.end() && at->first == a.item && a.tick < at->second;
}

bool releases(ir::MemoryOrder o) {
  return o == ir::MemoryOrder::release || o == ir::MemoryOrder::acq_rel || o == ir::MemoryOrder::seq_cst;
}

}  // namespace

RaceLaunch::RaceLaunch(const HostKernel& kernel, Dim3 grid, Dim3 block, bool same_value)
    : kernel_(kernel), grid_(grid), block_(block), same_value_(same_value) {
  for (size_t i = 0; i < kernel.access_site_count(); ++i) {
    const HostAccessSite site = kernel.access_site(static_cast<int32_t>(i));
    Site f;
    f.global = site.global;
    f.atomic = site.access == "atomic";
    f.write = site.writes;
    f.release = f.atomic && site.writes && releases(site.order);
    f.bytes = site.bytes;
    f.unit = std::max<uint32_t>(1, site.element_bytes);
    if (f.global) granule_ = std::min(granule_, f.unit);
    facts_.push_back(f);
    sites_.push_back(site);
  }
}

std::unique_ptr<HostRaceState> RaceLaunch::worker(const void* shared, size_t shared_bytes, const void* scratch) {
  auto s = std::make_unique<HostRaceState>();
  s->launch = this;
  s->shared = static_cast<const std::byte*>(shared);
  s->shared_bytes = shared_bytes;
  s->scratch = static_cast<const std::byte*>(scratch);
  if (shared_bytes <= HostRaceState::flat_shared_limit) s->shared_cells.resize(shared_bytes);
  return s;
}

void RaceLaunch::enter_group(HostRaceState& s, int64_t group) {
  if (s.group == group) return;
  s.group = group;
  s.barrier_epoch = s.global_epoch = s.wave_epoch = 0;
  s.tick = 0;
  for (uint32_t offset : s.touched) s.shared_cells[offset] = RaceCell{};
  s.touched.clear();
  s.shared_map.clear();
  s.group_known.clear();
  s.item_known.clear();
  s.item_pending.clear();
  s.item_fenced.clear();
}

// What a release by `item` now publishes: what it knows, its own accesses so far, and its
// group's before the last barrier with a global fence.
RaceClock RaceLaunch::published(HostRaceState& s, int32_t item) const {
  RaceClock out = s.group_known;
  if (auto it = s.item_known.find(item); it != s.item_known.end()) join(out, it->second);
  RaceCoverage own;
  own.epoch_bound = s.global_epoch;
  own.items.push_back({item, s.tick});
  join(out, RaceClock{{s.group, own}});
  return out;
}

void RaceLaunch::acquire(HostRaceState& s, int32_t item, uintptr_t location, bool relaxed) {
  if (!released_.load(std::memory_order_acquire)) return;  // nothing published yet (relaxed-only kernels)
  std::lock_guard<std::mutex> g(clocks_lock_);
  auto it = clocks_.find(location);
  if (it == clocks_.end()) return;
  join(relaxed ? s.item_pending[item] : s.item_known[item], it->second);
}

void RaceLaunch::release(HostRaceState& s, int32_t item, uintptr_t location, bool relaxed) {
  RaceClock what;
  if (relaxed) {  // an atomic write after a release fence publishes what the fence saw
    auto it = s.item_fenced.find(item);
    if (it == s.item_fenced.end()) return;
    what = it->second;
  } else {
    what = published(s, item);
  }
  std::lock_guard<std::mutex> g(clocks_lock_);
  join(clocks_[location], what);
  released_.store(true, std::memory_order_release);
}

void RaceLaunch::sync(HostRaceState* s, int32_t kind, int64_t group, int32_t item, const void* address) {
  RaceLaunch& l = *s->launch;
  l.enter_group(*s, group);
  switch (static_cast<HostSync>(kind)) {
    case HostSync::acquired:
      l.synchronises_.store(true, std::memory_order_relaxed);
      [[fallthrough]];
    case HostSync::read_relaxed:
      l.acquire(*s, item, reinterpret_cast<uintptr_t>(address), kind == static_cast<int32_t>(HostSync::read_relaxed));
      return;
    case HostSync::wavebarrier:
      ++s->wave_epoch;
      return;
    case HostSync::barrier_global:
      ++s->global_epoch;
      for (const auto& [i, clock] : s->item_known) join(s->group_known, clock);
      s->item_known.clear();
      [[fallthrough]];
    case HostSync::barrier:
      ++s->barrier_epoch;
      return;
    case HostSync::fence_acquire:
    case HostSync::fence_release:
    case HostSync::fence_acq_rel:
      l.synchronises_.store(true, std::memory_order_relaxed);
      if (kind != static_cast<int32_t>(HostSync::fence_release)) {
        if (auto it = s->item_pending.find(item); it != s->item_pending.end()) {
          join(s->item_known[item], it->second);
          s->item_pending.erase(it);
        }
      }
      if (kind != static_cast<int32_t>(HostSync::fence_acquire)) s->item_fenced[item] = l.published(*s, item);
      return;
  }
}

RacePage& RaceLaunch::page(HostRaceState& s, uintptr_t number) {
  if (s.page_number == number) return *s.page;
  std::lock_guard<std::mutex> g(pages_lock_);
  std::unique_ptr<RacePage>& p = pages_[number];
  if (!p) {
    p = std::make_unique<RacePage>();
    p->cells.resize(page_cells);
  }
  s.page_number = number;
  s.page = p.get();
  return *p;
}

void RaceLaunch::access(HostRaceState* s, int32_t site, const void* address, int64_t group, int32_t item,
                        uint64_t value) {
  RaceLaunch& l = *s->launch;
  l.enter_group(*s, group);
  const auto* p = static_cast<const std::byte*>(address);
  if (p >= s->scratch && p < s->scratch + 64) return;  // a redirected out-of-bounds access
  if (site < 0 || static_cast<size_t>(site) >= l.facts_.size()) return;  // cannot happen: the table is the code's
  const Site& where = l.facts_[static_cast<size_t>(site)];
  RaceAccess now;
  now.site = site;
  now.item = item;
  now.group = group;
  now.barrier_epoch = s->barrier_epoch;
  now.global_epoch = s->global_epoch;
  now.wave_epoch = s->wave_epoch;
  now.tick = s->tick++;
  now.write = where.write;
  now.atomic = where.atomic;
  const auto location = reinterpret_cast<uintptr_t>(address);
  for (uint32_t at = 0; at < where.bytes; at += where.unit) {
    const std::byte* element = p + at;
    if (!where.global && element >= s->shared && element < s->shared + s->shared_bytes) {
      const auto offset = static_cast<uint32_t>(element - s->shared);
      if (s->shared_cells.empty()) {
        l.check(*s, s->shared_map[offset], now, element, value, where.unit, false);
        continue;
      }
      RaceCell& cell = s->shared_cells[offset];
      if (cell.write.site < 0 && cell.read.site < 0) s->touched.push_back(offset);
      l.check(*s, cell, now, element, value, where.unit, false);
    } else if (where.global) {
      const uintptr_t index = reinterpret_cast<uintptr_t>(element) / l.granule_;
      RacePage& page = l.page(*s, index / page_cells);
      const size_t cell = index % page_cells;
      std::lock_guard<std::mutex> g(page.locks[cell / RacePage::stripe_cells]);
      l.check(*s, page.cells[cell], now, element, value, where.unit, true);
    }
  }
  if (where.release || (where.atomic && where.write && !s->item_fenced.empty())) {
    if (where.release) l.synchronises_.store(true, std::memory_order_relaxed);
    l.release(*s, item, location, !where.release);
  }
}

// Whether acquire/release makes `earlier` happen before the current access of `item`.
bool RaceLaunch::known(const HostRaceState& s, const RaceAccess& earlier, int32_t item) const {
  if (covers(s.group_known, earlier)) return true;
  auto it = s.item_known.find(item);
  return it != s.item_known.end() && covers(it->second, earlier);
}

bool RaceLaunch::concurrent(const HostRaceState& s, const RaceAccess& a, const RaceAccess& b, bool global) const {
  if (a.site < 0 || (a.item == b.item && a.group == b.group)) return false;
  if (a.atomic && b.atomic) return false;
  if (!a.write && !b.write) return false;
  bool unordered = true;
  if (a.group == b.group) {  // only global memory is shared between groups
    if ((global ? a.global_epoch != b.global_epoch : a.barrier_epoch != b.barrier_epoch)) return false;
    const bool same_wave = a.item / static_cast<int32_t>(host_wave_size) == b.item / static_cast<int32_t>(host_wave_size);
    unordered = !(same_wave && a.wave_epoch != b.wave_epoch);
  }
  if (unordered && synchronises_.load(std::memory_order_relaxed)) return !known(s, a, b.item);
  return unordered;
}

void RaceLaunch::check(HostRaceState& s, RaceCell& cell, const RaceAccess& now, const void* address, uint64_t value,
                       uint32_t bytes, bool global) {
  if (!now.write) {
    if (!global && cell.write.site < 0) {
      RaceAccess none;
      record(none, now, address, global, s);  // a shared element nobody wrote in this group
    } else if (concurrent(s, cell.write, now, global)) {
      record(cell.write, now, address, global, s);
    }
    if (cell.read.site >= 0 && (cell.read.item != now.item || cell.read.group != now.group)) cell.other_read = cell.read;
    cell.read = now;
    return;
  }
  if (concurrent(s, cell.write, now, global)) {
    // Two plain writes of the bytes the element already holds race harmlessly (the answer is
    // the same in every order) unless the same-value setting asks for them.
    uint64_t held = 0;
    std::memcpy(&held, address, std::min<uint32_t>(bytes, 8));
    const uint64_t mask = bytes >= 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * bytes)) - 1;
    const bool same = !cell.write.atomic && !now.atomic && (held & mask) == (value & mask);
    if (!same || same_value_) record(cell.write, now, address, global, s);
  }
  if (concurrent(s, cell.read, now, global)) record(cell.read, now, address, global, s);
  else if (concurrent(s, cell.other_read, now, global)) record(cell.other_read, now, address, global, s);
  cell.write = now;
}

std::string RaceLaunch::describe(const RaceAccess& a) const {
  const HostAccessSite& site = sites_[static_cast<size_t>(a.site)];
  const int64_t bx = block_.x, by = block_.y;
  const int64_t gx = grid_.x, gy = grid_.y;
  const char* what = site.access == "load" ? "read" : site.access == "store" ? "write" : "atomic";
  return fmt::format("{} at {} by work-item ({},{},{}) of group ({},{},{}) (wave {}, lane {})", what,
                     site.loc.str(), a.item % bx, a.item / bx % by, a.item / (bx * by), a.group % gx,
                     a.group / gx % gy, a.group / (gx * gy), a.item / host_wave_size, a.item % host_wave_size);
}

void RaceLaunch::record(const RaceAccess& first, const RaceAccess& second, const void* address, bool global,
                        const HostRaceState& s) {
  const HostAccessSite& site = sites_[static_cast<size_t>(second.site)];
  const std::string place =
      global ? fmt::format("global array '{}' at address {}", site.array, address)
             : fmt::format("shared array '{}' at byte {} of the group's shared memory", site.array,
                           static_cast<const std::byte*>(address) - s.shared);
  const int kind = first.site < 0 ? uninitialized : race;
  const auto key = std::make_tuple(kind, std::min(first.site, second.site), std::max(first.site, second.site));
  std::lock_guard<std::mutex> g(findings_lock_);
  Finding& f = findings_[key];
  if (f.count++ > 0) return;
  if (kind == uninitialized) {
    f.text = fmt::format("{}: {} reads an element no work-item of the group wrote before", place, describe(second));
    return;
  }
  std::string why;
  if (first.group != second.group)
    why = "different work-groups of one launch, not ordered by acquire/release (use atomics, a release and an "
          "acquire between them, or separate launches)";
  else if (first.item / static_cast<int32_t>(host_wave_size) == second.item / static_cast<int32_t>(host_wave_size))
    why = "lanes of one wavefront with no barrier or wavebarrier() between them (rocjit does not promise lockstep)";
  else
    why = global ? "with no barrier with a global fence (CLK_GLOBAL_MEM_FENCE) between them"
                 : "with no barrier between them";
  f.text = fmt::format("{}: {} and {}: {}", place, describe(first), describe(second), why);
}

std::string RaceLaunch::report() const {
  std::lock_guard<std::mutex> g(findings_lock_);
  if (findings_.empty()) return {};
  std::string out;
  uint64_t total = 0;
  size_t races = 0;
  for (const auto& [key, f] : findings_) {
    out += fmt::format("race check: kernel '{}': {} ({} time{})\n", kernel_.name(), f.text, f.count,
                       f.count == 1 ? "" : "s");
    total += f.count;
    races += std::get<0>(key) == race;
  }
  out += fmt::format("race check: kernel '{}': {} race{} and {} uninitialised shared read{} between pairs of "
                     "sites, {} instance{} in all (ROCJIT_CHECK=races)",
                     kernel_.name(), races, races == 1 ? "" : "s", findings_.size() - races,
                     findings_.size() - races == 1 ? "" : "s", total, total == 1 ? "" : "s");
  return out;
}

}  // namespace rocjit
