// CodeObject lookups and the textual form of its metadata.
#include "rocjit/compiler/code_object.hpp"

#include <fmt/format.h>

#include "rocjit/compiler/error.hpp"
#include "rocjit/compiler/occupancy.hpp"

namespace rocjit {

const KernelMetadata& CodeObject::kernel(const std::string& name) const {
  for (const auto& k : kernels)
    if (k.name == name) return k;
  throw Error(fmt::format("code object for {} has no kernel named '{}'", target.str(), name));
}

namespace {

void append_kernel(std::string& s, const CodeObject& co, const KernelMetadata& k) {
  const Occupancy occ = amdgpu_occupancy(k, co.target.processor);
  const SimdLimits& l = occ.limits;
  s += fmt::format("kernel {}\n", k.name);
  s += fmt::format("  symbol:              {}\n", k.symbol);
  s += fmt::format("  target:              {}\n", co.target.str());
  s += fmt::format("  code object version: {}\n", co.code_object_version);
  s += fmt::format("  wavefront size:      {}\n", k.wavefront_size);
  s += fmt::format("  max work-group size: {}\n", k.max_flat_workgroup_size);
  s += fmt::format("  VGPRs:               {}\n", k.vgpr_count);
  s += fmt::format("  SGPRs:               {}\n", k.sgpr_count);
  s += fmt::format("  AGPRs:               {}\n", k.agpr_count);
  s += fmt::format("  VGPR spills:         {}\n", k.vgpr_spill_count);
  s += fmt::format("  SGPR spills:         {}\n", k.sgpr_spill_count);
  s += fmt::format("  LDS bytes:           {}\n", k.group_segment_fixed_size);
  s += fmt::format("  scratch bytes:       {} per work-item\n", k.private_segment_fixed_size);
  s += fmt::format("  kernarg bytes:       {} (align {})\n", k.kernarg_segment_size, k.kernarg_segment_align);
  s += "  kernel arguments:\n    offset  size  kind                            name\n";
  for (const KernelArgument& a : k.args)
    s += fmt::format("    {:>6}  {:>4}  {:<30}  {}\n", a.offset, a.size, a.value_kind, a.name);
  s += fmt::format("  occupancy:           {} waves per SIMD (at the maximum work-group size)\n", occ.waves_per_simd);
  s += fmt::format("    decided by:                 {}\n", occ.reason);
  if (occ.waves_per_simd == 0) return;  // cannot run: the per-resource bounds mean nothing
  s += fmt::format("    limited by VGPRs:           {} ({} VGPRs, {} per SIMD, allocated in blocks of {})\n",
                   occ.by_vgprs, k.vgpr_count, l.vgpr_file, l.vgpr_granule);
  s += fmt::format("    limited by SGPRs:           {}{}\n", occ.by_sgprs,
                   l.sgpr_limited ? fmt::format(" ({} SGPRs)", k.sgpr_count) : " (SGPRs do not limit gfx10+)");
  s += fmt::format("    limited by LDS:             {} ({} bytes, {} per CU, allocated in blocks of {})\n", occ.by_lds,
                   k.group_segment_fixed_size, l.lds_per_cu, l.lds_granule);
  s += fmt::format("    limited by work-group size: {} ({} waves per work-group, {} SIMDs per CU)\n",
                   occ.by_workgroup_size, occ.waves_per_workgroup, l.simds_per_cu);
  s += fmt::format("    hardware maximum:           {}\n", occ.by_hardware);
}

}  // namespace

std::string metadata_text(const CodeObject& co, const std::string& kernel) {
  if (co.target.kind == Target::Kind::host) {
    if (!co.host) throw Error("this host CodeObject holds no kernel");
    if (!kernel.empty() && kernel != co.host.name())
      throw Error(fmt::format("code object for host has no kernel named '{}'", kernel));
    return metadata_text(co.host);
  }
  if (!kernel.empty()) {
    std::string s;
    append_kernel(s, co, co.kernel(kernel));
    return s;
  }
  std::string s;
  for (const KernelMetadata& k : co.kernels) {
    if (!s.empty()) s += "\n";
    append_kernel(s, co, k);
  }
  return s;
}

}  // namespace rocjit
