// The host build (loader/compiler.h's build_host): lower with barrier fission, optimise for this
// CPU, link into a shared object with lld; librocjit loads it with dlopen (loader/host_library.h),
// as it does cache hits.
#include "loader/host_kernel.h"
#include "targets/host/launch_context.h"
#include "targets/host/lower.h"
#include "rocjit/compiler/kernel_abi.hpp"

#include <fmt/format.h>
#include <llvm/IR/Verifier.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/TargetParser/Host.h>
#include <llvm/TargetParser/SubtargetFeature.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Transforms/Utils/Cloning.h>

#include <atomic>
#include <functional>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <optional>
#include <random>
#include <vector>

#include "rocjit/compiler/error.hpp"
#include "rocjit/compiler/device_print.hpp"
#include "rocjit/compiler/printer.hpp"
#include "rocjit/compiler/time_trace.hpp"
#include "dump/dump.h"
#include "rocjit/compiler/passes.hpp"
#include "loader/backend.h"
#include "targets/codegen.h"
#include "targets/limits.h"
#include "targets/link.h"

namespace rocjit {
namespace {

struct HostJit {
  std::string triple, cpu, features;
  const llvm::Target* target = nullptr;
  llvm::DataLayout layout{""};
  // For the descriptions (triple, CPU, features) only: a TargetMachine is not safe to use from
  // two threads at once, so compiles lease their own from `idle` (see HostMachine).
  std::unique_ptr<llvm::TargetMachine> tm;
  std::mutex lock;                                       // guards `idle`
  std::vector<std::unique_ptr<llvm::TargetMachine>> idle;  // returned by finished compiles

  // A machine for this CPU. Position-independent code: the object is linked into a shared object
  // (targets/link.h) that the loader opens with dlopen (loader/host_library.h).
  std::unique_ptr<llvm::TargetMachine> create_machine() const {
    llvm::TargetOptions options;
    // The vectoriser may use gathers where the CPU's tuning allows them (LLVM turns them off
    // for processors where they are slow). rocjit used to turn them off everywhere; with work-item
    // loops across rows kept scalar (outer_loop_vectorizable in lower.cpp) they cost nothing
    // elsewhere and stage a haloed tile (`tile(c / 18, c % 18) = in(...)`) twice as fast
    // (bench-cpu tile-stencil 17 -> 11 ms on this project's Zen 5 machine).
    std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
        llvm::Triple(triple), cpu, features, options, llvm::Reloc::PIC_, llvm::CodeModel::Small,
        llvm::CodeGenOptLevel::Aggressive));
    if (!machine) throw CompileError("cannot create a host target machine for " + triple + " " + cpu);
    return machine;
  }
};

// A host TargetMachine (optimisation cost models, code generation) leased for one compile, so
// host compiles on several threads run in parallel; at most one per compile ever in flight is
// created.
class HostMachine {
 public:
  explicit HostMachine(HostJit& h) : h_(h) {
    {
      std::lock_guard<std::mutex> guard(h.lock);
      if (!h.idle.empty()) {
        tm_ = std::move(h.idle.back());
        h.idle.pop_back();
        return;
      }
    }
    tm_ = h.create_machine();
  }
  HostMachine(const HostMachine&) = delete;
  HostMachine& operator=(const HostMachine&) = delete;
  ~HostMachine() {
    std::lock_guard<std::mutex> guard(h_.lock);
    h_.idle.push_back(std::move(tm_));
  }
  llvm::TargetMachine& operator*() const { return *tm_; }

 private:
  HostJit& h_;
  std::unique_ptr<llvm::TargetMachine> tm_;
};

HostJit& host_jit() {
  static HostJit* instance = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    auto* h = new HostJit;
    h->triple = llvm::sys::getProcessTriple();
    h->cpu = llvm::sys::getHostCPUName().str();
    llvm::SubtargetFeatures features;
    for (const auto& [name, on] : llvm::sys::getHostCPUFeatures()) features.AddFeature(name, on);
    // x86's bf16 conversions (VCVTNEPS2BF16, AVX512-BF16 and AVX-NE-CONVERT) treat subnormal
    // inputs as zero and flush subnormal results, whatever MXCSR says; rocjit's bf16 rounds them
    // correctly (docs/kernel-language.md), so LLVM rounds in integer code instead.
    features.AddFeature("avx512bf16", false);
    features.AddFeature("avxneconvert", false);
    h->features = features.getString();
    std::string error;
    h->target = llvm::TargetRegistry::lookupTarget(llvm::Triple(h->triple), error);
    if (!h->target) throw CompileError("cannot describe this host CPU to LLVM: " + error);
    h->tm = h->create_machine();
    h->layout = h->tm->createDataLayout();
    return h;
  }();
  return *instance;
}

