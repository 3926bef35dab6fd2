// Helpers the rewriting passes share: computing an op in a wider float type.
#pragma once

#include "rocjit/compiler/visitor.hpp"

namespace rocjit::passes {

// Rewrites `op` (a binary or math op) to compute in `wide`: every operand of op's float result
// type is cast to `wide`, op runs on `wide` into a new value, and a cast back to op's type defines
// op's original result (so no use needs renaming). Operands of other types (ldexp's exponent)
// are left alone. Returns the ops that take op's place, in order.
ir::Mutator::Ops compute_in(ir::Kernel& kernel, ir::Mutator::OpPtr op, ir::Type wide);

}  // namespace rocjit::passes
