// compile_host(): lower with barrier fission, optimise for this CPU, add to the process's LLJIT.
#include "targets/host/jit.h"

#include <fmt/format.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Transforms/Utils/Cloning.h>

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <optional>

#include "rocjit/compiler/error.hpp"
#include "rocjit/compiler/printer.hpp"
#include "rocjit/compiler/time_trace.hpp"
#include "rocjit/compiler/verifier.hpp"
#include "dump/dump.h"
#include "targets/codegen.h"
#include "targets/limits.h"

namespace rocjit {
namespace {

struct HostJit {
  std::unique_ptr<llvm::orc::LLJIT> jit;
  std::unique_ptr<llvm::TargetMachine> tm;  // for optimisation cost models and assembly
  std::mutex lock;                           // serialises use of `tm`
};

HostJit& host_jit() {
  static HostJit* instance = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    auto* h = new HostJit;
    auto jtmb = llvm::orc::JITTargetMachineBuilder::detectHost();
    if (!jtmb) throw CompileError("cannot describe this host CPU to LLVM: " + llvm::toString(jtmb.takeError()));
    jtmb->setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
    auto tm = jtmb->createTargetMachine();
    if (!tm) throw CompileError("cannot create a host target machine: " + llvm::toString(tm.takeError()));
    h->tm = std::move(*tm);
    auto jit = llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(std::move(*jtmb)).create();
    if (!jit) throw CompileError("cannot start the host JIT: " + llvm::toString(jit.takeError()));
    h->jit = std::move(*jit);
    auto generator = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
        h->jit->getDataLayout().getGlobalPrefix());
    if (!generator) throw CompileError("cannot expose libm to the host JIT: " + llvm::toString(generator.takeError()));
    h->jit->getMainJITDylib().addGenerator(std::move(*generator));
    return h;
  }();
  return *instance;
}

bool bounds_check_from_environment() {
  const char* v = std::getenv("ROCJIT_BOUNDS_CHECK");
  return v && *v && std::string(v) != "0";
}

}  // namespace

HostKernel compile_host(const ir::Kernel& kernel, const HostCompileOptions& requested) {
  time_trace::Record record(kernel.name, "host");
  {
    time_trace::Phase phase("verify");
    ir::verify(kernel);
  }
  // ROCJIT_DUMP: ask for the stages to dump, write them, and keep only what the caller asked for.
  const dump::Request dump = dump::from_environment();
  const Target host = Target::host();
  if (dump.wants(dump::ir)) dump::write(dump, kernel.name, host, dump::ir, ir::print(kernel));
  HostCompileOptions options = requested;
  options.emit_llvm_ir |= dump.wants(dump::llvm);
  options.emit_llvm_ir_optimized |= dump.wants(dump::llvm_opt);
  options.emit_assembly |= dump.wants(dump::assembly);
  if (options.opt_level < 0 || options.opt_level > 3)
    throw CompileError(fmt::format("kernel '{}': optimisation level {} is outside 0..3", kernel.name, options.opt_level));
  targets::check_array_bytes(kernel, ir::MemorySpace::shared, host_shared_bytes_limit, "of shared memory",
                             fmt::format("the host backend allows {} bytes per work-group", host_shared_bytes_limit));
  targets::check_array_bytes(kernel, ir::MemorySpace::local, host_local_bytes_limit, "of private memory",
                             fmt::format("the host backend allows {} bytes per work-item", host_local_bytes_limit));
  targets::prepare_compile(kernel.name);
  HostJit& h = host_jit();
  static std::atomic<uint64_t> counter{0};
  auto impl = std::make_shared<HostKernel::Impl>();
  impl->name = kernel.name;
  impl->max_block_size = kernel.max_block_size;
  impl->bounds_check = options.bounds_check || bounds_check_from_environment();
  std::string symbol = fmt::format("rocjit.{}.{}", kernel.name, counter.fetch_add(1));

  std::optional<time_trace::Phase> lower_phase(std::in_place, "lower");
  auto context = std::make_unique<llvm::LLVMContext>();
  targets::host::HostModule lowered = targets::host::lower(kernel, *context, symbol, impl->bounds_check);
  llvm::Module& module = *lowered.module;
  module.setDataLayout(h.jit->getDataLayout());
  module.setTargetTriple(h.jit->getTargetTriple());
  if (options.emit_llvm_ir) impl->llvm_ir = targets::to_string(module);
  std::string broken;
  llvm::raw_string_ostream broken_stream(broken);
  if (llvm::verifyModule(module, &broken_stream))
    throw CompileError(fmt::format("kernel '{}': internal error, rocjit produced invalid host LLVM IR: {}",
                                   kernel.name, broken));
  lower_phase.reset();
  {
    std::lock_guard<std::mutex> guard(h.lock);
    {
      time_trace::Phase phase("optimise");
      targets::optimize(module, *h.tm, options.opt_level, true);
    }
    if (options.emit_assembly) {
      auto clone = llvm::CloneModule(module);
      auto text = targets::emit(*clone, *h.tm, true);
      impl->assembly.assign(text.begin(), text.end());
    }
  }
  if (options.emit_llvm_ir_optimized) impl->llvm_ir_optimized = targets::to_string(module);
  impl->cpu = fmt::format("{}, {}", h.jit->getTargetTriple().str(), h.tm->getTargetCPU().str());
  impl->argument_names = std::move(lowered.argument_names);
  impl->storage_bytes_per_work_item = lowered.storage_bytes_per_work_item;
  impl->shared_bytes = lowered.shared_bytes;
  impl->region_count = lowered.region_count;
  impl->checks = std::move(lowered.checks);
  if (options.jit) {
    time_trace::Phase phase("codegen");  // ORC compiles the module when the symbol is looked up
    if (auto err = h.jit->addIRModule(llvm::orc::ThreadSafeModule(std::move(lowered.module), std::move(context))))
      throw CompileError(fmt::format("kernel '{}': the host JIT rejected the module: {}", kernel.name,
                                     llvm::toString(std::move(err))));
    auto address = h.jit->lookup(symbol);
    if (!address)
      throw CompileError(fmt::format("kernel '{}': the host JIT could not materialise it: {}", kernel.name,
                                     llvm::toString(address.takeError())));
    impl->entry = address->toPtr<targets::host::GroupFunction>();
  }
  if (dump.wants(dump::llvm)) dump::write(dump, kernel.name, host, dump::llvm, impl->llvm_ir);
  if (dump.wants(dump::llvm_opt)) dump::write(dump, kernel.name, host, dump::llvm_opt, impl->llvm_ir_optimized);
  if (dump.wants(dump::assembly)) dump::write(dump, kernel.name, host, dump::assembly, impl->assembly);
  if (!requested.emit_llvm_ir) impl->llvm_ir.clear();
  if (!requested.emit_llvm_ir_optimized) impl->llvm_ir_optimized.clear();
  if (!requested.emit_assembly) impl->assembly.clear();
  HostKernel result(std::move(impl));
  if (dump.wants(dump::meta)) dump::write(dump, kernel.name, host, dump::meta, metadata_text(result));
  return result;
}

}  // namespace rocjit
