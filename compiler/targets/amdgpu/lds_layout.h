// Where a check_races compile's shared arrays lie in the group's LDS, carried in the code object
// for the simulator's race checker (amdsim names LDS bytes by array with it).
//
// LLVM, not rocjit, assigns the offsets: its LDS lowering (AMDGPULowerModuleLDS, in the code
// generation pipeline) packs the kernel's LDS variables into one struct variable per kernel,
// `llvm.amdgcn.kernel.<name>.lds`, records that variable's address as `!absolute_symbol`
// metadata, and replaces the arrays by its fields, each of the array's own value type. A
// check_races compile gives each array a struct type of its own (SharedArrayType), so after code
// generation an array's offset is the block's address plus its field's offset in the struct
// layout. Arrays not found that way (none should be) are left out, not guessed.
#pragma once

#include <llvm/ADT/SmallVector.h>
#include <llvm/IR/Module.h>

#include <cstdint>
#include <string>
#include <vector>

#include "targets/amdgpu/lower.h"

namespace rocjit::targets::amdgpu {

struct SharedArrayLayout {
  std::string name;
  uint64_t offset = 0, size = 0;  // bytes, in the group's LDS
  uint32_t element_size = 1;
};

// After code generation of `module` (whose LDS lowering has run).
std::vector<SharedArrayLayout> lds_layout(const llvm::Module& module, const std::vector<SharedArrayType>& arrays);

// Adds the layout to the metadata of kernel `kernel` in the relocatable object `object` (the
// AMDGPU metadata note's kernel map gets ".rocjit_lds": a list of maps with ".name", ".offset",
// ".size" and ".element_size"): the note section is rebuilt around the new metadata and replaced
// with LLVM's objcopy library (--update-section). Throws CompileError when the object is not as
// LLVM writes it.
void add_lds_layout(llvm::SmallVectorImpl<char>& object, const std::string& kernel,
                    const std::vector<SharedArrayLayout>& layout);

}  // namespace rocjit::targets::amdgpu
