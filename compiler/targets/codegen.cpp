// O-level pipeline and object/assembly emission, shared by the targets.
#include "targets/codegen.h"

#include <llvm/Analysis/CGSCCPassManager.h>
#include <llvm/Analysis/LoopAnalysisManager.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/PassManager.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/raw_ostream.h>

#include <cstdlib>
#include <cstring>
#include <mutex>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "rocjit/compiler/error.hpp"

namespace rocjit::targets {

void optimize(llvm::Module& module, llvm::TargetMachine& tm, int opt_level, bool vectorize) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PipelineTuningOptions tuning;
  tuning.LoopVectorization = vectorize && opt_level >= 2;
  tuning.SLPVectorization = vectorize && opt_level >= 2;
  llvm::PassBuilder pb(&tm, tuning);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager mpm;
  switch (opt_level) {
    case 0: mpm = pb.buildO0DefaultPipeline(llvm::OptimizationLevel::O0); break;
    case 1: mpm = pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O1); break;
    case 2: mpm = pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O2); break;
    default: mpm = pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3); break;
  }
  mpm.run(module, mam);
}

llvm::SmallVector<char, 0> emit(llvm::Module& module, llvm::TargetMachine& tm, bool assembly) {
  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream stream(buffer);
  llvm::legacy::PassManager pm;
  if (tm.addPassesToEmitFile(pm, stream, nullptr,
                           assembly ? llvm::CodeGenFileType::AssemblyFile : llvm::CodeGenFileType::ObjectFile))
    throw CompileError("this LLVM cannot emit code for " + tm.getTargetTriple().str());
  pm.run(module);
  return buffer;
}

// Every compile builds and frees a few MiB of LLVM data structures, many blocks above glibc's
// 128 KiB mmap threshold. By default glibc returns such memory to the kernel (munmap, and trimming
// the heap top beyond 128 KiB), so the next compile page-faults it all back in: ~850 faults per
// compile, measured as 3.4 ms vs 13.5 ms of codegen for saxpy on this VM (bench-compile --phases,
// perf stat -e page-faults). Blocks up to 1 MiB now come from the heap, and up to 8 MiB of free
// heap top is kept.
void keep_compile_memory() {
  static std::once_flag once;
  std::call_once(once, [] {
#if defined(__GLIBC__)
    const char* off = std::getenv("ROCJIT_MALLOC_TUNING");
    if (off && std::strcmp(off, "0") == 0) return;
    const char* tunables = std::getenv("GLIBC_TUNABLES");
    if (tunables && std::strstr(tunables, "glibc.malloc.")) return;
    for (const char* v : {"MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_", "MALLOC_TOP_PAD_"})
      if (std::getenv(v)) return;
    mallopt(M_MMAP_THRESHOLD, 1 << 20);
    mallopt(M_TRIM_THRESHOLD, 8 << 20);
#endif
  });
}

std::string to_string(const llvm::Module& module) {
  std::string s;
  llvm::raw_string_ostream os(s);
  module.print(os, nullptr);
  return s;
}

}  // namespace rocjit::targets
