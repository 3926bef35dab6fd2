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
#include "rocjit/compiler/device_print.hpp"
#include "rocjit/compiler/printer.hpp"
#include "rocjit/compiler/time_trace.hpp"
#include "cache/kernel_cache.h"
#include "dump/dump.h"
#include "rocjit/compiler/passes.hpp"
#include "targets/backend.h"
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
      targets::host::lower(prepared.get(), context, symbol, impl.bounds_check, impl.check_races, block, impl.fast_math,
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
  // The bounds checks' table (bounds-checked compiles): what a failed check reports.
  w.write<uint64_t>(impl.checks.size());
  for (const targets::host::BoundsCheck& c : impl.checks) {
    put_string(c.array);
    put_string(c.access);
    w.write<uint8_t>(static_cast<uint8_t>(c.type.code));
    w.write<uint8_t>(c.type.bits);
    w.write<uint16_t>(c.type.lanes);
    w.write<uint32_t>(c.rank);
    w.write<uint32_t>(c.lanes);
    w.write<uint64_t>(c.static_shape.size());
    for (int64_t e : c.static_shape) w.write<int64_t>(e);
    w.write<int32_t>(c.param_index);
    w.write<int32_t>(c.first_extent);
    w.write<uint32_t>(c.dynamic_element_bytes);
    put_string(c.loc.file);
    w.write<uint32_t>(c.loc.line);
    w.write<uint32_t>(c.loc.column);
    w.write<uint8_t>(static_cast<uint8_t>((c.reads ? 1 : 0) | (c.writes ? 2 : 0)));
    w.write<uint8_t>(static_cast<uint8_t>(c.order));
  }
  std::string prints;
  write_print_table(prints, impl.prints ? *impl.prints : PrintTable{});
  stream << prints;
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
  const uint64_t checks = data.getU64(at);
  if (!at || checks > (uint64_t(1) << 20)) {
    llvm::consumeError(at.takeError());
    return std::nullopt;
  }
  impl.checks.resize(checks);
  for (targets::host::BoundsCheck& c : impl.checks) {
    c.array = take_string();
    c.access = take_string();
    const uint8_t code = data.getU8(at);
    if (code > static_cast<uint8_t>(ir::Type::Code::bfloat)) break;  // corrupt: rejected below
    c.type.code = static_cast<ir::Type::Code>(code);
    c.type.bits = data.getU8(at);
    c.type.lanes = data.getU16(at);
    c.rank = data.getU32(at);
    c.lanes = data.getU32(at);
    const uint64_t extents = data.getU64(at);
    if (!at || extents > 8) break;
    c.static_shape.resize(extents);
    for (int64_t& e : c.static_shape) e = static_cast<int64_t>(data.getU64(at));
    c.param_index = static_cast<int32_t>(data.getU32(at));
    c.first_extent = static_cast<int32_t>(data.getU32(at));
    c.dynamic_element_bytes = data.getU32(at);
    c.loc.file = take_string();
    c.loc.line = data.getU32(at);
    c.loc.column = data.getU32(at);
    const uint8_t does = data.getU8(at), order = data.getU8(at);
    if (does > 3 || order > static_cast<uint8_t>(ir::MemoryOrder::seq_cst)) break;  // corrupt: rejected below
    c.reads = does & 1;
    c.writes = does & 2;
    c.order = static_cast<ir::MemoryOrder>(order);
  }
  if (!at) {
    llvm::consumeError(at.takeError());
    return std::nullopt;
  }
  size_t offset = at.tell();
  llvm::consumeError(at.takeError());
  auto prints = std::make_shared<PrintTable>();
  if (!read_print_table(in, offset, *prints)) return std::nullopt;
  impl.prints = std::move(prints);
  llvm::DataExtractor::Cursor rest(offset);
  d.object = data.getBytes(rest, data.getU64(rest)).str();
  const bool whole = rest && rest.tell() == in.size();
  llvm::consumeError(rest.takeError());
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

// The host backend (targets/backend.h): kernels JIT-compiled into this process.
class HostBackend final : public Backend {
 public:
  std::string identity(const Job&) const override { return target_identity(); }

  void check(const Job& job) const override {
    const ir::Kernel& kernel = job.kernel;
    check_opt_level(kernel.name, job.options.opt_level);
    check_array_bytes(kernel, ir::MemorySpace::shared, host_shared_bytes_limit, "of shared memory",
                      fmt::format("the host backend allows {} bytes per work-group", host_shared_bytes_limit));
    check_array_bytes(kernel, ir::MemorySpace::local, host_local_bytes_limit, "of private memory",
                      fmt::format("the host backend allows {} bytes per work-item", host_local_bytes_limit));
    if (const std::optional<Dim3>& b = job.options.block) {
      if (b->x < 1 || b->y < 1 || b->z < 1 || b->x > 1024 || b->y > 1024 || b->z > 1024 ||
          b->count() > kernel.max_block_size)
        throw CompileError(fmt::format("kernel '{}': CompileOptions::block {}x{}x{} is not a work-group shape it "
                                       "can run with (every dimension at least 1, at most {} work-items)",
                                       kernel.name, b->x, b->y, b->z, kernel.max_block_size));
    }
  }

  CodeObject build(const Job& job) const override {
    targets::prepare_compile(job.kernel.name, job.settings);
    HostJit& h = host_jit();
    auto impl = fresh(job);
    const std::string symbol = fresh_symbol(job.kernel.name, false);
    llvm::SmallVector<char, 0> object = rocjit::build(job.kernel, job.options, job.settings, h, symbol, *impl);
    impl->prints = std::make_shared<const PrintTable>(print_table(job.kernel));
    if (job.options.jit) load_object(h, job.kernel.name, symbol, llvm::StringRef(object.data(), object.size()), *impl);
    CodeObject co = wrap(impl);
    // The kernel keeps the texts its caller asked for; those a dump needs are in `co`.
    if (!job.requested.emit_llvm_ir) impl->llvm_ir.clear();
    if (!job.requested.emit_llvm_ir_optimized) impl->llvm_ir_optimized.clear();
    if (!job.requested.emit_assembly) impl->assembly.clear();
    return co;
  }

  // Entries are the object and the facts a HostKernel needs besides it (`<key>.rjho`); a kernel
  // found in memory is the same JIT'd code, never made twice.
  CodeObject build_cached(const Job& job, const std::string& key) const override {
    targets::prepare_compile(job.kernel.name, job.settings);
    HostJit& h = host_jit();
    cache::AnyValue value = cache::lookup_or_build(
        key, ".rjho", job.settings,
        [&](const std::string& payload) -> cache::AnyValue {
          auto impl = fresh(job);
          std::optional<Decoded> d = decode(payload, *impl);
          if (!d) return nullptr;
          impl->cpu = cpu_description(h);
          try {
            load_object(h, job.kernel.name, d->symbol, d->object, *impl);
          } catch (const CompileError&) {
            return nullptr;  // rejected and rebuilt under a new symbol
          }
          return impl;
        },
        [&]() -> std::pair<cache::AnyValue, std::string> {
          auto impl = fresh(job);
          const std::string symbol = fresh_symbol(job.kernel.name, true);
          llvm::SmallVector<char, 0> object = rocjit::build(job.kernel, job.options, job.settings, h, symbol, *impl);
          impl->prints = std::make_shared<const PrintTable>(print_table(job.kernel));
          load_object(h, job.kernel.name, symbol, llvm::StringRef(object.data(), object.size()), *impl);
          std::string payload = encode(*impl, symbol, object);
          return {std::move(impl), std::move(payload)};
        });
    return wrap(std::static_pointer_cast<const HostKernel::Impl>(value));
  }

  bool cached(const Job& job, const std::string& key) const override {
    return cache::cached(key, ".rjho", job.settings);
  }

 private:
  static std::shared_ptr<HostKernel::Impl> fresh(const Job& job) {
    auto impl = std::make_shared<HostKernel::Impl>();
    impl->name = job.kernel.name;
    impl->max_block_size = job.kernel.max_block_size;
    impl->bounds_check = job.options.bounds_check;
    impl->check_races = job.options.check_races;
    impl->fast_math = job.options.fast_math;
    if (job.kernel.has_dynamic_shared())
      impl->dynamic_shared_argument = static_cast<int>(kernel_abi(job.kernel).arguments.size() - 1);
    impl->fixed_block = job.options.block;
    impl->opt_level = job.options.opt_level;
    return impl;
  }
  static CodeObject wrap(std::shared_ptr<const HostKernel::Impl> impl) {
    CodeObject co;
    co.target = Target::host();
    co.prints = impl->prints;
    co.host = HostKernel(std::move(impl));
    co.llvm_ir = co.host.llvm_ir();
    co.llvm_ir_optimized = co.host.llvm_ir_optimized();
    co.assembly = co.host.assembly();
    return co;
  }
};

}  // namespace targets::host

namespace targets {

const Backend& host_backend() {
  static const host::HostBackend backend;
  return backend;
}

const Backend& backend_for(const Target& target) {
  switch (target.kind) {
    case Target::Kind::host:
      return host_backend();
    case Target::Kind::amdgpu:
      return amdgpu_backend();
  }
  throw CompileError("internal error: a target of no known kind");
}

}  // namespace targets
}  // namespace rocjit
