// The CPU device's race and sync checker; see race_checker.hpp and the README's "Race checking".
//
// Shadow memory: a 48-byte cell per element (HostRaceCell: three stamps), global cells in pages
// of host_race_page_cells found through a two-level table (mmap'd, NORESERVE, so memory grows
// with the pages touched; the pages' arenas are pooled between launches), shared cells in a flat
// array per worker. A stamp names a context, a
// number per worker thread made at each group, barrier, wavebarrier, fence and release, which
// decodes to the group, its barrier counts and its place in the group's order; shared cells of
// an earlier group's contexts count as empty, so nothing is reset between groups. The JIT'd code
// checks scalar non-atomic accesses inline (compiler/targets/host/lower.cpp, race_inline): when
// each stamp the rules compare with is empty, of the same work-item, or of the same group before
// its last barrier (with a global fence, for global memory), no rule below can report and it
// updates the cell itself; otherwise it calls RaceLaunch::access, which decides as before.
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

#include <sys/mman.h>

#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <optional>
#include <thread>

namespace rocjit {
namespace {

enum Kind { race = 0, uninitialized = 1 };

}  // namespace

namespace {

void join(RaceClock& into, const RaceClock& from) { into.join(from); }

bool covers(const RaceClock& clock, const RaceAccess& a) {
  const RaceCoverage* c = clock.find(a.group);
  if (!c) return false;
  if (a.global_epoch < c->epoch_bound) return true;
  auto at = std::lower_bound(c->items.begin(), c->items.end(), std::make_pair(a.item, uint32_t{0}));
  return at != c->items.end() && at->first == a.item && a.tick < at->second;
}

// Zeroed memory the system provides on first touch (MAP_NORESERVE: only touched pages count).
// Not MADV_HUGEPAGE: first touches of huge pages cost 5 times those of 4 KiB pages on this
// machine (a VM), 11 s a GiB.
void* map_zeroed(size_t bytes) {
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) {
    support::log(LogLevel::error, "race check: cannot map {} bytes of shadow memory", bytes);
    std::abort();
  }
  return p;
}

void unmap(void* p, size_t bytes) { munmap(p, bytes); }

// Shadow arenas kept between launches (first touches of fresh pages cost about 20 times a
// memset of the same bytes here): a launch takes arenas from the pool, and stamps of earlier
// launches in them count as empty (their serial is lower), so nothing is cleared. Serials wrap
// after 2^20 launches; the pool then starts again from fresh memory (`cycle`).
struct ArenaPool {
  std::mutex lock;
  std::vector<std::byte*> free;
  uint64_t cycle = 0;
  uint64_t next_serial = 1;
};
ArenaPool& arena_pool() {
  static ArenaPool* pool = new ArenaPool;  // never destroyed: launches may end during exit
  return *pool;
}

// Context tables kept between launches, with the chunks their earlier workers allocated: a
// worker writes each context before any stamp names it, so nothing is cleared, and a launch that
// makes hundreds of thousands of contexts (a barrier-heavy kernel: several per group) no longer
// pays the page faults of fresh chunks each time.
struct ContextPool {
  std::mutex lock;
  std::vector<std::unique_ptr<std::atomic<RaceContext*>[]>> free;
};
ContextPool& context_pool() {
  static ContextPool* pool = new ContextPool;  // never destroyed: launches may end during exit
  return *pool;
}
constexpr size_t pooled_context_tables = 16;

}  // namespace

