// Links ocml for the few f64 functions the AMDGPU backend cannot expand itself.
#include "targets/amdgpu/device_libs.h"

#include <fmt/format.h>
#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/IRReader/IRReader.h>
#include <llvm/Linker/Linker.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/SourceMgr.h>

#include <cstdlib>
#include <filesystem>

#include "rocjit/compiler/error.hpp"

namespace rocjit::targets::amdgpu {

std::vector<std::string> device_lib_dirs() {
  std::vector<std::string> dirs;
  if (const char* env = std::getenv("ROCJIT_DEVICE_LIBS")) dirs.push_back(env);
  dirs.push_back("/usr/lib/x86_64-linux-gnu/amdgcn/bitcode");
  dirs.push_back("/usr/lib/amdgcn/bitcode");
  dirs.push_back("/opt/rocm/amdgcn/bitcode");
  dirs.push_back("/opt/rocm/lib/llvm/lib/clang/amdgcn/bitcode");
  return dirs;
}

void link_device_libs(llvm::Module& module, const std::string& kernel, const std::string& processor,
                      unsigned wavefront_size, int code_object_version, const std::vector<std::string>& users) {
  std::string isa = processor.substr(3);  // "gfx90a" -> "90a"
  std::vector<std::string> files = {
      "ocml.bc",
      "oclc_finite_only_off.bc",
      "oclc_unsafe_math_off.bc",
      "oclc_daz_opt_off.bc",
      "oclc_correctly_rounded_sqrt_on.bc",
      wavefront_size == 64 ? "oclc_wavefrontsize64_on.bc" : "oclc_wavefrontsize64_off.bc",
      fmt::format("oclc_isa_version_{}.bc", isa),
      fmt::format("oclc_abi_version_{}.bc", code_object_version * 100),
  };
  std::string dir;
  for (const auto& d : device_lib_dirs()) {
    bool all = true;
    for (const auto& f : files) all &= std::filesystem::exists(std::filesystem::path(d) / f);
    if (all) {
      dir = d;
      break;
    }
  }
  if (dir.empty())
    throw CompileError(fmt::format(
        "kernel '{}': {} needs the ROCm device libraries (ocml) for {}, code object v{}, which were not found "
        "in {} (set ROCJIT_DEVICE_LIBS, install rocm-device-libs, or compute in f32)",
        kernel, fmt::join(users, ", "), processor, code_object_version, fmt::join(device_lib_dirs(), ", ")));
  llvm::Linker linker(module);
  for (const auto& f : files) {
    std::string path = (std::filesystem::path(dir) / f).string();
    llvm::SMDiagnostic diag;
    std::unique_ptr<llvm::Module> lib = llvm::parseIRFile(path, diag, module.getContext());
    if (!lib) throw CompileError(fmt::format("kernel '{}': could not read device library {}: {}", kernel, path,
                                             diag.getMessage().str()));
    lib->setDataLayout(module.getDataLayout());
    lib->setTargetTriple(module.getTargetTriple());
    if (linker.linkInModule(std::move(lib), llvm::Linker::LinkOnlyNeeded))
      throw CompileError(fmt::format("kernel '{}': linking device library {} failed", kernel, path));
  }
  // Library functions are private to this code object; the optimiser inlines and drops them.
  for (llvm::Function& fn : module)
    if (!fn.isDeclaration() && fn.getCallingConv() != llvm::CallingConv::AMDGPU_KERNEL)
      fn.setLinkage(llvm::GlobalValue::InternalLinkage);
  for (llvm::GlobalVariable& g : module.globals())
    if (!g.isDeclaration()) g.setLinkage(llvm::GlobalValue::InternalLinkage);
}

}  // namespace rocjit::targets::amdgpu
