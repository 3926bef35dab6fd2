// The CPU device's race and sync checker; see race_checker.hpp and the README's "Race checking".
//
// Two accesses to one element conflict when different work-items make them, at least one
// writes, and not both are atomic. They are ordered (no race) when:
//   - shared memory: a barrier of the group lies between them, or both work-items are lanes of
//     one wavefront and a wavebarrier lies between them;
//   - global memory: both are in one work-group and a barrier with a global fence (or, within one
//     wavefront, a wavebarrier) lies between them. Nothing orders the work-groups of a launch.
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

RaceLaunch::RaceLaunch(const HostKernel& kernel, Dim3 grid, Dim3 block, bool same_value)
    : kernel_(kernel), grid_(grid), block_(block), same_value_(same_value) {
  for (size_t i = 0; i < kernel.access_site_count(); ++i) sites_.push_back(kernel.access_site(static_cast<int32_t>(i)));
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
  for (uint32_t offset : s.touched) s.shared_cells[offset] = RaceCell{};
  s.touched.clear();
  s.shared_map.clear();
}

void RaceLaunch::sync(HostRaceState* s, int32_t kind, int64_t group) {
  s->launch->enter_group(*s, group);
  if (kind == 3) {
    s->launch->ordered_by_atomics_.store(true, std::memory_order_relaxed);
    return;
  }
  if (kind == 2) {
    ++s->wave_epoch;
    return;
  }
  ++s->barrier_epoch;
  if (kind == 1) ++s->global_epoch;
}

void RaceLaunch::access(HostRaceState* s, int32_t site, const void* address, int64_t group, int32_t item,
                        uint64_t value) {
  RaceLaunch& l = *s->launch;
  l.enter_group(*s, group);
  const auto* p = static_cast<const std::byte*>(address);
  if (p >= s->scratch && p < s->scratch + 64) return;  // a redirected out-of-bounds access
  if (site < 0 || static_cast<size_t>(site) >= l.sites_.size()) return;  // cannot happen: the table is the code's
  const HostAccessSite& where = l.sites_[static_cast<size_t>(site)];
  RaceAccess now;
  now.site = site;
  now.item = item;
  now.group = group;
  now.barrier_epoch = s->barrier_epoch;
  now.global_epoch = s->global_epoch;
  now.wave_epoch = s->wave_epoch;
  now.write = where.access != "load";
  now.atomic = where.access == "atomic";
  const uint32_t unit = std::max<uint32_t>(1, where.element_bytes);
  for (uint32_t at = 0; at < where.bytes; at += unit) {
    const std::byte* element = p + at;
    if (!where.global && element >= s->shared && element < s->shared + s->shared_bytes) {
      const auto offset = static_cast<uint32_t>(element - s->shared);
      if (s->shared_cells.empty()) {
        l.check(*s, s->shared_map[offset], now, element, value, unit, false);
        continue;
      }
      RaceCell& cell = s->shared_cells[offset];
      if (cell.write.site < 0 && cell.read.site < 0) s->touched.push_back(offset);
      l.check(*s, cell, now, element, value, unit, false);
    } else if (where.global) {
      const auto key = reinterpret_cast<uintptr_t>(element);
      Shard& shard = l.global_[(key >> 6) % l.global_.size()];
      std::lock_guard<std::mutex> g(shard.lock);
      l.check(*s, shard.cells[key], now, element, value, unit, true);
    }
  }
}

bool RaceLaunch::concurrent(const RaceAccess& a, const RaceAccess& b, bool global) const {
  if (a.site < 0 || (a.item == b.item && a.group == b.group)) return false;
  if (a.atomic && b.atomic) return false;
  if (!a.write && !b.write) return false;
  if (a.group != b.group) return true;  // only global memory is shared between groups
  if ((global ? a.global_epoch != b.global_epoch : a.barrier_epoch != b.barrier_epoch)) return false;
  const bool same_wave = a.item / static_cast<int32_t>(host_wave_size) == b.item / static_cast<int32_t>(host_wave_size);
  return !(same_wave && a.wave_epoch != b.wave_epoch);
}

void RaceLaunch::check(HostRaceState& s, RaceCell& cell, const RaceAccess& now, const void* address, uint64_t value,
                       uint32_t bytes, bool global) {
  if (!now.write) {
    if (!global && cell.write.site < 0) {
      RaceAccess none;
      record(none, now, address, global, s);  // a shared element nobody wrote in this group
    } else if (concurrent(cell.write, now, global)) {
      record(cell.write, now, address, global, s);
    }
    if (cell.read.site >= 0 && (cell.read.item != now.item || cell.read.group != now.group)) cell.other_read = cell.read;
    cell.read = now;
    return;
  }
  if (concurrent(cell.write, now, global)) {
    // Two plain writes of the bytes the element already holds race harmlessly (the answer is
    // the same in every order) unless the same-value setting asks for them.
    uint64_t held = 0;
    std::memcpy(&held, address, std::min<uint32_t>(bytes, 8));
    const uint64_t mask = bytes >= 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * bytes)) - 1;
    const bool same = !cell.write.atomic && !now.atomic && (held & mask) == (value & mask);
    if (!same || same_value_) record(cell.write, now, address, global, s);
  }
  if (concurrent(cell.read, now, global)) record(cell.read, now, address, global, s);
  else if (concurrent(cell.other_read, now, global)) record(cell.other_read, now, address, global, s);
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
    why = "different work-groups of one launch, which nothing orders (use atomics, or separate launches)";
  else if (first.item / static_cast<int32_t>(host_wave_size) == second.item / static_cast<int32_t>(host_wave_size))
    why = "lanes of one wavefront with no barrier or wavebarrier() between them (rocjit does not promise lockstep)";
  else
    why = global ? "with no barrier with a global fence (CLK_GLOBAL_MEM_FENCE) between them"
                 : "with no barrier between them";
  f.text = fmt::format("{}: {} and {}: {}", place, describe(first), describe(second), why);
}

std::string RaceLaunch::report() const {
  std::lock_guard<std::mutex> g(findings_lock_);
  // Acquire/release atomics and fences order accesses the checker cannot see ordered (it keeps no
  // vector clocks): in such kernels only reads of unwritten shared memory are reported.
  const bool atomics = ordered_by_atomics_.load(std::memory_order_relaxed);
  size_t hidden = 0;
  for (const auto& [key, f] : findings_) hidden += atomics && std::get<0>(key) == race;
  if (hidden)
    support::log(LogLevel::info, "race check: kernel '{}': {} possible race{} not reported: the kernel orders memory "
                 "with acquire/release atomics or fences, which the checker does not model",
                 kernel_.name(), hidden, hidden == 1 ? "" : "s");
  if (findings_.size() == hidden) return {};
  std::string out;
  uint64_t total = 0;
  size_t races = 0;
  for (const auto& [key, f] : findings_) {
    if (atomics && std::get<0>(key) == race) continue;
    out += fmt::format("race check: kernel '{}': {} ({} time{})\n", kernel_.name(), f.text, f.count,
                       f.count == 1 ? "" : "s");
    total += f.count;
    races += std::get<0>(key) == race;
  }
  out += fmt::format("race check: kernel '{}': {} race{} and {} uninitialised shared read{} between pairs of "
                     "sites, {} instance{} in all (ROCJIT_CHECK=races)",
                     kernel_.name(), races, races == 1 ? "" : "s", findings_.size() - hidden - races,
                     findings_.size() - hidden - races == 1 ? "" : "s", total, total == 1 ? "" : "s");
  return out;
}

}  // namespace rocjit