namespace {

// The bytes [first, end) an array argument's elements occupy; empty (first == end) for an array
// without elements, nullopt when they cannot be computed.
struct Span {
  uintptr_t first = 0, end = 0;
  bool overlaps(const Span& o) const { return first < o.end && o.first < end; }
};

std::optional<Span> span_of(const HostRaceArray& a, const void* const* args) {
  const auto base = reinterpret_cast<uintptr_t>(*static_cast<void* const*>(args[a.pointer_argument]));
  __int128 low = 0, high = 0;  // element offsets of the first and last element
  for (uint32_t d = 0; d < a.rank; ++d) {
    const int32_t extent = *static_cast<const int32_t*>(args[a.pointer_argument + 1 + d]);
    if (extent <= 0) return Span{base, base};
    if (a.strided) {
      const __int128 reach = (extent - 1) * static_cast<__int128>(
                                                *static_cast<const int64_t*>(args[a.pointer_argument + 1 + a.rank + d]));
      (reach < 0 ? low : high) += reach;
    } else {
      high = (high + 1) * extent - 1;  // C and F: the product of the extents, less one
    }
    if (high > (static_cast<__int128>(1) << 64) || low < -(static_cast<__int128>(1) << 64)) return std::nullopt;
  }
  const __int128 first = base + low * a.element_bytes, end = base + (high + 1) * a.element_bytes;
  if (first < 0 || end > static_cast<__int128>(UINTPTR_MAX)) return std::nullopt;
  return Span{static_cast<uintptr_t>(first), static_cast<uintptr_t>(end)};
}

}  // namespace

uint64_t unchecked_arrays(const HostKernel& kernel, Dim3 grid, Dim3 block, const void* const* args) {
  const std::vector<HostRaceArray>& arrays = kernel.race_arrays();
  std::vector<std::optional<Span>> spans;
  for (const HostRaceArray& a : arrays) spans.push_back(span_of(a, args));
  const int64_t work_items[3] = {block.x, block.y, block.z};
  uint64_t unchecked = 0;
  for (size_t i = 0; i < arrays.size(); ++i) {
    const HostRaceArray& a = arrays[i];
    if (a.rule == HostRaceArray::Rule::checked || a.param < 0 || a.param >= 64 || !spans[i]) continue;
    // read_only: no written array overlaps it; one_item: no other accessed array does.
    bool ok = true;
    for (size_t j = 0; j < arrays.size() && ok; ++j) {
      if (j == i || (a.rule == HostRaceArray::Rule::read_only && !arrays[j].written)) continue;
      ok = spans[j] && !spans[i]->overlaps(*spans[j]);
    }
    if (ok && a.rule == HostRaceArray::Rule::one_item) {
      const int64_t groups[3] = {grid.x, grid.y, grid.z};
      unsigned used = 0, used_locals = 0;
      for (uint32_t p = 0; p < a.position_dims.size() && ok; ++p) {
        const int g = a.position_dims[p], l = a.position_locals.at(p);
        if (g < 0) continue;
        ok = !(used & (1u << g)) && !(used_locals & (1u << l));
        used |= 1u << g;
        used_locals |= 1u << l;
        // One past the largest value of the position's index: global_id(g), or group_id(g) * C +
        // local_id(l), which needs at most C work-items per group along l and no value past
        // 2^31 - 1 (a wrapped 32-bit product could repeat one).
        const int64_t bound = a.position_bounds.at(p);
        const __int128 reach = bound == 0 ? static_cast<__int128>(groups[g]) * work_items[l]
                                          : static_cast<__int128>(groups[g] - 1) * bound + work_items[l];
        if (bound != 0) ok = ok && work_items[l] <= bound && reach - 1 <= INT32_MAX;
        if (p == a.slowest_position) continue;
        // A fast-varying position: its values must not reach past its extent.
        const int32_t extent = *static_cast<const int32_t*>(args[a.pointer_argument + 1 + p]);
        ok = ok && reach * (p + 1 == a.rank ? a.lanes : 1) <= extent;
      }
      for (int d = 0; d < 3 && ok; ++d)
        ok = ((used & (1u << d)) || groups[d] == 1) && ((used_locals & (1u << d)) || work_items[d] == 1);
    }
    if (ok) unchecked |= uint64_t{1} << a.param;
  }
  return unchecked;
}

