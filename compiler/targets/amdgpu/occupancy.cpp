// Occupancy estimate for metadata_text(), `rocjit-dump --emit=meta` and ROCJIT_DUMP=meta.
//
// The formula follows LLVM's AMDGPU backend (AMDGPUBaseInfo.cpp: getMaxWavesPerEU,
// getTotalNumVGPRs, getVGPRAllocGranule, getNumWavesPerEUWithNumVGPRs, getOccupancyWithNumSGPRs,
// getMaxWorkGroupsPerCU; AMDGPUSubtarget.cpp: getOccupancyWithWorkGroupSizes):
//
//   waves_per_group   = ceil(max_work_group_size / wavefront_size)
//   per_simd(groups)  = clamp(ceil(groups * waves_per_group / simds_per_cu), 1, max_waves)
//   by_vgprs          = vgpr_file / round_up(vgpr_count, vgpr_granule)
//   by_sgprs          = LLVM's table for gfx6-gfx9 (SGPRs do not limit gfx10+)
//   by_lds            = per_simd(lds_per_cu / round_up(lds_bytes, lds_granule))
//   by_workgroup_size = per_simd(waves_per_group == 1 ? max_waves * simds_per_cu
//                                : min(max_waves * simds_per_cu / waves_per_group, barriers))
//   waves_per_simd    = min(max_waves, by_vgprs, by_sgprs, by_lds, by_workgroup_size)
//
// It assumes launches at the kernel's maximum work-group size. The register numbers are
// LLVM's, including the 1.5x VGPR file of gfx1100/gfx1101/gfx1151/gfx1200/gfx1201
// (Feature1_5xVGPRs: 1536 per lane in wave32, 768 in wave64, allocated in blocks of 24/12).
// LDS is counted as 64 KiB per work-group processor even in WGP mode (128 KiB there), so the
// estimate never promises more waves than the hardware runs. For work-groups of many waves it can be lower than the "; Occupancy:"
// comment of LLVM's assembly, which does not count how many whole work-groups fit.
#include "rocjit/compiler/occupancy.hpp"

#include "rocjit/compiler/compile.hpp"
#include "rocjit/compiler/error.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace rocjit {
namespace {

unsigned round_up(uint64_t v, unsigned granule) { return static_cast<unsigned>((v + granule - 1) / granule * granule); }
unsigned divide_up(unsigned a, unsigned b) { return (a + b - 1) / b; }

// gfx900 -> 9, gfx90a -> 9, gfx1030 -> 10, gfx1200 -> 12.
unsigned major_version(const std::string& processor) {
  if (processor.size() < 6 || processor.size() > 7 || processor.rfind("gfx", 0) != 0 ||
      !std::isdigit(static_cast<unsigned char>(processor[3])))
    throw Error(fmt::format("amdgpu_occupancy: '{}' is not an AMDGPU processor name (gfx803, gfx90a, gfx942, "
                            "gfx1100, ...)",
                            processor));
  std::string digits = processor.substr(3);
  return static_cast<unsigned>(std::stoul(digits.substr(0, digits.size() >= 4 ? 2 : 1)));
}

// gfx908 and the unified-register-file processors have accumulation registers.
bool has_agprs(const std::string& processor);

// The most SGPRs one wave can use, as .sgpr_count counts them: LLVM's addressable SGPRs
// (AMDGPUBaseInfo getAddressableNumSGPRs: 104 on gfx6-7, 102 on gfx8-9, 106 on gfx10+) plus
// VCC, FLAT_SCRATCH on gfx7-9 and XNACK_MASK on gfx8-9, which .sgpr_count includes.
unsigned max_wave_sgprs(unsigned major) {
  if (major <= 6) return 104 + 2;
  if (major == 7) return 104 + 2 + 2;
  if (major <= 9) return 102 + 2 + 2 + 2;
  return 106 + 2;
}

// gfx90a, gfx940, gfx941, gfx942, gfx950: one 512-entry file for VGPRs and AGPRs.
bool unified_register_file(const std::string& processor) {
  return processor == "gfx90a" || processor.starts_with("gfx94") || processor.starts_with("gfx95");
}

// LLVM's Feature1_5xVGPRs processors.
bool large_vgpr_file(const std::string& processor) {
  return processor == "gfx1100" || processor == "gfx1101" || processor == "gfx1151" || processor == "gfx1200" ||
         processor == "gfx1201";
}

bool has_agprs(const std::string& processor) { return processor == "gfx908" || unified_register_file(processor); }

}  // namespace

