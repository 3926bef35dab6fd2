#include "targets/amdgpu/workarounds.h"

#include <llvm/Analysis/ValueTracking.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/PatternMatch.h>
#include <llvm/Support/KnownBits.h>

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

int guard_or_with_high_ones(llvm::Module& module) {
  using namespace llvm::PatternMatch;
  const llvm::DataLayout& layout = module.getDataLayout();
  auto high_ones = [&](llvm::Value* v) {
    const llvm::KnownBits known = llvm::computeKnownBits(v, layout);
    return known.One.extractBits(32, 32).isAllOnes();
  };
  std::vector<llvm::Instruction*> found;
  for (llvm::Function& f : module)
    for (llvm::BasicBlock& block : f)
      for (llvm::Instruction& inst : block) {
        llvm::Value *a = nullptr, *b = nullptr;
        if (!inst.getType()->isIntegerTy(64) || !match(&inst, m_Or(m_Value(a), m_Value(b)))) continue;
        // Already the rewritten form (or of a zext with the high-half constant): leave it.
        if (match(&inst, m_c_Or(m_ZExt(m_Value()), m_SpecificInt(0xffffffff00000000ull)))) continue;
        if (high_ones(a) || high_ones(b)) found.push_back(&inst);
      }
  for (llvm::Instruction* inst : found) {
    llvm::IRBuilder<> b(inst);
    llvm::Value* low = b.CreateOr(b.CreateTrunc(inst->getOperand(0), b.getInt32Ty()),
                                  b.CreateTrunc(inst->getOperand(1), b.getInt32Ty()));
    llvm::Value* value = b.CreateOr(b.CreateZExt(low, b.getInt64Ty()), b.getInt64(0xffffffff00000000ull));
    value->takeName(inst);
    inst->replaceAllUsesWith(value);
    inst->eraseFromParent();
  }
  return static_cast<int>(found.size());
}

int guard_dynamic_vector_index(llvm::Module& module) {
  std::vector<llvm::Instruction*> found;
  for (llvm::Function& f : module)
    for (llvm::BasicBlock& block : f)
      for (llvm::Instruction& inst : block) {
        llvm::Value* index = nullptr;
        llvm::Type* vector = nullptr;
        if (auto* e = llvm::dyn_cast<llvm::ExtractElementInst>(&inst)) index = e->getIndexOperand(), vector = e->getVectorOperandType();
        else if (auto* i = llvm::dyn_cast<llvm::InsertElementInst>(&inst)) index = i->getOperand(2), vector = i->getType();
        auto* fixed = llvm::dyn_cast_or_null<llvm::FixedVectorType>(vector);
        if (index && fixed && fixed->getNumElements() <= 16 && !llvm::isa<llvm::Constant>(index)) found.push_back(&inst);
      }
  for (llvm::Instruction* inst : found) {
    llvm::IRBuilder<> b(inst);
    auto* type = llvm::cast<llvm::FixedVectorType>(inst->getType()->isVectorTy() ? inst->getType() : inst->getOperand(0)->getType());
    const unsigned lanes = type->getNumElements();
    llvm::Value* v = inst->getOperand(0);
    llvm::Value* index = llvm::isa<llvm::ExtractElementInst>(inst) ? inst->getOperand(1) : inst->getOperand(2);
    auto is_lane = [&](unsigned k) { return b.CreateICmpEQ(index, llvm::ConstantInt::get(index->getType(), k)); };
    llvm::Value* value = nullptr;
    if (llvm::isa<llvm::ExtractElementInst>(inst)) {
      value = b.CreateExtractElement(v, uint64_t{0});
      for (unsigned k = 1; k < lanes; ++k) value = b.CreateSelect(is_lane(k), b.CreateExtractElement(v, uint64_t{k}), value);
    } else {
      llvm::Value* x = inst->getOperand(1);
      value = v;
      for (unsigned k = 0; k < lanes; ++k)
        value = b.CreateInsertElement(value, b.CreateSelect(is_lane(k), x, b.CreateExtractElement(v, uint64_t{k})), uint64_t{k});
    }
    value->takeName(inst);
    inst->replaceAllUsesWith(value);
    inst->eraseFromParent();
  }
  return static_cast<int>(found.size());
}

int guard_mixed_precision_multiply(llvm::Module& module) {
  using namespace llvm::PatternMatch;
  auto from_half = [](llvm::Value* v) {
    auto* ext = llvm::dyn_cast<llvm::FPExtInst>(v);
    return ext && ext->getSrcTy()->getScalarType()->isHalfTy();
  };
  std::vector<llvm::Instruction*> found;
  for (llvm::Function& f : module)
    for (llvm::BasicBlock& block : f)
      for (llvm::Instruction& inst : block) {
        if (inst.getOpcode() != llvm::Instruction::FMul || !inst.getType()->getScalarType()->isFloatTy() ||
            inst.hasNoSignedZeros())
          continue;
        bool next_to_half = from_half(inst.getOperand(0)) || from_half(inst.getOperand(1));
        for (llvm::User* user : inst.users())
          if (auto* trunc = llvm::dyn_cast<llvm::FPTruncInst>(user); trunc && trunc->getDestTy()->getScalarType()->isHalfTy())
            next_to_half = true;
        if (next_to_half) found.push_back(&inst);
      }
  for (llvm::Instruction* inst : found) {
    llvm::IRBuilder<> b(inst);
    b.setFastMathFlags(inst->getFastMathFlags());
    llvm::Value* value = b.CreateIntrinsic(llvm::Intrinsic::fma, {inst->getType()},
                                           {inst->getOperand(0), inst->getOperand(1), llvm::ConstantFP::getNegativeZero(inst->getType())});
    value->takeName(inst);
    inst->replaceAllUsesWith(value);
    inst->eraseFromParent();
  }
  return static_cast<int>(found.size());
}

}  // namespace rocjit::targets::amdgpu