std::string cpu_description(const HostJit& h) { return fmt::format("{}, {}", h.triple, h.cpu); }

// Links the object into a shared object (targets/link.h) and, unless only the texts were asked
// for, returns it; the caller loads it (loader/host_library.h).
std::string link_shared_object(const std::string& kernel, const llvm::SmallVector<char, 0>& object) {
  time_trace::Phase phase("link");
  std::vector<uint8_t> bytes = targets::link(object, kernel, targets::LinkFor::host);
  return std::string(bytes.begin(), bytes.end());
}

// Each kernel's shared object is loaded on its own (RTLD_LOCAL) and its entry found in it, so
// names need not differ between kernels; the counter keeps them apart in dumps and profiles.
std::string fresh_symbol(const std::string& kernel) {
  static std::atomic<uint64_t> counter{0};
  return fmt::format("rocjit.{}.{}", kernel, counter.fetch_add(1));
}

// Lowering, optimisation and object emission; fills `impl` except `entry`. Returns the object.
llvm::SmallVector<char, 0> build(const ir::Kernel& kernel, const CompileOptions& options, const Settings& settings,
                                 HostJit& h, const std::string& symbol, HostKernel::Impl& impl) {
  std::optional<time_trace::Phase> lower_phase;
  llvm::LLVMContext context;
  std::array<int32_t, 3> block = {0, 0, 0};
  if (impl.fixed_block)
    block = {static_cast<int32_t>(impl.fixed_block->x), static_cast<int32_t>(impl.fixed_block->y),
             static_cast<int32_t>(impl.fixed_block->z)};
  const passes::PreparedKernel prepared = passes::prepare(kernel, Target::host());
  lower_phase.emplace("lower");
  targets::host::HostModule lowered =
      targets::host::lower(prepared.get(), context, symbol, impl.bounds_check, impl.check_races, block, impl.fast_math,
                           options.opt_level >= 2, settings);
  llvm::Module& module = *lowered.module;
  module.setDataLayout(h.layout);
  module.setTargetTriple(llvm::Triple(h.triple));
  if (options.emit_llvm_ir) impl.llvm_ir = targets::to_string(module);
  std::string broken;
  llvm::raw_string_ostream broken_stream(broken);
  if (llvm::verifyModule(module, &broken_stream))
    throw CompileError(fmt::format("kernel '{}': internal error, rocjit produced invalid host LLVM IR: {}",
                                   kernel.name, broken));
  lower_phase.reset();
  impl.cpu = cpu_description(h);
  impl.argument_names = std::move(lowered.argument_names);
  impl.storage_bytes_per_work_item = lowered.storage_bytes_per_work_item;
  impl.shared_bytes = lowered.shared_bytes;
  impl.region_count = lowered.region_count;
  impl.checks = std::move(lowered.checks);
  impl.race_arrays = std::move(lowered.race_arrays);
  impl.race_shared = std::move(lowered.race_shared);
  HostMachine tm(h);
  {
    time_trace::Phase phase("optimise");
    targets::optimize(module, *tm, options.opt_level, true, true);
  }
  if (options.emit_llvm_ir_optimized) impl.llvm_ir_optimized = targets::to_string(module);
  if (options.emit_assembly) {
    auto clone = llvm::CloneModule(module);
    auto text = targets::emit(*clone, *tm, true);
    impl.assembly.assign(text.begin(), text.end());
  }
  if (!options.jit) return {};
  time_trace::Phase phase("codegen");
  return targets::emit(module, *tm, false);
}

}  // namespace

namespace targets::host {

// The compiler library's host build (loader/compiler.h's build_host).
void build(const Job& job, HostKernel::Impl& impl, std::string& symbol, std::string& shared_object) {
  targets::prepare_compile(job.kernel.name, job.settings);
  HostJit& h = host_jit();
  symbol = fresh_symbol(job.kernel.name);
  llvm::SmallVector<char, 0> object = rocjit::build(job.kernel, job.options, job.settings, h, symbol, impl);
  impl.prints = std::make_shared<const PrintTable>(print_table(job.kernel));
  if (job.options.jit) shared_object = link_shared_object(job.kernel.name, object);
}

}  // namespace targets::host
}  // namespace rocjit
