// A wrong-way call (layering test): the DSL calling the compiler, as Kernel::llvm_ir() would if
// it were defined in the DSL rather than the runtime. Must fail to link in the DSL's layer check:
// undefined reference to rocjit::compile.
#include "rocjit/compiler/compile.hpp"
#include "rocjit/dsl/kernel.hpp"

namespace rocjit::layering_test {
std::string llvm_ir_from_dsl(const TracedKernel& kernel) {
  CompileOptions options;
  options.emit_llvm_ir = true;
  options.jit = false;
  return compile(kernel.ir_ptr(), Target::host(), options).llvm_ir;
}
}  // namespace rocjit::layering_test
