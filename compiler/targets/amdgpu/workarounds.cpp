#include "targets/amdgpu/workarounds.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/PatternMatch.h>

#include <vector>

namespace rocjit::targets::amdgpu {

int guard_fsub_of_positive_zero(llvm::Module& module) {
  using namespace llvm::PatternMatch;
  std::vector<std::pair<llvm::Instruction*, llvm::Value*>> found;
  for (llvm::Function& f : module)
    for (llvm::BasicBlock& block : f)
      for (llvm::Instruction& inst : block) {
        if (!llvm::isa<llvm::FPMathOperator>(inst) || inst.hasNoSignedZeros()) continue;
        llvm::Value* x = nullptr;
        if (match(&inst, m_FSub(m_PosZeroFP(), m_Value(x))) ||
            match(&inst, m_c_FAdd(m_FNeg(m_Value(x)), m_PosZeroFP())))
          found.emplace_back(&inst, x);
      }
  for (auto [inst, x] : found) {
    llvm::IRBuilder<> b(inst);
    b.setFastMathFlags(inst->getFastMathFlags());
    llvm::Value* zero = llvm::ConstantFP::getZero(x->getType());
    llvm::Value* is_zero = b.CreateFCmpOEQ(x, zero);
    llvm::Value* value = b.CreateSelect(is_zero, zero, b.CreateFNeg(x));
    value->takeName(inst);
    inst->replaceAllUsesWith(value);
    inst->eraseFromParent();
  }
  return static_cast<int>(found.size());
}

}  // namespace rocjit::targets::amdgpu
