// O-level pipeline, object/assembly emission and once-per-process compile set-up (malloc tuning,
// ROCJIT_LLVM_ARGS), shared by the targets.
#include "targets/codegen.h"

#include <fmt/format.h>
#include <llvm/Analysis/CGSCCPassManager.h>
#include <llvm/Analysis/LoopAnalysisManager.h>
#include <llvm/CodeGen/MachineFunctionPass.h>
#include <llvm/CodeGen/MachineModuleInfo.h>
#include <llvm/CodeGen/Passes.h>
#include <llvm/CodeGen/TargetPassConfig.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/PassManager.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Passes/StandardInstrumentations.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/Support/StringSaver.h>
#include <llvm/Support/TimeProfiler.h>
#include <llvm/Support/raw_ostream.h>

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <shared_mutex>
#include <string_view>
#include <optional>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "rocjit/compiler/error.hpp"

namespace rocjit::targets {

namespace {

// LLVM's command-line options are process-global. Compiles read them (optimize, emit) under a
// shared lock; lld's driver resets every one of them each time it links
// (cl::ResetAllOptionOccurrences before parsing its -mllvm list), so a link holds the lock
// exclusively and sets ROCJIT_LLVM_ARGS again before anyone reads them.
std::shared_mutex& llvm_options_mutex() {
  static std::shared_mutex m;
  return m;
}

}  // namespace

bool llvm_args_given() {
  static const bool given = [] {
    const char* text = std::getenv("ROCJIT_LLVM_ARGS");
    return text && *text;
  }();
  return given;
}

void optimize(llvm::Module& module, llvm::TargetMachine& tm, int opt_level, bool loop_vectorize, bool slp_vectorize) {
  std::shared_lock<std::shared_mutex> options_in_use(llvm_options_mutex());
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PipelineTuningOptions tuning;
  tuning.LoopVectorization = loop_vectorize && opt_level >= 2;
  tuning.SLPVectorization = slp_vectorize && opt_level >= 2;
  // Pass instrumentation makes ROCJIT_LLVM_ARGS such as -print-after= or
  // -opt-bisect-limit= reach the optimisation pipeline, and gives LLVM's time trace (on while
  // ROCJIT_TIME_TRACE records a compile) an event per pass; without them it costs nothing.
  std::optional<llvm::PassInstrumentationCallbacks> callbacks;
  std::optional<llvm::StandardInstrumentations> instrumentations;
  if (llvm_args_given() || llvm::timeTraceProfilerEnabled()) {
    callbacks.emplace();
    instrumentations.emplace(module.getContext(), false);
    instrumentations->registerCallbacks(*callbacks, &mam);
  }
  llvm::PassBuilder pb(&tm, tuning, std::nullopt, callbacks ? &*callbacks : nullptr);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager mpm;
  switch (opt_level) {
    case 0: mpm = pb.buildO0DefaultPipeline(llvm::OptimizationLevel::O0); break;
    case 1: mpm = pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O1); break;
    case 2: mpm = pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O2); break;
    default: mpm = pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3); break;
  }
  mpm.run(module, mam);
}

llvm::SmallVector<char, 0> emit(llvm::Module& module, llvm::TargetMachine& tm, bool assembly,
                                const ConfigureCodegen& configure) {
  std::shared_lock<std::shared_mutex> options_in_use(llvm_options_mutex());
  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream stream(buffer);
  llvm::legacy::PassManager pm;
  const auto type = assembly ? llvm::CodeGenFileType::AssemblyFile : llvm::CodeGenFileType::ObjectFile;
  auto refuse = [&] { return CompileError("this LLVM cannot emit code for " + tm.getTargetTriple().str()); };
  if (!configure) {
    if (tm.addPassesToEmitFile(pm, stream, nullptr, type)) throw refuse();
  } else {
    // addPassesToEmitFile's steps (CodeGenTargetMachineImpl), with the target's passes inserted
    // into the configuration before it adds the pipeline.
    auto* info = new llvm::MachineModuleInfoWrapperPass(&tm);
    llvm::TargetPassConfig* config = tm.createPassConfig(pm);
    config->setDisableVerify(true);
    pm.add(config);
    pm.add(info);
    configure(*config);
    if (config->addISelPasses()) throw refuse();
    config->addMachinePasses();
    config->setInitialized();
    if (llvm::TargetPassConfig::willCompleteCodeGenPipeline()) {
      if (tm.addAsmPrinter(pm, stream, nullptr, type, info->getMMI().getContext())) throw refuse();
    } else {
      pm.add(llvm::createPrintMIRPass(stream));  // ROCJIT_LLVM_ARGS=-stop-after=...
    }
    pm.add(llvm::createFreeMachineFunctionPass());
  }
  pm.run(module);
  return buffer;
}

