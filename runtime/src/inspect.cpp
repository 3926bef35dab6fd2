// Kernel::llvm_ir / assembly / metadata: a kernel's compiled stages for any target, through
// compile(). Here rather than in the DSL, which records kernels and does not call the compiler.
#include <array>
#include <string>

#include "rocjit/compiler/compile.hpp"
#include "rocjit/runtime/kernel.hpp"
#include "src/backend.hpp"

namespace rocjit {

namespace {

struct Stages {
  bool llvm = false, llvm_opt = false, assembly = false;
};

// One compile for `target` that keeps the requested texts (those always compile afresh; metadata
// alone may come from the kernel cache); the host kernel is not JIT'd.
// Returns {llvm_ir, llvm_ir_optimized, assembly, metadata}.
std::array<std::string, 4> inspect(const std::shared_ptr<const ir::Kernel>& kernel, const Target& target,
                                   Stages stages) {
  CompileOptions o;
  o.emit_llvm_ir = stages.llvm;
  o.emit_llvm_ir_optimized = stages.llvm_opt;
  o.emit_assembly = stages.assembly;
  o.jit = false;  // host: texts and facts only, nothing added to the process's JIT
  // AMDGPU: the version launches with arrays of fewer than 2^31 elements run (32-bit offsets).
  const bool narrow = target.kind == Target::Kind::amdgpu && runtime::has_launch_sized_arrays(*kernel);
  CodeObject co = compile(narrow ? runtime::small_arrays_version(kernel) : kernel, target, o);
  return {std::move(co.llvm_ir), std::move(co.llvm_ir_optimized), std::move(co.assembly), metadata_text(co)};
}

}  // namespace

std::string Kernel::llvm_ir(const Target& target, LlvmStage stage) const {
  const bool optimized = stage == LlvmStage::optimized;
  ir();  // an empty Kernel throws here
  auto texts = inspect(ir_ptr(), target, {.llvm = !optimized, .llvm_opt = optimized});
  return std::move(texts[optimized ? 1 : 0]);
}

std::string Kernel::assembly(const Target& target) const {
  ir();
  return std::move(inspect(ir_ptr(), target, {.assembly = true})[2]);
}

std::string Kernel::metadata(const Target& target) const {
  ir();
  return std::move(inspect(ir_ptr(), target, {})[3]);
}

std::vector<CodeObject> compile_all(std::span<const Kernel> kernels, const Target& target, const CompileOptions& options,
                                    unsigned threads) {
  std::vector<std::shared_ptr<const ir::Kernel>> irs;
  irs.reserve(kernels.size());
  for (const Kernel& k : kernels) {
    k.ir();  // an empty Kernel throws here, as everywhere
    irs.push_back(k.ir_ptr());
  }
  return compile_all(std::span<const std::shared_ptr<const ir::Kernel>>(irs), target, options, threads);
}

}  // namespace rocjit
