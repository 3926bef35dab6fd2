// Which array parameters the CPU device's race checker may leave unchecked (ROCJIT_CHECK=races):
// a proof over the kernel's IR that two work-items of one launch cannot access one element of the
// array, completed at each launch by RaceLaunch, which checks what the IR cannot know (that the
// array shares no byte with another array argument, and the launch's sizes).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "rocjit/compiler/host.hpp"
#include "rocjit/compiler/ir.hpp"

namespace rocjit::passes {

struct RaceFreeArray {
  enum class Rule : uint8_t {
    checked,    // no rule holds
    read_only,  // no site writes it: its reads race with nothing if no written array overlaps it
    one_item,   // every site is a load or store at one index, an injective function of global ids:
                // each element is one work-item's if no other accessed array overlaps it
  };
  Rule rule = Rule::checked;
  bool accessed = false;  // some load, store or atomic names it
  bool written = false;   // some store or atomic writes it
  // one_item: per index position, the group-id dimension and the local-id dimension its
  // component is injective in (the same for global_id(d)), or -1 for a component that is the
  // same for the whole launch, and 0 or C for an id spelled group_id(g) * C + local_id(l) (the
  // launch's work-groups must then have at most C work-items along l, and its largest value must
  // fit in an i32: a wrapped product could repeat one). Components at positions other than the
  // slowest-varying one (C layout: the first; F: the last) are the plain id, whose values the
  // launch must keep below their extent. The launch must have one work-group along every group
  // dimension no position uses, and one work-item along every such local dimension.
  std::vector<int8_t> position_dims;
  std::vector<int8_t> position_locals;
  std::vector<int64_t> position_bounds;
  unsigned slowest_position = 0;
  unsigned lanes = 1;  // one_item: elements per access (a vector access: the last index counts vectors)
};

// Per parameter, by parameter index (scalar parameters: accessed = false).
std::vector<RaceFreeArray> race_free_arrays(const ir::Kernel& kernel);

// The accesses of static shared arrays (loads, stores, and relaxed atomics of kernels without
// acquire or release) that no access of their array by another work-item of the group can conflict
// with between the barriers around them (a conflict: one element, at least one of the two writing,
// not both atomic). Such an access needs no check once the group has written every element of the
// array (a read of an unwritten element is the only finding it could still have), and a read among
// them need not be recorded. Its interval: from the access outwards, backwards and forwards in each
// enclosing region until a barrier at that level (one every work-item passes), an if's other
// branch whole, a For's previous iteration from the end of its body and its next one from its
// start up to a barrier there, a While whole; barriers nested deeper do not divide, and an access
// with a Break, Continue or Return in its interval gets none. It holds for an access when its
// interval has no conflicting access at all (a read where nothing writes the array), or, when the work-group shape is known (`block`),
// when every work-item's elements, computed from the indices for every work-item of the group
// (local ids, the shape, constants and For counters whose bounds are known; enclosing if
// conditions that are known exclude work-items), are no other work-item's in any conflicting
// access of the interval: tree levels `s(t) += s(t + k)` under `t < k`, staging `tile(ty, tx)`,
// Hillis-Steele's `s(t) = v` after a read barrier. Anything unknown counts as a conflict.
std::unordered_set<const ir::Op*> interval_race_free(const ir::Kernel& kernel,
                                                     const std::optional<std::array<int64_t, 3>>& block,
                                                     unsigned wave_size);

// For a work-group shape: the barriers at which the group has surely written every element of
// some static shared arrays, each with those arrays. A store qualifies for the first barrier after
// it (in its region, or after the ifs around it; not out of a loop) when the kernel has no Break,
// Continue or Return and the store's elements, computed for every work-item as interval_race_free
// does but with every For counter unknown (one pass over the store's region) and every if
// condition on the way known, cover the array: `s(t) = 0` over a 256-item group and a 256-element
// `s`, `tile(ty, tx)` in a loop's body before its barrier. The CPU device's race checker marks the
// array filled there (HostRaceFast::initialized) instead of scanning its cells.
std::unordered_map<const ir::Op*, std::vector<ir::MemoryId>> shared_fills(const ir::Kernel& kernel,
                                                                          const std::array<int64_t, 3>& block,
                                                                          unsigned wave_size);

// The stores the CPU device's race checker need not even stamp: of static shared arrays that
// some barrier fills (shared_fills) and whose every access is interval race-free, each store
// whose next barrier (found as shared_fills finds it) fills its array and whose interval holds no
// other access of the array than stores. Nothing reads such a store's stamp: no read shares its
// interval, the array counts as filled from that barrier on (the group's filled bit), and every
// later access of the array is then skipped (reduce's and the tree reductions' staging,
// matmul's tiles).
std::unordered_set<const ir::Op*> unchecked_stores(
    const ir::Kernel& kernel, const std::unordered_set<const ir::Op*>& interval_free,
    const std::unordered_map<const ir::Op*, std::vector<ir::MemoryId>>& fills);

// The three proofs above for one kernel and work-group shape as one analysis: the op index, the
// intervals and the per-work-item elements (with each access's evaluation) are built once and
// shared, and the stores are those of unchecked_stores on the other two results. Without a shape
// (or for more than 4,096 work-items) fills is empty. The host lowering's race checker uses it.
struct RaceProofs {
  std::unordered_set<const ir::Op*> interval_free;                      ///< interval_race_free
  std::unordered_map<const ir::Op*, std::vector<ir::MemoryId>> fills;  ///< shared_fills
  std::unordered_set<const ir::Op*> unstamped;                          ///< unchecked_stores
};
RaceProofs race_proofs(const ir::Kernel& kernel, const std::optional<std::array<int64_t, 3>>& block,
                       unsigned wave_size);

// The table a race-checked host kernel carries for its launches: every accessed array parameter
// with its arguments (kernel ABI), whether it is written, and its rule.
std::vector<HostRaceArray> host_race_arrays(const ir::Kernel& kernel);

}  // namespace rocjit::passes
