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
// check_races (CompileOptions::check_races, simulated devices): the race checker's markers
// (race_marker_* below) at wavebarriers, barriers with a global fence and acquire/release
// atomics and fences; nothing else changes.
LoweredModule lower(const ir::Kernel& kernel, llvm::LLVMContext& context, llvm::TargetMachine& tm,
                    int code_object_version, bool check_uniform, bool check_races, bool fast_math,
                    const Settings& settings);

// The markers: `s_ttracedata` (llvm.amdgcn.s.ttracedata) with these values in M0. On hardware the
// instruction sends M0 to the thread trace and does nothing when tracing is off; amdsim's race
// checker (tools/amdsim/src/race.h, same values) reads them. Normal compiles emit none.
constexpr uint32_t race_marker_wavebarrier = 0x524a5701;     // after llvm.amdgcn.wave.barrier
constexpr uint32_t race_marker_global_barrier = 0x524a5702;  // before an s_barrier with a global fence
constexpr uint32_t race_marker_ordered = 0x524a5703;         // before an acquire/release atomic or fence
constexpr uint32_t race_marker_atomic = 0x524a5704;          // before an atomic op: its first memory instruction
constexpr uint32_t race_marker_barrier = 0x524a5705;         // after every s_barrier (LLVM drops s_barrier
                                                             // when the group fits in one wave)

}  // namespace rocjit::targets::amdgpu
