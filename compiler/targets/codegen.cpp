// O-level pipeline and object/assembly emission, shared by the targets.
#include "targets/codegen.h"

#include <llvm/Analysis/CGSCCPassManager.h>
#include <llvm/Analysis/LoopAnalysisManager.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/PassManager.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/raw_ostream.h>

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

std::string to_string(const llvm::Module& module) {
  std::string s;
  llvm::raw_string_ostream os(s);
  module.print(os, nullptr);
  return s;
}

}  // namespace rocjit::targets
