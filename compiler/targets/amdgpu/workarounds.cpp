#include "targets/amdgpu/workarounds.h"

#include <llvm/Analysis/TargetTransformInfo.h>
#include <llvm/Analysis/ValueTracking.h>
#include <llvm/CodeGen/MachineFunctionPass.h>
#include <llvm/CodeGen/Passes.h>
#include <llvm/CodeGen/TargetInstrInfo.h>
#include <llvm/CodeGen/TargetSubtargetInfo.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/PatternMatch.h>
#include <llvm/Transforms/Utils.h>
#include <llvm/Support/KnownBits.h>

#include "rocjit/workarounds.hpp"

#include <memory>
#include <mutex>
#include <vector>

namespace rocjit::targets::amdgpu {

namespace {

// Replaces every instruction `pick` accepts by the value `rewrite` builds in front of it (which
// takes its name). Instructions are collected first, so a rewrite never sees another's output.
template <class Pick, class Rewrite>
int replace_each(llvm::Module& module, Pick&& pick, Rewrite&& rewrite) {
  std::vector<llvm::Instruction*> found;
  for (llvm::Function& f : module)
    for (llvm::BasicBlock& block : f)
      for (llvm::Instruction& inst : block)
        if (pick(inst)) found.push_back(&inst);
  for (llvm::Instruction* inst : found) {
    llvm::IRBuilder<> b(inst);
    if (llvm::isa<llvm::FPMathOperator>(inst)) b.setFastMathFlags(inst->getFastMathFlags());
    llvm::Value* value = rewrite(b, *inst);
    value->takeName(inst);
    inst->replaceAllUsesWith(value);
    inst->eraseFromParent();
  }
  return static_cast<int>(found.size());
}

}  // namespace

int guard_fsub_of_positive_zero(llvm::Module& module) {
  using namespace llvm::PatternMatch;
  // x of `+0.0 - x` or `-x + +0.0`, or nullptr.
  auto subtracted = [](llvm::Instruction& inst) -> llvm::Value* {
    llvm::Value* x = nullptr;
    if (!llvm::isa<llvm::FPMathOperator>(inst) || inst.hasNoSignedZeros()) return nullptr;
    if (match(&inst, m_FSub(m_PosZeroFP(), m_Value(x))) || match(&inst, m_c_FAdd(m_FNeg(m_Value(x)), m_PosZeroFP())))
      return x;
    return nullptr;
  };
  return replace_each(
      module, [&](llvm::Instruction& inst) { return subtracted(inst) != nullptr; },
      [&](llvm::IRBuilder<>& b, llvm::Instruction& inst) {
        llvm::Value* x = subtracted(inst);
        llvm::Value* zero = llvm::ConstantFP::getZero(x->getType());
        llvm::Value* is_zero = b.CreateFCmpOEQ(x, zero);
        return b.CreateSelect(is_zero, zero, b.CreateFNeg(x));
      });
}

int guard_or_with_half_ones(llvm::Module& module) {
  using namespace llvm::PatternMatch;
  const llvm::DataLayout& layout = module.getDataLayout();
  // Which half of an operand of `or i64 a, b` is known to be all ones: 1 the high, 0 the low, -1
  // neither (the high one wins when both are: the rewrite below then makes the low half -1 too).
  auto ones_half = [&](llvm::Instruction& inst) {
    const llvm::KnownBits a = llvm::computeKnownBits(inst.getOperand(0), layout);
    const llvm::KnownBits b = llvm::computeKnownBits(inst.getOperand(1), layout);
    auto all_ones = [&](unsigned from) {
      return a.One.extractBits(32, from).isAllOnes() || b.One.extractBits(32, from).isAllOnes();
    };
    return all_ones(32) ? 1 : all_ones(0) ? 0 : -1;
  };
  return replace_each(
      module,
      [&](llvm::Instruction& inst) {
        if (!inst.getType()->isIntegerTy(64) || !match(&inst, m_Or(m_Value(), m_Value()))) return false;
        // Already a rewritten form (a half made of a zext, the other half a constant): leave it.
        if (match(&inst, m_c_Or(m_ZExt(m_Value()), m_SpecificInt(0xffffffff00000000ull))) ||
            match(&inst, m_c_Or(m_Shl(m_ZExt(m_Value()), m_SpecificInt(32)), m_SpecificInt(0xffffffffull))))
          return false;
        return ones_half(inst) >= 0;
      },
      [&](llvm::IRBuilder<>& b, llvm::Instruction& inst) {
        llvm::Value* x = inst.getOperand(0);
        llvm::Value* y = inst.getOperand(1);
        if (ones_half(inst) == 1) {
          llvm::Value* low = b.CreateOr(b.CreateTrunc(x, b.getInt32Ty()), b.CreateTrunc(y, b.getInt32Ty()));
          return b.CreateOr(b.CreateZExt(low, b.getInt64Ty()), b.getInt64(0xffffffff00000000ull));
        }
        auto high = [&](llvm::Value* v) { return b.CreateTrunc(b.CreateLShr(v, 32), b.getInt32Ty()); };
        llvm::Value* hi = b.CreateZExt(b.CreateOr(high(x), high(y)), b.getInt64Ty());
        return b.CreateOr(b.CreateShl(hi, 32), b.getInt64(0xffffffffull));
      });
}

int guard_dynamic_vector_index(llvm::Module& module) {
  // The vector an insertelement or extractelement works on, when its index is not a constant
  // and it has at most 16 lanes; else nullptr.
  auto dynamic = [](llvm::Instruction& inst) -> llvm::FixedVectorType* {
    const bool extract = llvm::isa<llvm::ExtractElementInst>(inst);
    if (!extract && !llvm::isa<llvm::InsertElementInst>(inst)) return nullptr;
    auto* type = llvm::dyn_cast<llvm::FixedVectorType>(inst.getOperand(0)->getType());
    llvm::Value* index = inst.getOperand(extract ? 1 : 2);
    return type && type->getNumElements() <= 16 && !llvm::isa<llvm::Constant>(index) ? type : nullptr;
  };
  return replace_each(
      module, [&](llvm::Instruction& inst) { return dynamic(inst) != nullptr; },
      [&](llvm::IRBuilder<>& b, llvm::Instruction& inst) {
        const unsigned lanes = dynamic(inst)->getNumElements();
        const bool extract = llvm::isa<llvm::ExtractElementInst>(inst);
        llvm::Value* v = inst.getOperand(0);
        llvm::Value* index = inst.getOperand(extract ? 1 : 2);
        auto is_lane = [&](unsigned k) { return b.CreateICmpEQ(index, llvm::ConstantInt::get(index->getType(), k)); };
        llvm::Value* value = nullptr;
        if (extract) {
          value = b.CreateExtractElement(v, uint64_t{0});
          for (unsigned k = 1; k < lanes; ++k) value = b.CreateSelect(is_lane(k), b.CreateExtractElement(v, uint64_t{k}), value);
        } else {
          llvm::Value* x = inst.getOperand(1);
          value = v;
          for (unsigned k = 0; k < lanes; ++k)
            value = b.CreateInsertElement(value, b.CreateSelect(is_lane(k), x, b.CreateExtractElement(v, uint64_t{k})), uint64_t{k});
        }
        return value;
      });
}

namespace {

// Lane moves the selection sees through when it forms a mix instruction: a vector fmul whose
// lanes are extracted and truncated (SLP or InstCombine's vectorised forms) is scalarised into
// the same fmul-and-truncate.
bool lane_move(const llvm::Value* v) {
  return llvm::isa<llvm::ExtractElementInst>(v) || llvm::isa<llvm::InsertElementInst>(v) ||
         llvm::isa<llvm::ShuffleVectorInst>(v);
}

// Whether `v` is an fpext from half, possibly through a few lane moves.
bool from_half(const llvm::Value* v, int depth = 0) {
  if (auto* ext = llvm::dyn_cast<llvm::FPExtInst>(v)) return ext->getSrcTy()->getScalarType()->isHalfTy();
  if (depth == 4 || !lane_move(v)) return false;
  const auto* inst = llvm::cast<llvm::Instruction>(v);
  return llvm::any_of(inst->operands(), [&](const llvm::Use& op) { return from_half(op.get(), depth + 1); });
}

// Whether a use of `v` truncates it to half, possibly through a few lane moves.
bool to_half(const llvm::Value* v, int depth = 0) {
  for (const llvm::User* user : v->users()) {
    if (auto* trunc = llvm::dyn_cast<llvm::FPTruncInst>(user); trunc && trunc->getDestTy()->getScalarType()->isHalfTy())
      return true;
    if (depth < 4 && lane_move(user) && to_half(user, depth + 1)) return true;
  }
  return false;
}

}  // namespace

int guard_mixed_precision_multiply(llvm::Module& module) {
  return replace_each(
      module,
      [&](llvm::Instruction& inst) {
        if (inst.getOpcode() != llvm::Instruction::FMul || !inst.getType()->getScalarType()->isFloatTy() ||
            inst.hasNoSignedZeros())
          return false;
        return from_half(inst.getOperand(0)) || from_half(inst.getOperand(1)) || to_half(&inst);
      },
      [](llvm::IRBuilder<>& b, llvm::Instruction& inst) -> llvm::Value* {
        return b.CreateIntrinsic(llvm::Intrinsic::fma, {inst.getType()},
                                 {inst.getOperand(0), inst.getOperand(1), llvm::ConstantFP::getNegativeZero(inst.getType())});
      });
}

void apply_workarounds(llvm::Module& module, const Settings& settings) {
  if (workaround_enabled(Workaround::fsub_of_positive_zero, settings)) guard_fsub_of_positive_zero(module);
  if (workaround_enabled(Workaround::or_with_half_ones, settings)) guard_or_with_half_ones(module);
  if (workaround_enabled(Workaround::dynamic_vector_index, settings)) guard_dynamic_vector_index(module);
  if (workaround_enabled(Workaround::mixed_precision_multiply, settings)) guard_mixed_precision_multiply(module);
}

namespace {

// Opcode numbers come from the AMDGPU back end's generated tables, which LLVM does not install:
// they are looked up by name once (every AMDGPU subtarget of one LLVM shares them).
struct MoveOpcodes {
  unsigned mov = 0, pseudo = 0;
};

const MoveOpcodes& move_opcodes(const llvm::TargetInstrInfo& tii) {
  static MoveOpcodes opcodes;
  static std::once_flag once;
  std::call_once(once, [&] {
    for (unsigned op = 0, n = tii.getNumOpcodes(); op < n; ++op) {
      llvm::StringRef name = tii.getName(op);
      if (name == "S_MOV_B64") opcodes.mov = op;
      if (name == "S_MOV_B64_IMM_PSEUDO") opcodes.pseudo = op;
    }
  });
  return opcodes;
}

class LiteralMoveGuard : public llvm::MachineFunctionPass {
 public:
  static char ID;
  LiteralMoveGuard() : llvm::MachineFunctionPass(ID) {}
  llvm::StringRef getPassName() const override { return "rocjit: 64-bit immediate moves the encoder can hold"; }
  void getAnalysisUsage(llvm::AnalysisUsage& usage) const override {
    usage.setPreservesCFG();
    llvm::MachineFunctionPass::getAnalysisUsage(usage);
  }
  bool runOnMachineFunction(llvm::MachineFunction& function) override {
    const llvm::TargetInstrInfo& tii = *function.getSubtarget().getInstrInfo();
    // The opcodes are looked up by name (20,000 of them) only when an instruction of the right
    // form turns up: most kernels have none, and a fresh process saves the scan (~1 ms).
    const MoveOpcodes* op = nullptr;
    bool changed = false;
    for (llvm::MachineBasicBlock& block : function)
      for (llvm::MachineInstr& inst : block) {
        if (inst.getNumExplicitOperands() != 2 || !inst.getOperand(1).isImm() ||
            llvm::isInt<32>(inst.getOperand(1).getImm()))
          continue;
        if (!op) op = &move_opcodes(tii);
        if (op->mov == 0 || op->pseudo == 0) return changed;
        if (inst.getOpcode() == op->mov) {
          inst.setDesc(tii.get(op->pseudo));
          changed = true;
        }
      }
    return changed;
  }
};

char LiteralMoveGuard::ID = 0;

// Hoists what StructurizeCFG would hoist, before it can (hoist_zero_cost_phi_operands, workarounds.h).
class StructurizerHoistGuard : public llvm::FunctionPass {
 public:
  static char ID;
  StructurizerHoistGuard() : llvm::FunctionPass(ID) {}
  llvm::StringRef getPassName() const override { return "rocjit: hoist zero-cost phi operands before structurizing"; }
  void getAnalysisUsage(llvm::AnalysisUsage& usage) const override {
    usage.addRequired<llvm::DominatorTreeWrapperPass>();
    usage.addRequired<llvm::TargetTransformInfoWrapperPass>();
    usage.setPreservesCFG();
  }
  bool runOnFunction(llvm::Function& function) override {
    return hoist_zero_cost_phi_operands(function, getAnalysis<llvm::DominatorTreeWrapperPass>().getDomTree(),
                                        getAnalysis<llvm::TargetTransformInfoWrapperPass>().getTTI(function)) > 0;
  }
};

char StructurizerHoistGuard::ID = 0;

}  // namespace

int hoist_zero_cost_phi_operands(llvm::Function& function, const llvm::DominatorTree& dominators,
                                 const llvm::TargetTransformInfo& costs) {
  int hoisted = 0;
  for (llvm::BasicBlock& block : function) {
    llvm::BasicBlock* successor = block.getSingleSuccessor();
    llvm::DomTreeNode* node = dominators.getNode(&block);
    if (!successor || !node || !node->getIDom()) continue;
    llvm::BasicBlock* target = node->getIDom()->getBlock();
    for (llvm::PHINode& phi : successor->phis()) {
      auto* inst = llvm::dyn_cast<llvm::Instruction>(phi.getIncomingValueForBlock(&block));
      if (!inst || inst->getParent() != &block || llvm::isa<llvm::PHINode>(inst)) continue;
      llvm::InstructionCost cost = costs.getInstructionCost(inst, llvm::TargetTransformInfo::TCK_Latency);
      if (!cost.isValid() || cost.getValue() != 0 || !llvm::isSafeToSpeculativelyExecute(inst)) continue;
      bool available = llvm::all_of(inst->operands(), [&](const llvm::Use& op) {
        auto* def = llvm::dyn_cast<llvm::Instruction>(op.get());
        return !def || dominators.dominates(def->getParent(), target);
      });
      if (!available) continue;
      inst->moveBefore(target->getTerminator()->getIterator());
      ++hoisted;
    }
  }
  return hoisted;
}

void add_machine_workarounds(llvm::TargetPassConfig& config) {
  // The peephole optimiser runs only when optimising (and then once); an instance inserted after a
  // pass that never comes would never be owned by the pass manager.
  if (config.getOptLevel() == llvm::CodeGenOptLevel::None) return;
  config.insertPass(&llvm::PeepholeOptimizerLegacyID, new LiteralMoveGuard());
}

void add_structurizer_workarounds(llvm::TargetPassConfig& config) {
  // UnifyLoopExits is the pass right before StructurizeCFG in the AMDGPU pipeline, at every
  // optimisation level. LLVM exports no ID for it: a pass object made and dropped here names it.
  const llvm::AnalysisID before = std::unique_ptr<llvm::Pass>(llvm::createUnifyLoopExitsPass())->getPassID();
  config.insertPass(before, new StructurizerHoistGuard());
}

void add_codegen_workarounds(llvm::TargetPassConfig& config, const Settings& settings) {
  if (workaround_enabled(Workaround::structurizer_phi_hoist, settings)) add_structurizer_workarounds(config);
  if (workaround_enabled(Workaround::copy_of_64_bit_immediate, settings)) add_machine_workarounds(config);
}

}  // namespace rocjit::targets::amdgpu