namespace {

// Every compile builds and frees a few MiB of LLVM data structures, many blocks above glibc's
// 128 KiB mmap threshold. By default glibc returns such memory to the kernel (munmap, and trimming
// the heap top beyond 128 KiB), so the next compile page-faults it all back in: ~850 faults per
// compile, measured as 3.4 ms vs 13.5 ms of codegen for saxpy on this VM (bench-compile --phases,
// perf stat -e page-faults). Blocks up to 1 MiB now come from the heap, and up to 8 MiB of free
// heap top is kept.
void keep_compile_memory() {
#if defined(__GLIBC__)
  const char* off = std::getenv("ROCJIT_MALLOC_TUNING");
  if (off && std::strcmp(off, "0") == 0) return;
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  if (tunables && std::strstr(tunables, "glibc.malloc.")) return;
  for (const char* v : {"MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_", "MALLOC_TOP_PAD_"})
    if (std::getenv(v)) return;
  mallopt(M_MMAP_THRESHOLD, 1 << 20);
  mallopt(M_TRIM_THRESHOLD, 8 << 20);
#endif
}

// Empty when ROCJIT_LLVM_ARGS is unset or LLVM took it; otherwise LLVM's complaint.
std::string apply_llvm_args() {
  const char* text = std::getenv("ROCJIT_LLVM_ARGS");
  if (!text || !*text) return {};
  llvm::SmallVector<const char*, 16> argv = {"rocjit"};
  llvm::BumpPtrAllocator allocator;
  llvm::StringSaver saver(allocator);
  llvm::cl::TokenizeGNUCommandLine(text, saver, argv);
  // LLVM answers these by printing and calling exit(), which would end the host application.
  for (size_t i = 1; i < argv.size(); ++i) {
    llvm::StringRef name = llvm::StringRef(argv[i]).ltrim('-').split('=').first;
    if (name.starts_with("help") || name == "version")
      return fmt::format("'{}' would print and end the program; rocjit does not pass it on", argv[i]);
  }
  std::string errors;
  llvm::raw_string_ostream stream(errors);
  if (llvm::cl::ParseCommandLineOptions(static_cast<int>(argv.size()), argv.data(), "rocjit", &stream)) return {};
  stream.flush();
  // LLVM writes "rocjit: Unknown command line argument '-x'.  Try: 'rocjit --help'\nrocjit: Did you
  // mean '-y'?\n": keep the facts, drop the program name and the advice that does not apply.
  std::string message;
  llvm::SmallVector<llvm::StringRef, 4> lines;
  llvm::StringRef(errors).split(lines, '\n', -1, false);
  for (llvm::StringRef line : lines) {
    line.consume_front("rocjit: ");
    line = line.take_front(line.find("  Try: ")).trim();
    if (line.empty()) continue;
    if (!message.empty()) message += ' ';
    message += line.str();
  }
  return message.empty() ? std::string("LLVM refused them") : message;
}

}  // namespace

void prepare_compile(const std::string& kernel) {
  static std::once_flag once;
  static std::string llvm_args_error;
  std::call_once(once, [] {
    keep_compile_memory();
    std::unique_lock<std::shared_mutex> options_change(llvm_options_mutex());
    llvm_args_error = apply_llvm_args();
  });
  if (!llvm_args_error.empty())
    throw CompileError(fmt::format("kernel '{}': ROCJIT_LLVM_ARGS='{}' is not a valid set of LLVM options: {}", kernel,
                                   std::getenv("ROCJIT_LLVM_ARGS") ? std::getenv("ROCJIT_LLVM_ARGS") : "",
                                   llvm_args_error));
}

std::string to_string(const llvm::Module& module) {
  std::string s;
  llvm::raw_string_ostream os(s);
  module.print(os, nullptr);
  return s;
}

bool bounds_check_from_environment() {
  const char* v = std::getenv("ROCJIT_BOUNDS_CHECK");
  return v && *v && std::string_view(v) != "0";
}

void run_resetting_llvm_options(const std::function<void()>& run) {
  std::unique_lock<std::shared_mutex> options_change(llvm_options_mutex());
  struct Restore {
    ~Restore() {
      llvm::cl::ResetAllOptionOccurrences();
      apply_llvm_args();  // its complaint, if any, was reported by prepare_compile
    }
  } restore;
  run();
}

}  // namespace rocjit::targets
