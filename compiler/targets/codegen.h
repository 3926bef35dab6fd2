// Optimisation and machine-code emission for an LLVM module with a given TargetMachine.
#pragma once

#include <llvm/ADT/SmallVector.h>
#include <llvm/IR/Module.h>
#include <llvm/Target/TargetMachine.h>

#include <string>

namespace rocjit::targets {

// Runs the new pass manager's default pipeline at `opt_level` (0..3). `vectorize` enables the
// loop and SLP vectorisers (the host's work-item loops need them; GPU kernels are scalar per
// lane, where they cost compile time for nothing).
void optimize(llvm::Module& module, llvm::TargetMachine& tm, int opt_level, bool vectorize);

// Emits a relocatable object or assembly text. Codegen may change the module: emit assembly
// from a clone when the object is still needed.
llvm::SmallVector<char, 0> emit(llvm::Module& module, llvm::TargetMachine& tm, bool assembly);

std::string to_string(const llvm::Module& module);

// Called at the start of every compile; the first call keeps glibc from handing LLVM's memory
// back to the kernel after each compile (see codegen.cpp). No-op with ROCJIT_MALLOC_TUNING=0, when
// the process already tunes malloc through the environment, or without glibc.
void keep_compile_memory();

}  // namespace rocjit::targets
