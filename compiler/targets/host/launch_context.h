// The launch state the JIT'd host code reads (HostLaunchContext, public in host.hpp, because the
// runtime's runner fills it): its field offsets are part of the generated code's ABI.
#pragma once

#include <cstddef>
#include <cstdint>

#include "rocjit/compiler/host.hpp"

namespace rocjit::targets::host {

using LaunchContext = HostLaunchContext;
static_assert(offsetof(LaunchContext, block) == 0);
static_assert(offsetof(LaunchContext, grid) == 12);
static_assert(offsetof(LaunchContext, shared) == 24);
static_assert(offsetof(LaunchContext, storage) == 32);
static_assert(offsetof(LaunchContext, report) == 40);
static_assert(offsetof(LaunchContext, report_state) == 48);
static_assert(offsetof(LaunchContext, scratch) == 56);
static_assert(offsetof(LaunchContext, race_access) == 64);
static_assert(offsetof(LaunchContext, race_sync) == 72);
static_assert(offsetof(LaunchContext, race_state) == 80);
static_assert(offsetof(LaunchContext, race_fast) == 88);
// The inline race checks' view of the shadow (race_checker.cpp keeps it).
static_assert(sizeof(HostRaceStamp) == 16 && offsetof(HostRaceStamp, item) == 8 && offsetof(HostRaceStamp, site) == 12);
static_assert(sizeof(HostRaceCell) == 48 && offsetof(HostRaceCell, read) == 16 && offsetof(HostRaceCell, other_read) == 32);
static_assert(offsetof(HostRaceFast, context) == 0);
static_assert(offsetof(HostRaceFast, group_first) == 8);
static_assert(offsetof(HostRaceFast, barrier_floor) == 16);
static_assert(offsetof(HostRaceFast, global_floor) == 24);
static_assert(offsetof(HostRaceFast, shared) == 32);
static_assert(offsetof(HostRaceFast, shared_cells) == 40);
static_assert(offsetof(HostRaceFast, shared_shadow) == 48);
static_assert(offsetof(HostRaceFast, global_top) == 56);
static_assert(offsetof(HostRaceFast, granule_shift) == 64);

// The generated entry point: runs groups [begin, end) (linear, x fastest).
using GroupFunction = HostGroupFunction;

}  // namespace rocjit::targets::host
