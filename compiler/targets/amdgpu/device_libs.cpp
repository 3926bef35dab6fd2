// Links ocml for the math functions the AMDGPU backend cannot expand accurately itself.
#include "targets/amdgpu/device_libs.h"

#include <fmt/format.h>
#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/IRReader/IRReader.h>
#include <llvm/IR/Constants.h>
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

namespace {

// The __oclc_ISA_version of a processor: major * 1000 + minor * 100 + stepping, from the name's
// digits, the last two being the minor version and the stepping in hex ("gfx90a" -> 9010,
// "gfx942" -> 9402, "gfx1100" -> 11000).
int isa_version(const std::string& processor) {
  std::string digits = processor.substr(3);
  int major = std::stoi(digits.substr(0, digits.size() - 2));
  int minor = std::stoi(digits.substr(digits.size() - 2, 1), nullptr, 16);
  int stepping = std::stoi(digits.substr(digits.size() - 1), nullptr, 16);
  return major * 1000 + minor * 100 + stepping;
}

// ocml.bc, read once per process (a few MiB); each compile loads it lazily from these bytes, so
// only the functions a kernel calls are parsed.
struct OcmlFile {
  std::string path;
  std::unique_ptr<llvm::MemoryBuffer> bytes;
};

const OcmlFile& ocml_file() {
  static const OcmlFile file = [] {
    OcmlFile f;
    for (const auto& d : device_lib_dirs()) {
      std::filesystem::path path = std::filesystem::path(d) / "ocml.bc";
      if (!std::filesystem::exists(path)) continue;
      auto buffer = llvm::MemoryBuffer::getFile(path.string());
      if (!buffer) continue;
      f.path = path.string();
      f.bytes = std::move(*buffer);
      break;
    }
    return f;
  }();
  return file;
}

}  // namespace

// ocml reads its configuration from the __oclc_* constants, which ROCm ships as one small bitcode
// file per setting and per processor (oclc_isa_version_<isa>.bc...). A distribution's set covers
// the processors of its ROCm release only (Debian's ROCm 5.2 has no gfx942, gfx950, gfx11 or
// gfx12), so rocjit defines the constants itself, for any processor: only ocml.bc is needed.
void link_device_libs(llvm::Module& module, const std::string& kernel, const std::string& processor,
                      unsigned wavefront_size, int code_object_version, const std::vector<std::string>& users) {
  const OcmlFile& ocml = ocml_file();
  if (!ocml.bytes)
    throw CompileError(fmt::format(
        "kernel '{}': {} needs the ROCm device library ocml.bc, which was not found in {} (set "
        "ROCJIT_DEVICE_LIBS or install rocm-device-libs)",
        kernel, fmt::join(users, ", "), fmt::join(device_lib_dirs(), ", ")));
  llvm::LLVMContext& context = module.getContext();
  auto lib = llvm::getLazyBitcodeModule(ocml.bytes->getMemBufferRef(), context);
  if (!lib)
    throw CompileError(fmt::format("kernel '{}': could not read device library {}: {}", kernel, ocml.path,
                                   llvm::toString(lib.takeError())));
  (*lib)->setDataLayout(module.getDataLayout());
  (*lib)->setTargetTriple(module.getTargetTriple());
  llvm::Linker linker(module);
  if (linker.linkInModule(std::move(*lib), llvm::Linker::LinkOnlyNeeded))
    throw CompileError(fmt::format("kernel '{}': linking device library {} failed", kernel, ocml.path));

  // The control constants, in the constant address space as ROCm's files define them: IEEE
  // semantics (no finite-only, unsafe-math or denormal flushing), correctly rounded f32 sqrt.
  auto define = [&](const char* name, llvm::Constant* value) {
    llvm::GlobalVariable* g = module.getGlobalVariable(name, true);
    if (!g || !g->isDeclaration()) return;  // not read by the linked functions
    g->setInitializer(value);
    g->setConstant(true);
    g->setLinkage(llvm::GlobalValue::InternalLinkage);
  };
  llvm::Type* i8 = llvm::Type::getInt8Ty(context);
  llvm::Type* i32 = llvm::Type::getInt32Ty(context);
  define("__oclc_finite_only_opt", llvm::ConstantInt::get(i8, 0));
  define("__oclc_unsafe_math_opt", llvm::ConstantInt::get(i8, 0));
  define("__oclc_daz_opt", llvm::ConstantInt::get(i8, 0));
  define("__oclc_correctly_rounded_sqrt32", llvm::ConstantInt::get(i8, 1));
  define("__oclc_wavefrontsize64", llvm::ConstantInt::get(i8, wavefront_size == 64 ? 1 : 0));
  define("__oclc_ISA_version", llvm::ConstantInt::get(i32, isa_version(processor)));
  define("__oclc_ABI_version", llvm::ConstantInt::get(i32, code_object_version * 100));

  // Library functions are private to this code object; the optimiser inlines and drops them.
  for (llvm::Function& fn : module)
    if (!fn.isDeclaration() && fn.getCallingConv() != llvm::CallingConv::AMDGPU_KERNEL)
      fn.setLinkage(llvm::GlobalValue::InternalLinkage);
  for (llvm::GlobalVariable& g : module.globals())
    if (!g.isDeclaration()) g.setLinkage(llvm::GlobalValue::InternalLinkage);
}

}  // namespace rocjit::targets::amdgpu
