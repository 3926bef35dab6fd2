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

/// What bounds the occupancy. For a kernel that cannot run at all (waves_per_simd == 0) it is
/// the first impossible resource: more VGPRs, AGPRs or SGPRs than one wave can address, more LDS
/// than one work-group can have, a work-group larger than 1024 work-items, or a wavefront size
/// the processor does not have.
enum class OccupancyLimit : uint8_t { hardware, vgprs, agprs, sgprs, lds, workgroup_size, wave_size };

/// "hardware", "VGPRs", "AGPRs", "SGPRs", "LDS", "work-group size", "wave size".
const char* occupancy_limit_name(OccupancyLimit limit);

/// How many wavefronts of a kernel fit on one SIMD, and what limits it.
struct Occupancy {
  /// The minimum of the bounds below; 0 when the kernel cannot run on the processor at all.
  unsigned waves_per_simd = 0;
  /// The bound that decides waves_per_simd (for 0: the impossible resource).
  OccupancyLimit limited_by = OccupancyLimit::hardware;
  /// Says what limits it, with the numbers: "VGPRs: 257 VGPRs exceed the 256 a gfx803 wave can
  /// address" or "VGPRs: 96 VGPRs, 512 per SIMD in blocks of 8".
  std::string reason;
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

/// The estimate assumes launches at the kernel's maximum work-group size. Works on raw numbers
/// as well as on a compiled kernel's metadata (fill vgpr_count, sgpr_count, agpr_count,
/// group_segment_fixed_size, wavefront_size and max_flat_workgroup_size). Impossible inputs give
/// waves_per_simd == 0 with the reason; a processor name that is not gfxN... throws rocjit::Error.
Occupancy amdgpu_occupancy(const KernelMetadata& kernel, const std::string& processor);

}  // namespace rocjit
