// The result of compiling a kernel: the loadable code object and what the compiler said about it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "rocjit/compiler/host.hpp"
#include "rocjit/compiler/target.hpp"

namespace rocjit {

struct PrintTable;

/// One kernel argument as the code object lays it out in the kernarg segment.
struct KernelArgument {
  std::string name;        ///< rocjit's name: "x", "x.shape0", "x.stride1", or the scalar's name
  uint64_t offset = 0;     ///< bytes from the start of the kernarg segment
  uint64_t size = 0;       ///< bytes
  std::string value_kind;  ///< "global_buffer", "by_value", "hidden_..."
};

/// Per-kernel facts from the code object's AMDGPU metadata note.
struct KernelMetadata {
  std::string name;    ///< the kernel's name
  std::string symbol;  ///< "name.kd"
  /// Bytes of kernel arguments (the kernarg segment).
  uint64_t kernarg_segment_size = 0;
  /// Alignment of the kernarg segment in bytes.
  uint64_t kernarg_segment_align = 0;
  uint64_t group_segment_fixed_size = 0;    ///< LDS bytes
  uint64_t private_segment_fixed_size = 0;  ///< scratch bytes per work-item
  /// Vector registers per work-item.
  uint32_t vgpr_count = 0;
  /// Scalar registers per wavefront.
  uint32_t sgpr_count = 0;
  /// Accumulation registers (MFMA processors).
  uint32_t agpr_count = 0;
  /// Vector registers spilled to scratch.
  uint32_t vgpr_spill_count = 0;
  /// Scalar registers spilled.
  uint32_t sgpr_spill_count = 0;
  /// Work-items per wavefront (32 or 64).
  uint32_t wavefront_size = 0;
  /// Largest work-group the kernel accepts.
  uint32_t max_flat_workgroup_size = 0;
  std::vector<KernelArgument> args;  ///< explicit arguments first, then hidden ones
};

/// A linked AMDGPU code object (an .hsaco) with its kernels' metadata; what compile() returns.
struct CodeObject {
  /// The processor and features it was compiled for, or Target::host().
  Target target;
  /// The code object version (4 or 5).
  int code_object_version = 5;
  std::vector<uint8_t> elf;  ///< AMDGPU: the linked shared object (an .hsaco)
  /// AMDGPU: metadata of each kernel in the object.
  std::vector<KernelMetadata> kernels;
  /// Host: the kernel, JIT-compiled into this process (its facts are HostKernel's accessors).
  HostKernel host;
  /// The kernel's print and assert sites (rocjit/compiler/device_print.hpp): what its print
  /// buffer's records mean. Part of the cache entry, so a cache hit decodes output without the IR.
  std::shared_ptr<const PrintTable> prints;
  /// Filled when requested in CompileOptions.
  std::string llvm_ir;            ///< as lowered, before optimisation
  std::string llvm_ir_optimized;  ///< after the O-level pipeline
  std::string assembly;           ///< AMDGPU or host assembly
  std::vector<uint8_t> object;    ///< the relocatable ELF object, before lld links it

  /// The metadata of the kernel called `name`; throws if there is none.
  const KernelMetadata& kernel(const std::string& name) const;
};

/// Human-readable metadata of every kernel in `co` (or only `kernel`): registers, spills, LDS,
/// scratch, kernarg layout, wave size, maximum work-group size and the occupancy bound they imply.
/// This is `rocjit-dump --emit=meta`, ROCJIT_DUMP=meta and Kernel::metadata(). For the host
/// target it is metadata_text(co.host).
std::string metadata_text(const CodeObject& co, const std::string& kernel = {});

}  // namespace rocjit
