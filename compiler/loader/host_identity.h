// The host CPU's identity in cache keys, read without LLVM (host_identity.cpp).
#pragma once

#include <string>

namespace rocjit::loader {

// "host x86_64 cpu <32 hex digits>": fixed for the process.
const std::string& host_identity();

}  // namespace rocjit::loader
