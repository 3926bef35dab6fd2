// The AMDGPU build (loader/compiler.h's build_amdgpu): one straight sequence of steps from rocjit
// IR to a loadable AMDGPU code object.

#include <fmt/format.h>
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/IR/DiagnosticInfo.h>
#include <llvm/IR/DiagnosticPrinter.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Verifier.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/Transforms/Utils/Cloning.h>
#include <llvm/Transforms/Utils/LoopUtils.h>

#include <optional>

#include "rocjit/compiler/device_print.hpp"
#include "rocjit/compiler/error.hpp"
#include "rocjit/compiler/passes.hpp"
#include "rocjit/compiler/time_trace.hpp"
#include "targets/amdgpu/address_shape.h"
#include "targets/amdgpu/device_libs.h"
#include "targets/amdgpu/lds_layout.h"
#include "targets/amdgpu/lower.h"
#include "targets/amdgpu/metadata.h"
#include "targets/amdgpu/target_machine.h"
#include "targets/amdgpu/workarounds.h"
#include "loader/backend.h"
#include "targets/codegen.h"
#include "targets/link.h"
#include "targets/limits.h"

namespace rocjit::targets::amdgpu {
namespace {

// Collects LLVM's error diagnostics instead of letting the default handler exit the process.
struct CollectDiagnostics : llvm::DiagnosticHandler {
  std::vector<std::string>* errors;
  explicit CollectDiagnostics(std::vector<std::string>* e) : errors(e) {}
  bool handleDiagnostics(const llvm::DiagnosticInfo& info) override {
    if (info.getSeverity() == llvm::DS_Error) {
      std::string s;
      llvm::raw_string_ostream os(s);
      llvm::DiagnosticPrinterRawOStream printer(os);
      info.print(printer);
      errors->push_back(s);
    }
    return true;
  }
};

// Whether the SLP vectoriser can pay for its compile time (kernels with nothing to pack skip it).
// It packs pairs of independent operations of a lane into v_pk_* instructions: every processor
// has them for 16-bit values; gfx90a and gfx940+ (the packed-fp32-ops feature) also for f32
// (v_pk_mul_f32, v_pk_add_f32, v_pk_fma_f32; each half rounds as the scalar instruction does, so
// results are the same). Independent f32 pairs come from unrolled loops (matmul's inner product:
// 16 v_mul_f32 become 8 v_pk_mul_f32, 143 -> 137 instructions on gfx90a; clang -O3: 133), so
// for f32 it runs only when f32 arithmetic sits in a loop: jacobi's straight-line stencil gave
// the same code for 4.9% more instructions executed per compile (callgrind), transpose (no f32
// arithmetic) 2.8%.
bool slp_pays(const ir::Kernel& kernel, const llvm::TargetMachine& machine) {
  for (const ir::ValueInfo& v : kernel.values)
    if (v.type.bits == 16) return true;
  for (const ir::Memory& m : kernel.memories)
    if (m.element.bits == 16) return true;
  if (!machine.getMCSubtargetInfo()->checkFeatures("+packed-fp32-ops")) return false;
  auto f32_arithmetic = [](const ir::Op& op) {
    return (op.kind == ir::OpKind::binary || op.kind == ir::OpKind::math) && op.type == ir::Type::f32;
  };
  bool found = false;
  auto scan = [&](auto&& self, const ir::Region& region, bool in_loop) -> void {
    for (const auto& op : region.ops) {
      if (found) return;
      if (in_loop && f32_arithmetic(*op)) found = true;
      const bool loop = in_loop || op->kind == ir::OpKind::for_ || op->kind == ir::OpKind::while_;
      for (const ir::Region& r : op->regions) self(self, r, loop);
    }
  };
  scan(scan, kernel.body, false);
  return found;
}

// The AMDGPU code-generation pipeline runs LICM once more (after CodeGenPrepare, for the parts of
// expanded integer divisions that became loop-invariant). In a loop that stores to a loop-invariant
// address (a tile element written once per iteration of matmul's tile loop) LICM tries scalar
// promotion, which puts every memory access of the loop into an AliasSetTracker: one alias query
// per pair of disjoint locations, quadratic in a fully unrolled body (matmul's 38 accesses: that
// LICM was 5.6 M of the 87 M instructions of a warm gfx90a compile under callgrind, nearly all of
// it in the tracker; docs/performance.md "Compile tails"). The -O pipeline's LICM ran
// over these loops already; the second run found nothing to hoist or promote on any sample
// (bench-isa: the same instructions and registers). Loops with at least this many memory accesses
// and no integer division get `llvm.licm.disable`, which that LICM reads; no other pass reads it.
constexpr int kCodegenLicmMaxAccesses = 32;

int skip_codegen_licm_in_large_loops(llvm::Module& module) {
  int marked = 0;
  for (llvm::Function& f : module) {
    if (f.isDeclaration()) continue;
    llvm::DominatorTree dominators(f);
    llvm::LoopInfo loops(dominators);
    for (llvm::Loop* loop : loops.getLoopsInPreorder()) {
      int accesses = 0;
      bool divides = false;
      for (llvm::BasicBlock* block : loop->blocks())
        for (llvm::Instruction& i : *block) {
          accesses += i.mayReadOrWriteMemory();
          divides |= i.isIntDivRem();
        }
      if (accesses < kCodegenLicmMaxAccesses || divides || !loop->getLoopLatch()) continue;
      llvm::addStringMetadataToLoop(loop, "llvm.licm.disable", 1);
      ++marked;
    }
  }
  return marked;
}

// The features the kernel is compiled with: the target's, and wave64 where the processor would
// run wave32 and the kernel uses mma (its fragments are laid out over 64 lanes; rocjit/compiler/mma.hpp).
// The code object's metadata then says wave64, which is what the runtime launches with.
std::string kernel_features(const ir::Kernel& kernel, const Target& target) {
  if (wavefront_size(target.processor, target.features) == 64) return target.features;
  bool uses_mma = false;
  ir::walk(kernel.body, [&](const ir::Op& op) { uses_mma |= op.kind == ir::OpKind::mma; });
  if (!uses_mma) return target.features;
  std::string features;
  size_t start = 0;
  while (start <= target.features.size()) {
    size_t end = target.features.find(',', start);
    if (end == std::string::npos) end = target.features.size();
    std::string f = target.features.substr(start, end - start);
    if (!f.empty() && f != "+wavefrontsize32") features += f + ",";
    start = end + 1;
  }
  return features + "+wavefrontsize64";
}

// One straight sequence from rocjit IR to a loadable code object (the checks came first).
CodeObject build(const ir::Kernel& kernel, const Target& target, const CompileOptions& options,
                 const Settings& settings) {
  prepare_compile(kernel.name, settings);

  const std::string features = kernel_features(kernel, target);
  Machine machine = target_machine(target.processor, features);
  llvm::LLVMContext context;
  std::vector<std::string> errors;
  context.setDiagnosticHandler(std::make_unique<CollectDiagnostics>(&errors), true);

  CodeObject out;
  out.target = target;
  out.code_object_version = options.code_object_version;
  const passes::PreparedKernel prepared = passes::prepare(kernel, target);
  std::optional<time_trace::Phase> lower_phase(std::in_place, "lower");
  LoweredModule lowered = lower(prepared.get(), context, *machine, options.code_object_version,
                                options.bounds_check, options.check_races, options.fast_math, settings);
  llvm::Module& module = *lowered.module;
  if (options.emit_llvm_ir) out.llvm_ir = to_string(module);
  std::string broken;
  llvm::raw_string_ostream broken_stream(broken);
  if (llvm::verifyModule(module, &broken_stream))
    throw CompileError(fmt::format("kernel '{}': internal error, rocjit produced invalid LLVM IR: {}", kernel.name,
                                   broken));
  if (lowered.needs_device_libs)
    link_device_libs(module, kernel.name, target.processor, wavefront_size(target.processor, features),
                     options.code_object_version, lowered.device_lib_users, settings.device_libs);

  lower_phase.reset();
  llvm::SmallVector<char, 0> object;
  {
    // -O3 optimises the IR at O3 but generates code at Default. The AMDGPU pipeline's only pass
    // difference at Aggressive is GVN instead of EarlyCSE in two places (llc -debug-pass=Structure);
    // it gave the same instructions on every sample (bench-isa, gfx90a and gfx1030) for 15% more
    // instructions executed per warm matmul compile (callgrind: 91.5 M against 79.5 M).
    machine->setOptLevel(options.opt_level == 0 ? llvm::CodeGenOptLevel::None
                         : options.opt_level == 1 ? llvm::CodeGenOptLevel::Less
                                                  : llvm::CodeGenOptLevel::Default);
    {
      time_trace::Phase phase("optimise");
      optimize(module, *machine, options.opt_level, false, slp_pays(prepared.get(), *machine));
      apply_workarounds(module, settings);
      merge_split_element_addresses(module);
      skip_codegen_licm_in_large_loops(module);
    }
    if (options.emit_llvm_ir_optimized) out.llvm_ir_optimized = to_string(module);
    if (options.emit_assembly) {
      auto clone = llvm::CloneModule(module);
      auto text = emit(*clone, *machine, true, [&](llvm::TargetPassConfig& c) { add_codegen_workarounds(c, settings); });
      out.assembly.assign(text.begin(), text.end());
    }
    time_trace::Phase phase("codegen");
    object = emit(module, *machine, false, [&](llvm::TargetPassConfig& c) { add_codegen_workarounds(c, settings); });
  }
  if (!errors.empty())
    throw CompileError(fmt::format("kernel '{}': code generation for {} failed: {}", kernel.name, target.str(),
                                   fmt::join(errors, "; ")));
  if (!lowered.shared_arrays.empty()) {  // check_races: where LLVM placed the shared arrays
    time_trace::Phase phase("lds layout");
    const std::vector<SharedArrayLayout> layout = lds_layout(module, lowered.shared_arrays);
    if (!layout.empty()) add_lds_layout(object, prepared.get().name, layout);
  }
  if (options.emit_object) out.object.assign(object.begin(), object.end());
  {
    time_trace::Phase phase("link");
    out.elf = targets::link(object, kernel.name, LinkFor::amdgpu);
  }
  time_trace::Phase phase("metadata");
  out.kernels = read_metadata(out.elf, lowered.argument_names);
  return out;
}

}  // namespace

// The compiler library's AMDGPU build (loader/compiler.h): the processor and features are checked
// here (the backend's other checks ran in librocjit before the cache was asked).
CodeObject build_checked(const Job& job) {
  check_target(job.kernel.name, job.target.processor, job.target.features);
  CodeObject co = build(job.kernel, job.target, job.options, job.settings);
  co.prints = std::make_shared<const PrintTable>(print_table(job.kernel));
  return co;
}

}  // namespace rocjit::targets::amdgpu
