// The block of launch state the JIT'd host code reads; shared by the lowering and the runner.
#pragma once

#include <cstddef>
#include <cstdint>

namespace rocjit::targets::host {

struct BoundsReport;

// One per worker thread per launch. Field offsets are part of the generated code's ABI.
struct LaunchContext {
  int32_t block[3];   // work-items per group
  int32_t grid[3];    // groups per dimension
  void* shared;       // this worker's shared-memory buffer
  void* storage;      // this worker's per-work-item storage
  void (*report)(BoundsReport*, int32_t check, int64_t i0, int64_t i1, int64_t i2);
  BoundsReport* report_state;
  void* scratch;      // where out-of-bounds accesses are redirected
};
static_assert(offsetof(LaunchContext, block) == 0);
static_assert(offsetof(LaunchContext, grid) == 12);
static_assert(offsetof(LaunchContext, shared) == 24);
static_assert(offsetof(LaunchContext, storage) == 32);
static_assert(offsetof(LaunchContext, report) == 40);
static_assert(offsetof(LaunchContext, report_state) == 48);
static_assert(offsetof(LaunchContext, scratch) == 56);

// The generated entry point: runs groups [begin, end) (linear, x fastest).
using GroupFunction = void (*)(const void* const* args, LaunchContext* context, int64_t begin, int64_t end);

}  // namespace rocjit::targets::host
