// A wrong-way include (layering test): a DSL source including a compiler-private header (it exists:
// compiler/passes/uniformity.h), as dsl/src/kernel.cpp once did with passes/pipeline.h. The DSL's
// include path has only public headers, so this must fail to compile.
#include "passes/uniformity.h"

namespace rocjit::layering_test {
void check_from_dsl(const ir::Kernel& kernel) { passes::check_barrier_uniformity(kernel); }
}  // namespace rocjit::layering_test
