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

// The generated entry point: runs groups [begin, end) (linear, x fastest).
using GroupFunction = HostGroupFunction;

}  // namespace rocjit::targets::host
