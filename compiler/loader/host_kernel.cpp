// HostKernel: the facts of a kernel compiled for the host, its metadata text, its out-of-bounds
// reports and its kernel-cache entry. Running it is the runtime's (runtime/cpu/host_runner.cpp); the functions
// its code calls at run time are the CPU runtime's (runtime/cpu/host_helpers.cpp).
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <type_traits>
#include <vector>

#include "rocjit/compiler/error.hpp"
#include "rocjit/compiler/interpret.hpp"
#include "rocjit/compiler/mma.hpp"
#include "loader/host_kernel.h"
#include "rocjit/support/bytes.h"

namespace rocjit {

const std::string& HostKernel::name() const { return impl_->name; }
const std::vector<std::string>& HostKernel::argument_names() const { return impl_->argument_names; }
uint64_t HostKernel::work_item_storage_bytes() const { return impl_->storage_bytes_per_work_item; }
unsigned HostKernel::region_count() const { return impl_->region_count; }
uint64_t HostKernel::shared_bytes() const { return impl_->shared_bytes; }
int HostKernel::dynamic_shared_argument() const { return impl_->dynamic_shared_argument; }
uint32_t HostKernel::max_block_size() const { return impl_->max_block_size; }
bool HostKernel::bounds_checked() const { return impl_->bounds_check; }
bool HostKernel::races_checked() const { return impl_->check_races; }

HostAccessSite HostKernel::access_site(int32_t site) const {
  const loader::BoundsCheck& c = impl_->checks.at(static_cast<size_t>(site));
  return HostAccessSite{c.array,  c.access, c.param_index >= 0, ir::byte_size(c.type) * c.lanes, ir::byte_size(c.type),
                        c.loc,    c.reads,  c.writes,          c.order};
}

size_t HostKernel::access_site_count() const { return impl_->checks.size(); }
const std::vector<HostRaceArray>& HostKernel::race_arrays() const { return impl_->race_arrays; }
const std::vector<HostRaceShared>& HostKernel::race_shared() const { return impl_->race_shared; }
std::optional<Dim3> HostKernel::fixed_block() const { return impl_->fixed_block; }
int HostKernel::opt_level() const { return impl_->opt_level; }
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
  s += fmt::format("  shared bytes:         {} per work-group{}\n", k.shared_bytes,
                   k.dynamic_shared_argument >= 0 ? " + the launch's dynamic shared bytes" : "");
  s += fmt::format("  bounds checked:       {}\n", k.bounds_check ? "yes" : "no");
  if (k.check_races) {
    s += "  race checked:         yes\n";
    // The arrays a launch leaves unchecked when no other argument overlaps them (HostRaceArray).
    std::string free;
    for (const HostRaceArray& a : k.race_arrays) {
      if (a.rule == HostRaceArray::Rule::checked || a.param >= 64) continue;
      free += fmt::format("{}{} ({})", free.empty() ? "" : ", ", k.argument_names.at(a.pointer_argument),
                          a.rule == HostRaceArray::Rule::read_only ? "never written" : "one work-item per element");
    }
    if (!free.empty()) s += fmt::format("  race-free arrays:     {}\n", free);
    if (!k.race_shared.empty())
      s += fmt::format("  race-free when full:  {} shared array{} (read unchecked once the group has written "
                       "every element)\n", k.race_shared.size(), k.race_shared.size() == 1 ? "" : "s");
  }
  s += "  run() arguments:\n";
  for (size_t i = 0; i < k.argument_names.size(); ++i) s += fmt::format("    {:>3}  {}\n", i, k.argument_names[i]);
  return s;
}

