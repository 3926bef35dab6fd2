// compile(): one pipeline for every target (verify, dump, cache policy and key), with what
// differs by target behind targets::Backend (targets/backend.h).
#include "rocjit/compiler/compile.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <exception>

#include <memory>
#include <mutex>
#include <thread>
#include <unordered_map>

#include "rocjit/compiler/error.hpp"
#include "rocjit/compiler/printer.hpp"
#include "rocjit/compiler/time_trace.hpp"
#include "cache/kernel_cache.h"
#include "dump/dump.h"
#include "rocjit/compiler/passes.hpp"
#include "loader/amdgpu_facts.h"
#include "loader/backend.h"
#include "loader/compiler.h"
#include "rocjit/support/settings.h"

namespace rocjit {

std::vector<std::string> amdgpu_processors() { return loader::compiler("amdgpu_processors()").amdgpu_processors(); }

uint64_t amdgpu_lds_limit(const std::string& processor) { return loader::amdgpu::lds_limit(processor); }

CodeObject read_code_object(std::vector<uint8_t> elf) {
  return loader::compiler("read_code_object()").read_code_object(std::move(elf));
}

unsigned amdgpu_wavefront_size(const std::string& processor, const std::string& features) {
  return loader::amdgpu::wavefront_size(processor, features);
}

const std::string& amdgpu_math_library() {
  return loader::amdgpu::math_library(support::current_settings()->device_libs);
}

namespace {

// Verification and the cache's IR fingerprints of kernels whose IR cannot change (held through
// shared_ptr<const>): computed on the first compile that needs each, reused by the next ones.
struct FrozenKernelFacts {
  std::weak_ptr<const ir::Kernel> owner;  // expired: the address may now hold another kernel
  std::string plain;    // the IR without source locations; empty until a compile needs it
  std::string located;  // with them (code that names source lines); empty until needed
};

std::mutex frozen_lock;
std::unordered_map<const ir::Kernel*, FrozenKernelFacts> frozen;

// The IR's fingerprint: its printed text, hashed. Code that names source lines (line tables, the
// host's bounds-check reports) is keyed with the locations, which the plain text leaves out.
std::string fingerprint_of(const ir::Kernel& kernel, bool located) {
  time_trace::Phase phase("fingerprint");
  return located ? cache::hash_key(ir::print(kernel)) : cache::ir_fingerprint(kernel);
}

// Whether `kernel` prints or asserts: its cache entry's print table holds source locations.
bool has_device_output(const ir::Kernel& kernel) {
  bool found = false;
  ir::walk(kernel.body, [&](const ir::Op& op) {
    found = found || op.kind == ir::OpKind::print || op.kind == ir::OpKind::assert_;
  });
  return found;
}

// Verifies and fingerprints `kernel`, or finds that it was done for this very object.
std::string verified_fingerprint(const ir::Kernel& kernel, const std::shared_ptr<const ir::Kernel>* shared,
                                 bool located) {
  if (shared) {
    std::lock_guard<std::mutex> guard(frozen_lock);
    auto it = frozen.find(shared->get());
    if (it != frozen.end() && it->second.owner.lock() == *shared) {
      const std::string& known = located ? it->second.located : it->second.plain;
      if (!known.empty()) return known;
    }
  }
  passes::check(kernel);
  std::string fingerprint = fingerprint_of(kernel, located);
  if (shared) {
    std::lock_guard<std::mutex> guard(frozen_lock);
    if (frozen.size() >= 4096)  // forget kernels that no longer exist
      std::erase_if(frozen, [](const auto& entry) { return entry.second.owner.expired(); });
    FrozenKernelFacts& kept = frozen[shared->get()];
    if (kept.owner.lock() != *shared) kept = FrozenKernelFacts{*shared, {}, {}};
    (located ? kept.located : kept.plain) = fingerprint;
  }
  return fingerprint;
}

// One compile, with the settings in force when it starts: every part of it (the cache, dumping,
// LLVM's options, the math library) is given these. The one pipeline of every target: what
// differs by target is behind targets::Backend.
CodeObject compile_impl(const ir::Kernel& kernel, const std::shared_ptr<const ir::Kernel>* shared,
                        const Target& target, const CompileOptions& requested) {
  const std::shared_ptr<const Settings> held = support::current_settings();
  const Settings& settings = *held;
  // A traced process loads the compiler before its first record: LLVM's profiler and the trace
  // file's writer are the compiler's (compiler/targets/time_trace_llvm.cpp). Without it the
  // trace still holds rocjit's own events of cache hits.
  if (!settings.time_trace.empty() && !loader::compiler_loaded()) {
    try {
      loader::compiler("a traced compile");
    } catch (const CompileError&) {
    }
  }
  time_trace::Record record(kernel.name, target.str());
  const targets::Backend& backend = targets::backend_for(target);

  // The options the settings add: bounds checking, and the texts the dump stages need.
  const dump::Request dump = dump::from_settings(settings);
  CompileOptions options = requested;
  options.bounds_check = options.bounds_check || settings.bounds_check;
  // The CPU device checks every compile under the setting; AMDGPU compiles carry the race
  // checker's markers only when the device asks (the simulator's HIP device does).
  options.check_races = target.kind == Target::Kind::host ? options.check_races || settings.check_races
                                                          : options.check_races;
  dump::ask_for_texts(dump, options);
  const targets::Job job{kernel, target, options, settings, requested};
  backend.check(job);

  // The cache holds loadable code and its facts: compiles that want texts, the unlinked object,
  // dump files or code that is not loaded (CompileOptions::jit false) run afresh, as do those
  // under Settings::llvm_args or disabled workarounds (both change the code).
  const bool cacheable = options.cache && options.jit && !options.emit_llvm_ir && !options.emit_llvm_ir_optimized &&
                         !options.emit_assembly && !options.emit_object && dump.stages == 0 &&
                         settings.llvm_args.empty() && settings.disabled_workarounds.empty();
  std::string key;
  if (cacheable) {
    // Verifies (once for immutable kernels). Code that names source lines (line tables, the
    // host's bounds-check reports, the print table's assert locations) is keyed by them too.
    const bool located = options.bounds_check || options.check_races || settings.line_tables ||
                         has_device_output(kernel);
    std::string fingerprint = verified_fingerprint(kernel, shared, located);
    if (located) fingerprint += "|located";
    if (settings.line_tables) fingerprint += "|lines";
    // What device_assert compiles to (targets/lowering.cpp, device_output).
    if (settings.asserts != AssertMode::report)
      fingerprint += settings.asserts == AssertMode::off ? "|asserts off" : "|asserts trap";
    if (target.kind == Target::Kind::host) fingerprint += "|mma " + settings.mma_model;  // HostLowering::mma
    key = cache::key(fingerprint, backend.identity(job), options);
  } else {
    passes::check(kernel);
  }
  if (options.cached_only && (!cacheable || !backend.cached(job, key))) return CodeObject{target};
  if (cacheable) return backend.build_cached(job, key);

  time_trace::current_record_cache("bypassed");
  if (dump.wants(dump::ir)) dump::write(dump, kernel.name, target, dump::ir, ir::print(kernel));
  CodeObject co = backend.build(job);
  dump::write_texts(dump, kernel.name, target, co, requested);
  if (dump.wants(dump::meta)) dump::write(dump, kernel.name, target, dump::meta, metadata_text(co));
  return co;
}

}  // namespace

CodeObject compile(const ir::Kernel& kernel, const Target& target, const CompileOptions& options) {
  return compile_impl(kernel, nullptr, target, options);
}

HostKernel compile_host(const ir::Kernel& kernel, const CompileOptions& options) {
  return compile_impl(kernel, nullptr, Target::host(), options).host;
}

CodeObject compile(const std::shared_ptr<const ir::Kernel>& kernel, const Target& target,
                   const CompileOptions& options) {
  if (!kernel) throw CompileError("compile() was given an empty kernel pointer");
  return compile_impl(*kernel, &kernel, target, options);
}

std::vector<CodeObject> compile_all(std::span<const std::shared_ptr<const ir::Kernel>> kernels, const Target& target,
                                    const CompileOptions& options, unsigned threads) {
  std::vector<CodeObject> out(kernels.size());
  std::vector<std::exception_ptr> errors(kernels.size());
  if (kernels.size() <= 1 || threads == 1) {
    for (size_t i = 0; i < kernels.size(); ++i) out[i] = compile(kernels[i], target, options);
    return out;
  }
  {
    // No more workers than tasks, nor (unless asked for) than hardware threads; each takes the
    // next kernel until none is left.
    const unsigned hardware = std::max(1u, std::thread::hardware_concurrency());
    const unsigned workers = std::min<size_t>(threads == 0 ? hardware : threads, kernels.size());
    std::atomic<size_t> next{0};
    std::vector<std::thread> pool;
    for (unsigned w = 0; w < workers; ++w)
      pool.emplace_back([&] {
        for (size_t i; (i = next.fetch_add(1)) < kernels.size();) {
          try {
            out[i] = compile(kernels[i], target, options);
          } catch (...) {
            errors[i] = std::current_exception();
          }
        }
      });
    for (std::thread& t : pool) t.join();
  }
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
  return out;
}

}  // namespace rocjit