RaceLaunch::RaceLaunch(const HostKernel& kernel, Dim3 grid, Dim3 block, const void* const* args, bool same_value,
                       unsigned max_workers)
    : kernel_(kernel),
      grid_(grid),
      block_(block),
      same_value_(same_value),
      unchecked_(unchecked_arrays(kernel, grid, block, args)),
      max_workers_(std::max(1u, max_workers)) {
  for (size_t i = 0; i < kernel.access_site_count(); ++i) {
    const HostAccessSite site = kernel.access_site(static_cast<int32_t>(i));
    Site f;
    f.global = site.global;
    f.atomic = site.access == "atomic";
    f.write = site.writes;
    f.release = f.atomic && site.writes && ir::releases(site.order);
    f.bytes = site.bytes;
    f.unit = std::max<uint32_t>(1, site.element_bytes);
    if (f.global) granule_ = std::min(granule_, f.unit);
    facts_.push_back(f);
    sites_.push_back(site);
  }
  granule_ = std::bit_floor(granule_);
  granule_shift_ = static_cast<uint32_t>(std::countr_zero(granule_));
  workers_ = std::make_unique<std::atomic<HostRaceState*>[]>(max_workers_);
  top_ = static_cast<void**>(map_zeroed(host_race_top_entries * sizeof(void*)));
  mappings_.emplace_back(top_, host_race_top_entries * sizeof(void*));
  ArenaPool& pool = arena_pool();
  std::lock_guard<std::mutex> g(pool.lock);
  if (pool.next_serial >= (uint64_t{1} << (64 - context_launch_shift))) {
    for (std::byte* a : pool.free) unmap(a, arena_bytes);
    pool.free.clear();
    ++pool.cycle;
    pool.next_serial = 1;
  }
  cycle_ = pool.cycle;
  launch_first_ = pool.next_serial++ << context_launch_shift;
}

RaceLaunch::~RaceLaunch() {
  for (unsigned i = 0; i < worker_count_.load() && i < max_workers_; ++i) delete workers_[i].load();
  for (auto [p, bytes] : mappings_) unmap(p, bytes);
  ArenaPool& pool = arena_pool();
  std::lock_guard<std::mutex> g(pool.lock);
  for (std::byte* a : arenas_) {
    if (pool.cycle == cycle_ && pool.free.size() < pooled_arenas)
      pool.free.push_back(a);
    else
      unmap(a, arena_bytes);
  }
}

void RaceCoverage::join(const RaceCoverage& other) {
  epoch_bound = std::max(epoch_bound, other.epoch_bound);
  for (const auto& [item, tick] : other.items) {
    auto it = std::lower_bound(items.begin(), items.end(), std::make_pair(item, uint32_t{0}));
    if (it != items.end() && it->first == item)
      it->second = std::max(it->second, tick);
    else
      items.insert(it, {item, tick});
  }
}

const RaceCoverage* RaceClock::find(int64_t group) const {
  auto it = std::upper_bound(runs_.begin(), runs_.end(), group, [](int64_t g, const Run& r) { return g < r.first; });
  if (it == runs_.begin()) return nullptr;
  --it;
  return group <= it->last ? &it->coverage : nullptr;
}