std::string HostKernel::out_of_bounds_message(const HostBoundsReport& r, const void* const* args) const {
  const Impl& k = *impl_;
  const loader::BoundsCheck& c = k.checks.at(static_cast<size_t>(r.check));
  if (c.access == "uniform") {
    auto shown = [&](int64_t bits) {
      const auto u = static_cast<uint64_t>(bits);
      if (c.type == ir::Type::f32) return fmt::format("{}", std::bit_cast<float>(static_cast<uint32_t>(u)));
      if (c.type == ir::Type::f64) return fmt::format("{}", std::bit_cast<double>(u));
      if (c.type == ir::Type::i1) return std::string(u & 1 ? "true" : "false");
      const unsigned bits_wide = ir::bit_width(c.type);
      const uint64_t masked = bits_wide >= 64 ? u : u & ((uint64_t{1} << bits_wide) - 1);
      if (!ir::is_signed(c.type)) return fmt::format("{}", masked);
      const int64_t v = bits_wide >= 64 ? static_cast<int64_t>(u)
                                        : static_cast<int64_t>(masked << (64 - bits_wide)) >> (64 - bits_wide);
      return fmt::format("{}", v);
    };
    return fmt::format("kernel '{}': uniform() at {} got {} from work-item {} (linear local id) but {} from "
                       "work-item 0 of the same group; uniform(x) promises one value for the whole work-group",
                       k.name, c.loc.str(), shown(r.index[1]), r.index[0], shown(r.index[2]));
  }
  std::vector<int64_t> shape = c.static_shape;
  if (c.param_index >= 0)  // extents from the arguments, where the kernel ABI puts them
    for (unsigned d = 0; d < c.rank; ++d) shape.push_back(*static_cast<const int32_t*>(args[c.first_extent + d]));
  if (c.dynamic_element_bytes)
    shape.push_back(*static_cast<const uint32_t*>(args[c.first_extent]) / c.dynamic_element_bytes);
  std::vector<int64_t> index(r.index, r.index + c.rank);
  if (c.lanes > 1)
    return fmt::format("kernel '{}': out-of-bounds vector {} of array '{}' at {}: {}, outside shape ({}); nothing "
                       "out of bounds was read or written",
                       k.name, c.access, c.array, c.loc.str(), ir::describe_vector_access(index, c.lanes),
                       fmt::join(shape, ", "));
  return fmt::format("kernel '{}': out-of-bounds {} of array '{}' at {}: index ({}) is outside shape ({}); "
                     "nothing out of bounds was read or written",
                     k.name, c.access, c.array, c.loc.str(), fmt::join(index, ", "), fmt::join(shape, ", "));
}


