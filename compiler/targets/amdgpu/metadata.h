// Reads the AMDGPU metadata note (msgpack) out of a linked code object.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "rocjit/compiler/code_object.hpp"

namespace rocjit::targets::amdgpu {

// The processor an AMDGPU ELF object is for ("gfx942"), from its header's e_flags; throws
// CompileError when the bytes are not an AMDGPU ELF object.
std::string read_processor(const std::vector<uint8_t>& elf);

// `argument_names` labels the explicit arguments in order (the code object has no names).
std::vector<KernelMetadata> read_metadata(const std::vector<uint8_t>& elf, const std::vector<std::string>& argument_names);

}  // namespace rocjit::targets::amdgpu
