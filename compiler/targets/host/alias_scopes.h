// Which memory object each address of the host lowering points into, and the scoped no-alias
// metadata that tells LLVM different objects never overlap.
#pragma once

#include <llvm/IR/Function.h>

#include <cstdint>
#include <string>
#include <unordered_map>

#include "rocjit/compiler/ir.hpp"

namespace rocjit::targets::host {

// The objects, as far as the host lowering knows: the kernel's arrays (which may alias one
// another: a caller can pass one buffer twice), one static shared array, all shared::dynamic
// arrays together (they view the same bytes, after the static ones), or one item of the
// per-work-item storage (a spilled value, a Var, a local array). The runner allocates shared
// memory and storage itself, and static shared arrays and storage items lie at disjoint
// offsets, so no two different objects overlap.
class AliasScopes {
 public:
  static constexpr uint64_t arrays = 0;
  static uint64_t shared(ir::MemoryId m) { return shared_bit | m; }
  static constexpr uint64_t dynamic_shared = (uint64_t(1) << 62) | (uint64_t(1) << 61);
  static uint64_t storage(uint64_t offset) { return storage_bit | offset; }

  // `base` is the address of `object` (an address IRBuilder folded into that of another object
  // stands for neither).
  void record(const llvm::Value* base, uint64_t object);

  // Scoped no-alias metadata (alias.scope / noalias, one scope per object, named for dumps:
  // "arrays", "shared @tile", "shared dynamic", "storage +16") on every load, store and atomic
  // of `f` whose address derives from a recorded base through GEPs. Without it LLVM must assume
  // shared memory, storage and the kernel's arrays may overlap, and the vectoriser guards each
  // work-item loop with run-time overlap checks and keeps a scalar copy of it.
  void annotate(llvm::Function& f, const ir::Kernel& kernel) const;

 private:
  static constexpr uint64_t shared_bit = uint64_t(1) << 62, storage_bit = uint64_t(2) << 62;
  static constexpr uint64_t unknown = ~uint64_t(0);
  static std::string name(uint64_t object, const ir::Kernel& kernel);

  std::unordered_map<const llvm::Value*, uint64_t> roots_;  // an object's base address -> the object
};

}  // namespace rocjit::targets::host
