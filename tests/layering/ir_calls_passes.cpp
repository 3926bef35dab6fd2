// A wrong-way call (layering test): the IR layer calling the passes layer above it, as the
// reference interpreter and the parser did before they moved to the passes layer. Must fail to
// link in the IR's layer check: undefined reference to rocjit::passes::check.
#include "rocjit/compiler/ir.hpp"
#include "rocjit/compiler/passes.hpp"

namespace rocjit::layering_test {
void check_from_ir(const ir::Kernel& kernel) { passes::check(kernel); }
}  // namespace rocjit::layering_test
