// In-process AMDGPU assembler for the simulator's tests: LLVM's MC asm parser and an ELF object
// streamer turn assembly text into the bytes of its .text section.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace amdsim_test {

struct AssemblyError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Assembles `source` for amdgcn-amd-amdhsa and `processor` ("gfx942", "gfx90a", "gfx1100");
// `wave_size` 32 adds +wavefrontsize32. Returns the .text bytes; throws AssemblyError with
// LLVM's diagnostics.
std::vector<uint8_t> assemble(const std::string& processor, int wave_size, const std::string& source);

}  // namespace amdsim_test
