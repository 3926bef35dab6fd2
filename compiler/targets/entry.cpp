// librocjit-compiler.so's one exported symbol (loader/compiler.h): the table librocjit calls.
#include "loader/compiler.h"

#include <cstring>

#include "targets/amdgpu/metadata.h"
#include "targets/amdgpu/target_machine.h"

namespace rocjit::targets {
namespace amdgpu {
CodeObject build_checked(const Job& job);  // compile_amdgpu.cpp
}
namespace host {
void build(const Job& job, HostKernel::Impl& impl, std::string& symbol, std::string& shared_object);  // jit.cpp
}
namespace {

CodeObject read_code_object(std::vector<uint8_t> elf) {
  CodeObject co;
  co.target = Target::amdgpu(amdgpu::read_processor(elf));
  co.kernels = amdgpu::read_metadata(elf, {});
  co.code_object_version = 0;  // not recorded by read_metadata; the loader reads it from the note
  co.elf = std::move(elf);
  return co;
}

const loader::CompilerInterface table = [] {
  loader::CompilerInterface t;
  t.abi = loader::compiler_abi;
  t.build = ROCJIT_VERSION " " ROCJIT_BUILD_STAMP;
  t.build_amdgpu = &amdgpu::build_checked;
  t.build_host = &host::build;
  t.amdgpu_processors = &amdgpu::processors;
  t.read_code_object = &read_code_object;
  return t;
}();

}  // namespace
}  // namespace rocjit::targets

extern "C" __attribute__((visibility("default"))) const rocjit::loader::CompilerInterface* rocjit_compiler_v1(
    uint32_t abi, const char* build) {
  const rocjit::loader::CompilerInterface& t = rocjit::targets::table;
  if (abi != t.abi || !build || std::strcmp(build, t.build) != 0) return nullptr;
  return &t;
}