const char* occupancy_limit_name(OccupancyLimit limit) {
  switch (limit) {
    case OccupancyLimit::hardware: return "hardware";
    case OccupancyLimit::vgprs: return "VGPRs";
    case OccupancyLimit::agprs: return "AGPRs";
    case OccupancyLimit::sgprs: return "SGPRs";
    case OccupancyLimit::lds: return "LDS";
    case OccupancyLimit::workgroup_size: return "work-group size";
    case OccupancyLimit::wave_size: return "wave size";
  }
  return "?";
}

SimdLimits amdgpu_simd_limits(const std::string& processor, unsigned wavefront_size) {
  SimdLimits l;
  const unsigned major = major_version(processor);
  const bool wave32 = wavefront_size == 32;
  l.lds_per_cu = static_cast<unsigned>(amdgpu_lds_limit(processor));  // 64 KiB; 160 KiB on gfx950
  l.lds_granule = 512;  // 128 dwords
  l.simds_per_cu = 4;   // a gfx6-gfx9 CU; a gfx10+ work-group processor (two CUs of two SIMDs)
  if (major < 10) {
    l.max_waves_per_simd = unified_register_file(processor) ? 8 : 10;
    l.vgpr_file = unified_register_file(processor) ? 512 : 256;
    l.vgpr_granule = unified_register_file(processor) ? 8 : 4;
    l.sgpr_limited = true;
    l.max_barriers_per_cu = 16;
  } else {
    const bool gfx10_1 = major == 10 && processor.size() >= 6 && processor[5] < '3';
    l.max_waves_per_simd = gfx10_1 ? 20 : 16;
    const bool large = large_vgpr_file(processor);
    l.vgpr_file = large ? (wave32 ? 1536 : 768) : (wave32 ? 1024 : 512);
    l.vgpr_granule = large ? (wave32 ? 24 : 12) : gfx10_1 ? (wave32 ? 8 : 4) : (wave32 ? 16 : 8);
    l.max_barriers_per_cu = 32;
  }
  return l;
}

namespace {

// A kernel that cannot run on `processor` at all: the first impossible resource, or nothing.
bool impossible(const KernelMetadata& k, const std::string& processor, Occupancy& o) {
  const unsigned major = major_version(processor);
  auto fail = [&](OccupancyLimit limit, std::string why) {
    o.waves_per_simd = 0;
    o.limited_by = limit;
    o.reason = fmt::format("{}: {}", occupancy_limit_name(limit), why);
    return true;
  };
  if (k.wavefront_size != 64 && (major < 10 || k.wavefront_size != 32))
    return fail(OccupancyLimit::wave_size,
                fmt::format("{} has wavefronts of {}, not {}", processor, major < 10 ? "64" : "32 or 64",
                            k.wavefront_size));
  if (k.max_flat_workgroup_size > 1024)
    return fail(OccupancyLimit::workgroup_size,
                fmt::format("a work-group of {} work-items exceeds the 1024 a work-group can have",
                            k.max_flat_workgroup_size));
  const unsigned max_vgprs = unified_register_file(processor) ? 512 : 256;  // ArchVGPRs + AGPRs: 512
  if (k.vgpr_count > max_vgprs)
    return fail(OccupancyLimit::vgprs, fmt::format("{} VGPRs exceed the {} a {} wave can address", k.vgpr_count,
                                                   max_vgprs, processor));
  if (k.agpr_count > 0 && !has_agprs(processor))
    return fail(OccupancyLimit::agprs, fmt::format("{} has no AGPRs ({} requested)", processor, k.agpr_count));
  if (k.agpr_count > 256)
    return fail(OccupancyLimit::agprs,
                fmt::format("{} AGPRs exceed the 256 a {} wave can address", k.agpr_count, processor));
  if (k.sgpr_count > max_wave_sgprs(major))
    return fail(OccupancyLimit::sgprs,
                fmt::format("{} SGPRs exceed the {} a {} wave can use (with VCC{})", k.sgpr_count,
                            max_wave_sgprs(major), processor,
                            major >= 8 && major <= 9 ? ", FLAT_SCRATCH and XNACK_MASK" : major == 7 ? " and FLAT_SCRATCH" : ""));
  const uint64_t lds_limit = amdgpu_lds_limit(processor);
  if (k.group_segment_fixed_size > lds_limit)
    return fail(OccupancyLimit::lds, fmt::format("{} bytes of LDS exceed the {} a work-group can have on {}",
                                                 k.group_segment_fixed_size, lds_limit, processor));
  return false;
}

}  // namespace

