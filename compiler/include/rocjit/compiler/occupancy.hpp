// How many waves of a compiled kernel fit on one SIMD at once, and what limits it.
#pragma once

#include <string>

#include "rocjit/compiler/code_object.hpp"

namespace rocjit {

/// Per-processor numbers the estimate uses (compiler/targets/amdgpu/occupancy.cpp names their sources).
struct SimdLimits {
  unsigned max_waves_per_simd = 0;  ///< hardware wave slots per SIMD
  unsigned simds_per_cu = 0;        ///< SIMDs that share a work-group's LDS and barriers
  unsigned vgpr_file = 0;           ///< VGPRs per lane that all waves on a SIMD share
  unsigned vgpr_granule = 0;        ///< VGPRs are allocated in blocks of this many
  bool sgpr_limited = false;        ///< gfx6-gfx9: SGPRs can limit occupancy
  unsigned lds_per_cu = 0;          ///< bytes of LDS the work-groups on one CU share
  unsigned lds_granule = 0;         ///< LDS is allocated in blocks of this many bytes
  unsigned max_barriers_per_cu = 0; ///< work-groups of more than one wave need a barrier each
};

/// How many wavefronts of a kernel fit on one SIMD, and what limits it.
struct Occupancy {
  unsigned waves_per_simd = 0;  ///< the minimum of the bounds below
  /// Hardware maximum of wavefronts per SIMD.
  unsigned by_hardware = 0;
  /// Bound from vector registers.
  unsigned by_vgprs = 0;
  /// Bound from scalar registers.
  unsigned by_sgprs = 0;
  /// Bound from LDS per work-group.
  unsigned by_lds = 0;
  /// Bound from the work-group size.
  unsigned by_workgroup_size = 0;
  /// Wavefronts in one work-group of the maximum size.
  unsigned waves_per_workgroup = 0;
  /// The processor's per-SIMD limits used.
  SimdLimits limits;
};

/// The per-SIMD limits of an AMDGPU processor at a wavefront size.
SimdLimits amdgpu_simd_limits(const std::string& processor, unsigned wavefront_size);

/// The estimate assumes launches at the kernel's maximum work-group size.
Occupancy amdgpu_occupancy(const KernelMetadata& kernel, const std::string& processor);

}  // namespace rocjit
