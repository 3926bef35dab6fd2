// Operand access, checked memory, the handler table and the memory registry.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "inst.h"

namespace amdsim {

// --- f16 ------------------------------------------------------------------------------------

uint16_t f32_to_f16_bits(float f) { return std::bit_cast<uint16_t>(static_cast<_Float16>(f)); }
float f16_bits_to_f32(uint16_t h) { return static_cast<float>(std::bit_cast<_Float16>(h)); }

// --- Operands -------------------------------------------------------------------------------

namespace {
bool is_inv_2pi(double v) { return std::fabs(v - 0.15915494309189532) < 1e-6; }
}  // namespace

uint32_t read32(const Wave& w, const Operand& op, int lane, bool fp16) {
  switch (op.kind) {
    case Operand::vgpr: {
      uint32_t v = w.v[size_t(op.index) * 64 + lane];
      return op.hi16 ? v >> 16 : op.lo16 ? v & 0xffff : v;
    }
    case Operand::sgpr: return op.index == null_reg ? 0 : w.s[op.index];
    case Operand::agpr: return w.a[size_t(op.index) * 64 + lane];
    case Operand::scc: return w.scc_bit ? 1 : 0;
    case Operand::imm:
      if (op.float_text) {
        if (fp16) return is_inv_2pi(op.fvalue) ? 0x3118u : f32_to_f16_bits(static_cast<float>(op.fvalue));
        return is_inv_2pi(op.fvalue) ? 0x3e22f983u : f32_bits(static_cast<float>(op.fvalue));
      }
      return static_cast<uint32_t>(op.ivalue);
    default: return 0;
  }
}

uint64_t read64(const Wave& w, const Operand& op, int lane, bool f64) {
  switch (op.kind) {
    case Operand::vgpr:
      return uint64_t(w.v[size_t(op.index + 1) * 64 + lane]) << 32 | w.v[size_t(op.index) * 64 + lane];
    case Operand::agpr:
      return uint64_t(w.a[size_t(op.index + 1) * 64 + lane]) << 32 | w.a[size_t(op.index) * 64 + lane];
    case Operand::sgpr:
      if (op.index == null_reg) return 0;
      if (op.dwords == 1) return w.s[op.index];  // a 32-bit register named in a 64-bit slot (wave32 vcc_lo)
      return w.s64(op.index);
    case Operand::scc: return w.scc_bit ? 1 : 0;
    case Operand::imm:
      if (op.float_text) return is_inv_2pi(op.fvalue) ? 0x3fc45f306dc9c882ull : f64_bits(op.fvalue);
      if (op.literal && f64) return uint64_t(static_cast<uint32_t>(op.ivalue)) << 32;
      if (op.literal && op.zext64) return static_cast<uint32_t>(op.ivalue);
      if (op.literal) return static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(op.ivalue)));
      return static_cast<uint64_t>(op.ivalue);
    default: return 0;
  }
}

void write32(Wave& w, const Operand& op, int lane, uint32_t value) {
  switch (op.kind) {
    case Operand::vgpr: {
      uint32_t& r = w.v[size_t(op.index) * 64 + lane];
      if (op.hi16) r = (r & 0xffff) | (value << 16);
      else if (op.lo16) r = (r & 0xffff0000u) | (value & 0xffff);
      else r = value;
      return;
    }
    case Operand::agpr: w.a[size_t(op.index) * 64 + lane] = value; return;
    case Operand::sgpr:
      if (op.index != null_reg) w.s[op.index] = value;
      return;
    case Operand::scc: w.scc_bit = value != 0; return;
    default: return;
  }
}

void write64(Wave& w, const Operand& op, int lane, uint64_t value) {
  switch (op.kind) {
    case Operand::vgpr:
      w.v[size_t(op.index) * 64 + lane] = uint32_t(value);
      w.v[size_t(op.index + 1) * 64 + lane] = uint32_t(value >> 32);
      return;
    case Operand::agpr:
      w.a[size_t(op.index) * 64 + lane] = uint32_t(value);
      w.a[size_t(op.index + 1) * 64 + lane] = uint32_t(value >> 32);
      return;
    case Operand::sgpr:
      if (op.index == null_reg) return;
      w.s[op.index] = uint32_t(value);
      if (op.dwords >= 2) w.s[op.index + 1] = uint32_t(value >> 32);
      return;
    case Operand::scc: w.scc_bit = value != 0; return;
    default: return;
  }
}

void swrite32(Wave& w, const Operand& op, uint32_t value) { write32(w, op, 0, value); }
void swrite64(Wave& w, const Operand& op, uint64_t value) { write64(w, op, 0, value); }

void Wave::fail(const Inst& inst, const std::string& what) const {
  const std::string line = program ? program->source_line(pc - inst.size) : std::string();
  throw Error(fmt::format("amdsim: kernel '{}': {} (instruction '{}' at PC offset 0x{:x}{}, wave {} of work-group "
                          "({}, {}, {}))",
                          kernel ? kernel->name : "?", what, inst.text, pc - inst.size,
                          line.empty() ? std::string() : ", from " + line, wave_in_group,
                          group ? group->id[0] : 0, group ? group->id[1] : 0, group ? group->id[2] : 0));
}

// --- Memory ---------------------------------------------------------------------------------

void* Memory::allocate(size_t bytes) {
  size_t n = std::max<size_t>(bytes, 1);
  void* p = ::operator new[](n, std::align_val_t(256));
  std::memset(p, 0, n);
  std::lock_guard<std::mutex> g(lock_);
  ranges_[reinterpret_cast<uint64_t>(p)] = Range{n, true};
  allocated_ += n;
  return p;
}

