#include "targets/amdgpu/address_shape.h"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>

#include <vector>

namespace rocjit::targets::amdgpu {

int merge_split_element_addresses(llvm::Module& module) {
  // The outer GEP of each pair, innermost pairs first (a chain of three merges from the inside).
  std::vector<llvm::GetElementPtrInst*> outer;
  for (llvm::Function& f : module)
    for (llvm::BasicBlock& block : f)
      for (llvm::Instruction& inst : block) {
        auto* gep = llvm::dyn_cast<llvm::GetElementPtrInst>(&inst);
        if (!gep || gep->getNumIndices() != 1 || !gep->isInBounds()) continue;
        auto* inner = llvm::dyn_cast<llvm::GetElementPtrInst>(gep->getPointerOperand());
        if (!inner || inner->getNumIndices() != 1 || !inner->isInBounds() || !inner->hasOneUse() ||
            inner->getSourceElementType() != gep->getSourceElementType() ||
            inner->getOperand(1)->getType() != gep->getOperand(1)->getType() ||
            !inner->getOperand(1)->getType()->isIntegerTy(64))
          continue;
        outer.push_back(gep);
      }
  int merged = 0;
  for (llvm::GetElementPtrInst* gep : outer) {
    auto* inner = llvm::dyn_cast<llvm::GetElementPtrInst>(gep->getPointerOperand());
    if (!inner || !inner->hasOneUse()) continue;
    const bool nuw = inner->hasNoUnsignedWrap() && gep->hasNoUnsignedWrap();
    llvm::IRBuilder<> b(gep);
    llvm::Value* sum = b.CreateAdd(inner->getOperand(1), gep->getOperand(1), "", nuw, false);
    llvm::Value* merged_gep = b.CreateGEP(gep->getSourceElementType(), inner->getPointerOperand(), sum, "",
                                          nuw ? llvm::GEPNoWrapFlags::inBounds() | llvm::GEPNoWrapFlags::noUnsignedWrap()
                                              : llvm::GEPNoWrapFlags::inBounds());
    merged_gep->takeName(gep);
    gep->replaceAllUsesWith(merged_gep);
    gep->eraseFromParent();
    if (inner->use_empty()) inner->eraseFromParent();
    ++merged;
  }
  return merged;
}

}  // namespace rocjit::targets::amdgpu
