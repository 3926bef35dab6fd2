// Which array parameters the CPU device's race checker may leave unchecked (ROCJIT_CHECK=races):
// a proof over the kernel's IR that two work-items of one launch cannot access one element of the
// array, completed at each launch by RaceLaunch, which checks what the IR cannot know (that the
// array shares no byte with another array argument, and the launch's sizes).
#pragma once

#include <array>
#include <cstdint>
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

// The loads of shared arrays that share no barrier interval with a store or atomic of their
// array: between the last barrier before them and the first after them (loops taken round,
// barriers under if or in loops not counted as dividing), nothing writes the array (for a
// dynamic shared array: any dynamic shared array, since they all start at one address). Such a read
// can never be part of a race whose other side is a later write, so the checker need not record
// it (it still checks the read itself: an unordered earlier write, an uninitialised element).
// Kernels with Break, Continue or Return near the read get none.
std::unordered_set<const ir::Op*> reads_without_interval_writes(const ir::Kernel& kernel);

// The table a race-checked host kernel carries for its launches: every accessed array parameter
// with its arguments (kernel ABI), whether it is written, and its rule.
std::vector<HostRaceArray> host_race_arrays(const ir::Kernel& kernel);

}  // namespace rocjit::passes
