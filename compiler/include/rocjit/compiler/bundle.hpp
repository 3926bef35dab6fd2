// Kernel bundles: the compiled kernels a program uses, for several targets, in one read-only file
// that a deployment ships instead of a compiler (README "Deploying without a compiler").
//
// A program run with Settings::bundle_record (ROCJIT_BUNDLE_RECORD=app.rjb) adds every kernel it
// compiles or loads to app.rjb, for the device it runs on; running it once per device (the
// `rocjit-bundle record` tool does) collects every target. Settings::bundles
// (ROCJIT_BUNDLE=a.rjb:b.rjb) mounts bundles ahead of the disk cache, and with
// Settings::compile_never (ROCJIT_COMPILE=never) a kernel no bundle or cache holds is an error that
// names the kernel, the target and what the bundles hold for it.
//
// Entries are keyed by what the kernel cache keys (IR, target, options) and the rocjit version,
// not by the library binary, so a bundle written by one build of a version serves another.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace rocjit::bundle {

/// One compiled kernel in a bundle.
struct Entry {
  std::string kernel;  ///< the kernel's name
  std::string target;  ///< Target::str(): "amdgpu:gfx942[:features]" or "host"
  std::string key;     ///< the kernel cache's key (32 hex digits)
  bool host = false;   ///< a host (CPU) kernel; else an AMDGPU code object
  uint64_t bytes = 0;  ///< size of the stored entry
};

/// The file's entries, in the order they were added. Throws rocjit::Error naming the file when it
/// cannot be read or is not a bundle of this rocjit version.
std::vector<Entry> list(const std::string& path);

/// Writes to `output` (atomically) every entry of `inputs`, each key once (the first input's
/// wins). `output` may be one of the inputs.
void merge(const std::string& output, const std::vector<std::string>& inputs);

/// The AMDGPU code objects of `kernel` in the bundle at `path`, one per processor, as a
/// clang-offload-bundler fat binary (entries "hipv4-amdgcn-amd-amdhsa--<processor>" and an empty
/// host entry), which hipModuleLoadData and rocjit::load_code_object accept. Throws rocjit::Error
/// when the bundle holds no code object of `kernel`, or two for one processor (compiled with
/// different options; name one with `key`, a prefix of the entry's key as list() gives it).
std::vector<uint8_t> fat_binary(const std::string& path, const std::string& kernel, const std::string& key = "");

/// Code objects as a clang-offload-bundler fat binary: one entry per (processor, ELF) pair, named
/// "hipv4-amdgcn-amd-amdhsa--<processor>", after an empty host entry, each at a 4096-byte boundary.
std::vector<uint8_t> fat_binary_of(const std::vector<std::pair<std::string, std::vector<uint8_t>>>& code_objects);

/// Whether `image` starts like a clang-offload-bundler fat binary.
bool is_fat_binary(const void* image, size_t size);
/// The code object for `processor` (e.g. "gfx942") in the fat binary `image`; an entry whose
/// target id names features (gfx90a:xnack-) matches its processor. Throws rocjit::Error listing
/// the entries when none is for `processor` or the image is malformed.
std::vector<uint8_t> fat_binary_entry(const void* image, size_t size, const std::string& processor);

}  // namespace rocjit::bundle
