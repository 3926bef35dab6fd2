// HostKernel: the facts of a kernel compiled for the host, its metadata text and its
// out-of-bounds reports. Running it is the runtime's (runtime/cpu/host_runner.cpp).
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <vector>

#include "rocjit/compiler/error.hpp"
#include "rocjit/compiler/interpret.hpp"
#include "targets/host/jit.h"

namespace rocjit {

const std::string& HostKernel::name() const { return impl_->name; }
const std::vector<std::string>& HostKernel::argument_names() const { return impl_->argument_names; }
uint64_t HostKernel::work_item_storage_bytes() const { return impl_->storage_bytes_per_work_item; }
unsigned HostKernel::region_count() const { return impl_->region_count; }
uint64_t HostKernel::shared_bytes() const { return impl_->shared_bytes; }
uint32_t HostKernel::max_block_size() const { return impl_->max_block_size; }
bool HostKernel::bounds_checked() const { return impl_->bounds_check; }
std::optional<Dim3> HostKernel::fixed_block() const { return impl_->fixed_block; }
const std::string& HostKernel::llvm_ir() const { return impl_->llvm_ir; }
const std::string& HostKernel::llvm_ir_optimized() const { return impl_->llvm_ir_optimized; }
const std::string& HostKernel::assembly() const { return impl_->assembly; }
HostGroupFunction HostKernel::entry() const { return impl_->entry; }

std::string metadata_text(const HostKernel& kernel) {
  const HostKernel::Impl& k = kernel.impl();
  std::string s = fmt::format("kernel {}\n", k.name);
  s += fmt::format("  target:               host ({})\n", k.cpu);
  s += fmt::format("  max work-group size:  {}\n", k.max_block_size);
  s += fmt::format("  wavefront size:       {} (emulated)\n", host_wave_size);
  if (k.fixed_block)
    s += fmt::format("  work-group shape:     {}x{}x{} (compiled for it)\n", k.fixed_block->x, k.fixed_block->y,
                     k.fixed_block->z);
  s += fmt::format("  barrier-free regions: {}\n", k.region_count);
  s += fmt::format("  work-item storage:    {} bytes per work-item (values and variables live across barriers)\n",
                   k.storage_bytes_per_work_item);
  s += fmt::format("  shared bytes:         {} per work-group\n", k.shared_bytes);
  s += fmt::format("  bounds checked:       {}\n", k.bounds_check ? "yes" : "no");
  s += "  run() arguments:\n";
  for (size_t i = 0; i < k.argument_names.size(); ++i) s += fmt::format("    {:>3}  {}\n", i, k.argument_names[i]);
  return s;
}

std::string HostKernel::out_of_bounds_message(const HostBoundsReport& r, const void* const* args) const {
  const Impl& k = *impl_;
  const targets::host::BoundsCheck& c = k.checks.at(static_cast<size_t>(r.check));
  std::vector<int64_t> shape = c.static_shape;
  if (c.param_index >= 0)  // extents from the arguments, where the kernel ABI puts them
    for (unsigned d = 0; d < c.rank; ++d) shape.push_back(*static_cast<const int32_t*>(args[c.first_extent + d]));
  std::vector<int64_t> index(r.index, r.index + c.rank);
  return fmt::format("kernel '{}': out-of-bounds {} of array '{}' at {}: index ({}) is outside shape ({}); "
                     "nothing out of bounds was read or written",
                     k.name, c.access, c.array, c.loc.str(), fmt::join(index, ", "), fmt::join(shape, ", "));
}


}  // namespace rocjit

// Called by host kernels for each wave op (targets/host/lower.cpp), once per work-group: gathers
// each wave's operands from per-work-item storage, applies interpret_wave and scatters the results.
// Types travel as the bits of ir::Type; a stride of 0 passes one uniform operand.
extern "C" __attribute__((visibility("default"))) void rocjit_host_wave(
    uint32_t op, uint32_t a_type, const uint8_t* a, uint64_t a_stride, const uint8_t* b, uint64_t b_stride,
    uint32_t result_type, uint8_t* out, uint64_t out_stride, uint32_t threads, uint32_t width) {
  const auto at = std::bit_cast<rocjit::ir::Type>(a_type);
  const auto rt = std::bit_cast<rocjit::ir::Type>(result_type);
  const unsigned a_bytes = rocjit::ir::byte_size(at), r_bytes = rocjit::ir::byte_size(rt);
  std::vector<uint64_t> av(width), bv(width), rv(width);
  for (uint32_t w0 = 0; w0 < threads; w0 += width) {
    const uint32_t active = std::min(width, threads - w0);
    for (uint32_t l = 0; l < active; ++l) {
      uint64_t x = 0;
      std::memcpy(&x, a + (w0 + l) * a_stride, a_bytes);
      av[l] = a_bytes == 1 ? (x & 1) : x;
      int32_t lane = 0;
      if (b) std::memcpy(&lane, b + (w0 + l) * b_stride, sizeof lane);
      bv[l] = static_cast<uint32_t>(lane);
    }
    rocjit::interpret_wave(static_cast<rocjit::ir::WaveOp>(op), at, av.data(), bv.data(), rv.data(), active, width);
    for (uint32_t l = 0; l < active; ++l) std::memcpy(out + (w0 + l) * out_stride, &rv[l], r_bytes);
  }
}

