// compile() through the cache: memory, then disk, then the target pipeline (once per key even
// when several threads ask at the same time).
#pragma once

#include <functional>
#include <string>

#include "rocjit/compiler/compile.hpp"

namespace rocjit::cache {

// The cache key of a compilation, as 32 hex digits.
std::string key(const ir::Kernel& kernel, const Target& target, const CompileOptions& options);

CodeObject lookup_or_compile(const ir::Kernel& kernel, const Target& target, const CompileOptions& options,
                             const std::function<CodeObject()>& compile);

}  // namespace rocjit::cache
