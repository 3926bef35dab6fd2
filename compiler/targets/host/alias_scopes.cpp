#include "targets/host/alias_scopes.h"

#include <fmt/format.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/MDBuilder.h>

#include <map>
#include <utility>
#include <vector>

namespace rocjit::targets::host {

void AliasScopes::record(const llvm::Value* base, uint64_t object) {
  auto [it, added] = roots_.emplace(base, object);
  if (!added && it->second != object) it->second = unknown;
}

std::string AliasScopes::name(uint64_t object, const ir::Kernel& kernel) {
  if (object == arrays) return "arrays";
  if (object == dynamic_shared) return "shared dynamic";
  if (object & shared_bit) return "shared @" + kernel.memories[object & ~shared_bit].name;
  return fmt::format("storage +{}", object & ~storage_bit);
}

void AliasScopes::annotate(llvm::Function& f, const ir::Kernel& kernel) const {
  std::vector<std::pair<llvm::Instruction*, uint64_t>> accesses;
  std::map<uint64_t, llvm::MDNode*> scopes;
  for (llvm::Instruction& inst : llvm::instructions(f)) {
    llvm::Value* address = llvm::getLoadStorePointerOperand(&inst);
    if (auto* rmw = llvm::dyn_cast<llvm::AtomicRMWInst>(&inst)) address = rmw->getPointerOperand();
    if (auto* cx = llvm::dyn_cast<llvm::AtomicCmpXchgInst>(&inst)) address = cx->getPointerOperand();
    for (int depth = 0; depth < 8 && address; ++depth) {
      auto root = roots_.find(address);
      if (root != roots_.end()) {
        if (root->second == unknown) break;
        accesses.emplace_back(&inst, root->second);
        scopes.emplace(root->second, nullptr);
        break;
      }
      auto* gep = llvm::dyn_cast<llvm::GetElementPtrInst>(address);
      address = gep ? gep->getPointerOperand() : nullptr;
    }
  }
  if (scopes.size() < 2) return;  // one object: nothing to tell apart
  llvm::LLVMContext& context = f.getContext();
  llvm::MDBuilder md(context);
  llvm::MDNode* domain = md.createAliasScopeDomain("rocjit.host");
  for (auto& [object, scope] : scopes) scope = md.createAliasScope(name(object, kernel), domain);
  std::map<uint64_t, std::pair<llvm::MDNode*, llvm::MDNode*>> lists;  // object -> its scope, the others
  for (auto& [object, scope] : scopes) {
    std::vector<llvm::Metadata*> others;
    for (auto& [other, other_scope] : scopes)
      if (other != object) others.push_back(other_scope);
    lists[object] = {llvm::MDNode::get(context, {scope}), llvm::MDNode::get(context, others)};
  }
  for (auto [inst, object] : accesses) {
    inst->setMetadata(llvm::LLVMContext::MD_alias_scope, lists[object].first);
    inst->setMetadata(llvm::LLVMContext::MD_noalias, lists[object].second);
  }
}

}  // namespace rocjit::targets::host