Occupancy amdgpu_occupancy(const KernelMetadata& k, const std::string& processor) {
  Occupancy o;
  o.limits = amdgpu_simd_limits(processor, k.wavefront_size == 32 ? 32 : 64);
  if (impossible(k, processor, o)) return o;
  const SimdLimits& l = o.limits;
  const unsigned max_waves = l.max_waves_per_simd;
  o.by_hardware = max_waves;

  // .vgpr_count is LLVM's total: on gfx90a-class processors it already counts AGPRs (arch VGPRs
  // aligned to 4, plus AGPRs); on gfx908 AGPRs are a separate file of the same size.
  unsigned vgprs = std::max(k.vgpr_count, major_version(processor) == 9 && !unified_register_file(processor)
                                              ? k.agpr_count : 0u);
  o.by_vgprs = vgprs < l.vgpr_granule ? max_waves
                                      : std::min(max_waves, std::max(1u, l.vgpr_file / round_up(vgprs, l.vgpr_granule)));

  o.by_sgprs = max_waves;
  if (l.sgpr_limited) {
    const unsigned s = k.sgpr_count;
    if (major_version(processor) >= 8)
      o.by_sgprs = s <= 80 ? 10 : s <= 88 ? 9 : s <= 100 ? 8 : 7;
    else
      o.by_sgprs = s <= 48 ? 10 : s <= 56 ? 9 : s <= 64 ? 8 : s <= 72 ? 7 : s <= 80 ? 6 : 5;
    o.by_sgprs = std::min(o.by_sgprs, max_waves);
  }

  const unsigned wave_size = std::max(1u, k.wavefront_size);
  o.waves_per_workgroup = divide_up(std::max(1u, k.max_flat_workgroup_size), wave_size);
  auto per_simd = [&](unsigned groups) {
    return std::clamp(divide_up(groups * o.waves_per_workgroup, l.simds_per_cu), 1u, max_waves);
  };

  o.by_lds = max_waves;
  if (k.group_segment_fixed_size > 0)
    o.by_lds = per_simd(static_cast<unsigned>(l.lds_per_cu / round_up(k.group_segment_fixed_size, l.lds_granule)));

  const unsigned wave_slots = max_waves * l.simds_per_cu;
  const unsigned groups = o.waves_per_workgroup == 1
                              ? wave_slots
                              : std::min(wave_slots / o.waves_per_workgroup, l.max_barriers_per_cu);
  o.by_workgroup_size = per_simd(groups);

  o.waves_per_simd = std::min({max_waves, o.by_vgprs, o.by_sgprs, o.by_lds, o.by_workgroup_size});
  // The deciding bound, in this order when several are equal.
  if (o.waves_per_simd == o.by_vgprs && o.by_vgprs < max_waves) {
    o.limited_by = OccupancyLimit::vgprs;
    o.reason = fmt::format("VGPRs: {} VGPRs, {} per SIMD in blocks of {}", vgprs, l.vgpr_file, l.vgpr_granule);
  } else if (o.waves_per_simd == o.by_sgprs && o.by_sgprs < max_waves) {
    o.limited_by = OccupancyLimit::sgprs;
    o.reason = fmt::format("SGPRs: {} SGPRs", k.sgpr_count);
  } else if (o.waves_per_simd == o.by_lds && o.by_lds < max_waves) {
    o.limited_by = OccupancyLimit::lds;
    o.reason = fmt::format("LDS: {} bytes per work-group, {} per CU", k.group_segment_fixed_size, l.lds_per_cu);
  } else if (o.waves_per_simd == o.by_workgroup_size && o.by_workgroup_size < max_waves) {
    o.limited_by = OccupancyLimit::workgroup_size;
    o.reason = fmt::format("work-group size: {} waves per work-group", o.waves_per_workgroup);
  } else {
    o.limited_by = OccupancyLimit::hardware;
    o.reason = fmt::format("hardware: {} waves per SIMD", max_waves);
  }
  return o;
}

}  // namespace rocjit
