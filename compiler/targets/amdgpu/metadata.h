// Reads the AMDGPU metadata note (msgpack) out of a linked code object.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "rocjit/compiler/code_object.hpp"

namespace rocjit::targets::amdgpu {

// `argument_names` labels the explicit arguments in order (the code object has no names).
std::vector<KernelMetadata> read_metadata(const std::vector<uint8_t>& elf, const std::vector<std::string>& argument_names);

}  // namespace rocjit::targets::amdgpu
