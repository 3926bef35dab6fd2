// compile(): rocjit IR to a code object, entirely in-process. No LLVM types in this header.
#pragma once

#include <memory>

#include "rocjit/compiler/code_object.hpp"
#include "rocjit/compiler/ir.hpp"
#include "rocjit/compiler/target.hpp"

namespace rocjit {

/// How compile() builds a code object: optimisation level, code object version, texts to keep.
struct CompileOptions {
  int opt_level = 3;                ///< 0..3
  int code_object_version = 5;      ///< 4 for ROCm 5.x runtimes, 5 (default) for ROCm 6+
  bool emit_llvm_ir = false;        ///< fill CodeObject::llvm_ir
  /// Keep the LLVM IR after optimisation (CodeObject::llvm_ir_optimized).
  bool emit_llvm_ir_optimized = false;
  bool emit_assembly = false;       ///< fill CodeObject::assembly
  bool emit_object = false;         ///< fill CodeObject::object (the object before lld links it)
};

/// Verifies, lowers, optimises, generates code and links. Throws CompileError for bad kernels,
/// unknown processors or options, and never lets an LLVM fatal error reach the caller.
CodeObject compile(const ir::Kernel& kernel, const Target& target, const CompileOptions& options = {});

/// The same for IR that cannot change (held through shared_ptr<const>, as rocjit::Kernel holds
/// its IR): it is verified and fingerprinted for the kernel cache once, so compiling it again is
/// a memory-cache hit of about a microsecond instead of a verify and a print of the IR.
CodeObject compile(const std::shared_ptr<const ir::Kernel>& kernel, const Target& target,
                   const CompileOptions& options = {});

/// Bytes of LDS a work-group may allocate on `processor` (65536, or 163840 on gfx950).
uint64_t amdgpu_lds_limit(const std::string& processor);

}  // namespace rocjit
