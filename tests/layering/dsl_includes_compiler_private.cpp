// A wrong-way include (layering test): a DSL source including a compiler-private header, as
// dsl/src/kernel.cpp did (passes/pipeline.h). The DSL's include path has only public headers, so
// this must fail to compile.
#include "passes/pipeline.h"

namespace rocjit::layering_test {
void check_from_dsl(const ir::Kernel& kernel) { passes::check(kernel); }
}  // namespace rocjit::layering_test
