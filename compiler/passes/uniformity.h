// Rejects barriers that not every work-item of a group is guaranteed to reach, and wave
// operations that not every lane of a wavefront is.
#pragma once

#include <optional>
#include <unordered_set>

#include "rocjit/compiler/ir.hpp"
#include "rocjit/compiler/verifier.hpp"

namespace rocjit::passes {

struct UniformityInfo {
  // If/For/While ops whose branch or trip count may differ between the work-items of a group.
  // Those that hold wave operations are wave-uniform (the rule); the CPU runs them wave by wave.
  std::unordered_set<const ir::Op*> divergent_control;
  // Set when a wave operation relies on local_id(0) / wave_size() being wave-uniform.
  std::optional<ir::WaveRowsAssumption> wave_rows;
};

// Throws CompileError when a barrier sits under an if/for/while whose condition may differ
// between the work-items of a group (work-item ids, memory contents), when a wave operation or
// wavebarrier sits under one that may differ between the lanes of a wavefront, or when either
// may follow a Return() that not the whole group takes. The message names the op's file:line,
// the divergent condition's file:line and where the divergence comes from.
UniformityInfo analyze_uniformity(const ir::Kernel& kernel);
void check_barrier_uniformity(const ir::Kernel& kernel);

// The uniform(x) ops that every work-item of the group reaches together: no control around them
// differs between work-items, no Return() comes before them, and no loop around them holds one.
// A check there may use barriers.
std::unordered_set<const ir::Op*> group_reached_uniform_ops(const ir::Kernel& kernel);

}  // namespace rocjit::passes
