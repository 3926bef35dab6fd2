// Rejects barriers that not every work-item of a group is guaranteed to reach.
#pragma once

#include "rocjit/compiler/ir.hpp"

namespace rocjit::passes {

// Throws CompileError when a barrier or wavebarrier sits under an if/for/while whose condition
// depends on a work-item id or on memory contents; the message names the barrier's file:line,
// the divergent condition's file:line and where the divergence comes from.
void check_barrier_uniformity(const ir::Kernel& kernel);

}  // namespace rocjit::passes
