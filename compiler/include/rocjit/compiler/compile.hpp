// compile(): rocjit IR to a code object, entirely in-process. No LLVM types in this header.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "rocjit/compiler/code_object.hpp"
#include "rocjit/compiler/host.hpp"
#include "rocjit/compiler/ir.hpp"
#include "rocjit/compiler/target.hpp"

namespace rocjit {

/// How compile() builds a kernel, for any target. Fields marked AMDGPU or host only matter there.
struct CompileOptions {
  int opt_level = 3;                ///< 0..3
  int code_object_version = 5;      ///< AMDGPU: 4 for ROCm 5.x runtimes, 5 (default) for ROCm 6+
  bool emit_llvm_ir = false;        ///< fill CodeObject::llvm_ir
  /// Keep the LLVM IR after optimisation (CodeObject::llvm_ir_optimized).
  bool emit_llvm_ir_optimized = false;
  bool emit_assembly = false;       ///< fill CodeObject::assembly
  bool emit_object = false;         ///< AMDGPU: fill CodeObject::object (the object before lld links it)
  /// Host: every array access is checked and reports kernel, array, index and file:line instead
  /// of touching memory out of bounds, and uniform() promises are checked by name. AMDGPU:
  /// uniform() promises are checked and a broken one traps (the launch fails). Also enabled by
  /// ROCJIT_BOUNDS_CHECK=1.
  bool bounds_check = false;
  /// Host: every access of shared and global memory and every barrier calls the race checker of
  /// the runner (run_host; README, "Race checking"); also enabled by ROCJIT_CHECK=races.
  /// AMDGPU: the simulator's race-checker markers (s_ttracedata at wavebarriers, barriers and
  /// atomics: targets/amdgpu/lower.h); the HIP device sets it on simulated devices under
  /// ROCJIT_CHECK=races.
  bool check_races = false;
  /// Contraction (a * b + c may become one fma) and approximate functions: on AMDGPU the f32
  /// division, sqrt, sin, cos, tan, exp, exp2, exp10, log, log2, log10 and pow use the hardware's
  /// approximations (bounds in the README's accuracy table, "fast_math" columns). Per kernel too:
  /// KernelOptions::fast_math, or `fast_math` after max_block_size in .rjir.
  bool fast_math = false;
  /// Host: false produces the requested texts and facts only; nothing is added to the process's
  /// JIT and the kernel cannot run (Kernel::llvm_ir / assembly / metadata use this).
  bool jit = true;
  /// false: compile afresh instead of looking in the kernel cache (benchmarks). Plain compiles
  /// are cached in memory (the most recently used memory_cache_limit()) and on disk
  /// (`<key>.rjco` code objects, `<key>.rjho` host objects).
  bool cache = true;
  /// Host: take the kernel from the kernel cache (memory or disk) or not at all: when it is not
  /// there, nothing is compiled and CodeObject::host is empty. The CPU device asks this before
  /// compiling a first launch at O1 (tiered compilation).
  bool cached_only = false;
  /// Host: compile for exactly this work-group shape (PoCL does this for every local size): the
  /// work-item loops get constant trip counts, which LLVM unrolls and vectorises without runtime
  /// checks. Such a kernel refuses other shapes. Unset: any shape, read at launch. The CPU device
  /// specialises the first few shapes each kernel is launched with.
  std::optional<Dim3> block;
};

/// The options of a host compile: the same structure (kept as a name for existing code).
using HostCompileOptions = CompileOptions;

/// Verifies, lowers, optimises, generates code and (AMDGPU) links, for any Target: an AMDGPU
/// processor gives a linked code object (CodeObject::elf), Target::host() a kernel JIT-compiled
/// into this process (CodeObject::host). Both go through the kernel cache under one key builder.
/// Throws CompileError for bad kernels, unknown processors or options (and, for the host, shared
/// or local arrays beyond host_shared_bytes_limit / host_local_bytes_limit), and never lets an
/// LLVM fatal error reach the caller.
CodeObject compile(const ir::Kernel& kernel, const Target& target, const CompileOptions& options = {});

/// The same for IR that cannot change (held through shared_ptr<const>, as rocjit::Kernel holds
/// its IR): it is verified and fingerprinted for the kernel cache once, so compiling it again is
/// a memory-cache hit of about a microsecond instead of a verify and a print of the IR.
CodeObject compile(const std::shared_ptr<const ir::Kernel>& kernel, const Target& target,
                   const CompileOptions& options = {});

/// Compiles a batch of kernels for one target in parallel: one task per kernel on a pool of
/// `threads` workers (0: one per hardware thread), each an ordinary compile() (cache included).
/// The code objects come back in the order of `kernels`. When compiles fail, the others still
/// finish and the error of the first failing kernel in that order is rethrown.
std::vector<CodeObject> compile_all(std::span<const std::shared_ptr<const ir::Kernel>> kernels, const Target& target,
                                    const CompileOptions& options = {}, unsigned threads = 0);

/// JIT-compiles a kernel for this CPU: compile(kernel, Target::host(), options).host.
HostKernel compile_host(const ir::Kernel& kernel, const CompileOptions& options = {});

/// The library that serves AMDGPU kernels' math calls in this process (beyond what the backend
/// expands itself): "ocml <path of ocml.bc>" (ROCm's device library), or "builtin (libclc <LLVM
/// version>)", rocjit's own, when ocml.bc is not installed or ROCJIT_DEVICE_LIBS=none; "none" if
/// rocjit was built without it and ocml.bc is missing. Part of every AMDGPU compile's cache key.
const std::string& amdgpu_math_library();

/// Bytes of LDS a work-group may allocate on `processor` (65536, or 163840 on gfx950).
uint64_t amdgpu_lds_limit(const std::string& processor);

/// Reads an AMDGPU code object rocjit did not build (an .hsaco from clang, hipcc or rocjit-dump):
/// its processor from the ELF header (Target::amdgpu(processor)), its bytes, and every kernel's
/// metadata (.args with their offsets, sizes and value kinds; explicit arguments are named by the
/// metadata's .name, when it has one). Throws CompileError when the bytes are not an AMDGPU ELF
/// object with kernel metadata.
CodeObject read_code_object(std::vector<uint8_t> elf);

/// Work-items per wavefront of code compiled for `processor` with LLVM `features`: 64 on gfx9,
/// 32 on gfx10+ unless the features hold "+wavefrontsize64".
unsigned amdgpu_wavefront_size(const std::string& processor, const std::string& features = "");

}  // namespace rocjit
