// Structural and type checks on rocjit IR; the first problem found is thrown as a CompileError.
#pragma once

#include <optional>

#include "rocjit/compiler/ir.hpp"

namespace rocjit::ir {

// Throws rocjit::CompileError naming the kernel, the op's file:line and what is allowed.
// Structure and types only: the compile pipeline (rocjit/compiler/passes.hpp) runs this and then the
// barrier-uniformity rule, which holds for every target.
void verify(const Kernel& kernel);

/// A wave operation (or wavebarrier) that is wave-uniform only because a condition around it is
/// built from local_id(0) / wave_size(): true when the work-group is 1-D or its x extent is a
/// multiple of the wave size, which launches check.
struct WaveRowsAssumption {
  const Op* sync;    ///< the wave operation
  const Op* source;  ///< the local_id(0) / wave_size() its control relies on
};

/// The kernel's first such assumption, if any (the uniformity analysis; throws like it).
std::optional<WaveRowsAssumption> wave_rows_assumption(const Kernel& kernel);

}  // namespace rocjit::ir
