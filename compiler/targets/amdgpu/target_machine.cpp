// AMDGPU TargetMachines, created once per processor+features and cached for the process.
#include "targets/amdgpu/target_machine.h"

#include <fmt/format.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/TargetParser/TargetParser.h>
#include <llvm/TargetParser/Triple.h>

#include <map>
#include <memory>
#include <sstream>

#include "rocjit/compiler/error.hpp"

extern "C" {
void LLVMInitializeAMDGPUTargetInfo();
void LLVMInitializeAMDGPUTarget();
void LLVMInitializeAMDGPUTargetMC();
void LLVMInitializeAMDGPUAsmPrinter();
void LLVMInitializeAMDGPUAsmParser();
}

namespace rocjit::targets::amdgpu {

void initialize() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeAMDGPUTargetInfo();
    LLVMInitializeAMDGPUTarget();
    LLVMInitializeAMDGPUTargetMC();
    LLVMInitializeAMDGPUAsmPrinter();
    LLVMInitializeAMDGPUAsmParser();
  });
}

std::vector<std::string> processors() {
  llvm::SmallVector<llvm::StringRef, 64> names;
  llvm::AMDGPU::fillValidArchListAMDGCN(names);
  std::vector<std::string> out;
  for (auto n : names)
    if (n.starts_with("gfx") && !n.contains("generic")) out.push_back(n.str());
  return out;
}

void check_target(const std::string& kernel, const std::string& processor, const std::string& features) {
  auto kind = llvm::AMDGPU::parseArchAMDGCN(processor);
  bool known = kind != llvm::AMDGPU::GK_NONE && processor.starts_with("gfx");
  if (known) {
    auto all = processors();
    known = std::find(all.begin(), all.end(), processor) != all.end();
  }
  if (!known)
    throw CompileError(fmt::format("kernel '{}': unknown AMDGPU processor '{}'; supported processors are: {}",
                                   kernel, processor, fmt::join(processors(), ", ")));
  std::stringstream ss(features);
  std::string f;
  while (std::getline(ss, f, ',')) {
    if (f.empty()) continue;
    static const char* allowed[] = {"wavefrontsize64", "wavefrontsize32", "xnack", "sramecc", "cumode"};
    bool ok = (f[0] == '+' || f[0] == '-');
    bool found = false;
    for (const char* a : allowed) found |= ok && f.substr(1) == a;
    if (!found)
      throw CompileError(fmt::format("kernel '{}': target feature '{}' is not accepted; use +/- with one of "
                                     "wavefrontsize64, wavefrontsize32, xnack, sramecc, cumode",
                                     kernel, f));
    if (f == "+wavefrontsize32" && !wave32_by_default(processor))
      throw CompileError(fmt::format("kernel '{}': {} runs wave64 only; '+wavefrontsize32' needs gfx10 or later",
                                     kernel, processor));
  }
}

// The idle TargetMachines of one processor+features (at most one per compile that ran at once).
struct MachinePool {
  std::mutex lock;
  std::vector<std::unique_ptr<llvm::TargetMachine>> idle;
};

Machine::Machine(MachinePool* pool, std::unique_ptr<llvm::TargetMachine> tm) : pool_(pool), tm_(std::move(tm)) {}

Machine::~Machine() {
  if (!tm_) return;  // moved from
  std::lock_guard<std::mutex> guard(pool_->lock);
  pool_->idle.push_back(std::move(tm_));
}

Machine target_machine(const std::string& processor, const std::string& features) {
  initialize();
  static std::mutex pools_lock;
  static std::map<std::pair<std::string, std::string>, std::unique_ptr<MachinePool>> pools;
  MachinePool* pool = nullptr;
  {
    std::lock_guard<std::mutex> guard(pools_lock);
    auto& slot = pools[{processor, features}];
    if (!slot) slot = std::make_unique<MachinePool>();
    pool = slot.get();
  }
  {
    std::lock_guard<std::mutex> guard(pool->lock);
    if (!pool->idle.empty()) {
      std::unique_ptr<llvm::TargetMachine> tm = std::move(pool->idle.back());
      pool->idle.pop_back();
      return Machine(pool, std::move(tm));
    }
  }
  std::string error;
  llvm::Triple tt(triple);
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(tt, error);
  if (!target) throw CompileError("AMDGPU target is not available in this LLVM: " + error);
  llvm::TargetOptions options;
  std::unique_ptr<llvm::TargetMachine> tm(target->createTargetMachine(tt, processor, features, options, llvm::Reloc::PIC_,
                                                                      std::nullopt, llvm::CodeGenOptLevel::Aggressive));
  if (!tm) throw CompileError("could not create an AMDGPU target machine for " + processor);
  return Machine(pool, std::move(tm));
}

}  // namespace rocjit::targets::amdgpu
