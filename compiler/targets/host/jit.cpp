// compile() for Target::host(): lower with barrier fission, optimise for this CPU, add to the
// process's LLJIT.
#include "targets/host/jit.h"
#include "rocjit/compiler/kernel_abi.hpp"

#include <fmt/format.h>
#include <llvm/Support/DataExtractor.h>
#include <llvm/Support/EndianStream.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/IR/Verifier.h>
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
#include "rocjit/compiler/printer.hpp"
#include "rocjit/compiler/time_trace.hpp"
#include "cache/kernel_cache.h"
#include "dump/dump.h"
#include "passes/pipeline.h"
#include "targets/codegen.h"
#include "targets/limits.h"

namespace rocjit {
namespace {

struct HostJit {
  std::unique_ptr<llvm::orc::LLJIT> jit;
  std::optional<llvm::orc::JITTargetMachineBuilder> builder;
  // For the descriptions (triple, CPU, features) only: a TargetMachine is not safe to use from
  // two threads at once, so compiles lease their own from `idle` (see HostMachine).
  std::unique_ptr<llvm::TargetMachine> tm;
  std::mutex lock;                                       // guards `idle`
  std::vector<std::unique_ptr<llvm::TargetMachine>> idle;  // returned by finished compiles
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
    auto tm = h.builder->createTargetMachine();
    if (!tm) throw CompileError("cannot create a host target machine: " + llvm::toString(tm.takeError()));
    tm_ = std::move(*tm);
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

// Set when the process exits (an atexit handler registered once the JIT exists, so it runs
// before the destructors of LLVM's statics that the JIT was built on).
std::atomic<bool> process_exiting{false};

HostJit& host_jit() {
  static HostJit* instance = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    auto* h = new HostJit;
    auto jtmb = llvm::orc::JITTargetMachineBuilder::detectHost();
    if (!jtmb) throw CompileError("cannot describe this host CPU to LLVM: " + llvm::toString(jtmb.takeError()));
    // The vectoriser may use gathers where the CPU's tuning allows them (LLVM turns them off
    // for processors where they are slow). rocjit used to turn them off everywhere; with work-item
    // loops across rows kept scalar (outer_loop_vectorizable in lower.cpp) they cost nothing
    // elsewhere and stage a haloed tile (`tile(c / 18, c % 18) = in(...)`) twice as fast
    // (bench-cpu tile-stencil 17 -> 11 ms on this project's Zen 5 machine).
    jtmb->setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
    auto tm = jtmb->createTargetMachine();
    if (!tm) throw CompileError("cannot create a host target machine: " + llvm::toString(tm.takeError()));
    h->tm = std::move(*tm);
    h->builder = *jtmb;
    auto jit = llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(std::move(*jtmb)).create();
    if (!jit) throw CompileError("cannot start the host JIT: " + llvm::toString(jit.takeError()));
    h->jit = std::move(*jit);
    auto generator = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
        h->jit->getDataLayout().getGlobalPrefix());
    if (!generator) throw CompileError("cannot expose libm to the host JIT: " + llvm::toString(generator.takeError()));
    h->jit->getMainJITDylib().addGenerator(std::move(*generator));
    std::atexit([] { process_exiting = true; });
    return h;
  }();
  return *instance;
}

std::string cpu_description(const HostJit& h) {
  return fmt::format("{}, {}", h.jit->getTargetTriple().str(), h.tm->getTargetCPU().str());
}

// A kernel's code in the JIT: removed from the process when this goes, unless the process is
// exiting (the kernel caches are statics destroyed at exit, possibly after the LLVM statics the
// removal would use; the code goes with the process anyway).
struct JitCode {
  llvm::orc::ResourceTrackerSP tracker;
  ~JitCode() {
    if (process_exiting) return;
    if (auto err = tracker->remove()) llvm::consumeError(std::move(err));  // destructors cannot report
  }
};

// Adds a relocatable object to the process's JIT under its own resource tracker and sets
// `impl.entry` to its kernel entry point and `impl.code` to the tracker's owner.
void load_object(HostJit& h, const std::string& kernel, const std::string& symbol, llvm::StringRef object,
                 HostKernel::Impl& impl) {
  time_trace::Phase phase("load object");
  auto code = std::make_shared<JitCode>();
  code->tracker = h.jit->getMainJITDylib().createResourceTracker();
  if (auto err = h.jit->addObjectFile(code->tracker, llvm::MemoryBuffer::getMemBufferCopy(object, symbol)))
    throw CompileError(fmt::format("kernel '{}': the host JIT rejected the object: {}", kernel,
                                   llvm::toString(std::move(err))));
  auto address = h.jit->lookup(symbol);
  if (!address)
    throw CompileError(fmt::format("kernel '{}': the host JIT could not link it: {}", kernel,
                                   llvm::toString(address.takeError())));
  impl.entry = address->toPtr<targets::host::GroupFunction>();
  impl.code = std::move(code);
}

// Symbols are unique in the process. Cached kernels' names also carry a random part, so an object
// from the disk cache (named in another process) never collides with one made here; compiles
// that bypass the cache keep plain names ("rocjit.<kernel>.<n>") so their texts are stable.
std::string fresh_symbol(const std::string& kernel, bool for_cache) {
  static std::atomic<uint64_t> counter{0};
  static const uint64_t salt = (uint64_t(std::random_device{}()) << 32) ^ std::random_device{}();
  if (!for_cache) return fmt::format("rocjit.{}.{}", kernel, counter.fetch_add(1));
  return fmt::format("rocjit.{}.{:016x}.{}", kernel, salt, counter.fetch_add(1));
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
      targets::host::lower(prepared.get(), context, symbol, impl.bounds_check, block, impl.fast_math,
                           options.opt_level >= 2, settings);
  llvm::Module& module = *lowered.module;
  module.setDataLayout(h.jit->getDataLayout());
  module.setTargetTriple(h.jit->getTargetTriple());
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

// Disk-cache payload: the facts a HostKernel needs besides the IR, then the object. Strings are a
// u64 length and the bytes; little-endian.
std::string encode(const HostKernel::Impl& impl, const std::string& symbol, llvm::ArrayRef<char> object) {
  std::string out;
  llvm::raw_string_ostream stream(out);
  llvm::support::endian::Writer w(stream, llvm::endianness::little);
  auto put_string = [&](llvm::StringRef v) {
    w.write<uint64_t>(v.size());
    stream << v;
  };
  put_string(symbol);
  w.write<uint64_t>(impl.argument_names.size());
  for (const auto& n : impl.argument_names) put_string(n);
  w.write<uint64_t>(impl.storage_bytes_per_work_item);
  w.write<uint64_t>(impl.shared_bytes);
  w.write<uint64_t>(impl.region_count);
  put_string(llvm::StringRef(object.data(), object.size()));
  return out;
}

struct Decoded {
  std::string symbol;
  std::string object;
};

std::optional<Decoded> decode(const std::string& in, HostKernel::Impl& impl) {
  llvm::DataExtractor data(llvm::StringRef(in), /*IsLittleEndian=*/true, /*AddressSize=*/8);
  llvm::DataExtractor::Cursor at(0);
  auto take_string = [&] { return data.getBytes(at, data.getU64(at)).str(); };
  Decoded d;
  d.symbol = take_string();
  const uint64_t count = data.getU64(at);
  if (!at || count > 4096) {
    llvm::consumeError(at.takeError());
    return std::nullopt;
  }
  impl.argument_names.resize(count);
  for (auto& n : impl.argument_names) n = take_string();
  impl.storage_bytes_per_work_item = data.getU64(at);
  impl.shared_bytes = data.getU64(at);
  const uint64_t regions = data.getU64(at);
  d.object = take_string();
  const bool whole = at && at.tell() == in.size();
  llvm::consumeError(at.takeError());
  if (!whole) return std::nullopt;
  impl.region_count = static_cast<unsigned>(regions);
  return d;
}

}  // namespace

namespace targets::host {

const std::string& target_identity() {
  // Fixed for the process: built once rather than on every cached compile.
  static const std::string identity = [] {
    HostJit& h = host_jit();
    return fmt::format("host {}|{}", cpu_description(h), h.tm->getTargetFeatureString().str());
  }();
  return identity;
}

HostKernel compile(const ir::Kernel& kernel, const CompileOptions& requested, const Settings& settings,
                   const std::function<std::string()>& checked_fingerprint) {
  // Settings::dump: ask for the stages to dump, write them, and keep only what the caller asked for.
  const dump::Request dump = dump::from_settings(settings);
  const Target host = Target::host();
  CompileOptions options = requested;
  dump::ask_for_texts(dump, options);
  const bool bounds_check = options.bounds_check || settings.bounds_check;
  // Plain compiles go through the kernel cache. Bounds-checked kernels do not (their reports
  // carry source locations, which the IR fingerprint leaves out), nor do compiles that ask for
  // texts, dump stages, or run under ROCJIT_LLVM_ARGS or with workarounds disabled.
  const bool cacheable = options.cache && options.jit && !bounds_check &&
                         !options.emit_llvm_ir && !options.emit_llvm_ir_optimized && !options.emit_assembly &&
                         dump.stages == 0 && settings.llvm_args.empty() && settings.disabled_workarounds.empty();
  std::string fingerprint;
  if (cacheable)
    fingerprint = checked_fingerprint();  // verifies, or knows this immutable kernel was verified
  else
    passes::check(kernel);
  if (dump.wants(dump::ir)) dump::write(dump, kernel.name, host, dump::ir, ir::print(kernel));
  if (options.opt_level < 0 || options.opt_level > 3)
    throw CompileError(fmt::format("kernel '{}': optimisation level {} is outside 0..3", kernel.name, options.opt_level));
  targets::check_array_bytes(kernel, ir::MemorySpace::shared, host_shared_bytes_limit, "of shared memory",
                             fmt::format("the host backend allows {} bytes per work-group", host_shared_bytes_limit));
  targets::check_array_bytes(kernel, ir::MemorySpace::local, host_local_bytes_limit, "of private memory",
                             fmt::format("the host backend allows {} bytes per work-item", host_local_bytes_limit));
  if (const std::optional<Dim3>& b = options.block) {
    if (b->x < 1 || b->y < 1 || b->z < 1 || b->x > 1024 || b->y > 1024 || b->z > 1024 ||
        b->count() > kernel.max_block_size)
      throw CompileError(fmt::format("kernel '{}': CompileOptions::block {}x{}x{} is not a work-group shape it "
                                     "can run with (every dimension at least 1, at most {} work-items)",
                                     kernel.name, b->x, b->y, b->z, kernel.max_block_size));
  }
  targets::prepare_compile(kernel.name, settings);
  HostJit& h = host_jit();
  auto fresh = [&] {
    auto impl = std::make_shared<HostKernel::Impl>();
    impl->name = kernel.name;
    impl->max_block_size = kernel.max_block_size;
    impl->bounds_check = bounds_check;
    impl->fast_math = options.fast_math;
    if (kernel.has_dynamic_shared())
      impl->dynamic_shared_argument = static_cast<int>(kernel_abi(kernel).arguments.size() - 1);
    impl->fixed_block = options.block;
    impl->opt_level = options.opt_level;
    return impl;
  };

  if (options.cached_only && (!cacheable || !cache::cached(cache::key(fingerprint, target_identity(), options), ".rjho", settings)))
    return {};
  if (cacheable) {
    const std::string key = cache::key(fingerprint, target_identity(), options);
    cache::AnyValue value = cache::lookup_or_build(
        key, ".rjho", settings,
        [&](const std::string& payload) -> cache::AnyValue {
          auto impl = fresh();
          std::optional<Decoded> d = decode(payload, *impl);
          if (!d) return nullptr;
          impl->cpu = cpu_description(h);
          try {
            load_object(h, kernel.name, d->symbol, d->object, *impl);
          } catch (const CompileError&) {
            return nullptr;  // rejected and rebuilt under a new symbol
          }
          return impl;
        },
        [&]() -> std::pair<cache::AnyValue, std::string> {
          auto impl = fresh();
          const std::string symbol = fresh_symbol(kernel.name, true);
          llvm::SmallVector<char, 0> object = build(kernel, options, settings, h, symbol, *impl);
          load_object(h, kernel.name, symbol, llvm::StringRef(object.data(), object.size()), *impl);
          std::string payload = encode(*impl, symbol, object);
          return {std::move(impl), std::move(payload)};
        });
    return HostKernel(std::static_pointer_cast<const HostKernel::Impl>(value));
  }

  time_trace::current_record_cache("bypassed");
  auto impl = fresh();
  const std::string symbol = fresh_symbol(kernel.name, false);
  llvm::SmallVector<char, 0> object = build(kernel, options, settings, h, symbol, *impl);
  if (options.jit) load_object(h, kernel.name, symbol, llvm::StringRef(object.data(), object.size()), *impl);
  dump::write_texts(dump, kernel.name, host, *impl, requested);
  HostKernel result(std::move(impl));
  if (dump.wants(dump::meta)) dump::write(dump, kernel.name, host, dump::meta, metadata_text(result));
  return result;
}

}  // namespace targets::host
}  // namespace rocjit
