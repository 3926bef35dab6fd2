// The simulator's race and sync checker (LaunchOptions::check_races), the rules of rocjit's CPU
// checker (runtime/cpu/race_checker.cpp) applied to what the simulator sees: every lane's access
// of every LDS and global byte, and every barrier.
//
// Two accesses to one byte conflict when different work-items (lanes) make them, at least one
// writes, and not both are atomic. They are ordered (no race) when:
//   - LDS: the waves' barrier counts differ (an s_barrier lies between them), or both are lanes
//     of one wave and a wavebarrier() lies between them (rocjit's marker; the wave's count of
//     them differs);
//   - global memory: both are in one work-group and a barrier with a global fence (rocjit's
//     marker before the s_barrier) lies between them, or, in one wave, a wavebarrier().
//   - either: acquire/release orders them, by the CPU checker's rules (docs/debugging.md). A
//     release (an atomic write rocjit marks as release, acq_rel or seq_cst, or any atomic write by
//     a lane after a release fence) publishes, on its location, what the lane's accesses are
//     known to follow: its own earlier accesses (lower instruction numbers of its wave), its
//     group's accesses before the last barrier with a global fence, and what it acquired. An
//     acquire (an atomic read marked acquire, acq_rel or seq_cst, or an acquire fence after
//     relaxed atomic reads) joins the location's clock into the lane's knowledge; a barrier with
//     a global fence shares it with the group. Clocks only grow: read-modify-writes extend a
//     location's release sequence. The clocks are consulted only for pairs nothing else orders,
//     once the launch ran an acquire, release or fence.
// Lanes of one wave in one instruction write at once: two of them writing one byte is a race
// (which value lands is undefined) unless they write the value it already holds.
// Plain writes of the value a byte already holds race harmlessly and are reported only with
// check_same_value. Reads of LDS bytes no lane of the group wrote earlier in the launch are
// findings too.
// Barriers: the waves a barrier releases must all wait at the same s_barrier, and none may have
// ended (ended waves leave the barrier's count on hardware, so the others do not wait for them).
#include "race.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstring>

