// The control of dsl_calls_compiler.cpp and dsl_includes_compiler_private.cpp (layering test):
// the DSL calling the passes through their public header links.
#include "rocjit/compiler/passes.hpp"
#include "rocjit/dsl/kernel.hpp"

namespace rocjit::layering_test {
std::string check_from_dsl(const TracedKernel& kernel) {
  passes::check(kernel.ir());
  return kernel.print();
}
}  // namespace rocjit::layering_test
