// O-level pipeline, object/assembly emission and the set-up at the start of each compile (malloc
// tuning, ROCJIT_LLVM_ARGS), shared by the targets.
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

#include <atomic>
#include <mutex>
#include <vector>
#include <shared_mutex>
#include <string_view>
#include <optional>
#if defined(__GLIBC__)
#include <malloc.h>
#include <sys/mman.h>

#include <cstdint>
#include <cstdlib>
#endif

#include "rocjit/compiler/error.hpp"
#include "rocjit/support/log.h"

namespace rocjit::targets {

namespace {

// LLVM's command-line options are process-global. Compiles read them (optimize, emit) under a
// shared lock; lld's driver resets every one of them each time it links
// (cl::ResetAllOptionOccurrences before parsing its -mllvm list), so a link holds the lock
// exclusively and sets Settings::llvm_args again before anyone reads them. A compile whose
// settings have other llvm_args than those in force changes them under the exclusive lock.
std::shared_mutex& llvm_options_mutex() {
  static std::shared_mutex m;
  return m;
}

// The Settings::llvm_args in force and LLVM's complaint about them (empty: LLVM took them).
// Under llvm_options_mutex. Never destroyed: compiles may run while the process exits.
struct LlvmArgs {
  std::string text, error;
};
LlvmArgs& llvm_args() {
  static LlvmArgs& args = *new LlvmArgs;
  return args;
}

}  // namespace

void optimize(llvm::Module& module, llvm::TargetMachine& tm, int opt_level, bool loop_vectorize, bool slp_vectorize) {
  std::shared_lock<std::shared_mutex> options_in_use(llvm_options_mutex());
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PipelineTuningOptions tuning;
  tuning.LoopVectorization = loop_vectorize && opt_level >= 2;
  tuning.SLPVectorization = slp_vectorize && opt_level >= 2;
  // As clang: -O1 unrolls only loops that ask for it (llvm.loop.unroll.* metadata). The CPU
  // device's first launch of a shape waits for an O1 compile (tiering); unrolling was 7% of
  // reduce's host O1 compile under callgrind, before the larger bodies reached codegen.
  tuning.LoopUnrolling = opt_level >= 2;
  // Pass instrumentation makes LLVM options (ROCJIT_LLVM_ARGS) such as -print-after= or
  // -opt-bisect-limit= reach the optimisation pipeline, and gives LLVM's time trace (on while
  // ROCJIT_TIME_TRACE records a compile) an event per pass; without them it costs nothing.
  std::optional<llvm::PassInstrumentationCallbacks> callbacks;
  std::optional<llvm::StandardInstrumentations> instrumentations;
  if (!llvm_args().text.empty() || llvm::timeTraceProfilerEnabled()) {
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

// Settings::tune_malloc's mmap threshold (keep_compile_memory, reserve_huge_page_heap).
constexpr int tuned_mmap_threshold = 1 << 20;

// Every compile builds and frees a few MiB of LLVM data structures, many blocks above glibc's
// 128 KiB mmap threshold. By default glibc returns such memory to the kernel (munmap, and trimming
// the heap top beyond 128 KiB), so the next compile page-faults it all back in: ~850 faults per
// compile, measured as 3.4 ms vs 13.5 ms of codegen for saxpy on this VM (bench-compile --phases,
// perf stat -e page-faults). With Settings::tune_malloc (ROCJIT_MALLOC_TUNING=1; off by default,
// since it changes the whole process's allocator) blocks up to 1 MiB come from the heap, and up to
// 8 MiB of free heap top is kept. Once per process.
void keep_compile_memory() {
#if defined(__GLIBC__)
  static std::atomic<bool> done{false};
  if (done.exchange(true)) return;
  mallopt(M_MMAP_THRESHOLD, tuned_mmap_threshold);
  mallopt(M_TRIM_THRESHOLD, 8 << 20);
  support::log(LogLevel::debug, "malloc tuned for compiles (M_MMAP_THRESHOLD 1 MiB, M_TRIM_THRESHOLD 8 MiB)");
#endif
}

// The second part of Settings::tune_malloc, once per compiling thread: 26 MiB of the thread's
// malloc arena, free and advised for transparent huge pages (MADV_HUGEPAGE), which the compile's
// allocations are then carved from. A fresh process's first compile touches 7-15 MiB of new
// heap; in 4 KiB pages that was 1,450 page faults of its 3,240 (saxpy for gfx90a), half its time
// on a VM where each fault costs ~20 us (docs/performance.md, "Compile latency"). Steps, with
// the mmap threshold raised so that the blocks come from the arena:
// 1. a 28 MiB block, and a 256 KiB pin after it, which stays allocated: freeing the block then
//    leaves a free chunk that trimming (which only returns the arena's top) cannot give back;
// 2. the block's 2 MiB-aligned part advised, while still untouched;
// 3. the block freed, and its unaligned head taken by a spacer that stays allocated (malloc
//    splits the free chunk), so that the next allocations start at the advised part instead of
//    page-faulting the head in 4 KiB pages (350 faults).
// Where THP is off, or a block does not land where it should, nothing is kept: the block, and
// any pin or spacer, are freed.
#if defined(__GLIBC__) && defined(MADV_HUGEPAGE)
// The pins and spacers stay allocated for the process's life: listed here so that they stay
// reachable (a leak checker would report them otherwise).
void keep_for_good(void* block) {
  static std::mutex lock;
  static auto* kept = new std::vector<void*>;  // never destroyed: reachable at exit
  std::lock_guard<std::mutex> guard(lock);
  kept->push_back(block);
}
#endif

void reserve_huge_page_heap() {
#if defined(__GLIBC__) && defined(MADV_HUGEPAGE)
  thread_local bool done = false;
  if (done) return;
  done = true;
  constexpr size_t region = size_t{28} << 20, huge = size_t{2} << 20, pin_size = size_t{256} << 10;
  constexpr size_t chunk_header = 2 * sizeof(size_t);  // glibc: a chunk's size fields before its memory
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  char* volatile block = static_cast<char*>(std::malloc(region));
  char* volatile pin = block ? static_cast<char*>(std::malloc(pin_size)) : nullptr;
  const uintptr_t at = reinterpret_cast<uintptr_t>(block);
  const uintptr_t start = (at + chunk_header + huge - 1) & ~uintptr_t{huge - 1};
  const uintptr_t end = (at + region) & ~uintptr_t{huge - 1};
  const bool advised = block && pin && reinterpret_cast<uintptr_t>(pin) >= at + region && end > start &&
                       madvise(reinterpret_cast<void*>(start), end - start, MADV_HUGEPAGE) == 0;
  if (advised) keep_for_good(pin);
  else std::free(pin);  // nothing to keep apart from the top
  std::free(block);
  if (advised) {
    // A request of n bytes is a chunk of n + sizeof(size_t) rounded up to 16, starting a header
    // before its memory: the spacer's chunk (from at - chunk_header) then ends at
    // start - chunk_header, where the next chunk's header goes, and that chunk's memory at start.
    char* volatile spacer =
        start - at >= 4 * chunk_header ? static_cast<char*>(std::malloc(start - at - sizeof(size_t))) : nullptr;
    const bool split = spacer == block;
    if (split) keep_for_good(spacer);
    else std::free(spacer);
    support::log(LogLevel::debug, "malloc: {} MiB of this thread's heap advised for huge pages{}",
                 (end - start) >> 20, split ? "" : " (its head not set aside)");
  }
  mallopt(M_MMAP_THRESHOLD, tuned_mmap_threshold);
#endif
}

// Empty when `text` is empty or LLVM took it; otherwise LLVM's complaint.
std::string apply_llvm_args(const std::string& text) {
  if (text.empty()) return {};
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

void prepare_compile(const std::string& kernel, const Settings& settings) {
  if (settings.tune_malloc) {
    keep_compile_memory();
    reserve_huge_page_heap();
  }
  std::string error;
  bool current;
  {
    std::shared_lock<std::shared_mutex> options_in_use(llvm_options_mutex());
    current = llvm_args().text == settings.llvm_args;
    if (current) error = llvm_args().error;
  }
  if (!current) {
    std::unique_lock<std::shared_mutex> options_change(llvm_options_mutex());
    LlvmArgs& args = llvm_args();
    if (args.text != settings.llvm_args) {
      if (!args.text.empty()) llvm::cl::ResetAllOptionOccurrences();  // back to LLVM's defaults
      args.text = settings.llvm_args;
      args.error = apply_llvm_args(args.text);
      if (args.error.empty() && !args.text.empty())
        support::log(LogLevel::debug, "LLVM options from ROCJIT_LLVM_ARGS in force: {}", args.text);
    }
    error = args.error;
  }
  if (!error.empty())
    throw CompileError(fmt::format("kernel '{}': ROCJIT_LLVM_ARGS='{}' is not a valid set of LLVM options: {}", kernel,
                                   settings.llvm_args, error));
}

std::string to_string(const llvm::Module& module) {
  std::string s;
  llvm::raw_string_ostream os(s);
  module.print(os, nullptr);
  return s;
}

void run_resetting_llvm_options(const std::function<void()>& run) {
  std::unique_lock<std::shared_mutex> options_change(llvm_options_mutex());
  struct Restore {
    ~Restore() {
      llvm::cl::ResetAllOptionOccurrences();
      apply_llvm_args(llvm_args().text);  // its complaint, if any, was reported by prepare_compile
    }
  } restore;
  run();
}

}  // namespace rocjit::targets
