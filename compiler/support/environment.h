// Whole numbers from environment variables, read one way everywhere in rocjit (the compiler and
// the runtime; no LLVM headers, so the runtime can use it too).
#pragma once

#include <cstdint>

namespace rocjit::support {

// The integer in environment variable `name` when it lies in [min, max]; `fallback` when the
// variable is unset or empty. Anything else (not a whole decimal number, trailing characters, out of
// range) is a warning through the log handler, "NAME='text' is not WHAT; using FALLBACK",
// and gives `fallback`. Callers that read a variable more than once cache the result.
int64_t environment_integer(const char* name, int64_t min, int64_t max, int64_t fallback, const char* what);

}  // namespace rocjit::support