void RaceClock::join(const RaceClock& other) {
  if (other.runs_.empty()) return;
  if (runs_.empty()) {
    runs_ = other.runs_;
    return;
  }
  // Both run lists cut at every run boundary of either: each piece takes the join of the
  // coverages over it (one side's alone where the other has none), then equal neighbours merge.
  std::vector<Run> out;
  auto emit = [&](int64_t first, int64_t last, RaceCoverage coverage) {
    if (!out.empty() && out.back().last + 1 == first && out.back().coverage == coverage)
      out.back().last = last;
    else
      out.push_back({first, last, std::move(coverage)});
  };
  size_t i = 0, j = 0;
  int64_t at_i = runs_[0].first, at_j = other.runs_[0].first;  // where each side's current run resumes
  while (i < runs_.size() || j < other.runs_.size()) {
    const bool has_i = i < runs_.size(), has_j = j < other.runs_.size();
    if (has_i && (!has_j || runs_[i].last < at_j)) {  // mine alone up to its end
      emit(at_i, runs_[i].last, runs_[i].coverage);
      if (++i < runs_.size()) at_i = runs_[i].first;
      continue;
    }
    if (has_j && (!has_i || other.runs_[j].last < at_i)) {  // theirs alone up to its end
      emit(at_j, other.runs_[j].last, other.runs_[j].coverage);
      if (++j < other.runs_.size()) at_j = other.runs_[j].first;
      continue;
    }
    // Both runs reach past the other's start: the part before the later start is one side's.
    if (at_i < at_j) {
      emit(at_i, at_j - 1, runs_[i].coverage);
      at_i = at_j;
      continue;
    }
    if (at_j < at_i) {
      emit(at_j, at_i - 1, other.runs_[j].coverage);
      at_j = at_i;
      continue;
    }
    // Same start: the common part, up to the nearer end.
    const int64_t last = std::min(runs_[i].last, other.runs_[j].last);
    RaceCoverage joined = runs_[i].coverage;
    joined.join(other.runs_[j].coverage);
    emit(at_i, last, std::move(joined));
    at_i = at_j = last + 1;
    if (runs_[i].last == last && ++i < runs_.size()) at_i = runs_[i].first;
    if (other.runs_[j].last == last && ++j < other.runs_.size()) at_j = other.runs_[j].first;
  }
  runs_ = std::move(out);
}

HostRaceState::~HostRaceState() {
  if (!contexts) return;
  {
    ContextPool& pool = context_pool();
    std::lock_guard<std::mutex> g(pool.lock);
    if (pool.free.size() < pooled_context_tables) {
      pool.free.push_back(std::move(contexts));
      return;
    }
  }
  for (size_t i = 0; i < chunk_count; ++i) delete[] contexts[i].load(std::memory_order_relaxed);
}

HostRaceState* RaceLaunch::worker(const void* shared, size_t shared_bytes, const void* scratch) {
  const unsigned index = worker_count_.fetch_add(1);
  if (index >= max_workers_ || index + 1 >= (1u << (context_launch_shift - context_worker_shift))) {
    support::log(LogLevel::error, "race check: more worker threads than the launch can name ({})", max_workers_);
    std::abort();
  }
  auto* s = new HostRaceState();
  s->launch = this;
  s->worker = index;
  s->shared = static_cast<const std::byte*>(shared);
  s->shared_bytes = shared_bytes;
  s->scratch = static_cast<const std::byte*>(scratch);
  {
    ContextPool& pool = context_pool();
    std::lock_guard<std::mutex> g(pool.lock);
    if (!pool.free.empty()) {
      s->contexts = std::move(pool.free.back());
      pool.free.pop_back();
    }
  }
  if (!s->contexts) s->contexts = std::make_unique<std::atomic<RaceContext*>[]>(HostRaceState::chunk_count);
  if (shared_bytes <= HostRaceState::flat_shared_limit) s->shared_cells.resize(shared_bytes);
  s->fast.shared = shared;
  s->fast.shared_cells = s->shared_cells.size();
  s->fast.shared_shadow = s->shared_cells.data();
  s->fast.global_top = top_;
  s->fast.granule_shift = granule_shift_;
  s->fast.unchecked = unchecked_;
  workers_[index].store(s, std::memory_order_release);
  return s;
}

// A new context for the worker's current group, epochs and tick.
void RaceLaunch::new_context(HostRaceState& s) {
  const uint64_t n = ++s.context_count;
  const size_t chunk = n >> HostRaceState::chunk_bits;
  if (chunk >= HostRaceState::chunk_count) {
    support::log(LogLevel::error, "race check: more than {} barriers and fences on one worker thread in one launch",
                 HostRaceState::chunk_count << HostRaceState::chunk_bits);
    std::abort();
  }
  RaceContext* c = s.contexts[chunk].load(std::memory_order_relaxed);
  if (!c) {
    c = new RaceContext[size_t(1) << HostRaceState::chunk_bits];
    s.contexts[chunk].store(c, std::memory_order_release);
  }
  RaceContext& at = c[n & ((uint64_t{1} << HostRaceState::chunk_bits) - 1)];
  at.group = s.group;
  at.barrier_epoch = s.barrier_epoch;
  at.global_epoch = s.global_epoch;
  at.wave_epoch = s.wave_epoch;
  at.tick = s.tick;
  s.fast.context = launch_first_ | (uint64_t{s.worker} + 1) << context_worker_shift | n;
}

