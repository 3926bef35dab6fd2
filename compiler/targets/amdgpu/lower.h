// rocjit IR -> LLVM IR module for amdgcn-amd-amdhsa.
#pragma once

#include <llvm/IR/Module.h>
#include <llvm/Target/TargetMachine.h>

#include <memory>
#include <string>
#include <vector>

#include "rocjit/compiler/ir.hpp"
#include "rocjit/settings.hpp"

namespace rocjit::targets::amdgpu {

struct LoweredModule {
  std::unique_ptr<llvm::Module> module;
  std::vector<std::string> argument_names;  // explicit kernel arguments, in kernarg order
  bool needs_device_libs = false;           // calls __ocml_* functions
  std::vector<std::string> device_lib_users;  // "f64 sin at file:line" for messages
};

// check_uniform: uniform(x) checks the promise and traps when it is broken (bounds checking).
LoweredModule lower(const ir::Kernel& kernel, llvm::LLVMContext& context, llvm::TargetMachine& tm,
                    int code_object_version, bool check_uniform, bool fast_math, const Settings& settings);

}  // namespace rocjit::targets::amdgpu
