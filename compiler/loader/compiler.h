// The seam between librocjit and rocjit's compiler (librocjit-compiler.so: lowering, LLVM, lld,
// built against LLVM's static libraries with every symbol hidden but one). librocjit loads it with
// dlopen at the first compile the kernel cache does not answer, and calls it only through this
// table: a process whose kernels all come from the cache never maps LLVM.
//
// The table passes C++ types (Job, CodeObject): the library and librocjit come from one build,
// which the entry point checks (abi and build), so both sides agree on every layout.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "loader/backend.h"
#include "loader/host_kernel.h"

namespace rocjit::loader {

// Bumped whenever this table or a type it passes changes.
inline constexpr uint32_t compiler_abi = 1;

struct CompilerInterface {
  uint32_t abi = 0;
  const char* build = "";  // ROCJIT_VERSION and the build's own stamp (ROCJIT_BUILD_STAMP)
  // Checks the processor and features, then builds a linked AMDGPU code object with its metadata
  // and print table.
  CodeObject (*build_amdgpu)(const targets::Job& job) = nullptr;
  // Builds a host kernel: fills `impl`'s facts and requested texts, and (unless options.jit is
  // false) the shared object exporting `symbol`; the caller loads it (loader/host_library.h).
  void (*build_host)(const targets::Job& job, HostKernel::Impl& impl, std::string& symbol,
                     std::string& shared_object) = nullptr;
  // The AMDGPU processors LLVM knows (rocjit::amdgpu_processors).
  std::vector<std::string> (*amdgpu_processors)() = nullptr;
  // An AMDGPU ELF's processor and kernels' metadata (rocjit::read_code_object).
  CodeObject (*read_code_object)(std::vector<uint8_t> elf) = nullptr;
};

// What librocjit and the compiler library both hold: they must be equal.
const char* build_stamp();

// The compiler, loaded on first use from Settings::compiler_library (ROCJIT_COMPILER_LIBRARY, then
// only it), else librocjit-compiler.so next to librocjit, in the build tree, in the install prefix. Throws
// CompileError naming `why` (the kernel and target, or the function that needs the compiler) and
// where it looked when none loads, and at once under Settings::compile_never (ROCJIT_COMPILE=never).
// `kernel` (when known) picks what the error says the mounted bundles hold.
const CompilerInterface& compiler(const std::string& why, const std::string& kernel = {});

// What identifies the compiler library compiler() would load, without loading it: the first
// candidate that exists, with its size and modification time ("no compiler library" if none).
// Part of the disk cache's file names (cache::build_identity), so a rebuilt compiler library
// never reads entries an earlier one wrote.
std::string compiler_file_identity();

// Whether the compiler library is loaded in this process (tests, bench-compile).
bool compiler_loaded();

}  // namespace rocjit::loader

// The compiler library's one exported symbol: the table, or null when `abi` or `build` differ
// from the library's own.
extern "C" const rocjit::loader::CompilerInterface* rocjit_compiler_v1(uint32_t abi, const char* build);
