// Optimisation and machine-code emission for an LLVM module with a given TargetMachine.
#pragma once

#include <llvm/ADT/SmallVector.h>
#include <llvm/IR/Module.h>
#include <llvm/Target/TargetMachine.h>

#include <functional>
#include <string>

#include "rocjit/settings.hpp"

namespace llvm {
class TargetPassConfig;
}

namespace rocjit::targets {

// Runs the new pass manager's default pipeline at `opt_level` (0..3). `loop_vectorize` enables the
// loop vectoriser, `slp_vectorize` the SLP vectoriser (the host's work-item loops need both; GPU
// kernels are scalar per lane, where they cost compile time for nothing, except that SLP packs
// pairs of 16-bit lanes into v_pk_* instructions).
void optimize(llvm::Module& module, llvm::TargetMachine& tm, int opt_level, bool loop_vectorize, bool slp_vectorize);

// Called with the code-generation pipeline's configuration before its passes are added: where a
// target inserts its own machine passes (TargetPassConfig::insertPass).
using ConfigureCodegen = std::function<void(llvm::TargetPassConfig&)>;

// Emits a relocatable object or assembly text. Codegen may change the module: emit assembly
// from a clone when the object is still needed. With `configure`, the pipeline is the one
// TargetMachine::addPassesToEmitFile builds, plus what `configure` inserts.
llvm::SmallVector<char, 0> emit(llvm::Module& module, llvm::TargetMachine& tm, bool assembly,
                                const ConfigureCodegen& configure = {});

std::string to_string(const llvm::Module& module);

// Called at the start of every compile of `kernel`, with the compile's settings: (1) with
// Settings::tune_malloc, keeps glibc from handing LLVM's memory back to the kernel after each
// compile (once per process; see codegen.cpp) and (2) puts Settings::llvm_args in force as LLVM's
// command-line options (like `-mllvm`) when other ones are; a bad option is a CompileError.
void prepare_compile(const std::string& kernel, const Settings& settings);

// Runs `run` (lld's driver, which resets all of LLVM's command-line options) while no compile reads
// those options, then sets the llvm_args in force again.
void run_resetting_llvm_options(const std::function<void()>& run);

}  // namespace rocjit::targets