void Memory::add_host_range(void* p, size_t bytes) {
  std::lock_guard<std::mutex> g(lock_);
  ranges_[reinterpret_cast<uint64_t>(p)] = Range{bytes, false};
}

bool Memory::release(void* p) {
  std::lock_guard<std::mutex> g(lock_);
  auto it = ranges_.find(reinterpret_cast<uint64_t>(p));
  if (it == ranges_.end()) return false;
  if (it->second.owned) {
    allocated_ -= it->second.size;
    ::operator delete[](p, std::align_val_t(256));
  }
  ranges_.erase(it);
  return true;
}

bool Memory::contains(uint64_t address, uint64_t bytes) const {
  std::lock_guard<std::mutex> g(lock_);
  auto it = ranges_.upper_bound(address);
  if (it == ranges_.begin()) return false;
  --it;
  return address >= it->first && address + bytes <= it->first + it->second.size && address + bytes >= address;
}

bool Memory::range_of(uint64_t address, uint64_t& start, uint64_t& size) const {
  std::lock_guard<std::mutex> g(lock_);
  auto it = ranges_.upper_bound(address);
  if (it == ranges_.begin()) return false;
  --it;
  if (address >= it->first + it->second.size) return false;
  start = it->first;
  size = it->second.size;
  return true;
}

size_t Memory::allocated_bytes() const {
  std::lock_guard<std::mutex> g(lock_);
  return allocated_;
}

Memory::~Memory() {
  for (auto& [p, r] : ranges_)
    if (r.owned) ::operator delete[](reinterpret_cast<void*>(p), std::align_val_t(256));
}

namespace {
[[noreturn]] void fault(Wave& w, const Inst& inst, const char* space, uint64_t address, uint64_t bytes, int lane,
                        const std::string& why) {
  w.fail(inst, fmt::format("memory fault: lane {} {} {} bytes of {} memory at 0x{:x}, {}", lane,
                           "accessed", bytes, space, address, why));
}
}  // namespace

void* global_address(Wave& w, const Inst& inst, uint64_t address, uint64_t bytes, int lane, bool write) {
  for (auto [start, size] : w.launch_ranges)
    if (address >= start && address + bytes <= start + size) {
      if (write) fault(w, inst, "global", address, bytes, lane, "which is read-only (kernel arguments or dispatch packet)");
      return reinterpret_cast<void*>(address);
    }
  // The loaded code object: its constant data (tables of the math library, in addrspace(4)) is
  // readable, as on hardware; it is never written.
  const uint64_t image = w.program ? w.code_base() : 0;
  if (w.program && address >= image && address + bytes <= image + w.program->image_size() && address + bytes >= address) {
    if (write) fault(w, inst, "global", address, bytes, lane, "which is the loaded code object (read-only)");
    return reinterpret_cast<void*>(address);
  }
  if (!w.memory->contains(address, bytes))
    fault(w, inst, "global", address, bytes, lane, "which is not inside any live device allocation");
  return reinterpret_cast<void*>(address);
}

uint8_t* lds_address(Wave& w, const Inst& inst, uint64_t address, uint64_t bytes, int lane) {
  if (address + bytes > w.group->lds.size() || address + bytes < address)
    fault(w, inst, "LDS", address, bytes, lane,
          fmt::format("outside the work-group's {} bytes of LDS", w.group->lds.size()));
  return w.group->lds.data() + address;
}

uint8_t* private_address(Wave& w, const Inst& inst, uint64_t offset, uint64_t bytes, int lane) {
  if (offset + bytes > w.private_size || offset + bytes < offset)
    fault(w, inst, "private", offset, bytes, lane,
          fmt::format("outside the work-item's {} bytes of private memory", w.private_size));
  return w.scratch.data() + size_t(lane) * w.private_size + offset;
}

uint8_t* flat_scratch_address(Wave& w, const Inst& inst, uint64_t offset, uint64_t bytes, int lane) {
  if (!w.flat_scratch_sgprs) return private_address(w, inst, offset, bytes, lane);
  uint64_t flat_scratch = w.s64(flat_scratch_lo);
  uint64_t at = flat_scratch + offset - w.private_base;
  if (at + bytes > w.private_size || at + bytes < at)
    fault(w, inst, "private", offset, bytes, lane,
          fmt::format("which FLAT_SCRATCH 0x{:x} puts at byte {} of the work-item's {} bytes of private memory (the "
                      "wave's slice starts at 0x{:x}: flat_scratch_init plus the scratch wave offset)",
                      flat_scratch, int64_t(at), w.private_size, w.private_base));
  return w.scratch.data() + size_t(lane) * w.private_size + at;
}

// --- Handler table --------------------------------------------------------------------------

struct HandlerTable {
  std::unordered_map<std::string, Handler> by_name;
};

void add_handler(HandlerTable& table, const std::string& name, Handler h) { table.by_name[name] = h; }

const HandlerTable& handlers() {
  static const HandlerTable table = [] {
    HandlerTable t;
    register_scalar(t);
    register_vector(t);
    register_memory(t);
    return t;
  }();
  return table;
}

Handler find_handler(const std::string& name) {
  const auto& t = handlers().by_name;
  auto it = t.find(name);
  return it == t.end() ? nullptr : it->second;
}

std::vector<std::string> implemented_names() {
  std::vector<std::string> out;
  for (const auto& [n, h] : handlers().by_name) out.push_back(n);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace amdsim