namespace loader {

// Little-endian (support/bytes.h); strings are a u64 length and the bytes.
std::string encode_host_entry(const HostKernel::Impl& impl, const std::string& symbol, std::string_view shared_object) {
  std::string out;
  support::ByteWriter w(out);
  w.text(symbol);
  w.text(impl.cpu);
  w.put<uint64_t>(impl.argument_names.size());
  for (const auto& n : impl.argument_names) w.text(n);
  w.put<uint64_t>(impl.storage_bytes_per_work_item);
  w.put<uint64_t>(impl.shared_bytes);
  w.put<uint64_t>(impl.region_count);
  // The checks' table (bounds- or race-checked compiles): what a report names.
  w.put<uint64_t>(impl.checks.size());
  for (const BoundsCheck& c : impl.checks) {
    w.text(c.array);
    w.text(c.access);
    w.put<uint8_t>(static_cast<uint8_t>(c.type.code));
    w.put<uint8_t>(c.type.bits);
    w.put<uint16_t>(c.type.lanes);
    w.put<uint32_t>(c.rank);
    w.put<uint32_t>(c.lanes);
    w.put<uint64_t>(c.static_shape.size());
    for (int64_t e : c.static_shape) w.put<int64_t>(e);
    w.put<int32_t>(c.param_index);
    w.put<int32_t>(c.first_extent);
    w.put<uint32_t>(c.dynamic_element_bytes);
    w.text(c.loc.file);
    w.put<uint32_t>(c.loc.line);
    w.put<uint32_t>(c.loc.column);
    w.put<uint8_t>(static_cast<uint8_t>((c.reads ? 1 : 0) | (c.writes ? 2 : 0)));
    w.put<uint8_t>(static_cast<uint8_t>(c.order));
  }
  w.put<uint64_t>(impl.race_arrays.size());
  for (const HostRaceArray& a : impl.race_arrays) {
    w.put<int32_t>(a.param);
    w.put<uint32_t>(a.pointer_argument);
    w.put<uint32_t>(a.rank);
    w.put<uint32_t>(a.element_bytes);
    w.put<uint8_t>(static_cast<uint8_t>((a.strided ? 1 : 0) | (a.written ? 2 : 0)));
    w.put<uint8_t>(static_cast<uint8_t>(a.rule));
    w.put<uint64_t>(a.position_dims.size());
    for (int8_t d : a.position_dims) w.put<int8_t>(d);
    w.put<uint32_t>(a.slowest_position);
    w.put<uint32_t>(a.lanes);
    for (int8_t d : a.position_locals) w.put<int8_t>(d);  // as many as position_dims
    for (int64_t b : a.position_bounds) w.put<int64_t>(b);
  }
  w.put<uint64_t>(impl.race_shared.size());
  for (const HostRaceShared& a : impl.race_shared) {
    w.put<uint32_t>(a.offset);
    w.put<uint32_t>(a.bytes);
    w.put<uint32_t>(a.unit);
  }
  write_print_table(out, impl.prints ? *impl.prints : PrintTable{});
  w.text(shared_object);
  return out;
}

std::optional<HostEntry> decode_host_entry(std::string_view in, HostKernel::Impl& impl) {
  support::ByteReader r(in);
  HostEntry d;
  d.symbol = r.text();
  impl.cpu = r.text();
  const uint64_t count = r.get<uint64_t>();
  if (!r.ok() || count > 4096) return std::nullopt;
  impl.argument_names.resize(count);
  for (auto& n : impl.argument_names) n = r.text();
  impl.storage_bytes_per_work_item = r.get<uint64_t>();
  impl.shared_bytes = r.get<uint64_t>();
  const uint64_t regions = r.get<uint64_t>();
  const uint64_t checks = r.get<uint64_t>();
  if (!r.ok() || checks > (uint64_t(1) << 20)) return std::nullopt;
  impl.checks.resize(checks);
  for (BoundsCheck& c : impl.checks) {
    c.array = r.text();
    c.access = r.text();
    const uint8_t code = r.get<uint8_t>();
    if (code > static_cast<uint8_t>(ir::Type::Code::bfloat)) return std::nullopt;
    c.type.code = static_cast<ir::Type::Code>(code);
    c.type.bits = r.get<uint8_t>();
    c.type.lanes = r.get<uint16_t>();
    c.rank = r.get<uint32_t>();
    c.lanes = r.get<uint32_t>();
    const uint64_t extents = r.get<uint64_t>();
    if (!r.ok() || extents > 8) return std::nullopt;
    c.static_shape.resize(extents);
    for (int64_t& e : c.static_shape) e = r.get<int64_t>();
    c.param_index = r.get<int32_t>();
    c.first_extent = r.get<int32_t>();
    c.dynamic_element_bytes = r.get<uint32_t>();
    c.loc.file = r.text();
    c.loc.line = r.get<uint32_t>();
    c.loc.column = r.get<uint32_t>();
    const uint8_t does = r.get<uint8_t>(), order = r.get<uint8_t>();
    if (does > 3 || order > static_cast<uint8_t>(ir::MemoryOrder::seq_cst)) return std::nullopt;
    c.reads = does & 1;
    c.writes = does & 2;
    c.order = static_cast<ir::MemoryOrder>(order);
  }
  const uint64_t arrays = r.get<uint64_t>();
  if (!r.ok() || arrays > count) return std::nullopt;
  impl.race_arrays.resize(arrays);
  for (HostRaceArray& a : impl.race_arrays) {
    a.param = r.get<int32_t>();
    a.pointer_argument = r.get<uint32_t>();
    a.rank = r.get<uint32_t>();
    a.element_bytes = r.get<uint32_t>();
    const uint8_t flags = r.get<uint8_t>(), rule = r.get<uint8_t>();
    const uint64_t positions = r.get<uint64_t>();
    if (!r.ok() || flags > 3 || rule > static_cast<uint8_t>(HostRaceArray::Rule::one_item) || positions > 8 ||
        a.rank > 8 || a.pointer_argument + a.rank * (flags & 1 ? 2 : 1) >= count)
      return std::nullopt;
    a.strided = flags & 1;
    a.written = flags & 2;
    a.rule = static_cast<HostRaceArray::Rule>(rule);
    a.position_dims.resize(positions);
    for (int8_t& d : a.position_dims) d = r.get<int8_t>();
    a.slowest_position = r.get<uint32_t>();
    a.lanes = r.get<uint32_t>();
    a.position_locals.resize(positions);
    for (int8_t& d : a.position_locals) d = r.get<int8_t>();
    a.position_bounds.resize(positions);
    for (int64_t& b : a.position_bounds) b = r.get<int64_t>();
    for (uint64_t p = 0; p < positions; ++p)
      if (a.position_dims[p] > 2 || a.position_locals[p] > 2 || (a.position_dims[p] < 0) != (a.position_locals[p] < 0) ||
          a.position_bounds[p] < 0)
        return std::nullopt;
  }
  const uint64_t shared_arrays = r.get<uint64_t>();
  if (!r.ok() || shared_arrays > 64) return std::nullopt;
  impl.race_shared.resize(shared_arrays);
  for (HostRaceShared& a : impl.race_shared) {
    a.offset = r.get<uint32_t>();
    a.bytes = r.get<uint32_t>();
    a.unit = r.get<uint32_t>();
    if (!r.ok() || a.unit == 0 || uint64_t{a.offset} + a.bytes > impl.shared_bytes) return std::nullopt;
  }
  if (!r.ok()) return std::nullopt;
  size_t at = r.offset();
  auto prints = std::make_shared<PrintTable>();
  if (!read_print_table(in, at, *prints)) return std::nullopt;
  impl.prints = std::move(prints);
  support::ByteReader rest(in, at);
  d.shared_object = rest.text();
  if (!rest.whole()) return std::nullopt;
  impl.region_count = static_cast<unsigned>(regions);
  return d;
}

}  // namespace loader
}  // namespace rocjit