void RaceLaunch::enter_group(HostRaceState& s, int64_t group) {
  if (s.group == group) return;
  s.group = group;
  s.barrier_epoch = s.global_epoch = s.wave_epoch = 0;
  s.tick = 0;
  new_context(s);
  s.fast.group_first = s.fast.barrier_floor = s.fast.global_floor = s.fast.context;
  s.fast.initialized = 0;
  s.filled.assign(kernel_.race_shared().size(), 0);
  // (Most kernels never fill these: clear() of an empty map still costs a call per group.)
  for (auto* m : {&s.item_known, &s.item_pending, &s.item_fenced})
    if (!m->empty()) m->clear();
  if (!s.shared_map.empty()) s.shared_map.clear();
  if (!s.group_known.empty()) s.group_known.clear();
}

// Each entry's cells from where the last scan stopped, while they hold writes of this group (the
// flat shadow only: a group with more shared memory keeps its arrays checked).
void RaceLaunch::note_filled(HostRaceState& s) const {
  const std::vector<HostRaceShared>& arrays = kernel_.race_shared();
  for (size_t i = 0; i < arrays.size() && i < 64; ++i) {
    const HostRaceShared& a = arrays[i];
    if ((s.fast.initialized >> i & 1) || uint64_t{a.offset} + a.bytes > s.shared_cells.size()) continue;
    uint32_t& at = s.filled[i];
    while (at < a.bytes && s.shared_cells[a.offset + at].write.context >= s.fast.group_first) at += a.unit;
    if (at >= a.bytes) s.fast.initialized |= uint64_t{1} << i;
  }
}

// A stamp as an access: none for an empty stamp (of an earlier launch, or never written), and in
// shared memory for one of an earlier group.
RaceAccess RaceLaunch::decode(const HostRaceState& s, const HostRaceStamp& stamp, bool global) const {
  RaceAccess a;
  if (stamp.context < launch_first_ || (!global && stamp.context < s.fast.group_first)) return a;
  const uint64_t worker = (stamp.context >> context_worker_shift) & ((uint64_t{1} << (context_launch_shift - context_worker_shift)) - 1);
  const HostRaceState* owner = workers_[worker - 1].load(std::memory_order_acquire);
  const uint64_t n = stamp.context & ((uint64_t{1} << context_worker_shift) - 1);
  const RaceContext& c = owner->contexts[n >> HostRaceState::chunk_bits].load(
      std::memory_order_acquire)[n & ((uint64_t{1} << HostRaceState::chunk_bits) - 1)];
  a.site = stamp.site;
  a.item = stamp.item;
  a.group = c.group;
  a.barrier_epoch = c.barrier_epoch;
  a.global_epoch = c.global_epoch;
  a.wave_epoch = c.wave_epoch;
  a.tick = c.tick;
  const Site& f = facts_[static_cast<size_t>(stamp.site)];
  a.write = f.write;
  a.atomic = f.atomic;
  return a;
}

// What a release by `item` now publishes: what it knows, its own accesses so far, and its
// group's before the last barrier with a global fence.
RaceClock RaceLaunch::published(HostRaceState& s, int32_t item) const {
  RaceClock out = s.group_known;
  if (auto it = s.item_known.find(item); it != s.item_known.end()) join(out, it->second);
  RaceCoverage own;
  own.epoch_bound = s.global_epoch;
  own.items.push_back({item, s.tick});
  join(out, RaceClock(s.group, std::move(own)));
  return out;
}

