// compile() through the cache: memory, then disk, then the target pipeline (once per key even
// when several threads ask at the same time).
#pragma once

#include <functional>
#include <string>

#include "rocjit/compiler/compile.hpp"

namespace rocjit::cache {

// What identifies a kernel's IR for the cache: a hash of its text without source locations
// (so editing unrelated lines of a program does not invalidate entries), as 32 hex digits.
std::string ir_fingerprint(const ir::Kernel& kernel);

// The cache key of a compilation, as 32 hex digits.
std::string key(const std::string& ir_fingerprint, const Target& target, const CompileOptions& options);

// compile() (the caller) sends compiles that want texts, objects or ROCJIT_DUMP files past the
// cache: entries hold only the linked code object and its metadata.
CodeObject lookup_or_compile(const std::string& ir_fingerprint, const Target& target, const CompileOptions& options,
                             const std::function<CodeObject()>& compile);

}  // namespace rocjit::cache
