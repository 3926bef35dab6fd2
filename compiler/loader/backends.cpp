// The backends (backend.h) as librocjit has them: identity, checks and the kernel cache, without
// LLVM; a build goes to the compiler library (compiler.h), loaded then.
#include <fmt/format.h>

#include "cache/kernel_cache.h"
#include "loader/amdgpu_facts.h"
#include "loader/backend.h"
#include "loader/compiler.h"
#include "loader/host_identity.h"
#include "loader/host_kernel.h"
#include "loader/host_library.h"
#include "rocjit/compiler/error.hpp"
#include "rocjit/compiler/kernel_abi.hpp"
#include "rocjit/compiler/time_trace.hpp"
#include "targets/limits.h"

namespace rocjit::targets {
namespace {

std::string why(const Job& job) { return fmt::format("kernel '{}' for {}", job.kernel.name, job.target.str()); }

class AmdgpuBackend final : public Backend {
 public:
  // The math library serving the kernel's calls (ocml or the built-in one) is part of the key.
  std::string identity(const Job& job) const override {
    return job.target.str() + "|" + loader::amdgpu::math_library(job.settings.device_libs);
  }
  void check(const Job& job) const override { check_amdgpu(job); }
  CodeObject build(const Job& job) const override { return loader::compiler(why(job), job.kernel.name).build_amdgpu(job); }
  // Entries are the linked code object and its metadata (`<key>.rjco`).
  CodeObject build_cached(const Job& job, const std::string& key) const override {
    return cache::lookup_or_compile(key, job.target, job.settings, {job.kernel.name, job.target.str()},
                                    [&] { return build(job); });
  }
  bool cached(const Job& job, const std::string& key) const override {
    return cache::code_object_cached(key, job.settings);
  }
};

// Host kernels: shared objects built by the compiler library and loaded here with dlopen, whether
// just built or read from the cache.
class HostBackend final : public Backend {
 public:
  std::string identity(const Job&) const override { return loader::host_identity(); }

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
    auto impl = fresh(job);
    std::string symbol, shared_object;
    loader::compiler(why(job), job.kernel.name).build_host(job, *impl, symbol, shared_object);
    if (job.options.jit) load(job, symbol, shared_object, *impl);
    CodeObject co = wrap(impl);
    // The kernel keeps the texts its caller asked for; those a dump needs are in `co`.
    if (!job.requested.emit_llvm_ir) impl->llvm_ir.clear();
    if (!job.requested.emit_llvm_ir_optimized) impl->llvm_ir_optimized.clear();
    if (!job.requested.emit_assembly) impl->assembly.clear();
    return co;
  }

  // Entries are the shared object and the facts a HostKernel needs besides it (`<key>.rjho`); a
  // kernel found in memory is the same loaded code, never loaded twice.
  CodeObject build_cached(const Job& job, const std::string& key) const override {
    cache::AnyValue value = cache::lookup_or_build(
        key, ".rjho", job.settings, {job.kernel.name, job.target.str()},
        [&](const std::string& payload) -> cache::AnyValue {
          auto impl = fresh(job);
          std::optional<loader::HostEntry> d = loader::decode_host_entry(payload, *impl);
          if (!d) return nullptr;
          try {
            load(job, d->symbol, d->shared_object, *impl);
          } catch (const CompileError&) {
            return nullptr;  // rejected and rebuilt
          }
          return impl;
        },
        [&]() -> std::pair<cache::AnyValue, std::string> {
          auto impl = fresh(job);
          std::string symbol, shared_object;
          loader::compiler(why(job), job.kernel.name).build_host(job, *impl, symbol, shared_object);
          load(job, symbol, shared_object, *impl);
          std::string payload = loader::encode_host_entry(*impl, symbol, shared_object);
          return {std::move(impl), std::move(payload)};
        });
    return wrap(std::static_pointer_cast<const HostKernel::Impl>(value));
  }

  bool cached(const Job& job, const std::string& key) const override {
    return cache::cached(key, ".rjho", job.settings);
  }

 private:
  static void load(const Job& job, const std::string& symbol, std::string_view shared_object, HostKernel::Impl& impl) {
    time_trace::Phase phase("load object");
    impl.code = loader::load_host_library(job.kernel.name, shared_object, symbol, impl.entry);
  }
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

}  // namespace

void check_amdgpu(const Job& job) {
  const ir::Kernel& kernel = job.kernel;
  if (job.options.code_object_version != 4 && job.options.code_object_version != 5)
    throw CompileError(fmt::format("kernel '{}': code object version {} is not supported; use 4 or 5", kernel.name,
                                   job.options.code_object_version));
  check_opt_level(kernel.name, job.options.opt_level);
  const uint64_t limit = loader::amdgpu::lds_limit(job.target.processor);
  check_array_bytes(kernel, ir::MemorySpace::shared, limit, "of LDS",
                    fmt::format("{} allows {} bytes per work-group", job.target.processor, limit));
}

const Backend& amdgpu_backend() {
  static const AmdgpuBackend backend;
  return backend;
}

const Backend& host_backend() {
  static const HostBackend backend;
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

}  // namespace rocjit::targets
