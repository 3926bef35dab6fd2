// compile() through the cache: memory, then disk, then the target pipeline (once per key even
// when several threads ask at the same time).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>
#include <string>
#include <string_view>
#include <utility>

#include "cache/bundle.h"
#include "rocjit/compiler/compile.hpp"
#include "rocjit/settings.hpp"

namespace rocjit::cache {

// What identifies a kernel's IR for the cache: a hash of its text without source locations
// (so editing unrelated lines of a program does not invalidate entries), as 32 hex digits.
std::string ir_fingerprint(const ir::Kernel& kernel);

// The cache key of a compilation for any target, as 32 hex digits: the build, what the code runs
// on (`target_identity`: Target::str() for AMDGPU; the triple, CPU and features for the host),
// the options that change the code (code object version, O-level, fixed work-group shape) and
// the IR. The one key builder: both targets' entries are named by it.
// The key does not name this library binary (it names the rocjit version, portable_identity()),
// so bundles written by another build of the version find their entries by it; the disk cache
// names its files by disk_name(key), which adds build_identity().
std::string key(const std::string& ir_fingerprint, const std::string& target_identity, const CompileOptions& options);
// The rocjit version, LLVM version and entry format: what a bundle must have been written by.
const std::string& portable_identity();
// The disk cache's name for `key`'s entry: a hash of the key and build_identity().
std::string disk_name(const std::string& key);
// The ELF of a code-object entry's payload (what lookup_or_compile stores), or nullopt.
std::optional<std::vector<uint8_t>> code_object_elf(const std::string& payload);
// compile() (the caller) sends compiles that want texts, objects or ROCJIT_DUMP files past the
// cache: entries hold only the linked code object and its metadata. `key` comes from key().
// `settings` (the compile's) give the directory and the bounds of both levels.
// `label` names the entry in bundles (Settings::bundle_record).
CodeObject lookup_or_compile(const std::string& key, const Target& target, const Settings& settings,
                             const EntryLabel& label, const std::function<CodeObject()>& compile);
// Whether lookup_or_compile would find `key` without compiling (in memory, finished, or on disk).
bool code_object_cached(const std::string& key, const Settings& settings);
// The on-disk cache directory `settings` give (Settings::cache_dir, else the default one); empty
// when the disk cache is off.
std::string directory(const Settings& settings);
// What identifies this build of rocjit in the disk cache's file names: the version, LLVM's
// version, and the size and modification time of librocjit (found with dladdr) and of the
// compiler library it would load (loader::compiler_file_identity), so a rebuilt or reinstalled
// library never reads entries an earlier build wrote.
const std::string& build_identity();

// The XXH3-64 checksum disk entries and bundle entries carry of their payloads.
uint64_t payload_checksum(std::string_view payload);

// 32 hex digits naming `text` (for keys built elsewhere).
std::string hash_key(const std::string& text);

// The same two levels for other compiled values (the host backend's kernels), sharing the
// directory, entry format, LRU bounds and counters: memory (least recently used forgotten first;
// a forgotten value still alive elsewhere is found again, since it may own process state such as
// JIT'd code that must not be made twice), then
// <dir>/<key><extension>, then `build`, which returns the value and the payload to store.
// `decode` turns a stored payload back into a value, or returns null (the entry is rejected and
// rebuilt). Concurrent callers of one key wait for the first.
using AnyValue = std::shared_ptr<const void>;
// Whether lookup_or_build would find `key` without building: a finished value in memory (or one
// forgotten but still alive), or an entry file on disk (which it then decodes; a rejected file
// is rebuilt). Does not wait for a value being built.
bool cached(const std::string& key, const char* extension, const Settings& settings);
AnyValue lookup_or_build(const std::string& key, const char* extension, const Settings& settings,
                         const EntryLabel& label, const std::function<AnyValue(const std::string& payload)>& decode,
                         const std::function<std::pair<AnyValue, std::string>()>& build);

}  // namespace rocjit::cache
