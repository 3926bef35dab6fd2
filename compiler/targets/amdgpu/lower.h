// rocjit IR -> LLVM IR module for amdgcn-amd-amdhsa.
#pragma once

#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/Module.h>
#include <llvm/Target/TargetMachine.h>

#include <memory>
#include <string>
#include <vector>

#include "rocjit/compiler/ir.hpp"
#include "rocjit/settings.hpp"

namespace rocjit::targets::amdgpu {

// A static shared array of a check_races compile: its LDS variable's value type is `type`, a
// struct of the one array made for it, which LLVM's LDS lowering keeps as a field of the
// kernel's LDS block (lds_layout.h finds it there after code generation).
struct SharedArrayType {
  llvm::StructType* type = nullptr;
  std::string name;
  uint32_t element_size = 1;
};

struct LoweredModule {
  std::unique_ptr<llvm::Module> module;
  std::vector<std::string> argument_names;  // explicit kernel arguments, in kernarg order
  bool needs_device_libs = false;           // calls __ocml_* functions
  std::vector<std::string> device_lib_users;  // "f64 sin at file:line" for messages
  std::vector<SharedArrayType> shared_arrays;  // check_races compiles only
};

// check_uniform: uniform(x) checks the promise and traps when it is broken (bounds checking).
// check_races (CompileOptions::check_races, simulated devices): the race checker's markers
// (race_marker_* below) at wavebarriers, barriers, atomics and acquire/release fences, and the
// layout of the kernel's shared arrays in the code object (lds_layout.h); nothing else changes.
LoweredModule lower(const ir::Kernel& kernel, llvm::LLVMContext& context, llvm::TargetMachine& tm,
                    int code_object_version, bool check_uniform, bool check_races, bool fast_math,
                    const Settings& settings);

// The markers: `s_ttracedata` (llvm.amdgcn.s.ttracedata) with these values in M0. On hardware the
// instruction sends M0 to the thread trace and does nothing when tracing is off; amdsim's race
// checker (tools/amdsim/src/race.h, same values) reads them. Normal compiles emit none.
constexpr uint32_t race_marker_wavebarrier = 0x524a5701;     // after llvm.amdgcn.wave.barrier
constexpr uint32_t race_marker_global_barrier = 0x524a5702;  // before an s_barrier with a global fence
constexpr uint32_t race_marker_atomic = 0x524a5704;          // before an atomic op: its first memory instruction
constexpr uint32_t race_marker_barrier = 0x524a5705;         // after every s_barrier (LLVM drops s_barrier
                                                             // when the group fits in one wave)
// Acquire/release (0x524a5703, which said only "ordered", is no longer emitted): before an atomic
// op's race_marker_atomic, acquire when it reads with acquire, acq_rel or seq_cst order, release
// when it writes with release, acq_rel or seq_cst; a fence with acquire order emits the
// acquire-fence marker, with release order the release-fence one, acq_rel and seq_cst both
// (acquire first).
constexpr uint32_t race_marker_acquire = 0x524a5706;        // the next atomic op acquires
constexpr uint32_t race_marker_release = 0x524a5707;        // the next atomic op releases
constexpr uint32_t race_marker_fence_acquire = 0x524a5708;  // a fence with acquire order
constexpr uint32_t race_marker_fence_release = 0x524a5709;  // a fence with release order

}  // namespace rocjit::targets::amdgpu
