// The host (CPU) target: rocjit kernels JIT-compiled with ORC LLJIT and run with real
// work-group semantics (barrier fission, per-thread shared memory, work-groups in parallel).
// No LLVM types in this header.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "rocjit/compiler/compile.hpp"
#include "rocjit/compiler/ir.hpp"

namespace rocjit {

/// Launch geometry: work-groups per grid dimension, or work-items per group dimension.
struct Dim3 {
  /// Extents in x, y and z.
  ///@{
  int64_t x = 1, y = 1, z = 1;
  ///@}
  /// Extents (x, y, z); omitted ones are 1.
  Dim3(int64_t x_ = 1, int64_t y_ = 1, int64_t z_ = 1) : x(x_), y(y_), z(z_) {}
  /// The number of elements: x * y * z.
  int64_t count() const { return x * y * z; }
};

/// How compile_host() builds a host kernel.
struct HostCompileOptions {
  /// LLVM optimisation level, 0 to 3.
  int opt_level = 3;
  /// Turns every array access into a checked one that reports kernel, array, index and
  /// file:line instead of touching memory out of bounds. Also enabled by ROCJIT_BOUNDS_CHECK=1.
  bool bounds_check = false;
  /// Keep the LLVM IR as lowered (HostKernel::llvm_ir).
  bool emit_llvm_ir = false;
  /// Keep the LLVM IR after optimisation (HostKernel::llvm_ir_optimized).
  bool emit_llvm_ir_optimized = false;
  /// Keep the host assembly (HostKernel::assembly).
  bool emit_assembly = false;
  /// false: produce the requested texts and facts only; nothing is added to the process's JIT
  /// and the kernel cannot run (Kernel::llvm_ir / assembly / metadata use this).
  bool jit = true;
  /// false: compile afresh instead of looking in the kernel cache (benchmarks). Plain compiles
  /// are cached in memory (the most recently used memory_cache_limit()) and on disk like AMDGPU
  /// code objects (`<key>.rjho`).
  bool cache = true;
  /// Compile for exactly this work-group shape (PoCL does this for every local size): the
  /// work-item loops get constant trip counts, which LLVM unrolls and vectorises without runtime
  /// checks (transpose runs 2x faster). Such a kernel refuses other shapes. Unset: any shape, read
  /// at launch. The CPU device specialises the first few shapes each kernel is launched with.
  std::optional<Dim3> block;
};

/// A kernel compiled for the host. Cheap to copy (copies share the kernel); the JIT'd code is
/// removed from the process when the last copy, and the kernel cache's reference, are gone.
class HostKernel {
 public:
  struct Impl;
  HostKernel() = default;
  /// Wraps a compiled kernel (made by compile_host()).
  explicit HostKernel(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}

  /// The kernel's name.
  const std::string& name() const;
  /// Names of the arguments in the order run() expects them: "x", "x.shape0", ..., scalars.
  const std::vector<std::string>& argument_names() const;
  /// Bytes of per-work-item storage one work-item needs (values and variables that live across
  /// a barrier, local arrays used in more than one barrier-free region). 0 without barriers.
  uint64_t work_item_storage_bytes() const;
  /// Number of barrier-free regions the body was split into.
  unsigned region_count() const;
  /// Bytes of shared memory one work-group needs.
  uint64_t shared_bytes() const;
  /// Largest work-group the kernel accepts.
  uint32_t max_block_size() const;
  /// Whether array accesses are checked (ROCJIT_BOUNDS_CHECK).
  bool bounds_checked() const;
  /// The work-group shape the kernel was compiled for, if it was (HostCompileOptions::block).
  std::optional<Dim3> fixed_block() const;
  /// The LLVM IR as lowered, if requested.
  const std::string& llvm_ir() const;
  /// The LLVM IR after optimisation, if requested.
  const std::string& llvm_ir_optimized() const;
  /// The host assembly, if requested.
  const std::string& assembly() const;
  /// Whether this holds a kernel.
  explicit operator bool() const { return impl_ != nullptr; }
  /// The implementation (for the runtime).
  const Impl& impl() const { return *impl_; }

 private:
  std::shared_ptr<const Impl> impl_;
};

/// What the host backend made of a kernel: target CPU, work-group limit, barrier-free regions,
/// per-work-item storage, shared bytes and the argument order of run_host(). This is
/// `rocjit-dump --target=host --emit=meta`, ROCJIT_DUMP=meta and Kernel::metadata(Target::host()).
std::string metadata_text(const HostKernel& kernel);

/// What the host backend gives a kernel: shared arrays live in one buffer per worker thread,
/// local arrays on the worker's stack or in per-work-item storage.
inline constexpr uint64_t host_shared_bytes_limit = 64ull << 20;  ///< per work-group
inline constexpr uint64_t host_local_bytes_limit = 256ull << 10;  ///< per work-item

/// JIT-compiles a kernel for this CPU. Throws CompileError like compile(), also when the shared
/// or local arrays exceed the limits above.
HostKernel compile_host(const ir::Kernel& kernel, const HostCompileOptions& options = {});

/// Checks grid (work-groups per dimension) and block (work-items per group) against the kernel
/// and the host limits; throws LaunchError naming the kernel and the bad dimension.
void check_host_geometry(const HostKernel& kernel, Dim3 grid, Dim3 block);
/// The same checks for a kernel not compiled yet (named, with its KernelOptions::max_block_size).
void check_host_geometry(const std::string& kernel, uint32_t max_block_size, Dim3 grid, Dim3 block);

/// Runs the kernel over `grid` groups of `block` work-items and returns when all are done.
/// args[i] points to the value of argument i (see argument_names()), as hipModuleLaunchKernel's
/// kernelParams. Throws LaunchError for bad geometry, or after the run when a bounds-checked
/// kernel accessed an array out of bounds (nothing out of bounds was touched).
void run_host(const HostKernel& kernel, Dim3 grid, Dim3 block, const void* const* args);

/// Worker threads used for work-groups: hardware threads, or ROCJIT_CPU_THREADS.
unsigned host_thread_count();

}  // namespace rocjit