namespace amdsim {

RaceChecker::RaceChecker(const Program& program, const KernelInfo& kernel, Dim3 grid, Dim3 block, int wave_size,
                         uint32_t lds_bytes, std::span<const uint8_t> kernargs, const Memory& memory, bool same_value)
    : program_(program), kernel_(kernel), grid_(grid), block_(block), wave_size_(wave_size), lds_bytes_(lds_bytes),
      same_value_(same_value) {
  for (const KernelArgument& a : kernel.args) {
    if (a.value_kind != "global_buffer" || a.size != 8 || a.offset + 8 > kernargs.size()) continue;
    uint64_t pointer = 0;
    std::memcpy(&pointer, kernargs.data() + a.offset, 8);
    Buffer b;
    b.name = a.name.empty() ? fmt::format("argument at kernarg offset {}", a.offset) : a.name;
    if (memory.range_of(pointer, b.start, b.size)) {
      // The argument may point inside an allocation: name the bytes from it on.
      b.size -= pointer - b.start;
      b.start = pointer;
      (a.name == "print.buffer" ? unchecked_ : buffers_).push_back(b);
    }
  }
}

RaceChecker::~RaceChecker() = default;

std::unique_ptr<RaceGroupShadow> RaceChecker::group_shadow() {
  {
    std::lock_guard<std::mutex> g(shadows_lock_);
    if (!free_shadows_.empty()) {
      auto s = std::move(free_shadows_.back());
      free_shadows_.pop_back();
      return s;
    }
  }
  auto s = std::make_unique<RaceGroupShadow>();
  s->cells.resize(lds_bytes_);
  return s;
}

void RaceChecker::release_shadow(std::unique_ptr<RaceGroupShadow> s) {
  if (!s) return;
  for (uint32_t offset : s->touched) s->cells[offset] = RaceCell{};
  s->touched.clear();
  s->clear_sync();
  std::lock_guard<std::mutex> g(shadows_lock_);
  free_shadows_.push_back(std::move(s));
}

namespace {

// `into` joined with `from`: per group the later epoch bound, per work-item the later instruction.
void join(RaceClock& into, const RaceClock& from) {
  for (const auto& [group, theirs] : from) {
    RaceCoverage& mine = into[group];
    mine.epoch_bound = std::max(mine.epoch_bound, theirs.epoch_bound);
    for (const auto& [item, inst] : theirs.items) {
      auto it = std::lower_bound(mine.items.begin(), mine.items.end(), std::make_pair(item, uint32_t{0}));
      if (it != mine.items.end() && it->first == item)
        it->second = std::max(it->second, inst);
      else
        mine.items.insert(it, {item, inst});
    }
  }
}

bool covers(const RaceClock& clock, const RaceSide& a) {
  auto it = clock.find(a.group);
  if (it == clock.end()) return false;
  if (a.global < it->second.epoch_bound) return true;
  const auto& items = it->second.items;
  auto at = std::lower_bound(items.begin(), items.end(), std::make_pair(a.item, uint32_t{0}));
  return at != items.end() && at->first == a.item && a.inst < at->second;
}

// A barrier with a global fence: what the group's work-items acquired, the whole group knows.
void share(RaceGroupShadow& sync) {
  for (const auto& [item, clock] : sync.item_known) join(sync.group_known, clock);
  sync.item_known.clear();
}

}  // namespace

static uint16_t lane_item(const Wave& w, int lane) {
  return static_cast<uint16_t>(w.wave_in_group * static_cast<uint32_t>(w.wave_size) + static_cast<uint32_t>(lane));
}

// A release's or acquire's location: the global address, or for LDS the group and byte (LDS
// buffers are reused by later groups, which must not see an earlier group's clocks).
uint64_t RaceChecker::location(const Wave& w, const uint8_t* p) const {
  const uint8_t* lds = w.group->lds.data();
  if (p >= lds && p < lds + w.group->lds.size())
    return uint64_t{1} << 63 | uint64_t{w.group->linear} << 32 | static_cast<uint64_t>(p - lds);
  return reinterpret_cast<uint64_t>(p);
}

// What a release by `item` now publishes: what it knows, its own accesses so far (lower
// instruction numbers of its wave), and its group's before the last barrier with a global fence.
RaceClock RaceChecker::published(const Wave& w, const RaceGroupShadow& sync, uint16_t item) const {
  RaceClock out = sync.group_known;
  if (auto it = sync.item_known.find(item); it != sync.item_known.end()) join(out, it->second);
  RaceCoverage own;
  own.epoch_bound = w.global_epoch;
  own.items.push_back({item, static_cast<uint32_t>(w.instructions)});
  join(out, RaceClock{{w.group->linear, own}});
  return out;
}

void RaceChecker::acquire(RaceGroupShadow& sync, uint16_t item, uint64_t location, bool relaxed) {
  if (!released_.load(std::memory_order_acquire)) return;  // nothing published yet (relaxed-only kernels)
  std::lock_guard<std::mutex> g(clocks_lock_);
  auto it = clocks_.find(location);
  if (it == clocks_.end()) return;
  join(relaxed ? sync.item_pending[item] : sync.item_known[item], it->second);
}

void RaceChecker::before_atomic_write(Wave& w, const uint8_t* p, int lane, bool vector) {
  take_atomic(w, vector);
  RaceGroupShadow& sync = *w.group->race_shadow;
  const uint16_t item = lane_item(w, lane);
  const bool release = w.atomic_inst == w.instructions && (w.atomic_order & race_release);
  RaceClock what;
  if (release) {
    synchronises_.store(true, std::memory_order_relaxed);
    what = published(w, sync, item);
  } else {
    // A relaxed atomic write after a release fence publishes what the fence saw.
    if (sync.item_fenced.empty()) return;
    auto it = sync.item_fenced.find(item);
    if (it == sync.item_fenced.end()) return;
    what = it->second;
  }
  std::lock_guard<std::mutex> g(clocks_lock_);
  join(clocks_[location(w, p)], what);
  released_.store(true, std::memory_order_release);
}

void RaceChecker::marker(Wave& w, uint32_t m0) {
  if (m0 == race_marker_wavebarrier) ++w.wave_epoch;
  else if (m0 == race_marker_global_barrier) w.global_fence_pending = true;
  else if (m0 == race_marker_atomic) w.atomic_pending = true;
  else if (m0 == race_marker_acquire) w.order_pending |= race_acquire;
  else if (m0 == race_marker_release) w.order_pending |= race_release;
  else if (m0 == race_marker_fence_acquire || m0 == race_marker_fence_release) {
    // Every active lane fences: an acquire fence makes what its relaxed atomic reads saw known, a
    // release fence fixes what its later relaxed atomic writes publish (its accesses so far).
    synchronises_.store(true, std::memory_order_relaxed);
    RaceGroupShadow& sync = *w.group->race_shadow;
    for (uint64_t lanes = w.exec(); lanes; lanes &= lanes - 1) {
      const uint16_t item = lane_item(w, std::countr_zero(lanes));
      if (m0 == race_marker_fence_release) {
        sync.item_fenced[item] = published(w, sync, item);
      } else if (auto it = sync.item_pending.find(item); it != sync.item_pending.end()) {
        join(sync.item_known[item], it->second);
        sync.item_pending.erase(it);
      }
    }
  } else if (m0 == race_marker_barrier && w.group->waves == 1) {
    // A group of one wave: LLVM may have dropped the s_barrier, and nothing else differs.
    ++w.barrier_epoch;
    if (w.global_fence_pending) {
      ++w.global_epoch;
      share(*w.group->race_shadow);
    }
    w.global_fence_pending = false;
  }
}

void RaceChecker::access(Wave& w, const Inst& i, const uint8_t* p, uint32_t bytes, int lane, RaceKind kind,
                         const uint8_t* before, bool vector) {
  const uint8_t* lds = w.group->lds.data();
  const bool in_lds = p >= lds && p < lds + w.group->lds.size();
  const auto address = reinterpret_cast<uint64_t>(p);
  if (!in_lds) {
    // Private memory (the wave's scratch) and read-only launch memory cannot race.
    if (p >= w.scratch.data() && p < w.scratch.data() + w.scratch.size()) return;
    for (auto [start, size] : w.launch_ranges)
      if (address >= start && address < start + size) return;
    if (address >= w.code_base() && address < w.code_base() + w.program->image_size()) return;
    for (const Buffer& u : unchecked_)
      if (address >= u.start && address < u.start + u.size) return;
  }
  // The first LDS or global access of a vector memory instruction after the atomic marker.
  if (w.atomic_pending) [[unlikely]] take_atomic(w, vector);
  const RaceKind given = kind;
  if (w.atomic_inst == w.instructions) kind = RaceKind::atomic;
  RaceGroupShadow& sync = *w.group->race_shadow;
  RaceSide now;
  now.pc = static_cast<uint32_t>(w.pc - i.size);
  now.group = w.group->linear;
  now.barrier = w.barrier_epoch;
  now.global = w.global_epoch;
  now.wave_epoch = w.wave_epoch;
  now.inst = static_cast<uint32_t>(w.instructions);
  now.item = lane_item(w, lane);
  now.kind = kind;
  // An atomic read (a load, or an atomic instruction's) acquires after it has read: with rocjit's
  // acquire marker into what the lane knows, relaxed into what a later acquire fence makes known.
  const bool atomic_read = kind == RaceKind::atomic && given != RaceKind::write;
  if (in_lds) {
    RaceGroupShadow& s = sync;
    const auto offset = static_cast<uint32_t>(p - lds);
    for (uint32_t b = 0; b < bytes; ++b) {
      RaceCell& cell = s.cells[offset + b];
      if (cell.write.pc == RaceSide::none && cell.read.pc == RaceSide::none) s.touched.push_back(offset + b);
      check(cell, now, p + b, before ? before + b : nullptr, false, offset + b, sync);
    }
    if (atomic_read) [[unlikely]]
      acquire(sync, now.item, location(w, p), !(w.atomic_inst == w.instructions && (w.atomic_order & race_acquire)));
    return;
  }
  uint32_t b = 0;
  while (b < bytes) {
    const uint64_t at = address + b;
    const uint64_t line = at >> 6;
    Shard& shard = global_[(line ^ (line >> 6)) % global_.size()];
    std::lock_guard<std::mutex> g(shard.lock);
    std::unique_ptr<Line>& l = shard.lines[line];
    if (!l) l = std::make_unique<Line>();
    for (; b < bytes && ((address + b) >> 6) == line; ++b)
      check(l->cells[(address + b) & 63], now, p + b, before ? before + b : nullptr, true, 0, sync);
  }
  if (atomic_read) [[unlikely]]
    acquire(sync, now.item, location(w, p), !(w.atomic_inst == w.instructions && (w.atomic_order & race_acquire)));
}

// Whether acquire/release makes `earlier` happen before the current access of `item`.
bool RaceChecker::known(const RaceGroupShadow& sync, const RaceSide& earlier, uint16_t item) const {
  if (covers(sync.group_known, earlier)) return true;
  auto it = sync.item_known.find(item);
  return it != sync.item_known.end() && covers(it->second, earlier);
}

bool RaceChecker::concurrent(const RaceSide& a, const RaceSide& b, bool global, const RaceGroupShadow& sync) const {
  if (a.pc == RaceSide::none || (a.item == b.item && a.group == b.group)) return false;
  if (a.kind == RaceKind::atomic && b.kind == RaceKind::atomic) return false;
  if (a.kind == RaceKind::read && b.kind == RaceKind::read) return false;
  bool unordered = true;
  if (a.group == b.group) {  // only global memory is shared between groups
    if (global ? a.global != b.global : a.barrier != b.barrier) return false;
    const bool same_wave = a.item / wave_size_ == b.item / wave_size_;
    unordered = !(same_wave && a.wave_epoch != b.wave_epoch);
  }
  if (unordered && synchronises_.load(std::memory_order_relaxed)) return !known(sync, a, b.item);
  return unordered;
}

void RaceChecker::check(RaceCell& cell, const RaceSide& now, const uint8_t* p, const uint8_t* before, bool global,
                        uint32_t lds_offset, const RaceGroupShadow& sync) {
  if (now.kind == RaceKind::read) {
    if (!global && cell.write.pc == RaceSide::none) {
      RaceSide none;
      record(none, now, p, global, lds_offset);  // an LDS byte no lane of the group wrote
    } else if (concurrent(cell.write, now, global, sync)) {
      record(cell.write, now, p, global, lds_offset);
    }
    if (cell.read.pc != RaceSide::none && (cell.read.item != now.item || cell.read.group != now.group))
      cell.other_read = cell.read;
    cell.read = now;
    return;
  }
  if (concurrent(cell.write, now, global, sync)) {
    // A plain write of the byte it replaced races harmlessly unless the same-value setting asks.
    const bool plain = cell.write.kind != RaceKind::atomic && now.kind != RaceKind::atomic;
    const bool same = before && plain && *before == *p;
    if (!same || same_value_) record(cell.write, now, p, global, lds_offset);
  }
  if (concurrent(cell.read, now, global, sync)) record(cell.read, now, p, global, lds_offset);
  else if (concurrent(cell.other_read, now, global, sync)) record(cell.other_read, now, p, global, lds_offset);
  cell.write = now;
}

std::string RaceChecker::site(uint32_t pc) const {
  std::string line = program_.source_line(pc);
  return line.empty() ? fmt::format("PC offset 0x{:x}", pc) : line;
}

std::string RaceChecker::describe(const RaceSide& a) const {
  const char* what = a.kind == RaceKind::read ? "read" : a.kind == RaceKind::write ? "write" : "atomic";
  const uint32_t bx = block_.x, by = block_.y, gx = grid_.x, gy = grid_.y;
  return fmt::format("{} at {} by work-item ({},{},{}) of group ({},{},{}) (wave {}, lane {})", what, site(a.pc),
                     a.item % bx, a.item / bx % by, a.item / (bx * by), a.group % gx, a.group / gx % gy,
                     a.group / (gx * gy), a.item / wave_size_, a.item % wave_size_);
}

std::string RaceChecker::place(const uint8_t* p, bool global, uint32_t lds_offset) const {
  if (!global) {
    // rocjit's layout of the shared arrays (KernelInfo::shared_arrays), or the byte alone.
    for (const SharedArray& a : kernel_.shared_arrays)
      if (lds_offset >= a.offset && lds_offset - a.offset < a.size)
        return fmt::format("shared array '{}' [{}] (byte {} of the group's LDS)", a.name,
                           (lds_offset - a.offset) / a.element_size, lds_offset);
    return fmt::format("shared memory at byte {} of the group's LDS", lds_offset);
  }
  const auto address = reinterpret_cast<uint64_t>(p);
  for (const Buffer& b : buffers_)
    if (address >= b.start && address < b.start + b.size)
      return fmt::format("global array '{}' at address 0x{:x} (its byte {})", b.name, address, address - b.start);
  return fmt::format("global memory at address 0x{:x}", address);
}

void RaceChecker::record(const RaceSide& first, const RaceSide& second, const uint8_t* p, bool global,
                         uint32_t lds_offset) {
  const int kind = first.pc == RaceSide::none ? uninitialized : race;
  // Once per pair of source sites: an unrolled loop's accesses are many instructions of one line.
  const std::string a = first.pc == RaceSide::none ? std::string() : site(first.pc), b = site(second.pc);
  const auto key = std::make_tuple(kind, std::min(a, b), std::max(a, b));
  std::lock_guard<std::mutex> g(findings_lock_);
  Finding& f = findings_[key];
  if (f.count++ > 0) return;
  if (kind == uninitialized) {
    f.text = fmt::format("{}: {} reads an element no work-item of the group wrote before", place(p, global, lds_offset),
                         describe(second));
    return;
  }
  std::string why;
  if (first.group != second.group)
    why = "different work-groups of one launch, not ordered by acquire/release (use atomics, a release and an "
          "acquire between them, or separate launches)";
  else if (first.item / wave_size_ == second.item / wave_size_ && first.inst == second.inst)
    why = "lanes of one wavefront in one instruction, which write at once (which value lands is undefined)";
  else if (first.item / wave_size_ == second.item / wave_size_)
    why = "lanes of one wavefront with no barrier or wavebarrier() between them (rocjit does not promise lockstep)";
  else
    why = global ? "with no barrier with a global fence (CLK_GLOBAL_MEM_FENCE) between them"
                 : "with no barrier between them";
  f.text = fmt::format("{}: {} and {}: {}", place(p, global, lds_offset), describe(first), describe(second), why);
}

void RaceChecker::record_barrier(uint32_t pc_a, uint32_t pc_b, std::string text) {
  std::lock_guard<std::mutex> g(findings_lock_);
  Finding& f = findings_[std::make_tuple(int(divergence), site(pc_a), site(pc_b))];
  if (f.count++ == 0) f.text = std::move(text);
}

void RaceChecker::barrier(std::vector<Wave>& waves) {
  const Wave* first = nullptr;
  for (const Wave& w : waves)
    if (w.status == Wave::Status::at_barrier && !first) first = &w;
  if (!first) return;
  const uint32_t group = first->group->linear, gx = grid_.x, gy = grid_.y;
  auto group_text = [&] { return fmt::format("group ({},{},{})", group % gx, group / gx % gy, group / (gx * gy)); };
  for (const Wave& w : waves) {
    if (w.status == Wave::Status::at_barrier && w.barrier_pc != first->barrier_pc) {
      const auto a = static_cast<uint32_t>(first->barrier_pc), b = static_cast<uint32_t>(w.barrier_pc);
      record_barrier(std::min(a, b), std::max(a, b),
                     fmt::format("waves of {} at different barriers: wave {} at the barrier at {} and wave {} at the "
                                 "barrier at {}: s_barrier counts waves, not sites, so it releases them together",
                                 group_text(), first->wave_in_group, site(a), w.wave_in_group, site(b)));
    } else if (w.status == Wave::Status::ended) {
      const auto a = static_cast<uint32_t>(first->barrier_pc), b = static_cast<uint32_t>(w.end_pc);
      record_barrier(a, b,
                     fmt::format("wave {} of {} waits at the barrier at {} while wave {} ended at {} without reaching "
                                 "it: ended waves leave the barrier's count, so the others do not wait for them",
                                 first->wave_in_group, group_text(), site(a), w.wave_in_group, site(b)));
    }
  }
  if (first->global_fence_pending) share(*first->group->race_shadow);
  for (Wave& w : waves) {
    if (w.status != Wave::Status::at_barrier) continue;
    ++w.barrier_epoch;
    if (w.global_fence_pending) ++w.global_epoch;
    w.global_fence_pending = false;
  }
}

std::string RaceChecker::report() const {
  std::lock_guard<std::mutex> g(findings_lock_);
  std::string out;
  uint64_t total = 0;
  size_t counts[3] = {0, 0, 0};
  for (const auto& [key, f] : findings_) {
    const int kind = std::get<0>(key);
    out += fmt::format("race check: kernel '{}': {} ({} time{})\n", kernel_.name, f.text, f.count,
                       f.count == 1 ? "" : "s");
    total += f.count;
    ++counts[kind];
  }
  if (out.empty()) return {};
  auto plural = [](size_t n) { return n == 1 ? "" : "s"; };
  std::string barriers;
  if (counts[divergence])
    barriers = fmt::format(" and {} barrier divergence{}", counts[divergence], counts[divergence] == 1 ? "" : "s");
  out += fmt::format("race check: kernel '{}': {} race{} and {} uninitialised shared read{} between pairs of "
                     "sites{}, {} instance{} in all (ROCJIT_CHECK=races)",
                     kernel_.name, counts[race], plural(counts[race]), counts[uninitialized],
                     plural(counts[uninitialized]), barriers, total, total == 1 ? "" : "s");
  return out;
}

}  // namespace amdsim