void RaceLaunch::acquire(HostRaceState& s, int32_t item, uintptr_t location, bool relaxed) {
  if (!released_.load(std::memory_order_acquire)) return;  // nothing published yet (relaxed-only kernels)
  ClockShard& sh = shard(location);
  std::lock_guard<std::mutex> g(sh.lock);
  auto it = sh.clocks.find(location);
  if (it == sh.clocks.end()) return;
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
  ClockShard& sh = shard(location);
  std::lock_guard<std::mutex> g(sh.lock);
  join(sh.clocks[location], what);
  released_.store(true, std::memory_order_release);
}

void RaceLaunch::sync(HostRaceState* s, int32_t kind, int64_t group, int32_t item, const void* address) {
  RaceLaunch& l = *s->launch;
  l.enter_group(*s, group);
  switch (static_cast<HostSync>(kind)) {
    case HostSync::group_begin:
      return;
    case HostSync::acquired:
      l.synchronises_.store(true, std::memory_order_relaxed);
      [[fallthrough]];
    case HostSync::read_relaxed:
      l.acquire(*s, item, reinterpret_cast<uintptr_t>(address), kind == static_cast<int32_t>(HostSync::read_relaxed));
      return;
    case HostSync::wavebarrier:
      ++s->wave_epoch;
      ++s->tick;
      l.new_context(*s);
      return;
    case HostSync::barrier_global:
      ++s->global_epoch;
      for (const auto& [i, clock] : s->item_known) join(s->group_known, clock);
      s->item_known.clear();
      [[fallthrough]];
    case HostSync::barrier:
      ++s->barrier_epoch;
      ++s->tick;
      l.new_context(*s);
      s->fast.barrier_floor = s->fast.context;
      if (kind == static_cast<int32_t>(HostSync::barrier_global)) s->fast.global_floor = s->fast.context;
      l.note_filled(*s);
      return;
    case HostSync::fence_acquire:
    case HostSync::fence_release:
    case HostSync::fence_acq_rel:
      l.synchronises_.store(true, std::memory_order_relaxed);
      // Accesses before the fence are those of earlier contexts (a release covers them by tick).
      ++s->tick;
      l.new_context(*s);
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

// The global shadow page `number` (the cells of granules number * host_race_page_cells and on),
// made on first use.
std::byte* RaceLaunch::page(uintptr_t number) {
  const uintptr_t high = number >> host_race_leaf_bits;
  const uintptr_t low = number & (leaf_entries - 1);
  if (high >= host_race_top_entries) {  // beyond 48-bit addresses: a map (the inline checks call)
    std::lock_guard<std::mutex> g(pages_lock_);
    std::byte*& p = far_pages_[number];
    if (!p) p = new_page();
    return p;
  }
  auto* top = reinterpret_cast<std::atomic<void**>*>(top_);
  void** leaf = top[high].load(std::memory_order_acquire);
  if (leaf) {
    if (void* p = reinterpret_cast<std::atomic<void*>*>(leaf)[low].load(std::memory_order_acquire))
      return static_cast<std::byte*>(p);
  }
  std::lock_guard<std::mutex> g(pages_lock_);
  leaf = top[high].load(std::memory_order_acquire);
  if (!leaf) {
    leaf = static_cast<void**>(map_zeroed(leaf_entries * sizeof(void*)));
    mappings_.emplace_back(leaf, leaf_entries * sizeof(void*));
    top[high].store(leaf, std::memory_order_release);
  }
  auto* slot = reinterpret_cast<std::atomic<void*>*>(leaf) + low;
  if (void* p = slot->load(std::memory_order_acquire)) return static_cast<std::byte*>(p);
  std::byte* p = new_page();
  slot->store(p, std::memory_order_release);
  return p;
}

// A page from the current arena (under pages_lock_): zeroed memory, or a pooled arena's, whose
// stamps are of earlier launches (empty to this one) and whose lock words are free.
std::byte* RaceLaunch::new_page() {
  if (arena_left_ < page_bytes) {
    arena_ = nullptr;
    {
      ArenaPool& pool = arena_pool();
      std::lock_guard<std::mutex> g(pool.lock);
      if (!pool.free.empty() && pool.cycle == cycle_) {
        arena_ = pool.free.back();
        pool.free.pop_back();
      }
    }
    if (!arena_) arena_ = static_cast<std::byte*>(map_zeroed(arena_bytes));
    arena_left_ = arena_bytes;
    arenas_.push_back(arena_);
  }
  std::byte* p = arena_;
  arena_ += page_bytes;
  arena_left_ -= page_bytes;
  return p;
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
  now.tick = s->tick;
  now.write = where.write;
  now.atomic = where.atomic;
  const HostRaceStamp stamp{s->fast.context, item, site};
  const auto location = reinterpret_cast<uintptr_t>(address);
  for (uint32_t at = 0; at < where.bytes; at += where.unit) {
    const std::byte* element = p + at;
    if (!where.global && element >= s->shared && element < s->shared + s->shared_bytes) {
      const auto offset = static_cast<uint32_t>(element - s->shared);
      HostRaceCell& cell = s->shared_cells.empty() ? s->shared_map[offset] : s->shared_cells[offset];
      l.check(*s, cell, now, stamp, element, value, where.unit, false);
    } else if (where.global) {
      const uintptr_t index = reinterpret_cast<uintptr_t>(element) >> l.granule_shift_;
      std::byte* page = l.page(index / host_race_page_cells);
      const size_t cell = index % host_race_page_cells;
      auto* lock = reinterpret_cast<std::atomic<uint32_t>*>(page) + cell / host_race_lock_cells;
      while (lock->exchange(1, std::memory_order_acquire) != 0)
        while (lock->load(std::memory_order_relaxed) != 0) std::this_thread::yield();
      l.check(*s, reinterpret_cast<HostRaceCell*>(page + host_race_page_header)[cell], now, stamp, element, value,
              where.unit, true);
      lock->store(0, std::memory_order_release);
    }
  }
  if (where.release || (where.atomic && where.write && !s->item_fenced.empty())) {
    if (where.release) {
      l.synchronises_.store(true, std::memory_order_relaxed);
      // Later accesses of the group are not covered by what this release publishes.
      ++s->tick;
      l.new_context(*s);
    }
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

// The full check of one cell (the inline checks took none of the cases that report here).
void RaceLaunch::check(HostRaceState& s, HostRaceCell& cell, const RaceAccess& now, const HostRaceStamp& stamp,
                       const void* address, uint64_t value, uint32_t bytes, bool global) {
  const RaceAccess written = decode(s, cell.write, global);
  const RaceAccess read = decode(s, cell.read, global);
  if (!now.write) {
    if (!global && written.site < 0) {
      RaceAccess none;
      record(none, now, address, global, s);  // a shared element nobody wrote in this group
    } else if (concurrent(s, written, now, global)) {
      record(written, now, address, global, s);
    }
    if (read.site >= 0 && (read.item != now.item || read.group != now.group)) cell.other_read = cell.read;
    cell.read = stamp;
    return;
  }
  if (concurrent(s, written, now, global)) {
    // Two plain writes of the bytes the element already holds race harmlessly (the answer is
    // the same in every order) unless the same-value setting asks for them.
    uint64_t held = 0;
    std::memcpy(&held, address, std::min<uint32_t>(bytes, 8));
    const uint64_t mask = bytes >= 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * bytes)) - 1;
    const bool same = !written.atomic && !now.atomic && (held & mask) == (value & mask);
    if (!same || same_value_) record(written, now, address, global, s);
  }
  if (concurrent(s, read, now, global)) {
    record(read, now, address, global, s);
  } else {
    const RaceAccess other = decode(s, cell.other_read, global);
    if (concurrent(s, other, now, global)) record(other, now, address, global, s);
  }
  cell.write = stamp;
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
