// Memory instructions: LDS (DS), global, flat, scratch and buffer loads, stores and atomics,
// and the DS cross-lane instructions (swizzle, permute, bpermute).
#include <fmt/format.h>

#include <atomic>
#include <bit>
#include <cmath>

#include "race.h"
#include "valu.h"

namespace amdsim {
namespace {

using Op = const Inst&;

// Bytes moved by a load/store from its name.
struct Width {
  uint32_t bytes;
  bool sign;
};
Width width_of(const std::string& name) {
  auto has = [&](const char* s) { return name.find(s) != std::string::npos; };
  if (has("dwordx4") || has("b128")) return {16, false};
  if (has("dwordx3") || has("b96")) return {12, false};
  if (has("dwordx2") || has("b64")) return {8, false};
  if (has("sbyte") || has("_i8")) return {1, true};
  if (has("ubyte") || has("_u8") || has("_byte") || has("_b8")) return {1, false};
  if (has("sshort") || has("_i16")) return {2, true};
  if (has("ushort") || has("_u16") || has("_short") || has("_b16")) return {2, false};
  return {4, false};
}

// The simulated program's loads and stores of memory other waves may touch: relaxed atomic
// accesses, as on the GPU, where a plain load racing with another wave's store or atomic is
// allowed (with memcpy it would be a data race in the simulator, reported by ThreadSanitizer).
// Naturally aligned words are one access; anything else goes byte by byte.
template <typename T>
T relaxed_load(const uint8_t* p) {
  if (reinterpret_cast<uintptr_t>(p) % sizeof(T) == 0) return __atomic_load_n(reinterpret_cast<const T*>(p), __ATOMIC_RELAXED);
  uint8_t bytes[sizeof(T)];
  for (size_t b = 0; b < sizeof(T); ++b) bytes[b] = __atomic_load_n(p + b, __ATOMIC_RELAXED);
  T v;
  std::memcpy(&v, bytes, sizeof(T));
  return v;
}
void relaxed_store(uint8_t* p, const void* value, uint32_t size) {
  const auto* from = static_cast<const uint8_t*>(value);
  if (size == 8 && reinterpret_cast<uintptr_t>(p) % 8 == 0) {
    uint64_t v;
    std::memcpy(&v, from, 8);
    __atomic_store_n(reinterpret_cast<uint64_t*>(p), v, __ATOMIC_RELAXED);
  } else if (size == 8) {
    relaxed_store(p, from, 4);
    relaxed_store(p + 4, from + 4, 4);
  } else if (size == 4 && reinterpret_cast<uintptr_t>(p) % 4 == 0) {
    uint32_t v;
    std::memcpy(&v, from, 4);
    __atomic_store_n(reinterpret_cast<uint32_t*>(p), v, __ATOMIC_RELAXED);
  } else if (size == 2 && reinterpret_cast<uintptr_t>(p) % 2 == 0) {
    uint16_t v;
    std::memcpy(&v, from, 2);
    __atomic_store_n(reinterpret_cast<uint16_t*>(p), v, __ATOMIC_RELAXED);
  } else {
    for (uint32_t b = 0; b < size; ++b) __atomic_store_n(p + b, from[b], __ATOMIC_RELAXED);
  }
}

uint32_t load_word(const uint8_t* p, uint32_t bytes, bool sign, uint32_t k) {
  if (bytes >= 4) return relaxed_load<uint32_t>(p + 4 * k);
  if (bytes == 2) {
    uint16_t v = relaxed_load<uint16_t>(p);
    return sign ? uint32_t(int32_t(int16_t(v))) : v;
  }
  uint8_t v = relaxed_load<uint8_t>(p);
  return sign ? uint32_t(int32_t(int8_t(v))) : v;
}

// Loads `wd.bytes` at `p` into the registers starting at `dst` (sub-dword loads extend into one).
void load_registers(Wave& w, const Operand& dst, int lane, const uint8_t* p, Width wd) {
  if (wd.bytes < 4) {
    write32(w, dst, lane, load_word(p, wd.bytes, wd.sign, 0));
    return;
  }
  uint32_t words[4];
  load_dwords_relaxed(p, words, wd.bytes / 4);
  for (uint32_t k = 0; k < wd.bytes / 4; ++k) {
    Operand part = dst;
    part.index = static_cast<uint16_t>(dst.index + k);
    write32(w, part, lane, words[k]);
  }
}

// Stores `bytes` from the registers starting at `data` (sub-dword stores take the low bits).
void store_registers(const Wave& w, const Operand& data, int lane, uint8_t* p, uint32_t bytes) {
  if (bytes < 4) {
    uint32_t v = read32(w, data, lane);
    relaxed_store(p, &v, bytes);
    return;
  }
  uint32_t words[4];
  for (uint32_t k = 0; k < bytes / 4; ++k) {
    Operand part = data;
    part.index = static_cast<uint16_t>(data.index + k);
    words[k] = read32(w, part, lane);
  }
  store_dwords_relaxed(p, words, bytes / 4);
}

// --- Atomic read-modify-write on host memory (global) or LDS (single-threaded per group) -----

enum class Rmw { add, sub, smin, smax, umin, umax, and_, or_, xor_, swap, cmpswap, inc, dec, fadd, fmin, fmax };

template <typename T>
T rmw_value(Rmw op, T old, T data, T cmp) {
  using S = std::make_signed_t<T>;
  switch (op) {
    case Rmw::add: return old + data;
    case Rmw::sub: return old - data;
    case Rmw::smin: return S(old) < S(data) ? old : data;
    case Rmw::smax: return S(old) > S(data) ? old : data;
    case Rmw::umin: return old < data ? old : data;
    case Rmw::umax: return old > data ? old : data;
    case Rmw::and_: return old & data;
    case Rmw::or_: return old | data;
    case Rmw::xor_: return old ^ data;
    case Rmw::swap: return data;
    case Rmw::cmpswap: return old == cmp ? data : old;
    case Rmw::inc: return old >= data ? 0 : old + 1;
    case Rmw::dec: return (old == 0 || old > data) ? data : old - 1;
    case Rmw::fadd:
      if constexpr (sizeof(T) == 4) return f32_bits(bits_f32(old) + bits_f32(data));
      else return f64_bits(bits_f64(old) + bits_f64(data));
    case Rmw::fmin:
      if constexpr (sizeof(T) == 4) return f32_bits(std::fmin(bits_f32(old), bits_f32(data)));
      else return f64_bits(std::fmin(bits_f64(old), bits_f64(data)));
    case Rmw::fmax:
      if constexpr (sizeof(T) == 4) return f32_bits(std::fmax(bits_f32(old), bits_f32(data)));
      else return f64_bits(std::fmax(bits_f64(old), bits_f64(data)));
  }
  return old;
}

template <typename T>
T atomic_rmw(void* p, Rmw op, T data, T cmp) {
  std::atomic_ref<T> a(*static_cast<T*>(p));
  T old = a.load(std::memory_order_relaxed);
  while (!a.compare_exchange_weak(old, rmw_value<T>(op, old, data, cmp), std::memory_order_seq_cst)) {
  }
  return old;
}

Rmw rmw_of(const std::string& name, size_t prefix_len) {
  std::string op = name.substr(prefix_len);
  if (op.size() > 3 && op.compare(op.size() - 3, 3, "_x2") == 0) op.resize(op.size() - 3);
  static const std::pair<const char*, Rmw> table[] = {
      {"add_f32", Rmw::fadd}, {"add_f64", Rmw::fadd}, {"fmin", Rmw::fmin}, {"fmax", Rmw::fmax},
      {"min_f64", Rmw::fmin}, {"max_f64", Rmw::fmax}, {"add", Rmw::add}, {"sub", Rmw::sub},
      {"smin", Rmw::smin}, {"smax", Rmw::smax}, {"umin", Rmw::umin}, {"umax", Rmw::umax}, {"and", Rmw::and_},
      {"or", Rmw::or_}, {"xor", Rmw::xor_}, {"swap", Rmw::swap}, {"cmpswap", Rmw::cmpswap}, {"inc", Rmw::inc},
      {"dec", Rmw::dec}};
  for (auto [n, r] : table)
    if (op == n) return r;
  return Rmw::add;
}

// --- Address spaces ------------------------------------------------------------------------------

enum class Space { global, flat, scratch };

// The address (global/flat) or private offset (scratch) of one lane.
uint64_t lane_address(Wave& w, const Inst& i, Space space, const Operand& vaddr, const Operand& saddr, int lane) {
  uint64_t offset = static_cast<uint64_t>(i.mod.offset);
  if (space == Space::scratch) {
    uint64_t a = offset;
    if (vaddr.kind == Operand::vgpr) a += read32(w, vaddr, lane);
    if (saddr.kind == Operand::sgpr) a += read32(w, saddr, lane);
    return a;
  }
  if (saddr.kind == Operand::sgpr) {  // SADDR: 64-bit scalar base + 32-bit vector offset
    uint64_t a = read64(w, saddr, lane, false) + offset;
    if (vaddr.kind == Operand::vgpr) a += read32(w, vaddr, lane);
    return a;
  }
  return read64(w, vaddr, lane, false) + offset;
}

// Resolves one lane's access to host memory.
uint8_t* resolve(Wave& w, const Inst& i, Space space, uint64_t address, uint64_t bytes, int lane, bool write) {
  if (space == Space::scratch) return flat_scratch_address(w, i, address, bytes, lane);
  if (space == Space::flat) {
    if ((address >> 32) == shared_aperture_hi) return lds_address(w, i, address & 0xffffffffull, bytes, lane);
    if ((address >> 32) == private_aperture_hi) return flat_scratch_address(w, i, address & 0xffffffffull, bytes, lane);
  }
  return static_cast<uint8_t*>(global_address(w, i, address, bytes, lane, write));
}

// Operand layout: loads "vdst, vaddr[, saddr]"; stores "vaddr, vdata[, saddr]".
template <Space S>
void vmem_load(Wave& w, Op i) {
  Width wd = width_of(i.name);
  const Operand& dst = i.ops[0];
  Operand none;
  const Operand& vaddr = i.ops[1];
  const Operand& saddr = i.ops.size() > 2 ? i.ops[2] : none;
  bool d16_hi = i.name.find("d16_hi") != std::string::npos, d16 = i.name.find("d16") != std::string::npos;
  for_lanes(w, i, [&](int l) {
    uint64_t a = lane_address(w, i, S, vaddr, saddr, l);
    const uint8_t* p = resolve(w, i, S, a, wd.bytes, l, false);
    RaceScope race(w, i, p, wd.bytes, l, RaceKind::read);
    if (d16) {
      uint32_t v = load_word(p, wd.bytes, wd.sign, 0) & 0xffff, old = read32(w, dst, l);
      write32(w, dst, l, d16_hi ? (old & 0xffff) | (v << 16) : (old & 0xffff0000u) | v);
      return;
    }
    load_registers(w, dst, l, p, wd);
  });
}

template <Space S>
void vmem_store(Wave& w, Op i) {
  Width wd = width_of(i.name);
  Operand none;
  const Operand& vaddr = i.ops[0];
  const Operand& data = i.ops[1];
  const Operand& saddr = i.ops.size() > 2 ? i.ops[2] : none;
  bool d16_hi = i.name.find("d16_hi") != std::string::npos;
  for_lanes(w, i, [&](int l) {
    uint64_t a = lane_address(w, i, S, vaddr, saddr, l);
    uint8_t* p = resolve(w, i, S, a, wd.bytes, l, true);
    RaceScope race(w, i, p, wd.bytes, l, RaceKind::write);
    if (d16_hi) {
      uint32_t v = read32(w, data, l) >> 16;
      relaxed_store(p, &v, wd.bytes);
      return;
    }
    store_registers(w, data, l, p, wd.bytes);
  });
}

// Atomics: no-return "vaddr, vdata[, saddr]"; returning "vdst, vaddr, vdata[, saddr]" (glc/sc0, or _rtn).
template <Space S>
void vmem_atomic(Wave& w, Op i) {
  bool wide = i.name.find("_x2") != std::string::npos || i.name.find("_f64") != std::string::npos;
  size_t prefix = i.name.find("_atomic_") + 8;
  Rmw op = rmw_of(i.name, prefix);
  size_t no_return_operands = S == Space::flat ? 2 : 3;  // vaddr, vdata[, saddr]
  bool returns = i.ops.size() > no_return_operands;
  int base = returns ? 1 : 0;
  Operand none;
  const Operand& vaddr = i.ops[base];
  const Operand& data = i.ops[base + 1];
  const Operand& saddr = int(i.ops.size()) > base + 2 ? i.ops[base + 2] : none;
  uint32_t bytes = wide ? 8 : 4;
  for_lanes(w, i, [&](int l) {
    uint64_t a = lane_address(w, i, S, vaddr, saddr, l);
    uint8_t* p = resolve(w, i, S, a, bytes, l, true);
    if (a % bytes) w.fail(i, fmt::format("misaligned atomic: lane {} address 0x{:x}", l, a));
    RaceScope race(w, i, p, bytes, l, RaceKind::atomic);
    uint64_t old;
    if (wide) {
      uint64_t d = read64(w, data, l, false), c = 0;
      if (op == Rmw::cmpswap) {
        Operand hi = data;
        hi.index = static_cast<uint16_t>(data.index + 2);
        c = read64(w, hi, l, false);
      }
      old = atomic_rmw<uint64_t>(p, op, d, c);
    } else {
      uint32_t d = read32(w, data, l), c = 0;
      if (op == Rmw::cmpswap) {
        Operand hi = data;
        hi.index = static_cast<uint16_t>(data.index + 1);
        c = read32(w, hi, l);
      }
      old = atomic_rmw<uint32_t>(p, op, d, c);
    }
    if (returns) {
      if (wide) write64(w, i.ops[0], l, old);
      else write32(w, i.ops[0], l, uint32_t(old));
    }
  });
}

// --- MUBUF (buffer_*): vdata, vaddr, srsrc, soffset -------------------------------------------

// The V# base is 48 bits (word1[15:0] holds bits 47:32). A base inside the scratch backing space
// (bit 47: the private segment buffer, plus the wave offset the kernel adds) addresses the
// lane's private memory relative to the wave's slice; any other base is global memory.
// The private segment buffer is swizzled (ADD_TID_ENABLE, 4-byte elements, index stride = the
// wave size): the instruction offset and the VGPR offset are per lane, while the V# base and the
// SGPR offset are wave bytes, so a per-lane byte n of them is n * wave size (LLVM scales its
// stack pointer and large spill offsets that way, and shifts right by log2(wave size) to get a
// lane's address back).
uint8_t* buffer_lane(Wave& w, const Inst& i, int l, uint32_t bytes, bool write) {
  const Operand& vaddr = i.ops[1];
  const Operand& rsrc = i.ops[2];
  uint64_t base = w.s64(rsrc.index) & 0xffffffffffffull;
  uint64_t soffset = i.ops.size() > 3 ? read32(w, i.ops[3], 0) : 0;
  uint64_t offset = uint64_t(i.mod.offset);
  if (i.mod.offen && vaddr.kind == Operand::vgpr) offset += read32(w, vaddr, l);
  if (base & private_backing) {
    uint64_t wave_bytes = base + soffset - w.private_base, unit = 4ull * uint64_t(w.wave_size);
    uint64_t at = wave_bytes / uint64_t(w.wave_size) + offset;
    if (int64_t(wave_bytes) < 0 || wave_bytes % unit != 0 || at + bytes > w.private_size || at + bytes < at)
      w.fail(i, fmt::format("memory fault: lane {} accessed {} bytes of private memory at wave byte {} + lane byte {} "
                            "of the work-items' {} (buffer base 0x{:x} + SGPR offset {}; the wave's slice starts at "
                            "0x{:x}: the private segment buffer's base plus the scratch wave offset, and wave bytes "
                            "come in multiples of {})",
                            l, bytes, int64_t(wave_bytes), offset, w.private_size, base, soffset, w.private_base, unit));
    return w.scratch.data() + size_t(l) * w.private_size + at;
  }
  return static_cast<uint8_t*>(global_address(w, i, base + soffset + offset, bytes, l, write));
}

void buffer_load(Wave& w, Op i) {
  Width wd = width_of(i.name);
  for_lanes(w, i, [&](int l) {
    const uint8_t* p = buffer_lane(w, i, l, wd.bytes, false);
    RaceScope race(w, i, p, wd.bytes, l, RaceKind::read);
    load_registers(w, i.ops[0], l, p, wd);
  });
}
void buffer_store(Wave& w, Op i) {
  Width wd = width_of(i.name);
  for_lanes(w, i, [&](int l) {
    uint8_t* p = buffer_lane(w, i, l, wd.bytes, true);
    RaceScope race(w, i, p, wd.bytes, l, RaceKind::write);
    store_registers(w, i.ops[0], l, p, wd.bytes);
  });
}

// --- DS ------------------------------------------------------------------------------------------

uint32_t ds_address(Wave& w, const Operand& addr, int l, const Inst& i) {
  return read32(w, addr, l) + static_cast<uint32_t>(i.mod.offset);
}

void ds_read(Wave& w, Op i) {
  Width wd = width_of(i.name);
  // _d16 / _d16_hi: the value goes to the low / high half of the VGPR, the other half kept.
  const bool d16_hi = i.name.find("d16_hi") != std::string::npos, d16 = i.name.find("d16") != std::string::npos;
  for_lanes(w, i, [&](int l) {
    uint8_t* p = lds_address(w, i, ds_address(w, i.ops[1], l, i), wd.bytes, l);
    RaceScope race(w, i, p, wd.bytes, l, RaceKind::read);
    if (d16) {
      uint32_t v = load_word(p, wd.bytes, wd.sign, 0) & 0xffff, old = read32(w, i.ops[0], l);
      write32(w, i.ops[0], l, d16_hi ? (old & 0xffff) | (v << 16) : (old & 0xffff0000u) | v);
      return;
    }
    load_registers(w, i.ops[0], l, p, wd);
  });
}
void ds_write(Wave& w, Op i) {
  Width wd = width_of(i.name);
  const bool d16_hi = i.name.find("d16_hi") != std::string::npos;  // stores the VGPR's high half
  for_lanes(w, i, [&](int l) {
    uint8_t* p = lds_address(w, i, ds_address(w, i.ops[0], l, i), wd.bytes, l);
    RaceScope race(w, i, p, wd.bytes, l, RaceKind::write);
    if (d16_hi) {
      uint32_t v = read32(w, i.ops[1], l) >> 16;
      std::memcpy(p, &v, wd.bytes);
      return;
    }
    store_registers(w, i.ops[1], l, p, wd.bytes);
  });
}
// read2/write2: two elements at offset0/offset1 (in elements; st64: in 64 elements).
template <bool Write>
void ds_2addr(Wave& w, Op i) {
  bool b64 = i.name.find("b64") != std::string::npos;
  bool st64 = i.name.find("st64") != std::string::npos;
  uint32_t elem = b64 ? 8 : 4, scale = elem * (st64 ? 64 : 1);
  for_lanes(w, i, [&](int l) {
    uint32_t base = read32(w, i.ops[Write ? 0 : 1], l);
    for (int k = 0; k < 2; ++k) {
      uint32_t a = base + (k ? i.mod.offset1 : i.mod.offset0) * scale;
      uint8_t* p = lds_address(w, i, a, elem, l);
      RaceScope race(w, i, p, elem, l, Write ? RaceKind::write : RaceKind::read);
      if (Write) {
        const Operand& data = i.ops[1 + k];
        if (b64) {
          uint64_t v = read64(w, data, l, false);
          std::memcpy(p, &v, 8);
        } else {
          uint32_t v = read32(w, data, l);
          std::memcpy(p, &v, 4);
        }
      } else {
        Operand part = i.ops[0];
        part.index = static_cast<uint16_t>(part.index + k * (b64 ? 2 : 1));
        if (b64) {
          uint64_t v;
          std::memcpy(&v, p, 8);
          write64(w, part, l, v);
        } else {
          uint32_t v;
          std::memcpy(&v, p, 4);
          write32(w, part, l, v);
        }
      }
    }
  });
}

// DS atomics: "addr, data[, data2]" or with return "vdst, addr, data[, data2]".
template <bool Returns, bool Wide>
void ds_atomic(Wave& w, Op i) {
  std::string n = i.name.substr(3);  // after "ds_"
  size_t rtn = n.find("rtn_");
  if (rtn != std::string::npos) n.erase(rtn, 4);
  // n: add_u32, sub_u32, rsub_u32, inc_u32, dec_u32, min_i32, max_i32, min_u32, max_u32, and_b32,
  // or_b32, xor_b32, mskor_b32, wrxchg_b32, cmpst_b32, cmpstore_b32, add_f32, min_f32, max_f32, *_u64...
  std::string op = n.substr(0, n.rfind('_'));
  std::string type = n.substr(n.rfind('_') + 1);
  int base = Returns ? 1 : 0;
  uint32_t bytes = Wide ? 8 : 4;
  for_lanes(w, i, [&](int l) {
    uint8_t* p = lds_address(w, i, ds_address(w, i.ops[base], l, i), bytes, l);
    RaceScope race(w, i, p, bytes, l, RaceKind::atomic);
    uint64_t d0 = Wide ? read64(w, i.ops[base + 1], l, false) : read32(w, i.ops[base + 1], l);
    uint64_t d1 = int(i.ops.size()) > base + 2 ? (Wide ? read64(w, i.ops[base + 2], l, false) : read32(w, i.ops[base + 2], l)) : 0;
    uint64_t old = 0;
    std::memcpy(&old, p, bytes);
    uint64_t r = old;
    bool is_signed = type[0] == 'i', is_float = type[0] == 'f';
    auto sx = [&](uint64_t v) { return Wide ? int64_t(v) : int64_t(int32_t(uint32_t(v))); };
    auto fl = [&](uint64_t v) { return Wide ? bits_f64(v) : double(bits_f32(uint32_t(v))); };
    auto tofl = [&](double v) { return Wide ? f64_bits(v) : uint64_t(f32_bits(float(v))); };
    if (op == "add") r = is_float ? tofl(fl(old) + fl(d0)) : old + d0;
    else if (op == "sub") r = old - d0;
    else if (op == "rsub") r = d0 - old;
    else if (op == "inc") r = old >= d0 ? 0 : old + 1;
    else if (op == "dec") r = (old == 0 || old > d0) ? d0 : old - 1;
    else if (op == "min") r = is_float ? tofl(std::fmin(fl(old), fl(d0))) : is_signed ? (sx(old) < sx(d0) ? old : d0) : std::min(old, d0);
    else if (op == "max") r = is_float ? tofl(std::fmax(fl(old), fl(d0))) : is_signed ? (sx(old) > sx(d0) ? old : d0) : std::max(old, d0);
    else if (op == "and") r = old & d0;
    else if (op == "or") r = old | d0;
    else if (op == "xor") r = old ^ d0;
    else if (op == "mskor") r = (old & ~d0) | d1;
    else if (op == "wrxchg" || op == "storexchg") r = d0;
    else if (op == "cmpst") r = old == d0 ? d1 : old;      // gfx9: data0 = compare, data1 = new
    else if (op == "cmpstore") r = old == d1 ? d0 : old;   // gfx11: data0 = new, data1 = compare
    else w.fail(i, "unknown DS atomic '" + i.name + "'");
    if (!Wide) r &= 0xffffffffull;
    std::memcpy(p, &r, bytes);
    if (Returns) {
      if (Wide) write64(w, i.ops[0], l, old);
      else write32(w, i.ops[0], l, uint32_t(old));
    }
  });
}

// ds_swizzle_b32: cross-lane within groups of 32 (bitmask mode) or 4 (quad-permute mode).
void ds_swizzle(Wave& w, Op i) {
  uint32_t offset = i.mod.has_swizzle ? i.mod.swizzle : static_cast<uint32_t>(i.mod.offset);
  uint32_t src[64];
  for (int l = 0; l < w.wave_size; ++l) src[l] = read32(w, i.ops[1], l);
  uint64_t exec = w.exec();
  for_lanes(w, i, [&](int l) {
    int from;
    if (offset & 0x8000) {  // quad permute
      int sel = (offset >> (2 * (l & 3))) & 3;
      from = (l & ~3) | sel;
    } else {
      uint32_t and_mask = offset & 0x1f, or_mask = (offset >> 5) & 0x1f, xor_mask = (offset >> 10) & 0x1f;
      from = (l & ~31) | int((((l & 31) & and_mask) | or_mask) ^ xor_mask);
    }
    write32(w, i.ops[0], l, ((exec >> from) & 1) ? src[from] : 0);
  });
}

// ds_bpermute_b32: dst = data of lane (addr / 4); ds_permute_b32: data written to lane (addr / 4).
void ds_bpermute(Wave& w, Op i) {
  uint32_t src[64];
  uint64_t exec = w.exec();
  for (int l = 0; l < w.wave_size; ++l) src[l] = read32(w, i.ops[2], l);
  uint32_t addr[64];
  for (int l = 0; l < w.wave_size; ++l) addr[l] = read32(w, i.ops[1], l) + static_cast<uint32_t>(i.mod.offset);
  for_lanes(w, i, [&](int l) {
    int from = int((addr[l] / 4) % uint32_t(w.wave_size));
    write32(w, i.ops[0], l, ((exec >> from) & 1) ? src[from] : 0);
  });
}
void ds_permute(Wave& w, Op i) {
  uint32_t result[64] = {};
  uint64_t exec = w.exec();
  for (uint64_t e = exec; e; e &= e - 1) {
    int l = std::countr_zero(e);
    int to = int(((read32(w, i.ops[1], l) + static_cast<uint32_t>(i.mod.offset)) / 4) % uint32_t(w.wave_size));
    result[to] = read32(w, i.ops[2], l);
  }
  for_lanes(w, i, [&](int l) { write32(w, i.ops[0], l, result[l]); });
}

}  // namespace

void load_dwords_relaxed(const uint8_t* p, uint32_t* out, uint32_t dwords) {
  uint32_t k = 0;
  for (; k + 2 <= dwords; k += 2) {
    uint64_t v = relaxed_load<uint64_t>(p + 4 * k);
    out[k] = uint32_t(v), out[k + 1] = uint32_t(v >> 32);
  }
  if (k < dwords) out[k] = relaxed_load<uint32_t>(p + 4 * k);
}

void store_dwords_relaxed(uint8_t* p, const uint32_t* in, uint32_t dwords) {
  uint32_t k = 0;
  for (; k + 2 <= dwords; k += 2) relaxed_store(p + 4 * k, in + k, 8);
  if (k < dwords) relaxed_store(p + 4 * k, in + k, 4);
}

void register_memory(HandlerTable& t) {
  for (std::string space : {"global", "flat", "scratch"}) {
    Handler load = space == "global" ? vmem_load<Space::global> : space == "flat" ? vmem_load<Space::flat> : vmem_load<Space::scratch>;
    Handler store = space == "global" ? vmem_store<Space::global> : space == "flat" ? vmem_store<Space::flat> : vmem_store<Space::scratch>;
    for (const char* w : {"dword", "dwordx2", "dwordx3", "dwordx4", "ubyte", "sbyte", "ushort", "sshort",
                          "ubyte_d16", "ubyte_d16_hi", "sbyte_d16", "sbyte_d16_hi", "short_d16", "short_d16_hi"})
      add_handler(t, space + "_load_" + w, load);
    for (const char* w : {"dword", "dwordx2", "dwordx3", "dwordx4", "byte", "short", "byte_d16_hi", "short_d16_hi"})
      add_handler(t, space + "_store_" + w, store);
  }
  for (std::string space : {"global", "flat"}) {
    Handler atomic = space == "global" ? vmem_atomic<Space::global> : vmem_atomic<Space::flat>;
    for (const char* op : {"add", "sub", "smin", "smax", "umin", "umax", "and", "or", "xor", "swap", "cmpswap", "inc",
                           "dec", "add_f32", "fmin", "fmax", "add_f64", "min_f64", "max_f64"}) {
      add_handler(t, space + "_atomic_" + op, atomic);
      add_handler(t, space + "_atomic_" + op + "_x2", atomic);
    }
  }
  for (const char* w : {"dword", "dwordx2", "dwordx3", "dwordx4", "ubyte", "sbyte", "ushort", "sshort"})
    add_handler(t, std::string("buffer_load_") + w, buffer_load);
  for (const char* w : {"dword", "dwordx2", "dwordx3", "dwordx4", "byte", "short"})
    add_handler(t, std::string("buffer_store_") + w, buffer_store);

  for (const char* w : {"ds_read_b32", "ds_read_b64", "ds_read_b96", "ds_read_b128", "ds_read_u8", "ds_read_i8",
                        "ds_read_u16", "ds_read_i16", "ds_read_u16_d16", "ds_read_u16_d16_hi", "ds_read_u8_d16",
                        "ds_read_u8_d16_hi", "ds_read_i8_d16", "ds_read_i8_d16_hi"})
    add_handler(t, w, ds_read);
  for (const char* w : {"ds_write_b32", "ds_write_b64", "ds_write_b96", "ds_write_b128", "ds_write_b8", "ds_write_b16",
                        "ds_write_b8_d16_hi", "ds_write_b16_d16_hi"})
    add_handler(t, w, ds_write);
  for (const char* w : {"ds_read2_b32", "ds_read2_b64", "ds_read2st64_b32", "ds_read2st64_b64"})
    add_handler(t, w, ds_2addr<false>);
  for (const char* w : {"ds_write2_b32", "ds_write2_b64", "ds_write2st64_b32", "ds_write2st64_b64"})
    add_handler(t, w, ds_2addr<true>);
  for (std::string op : {"add", "sub", "rsub", "inc", "dec", "min", "max", "and", "or", "xor", "mskor", "wrxchg",
                         "storexchg", "cmpst", "cmpstore"}) {
    for (std::string type : {"u32", "i32", "b32", "f32"}) {
      add_handler(t, "ds_" + op + "_" + type, ds_atomic<false, false>);
      add_handler(t, "ds_" + op + "_rtn_" + type, ds_atomic<true, false>);
    }
    for (std::string type : {"u64", "i64", "b64", "f64"}) {
      add_handler(t, "ds_" + op + "_" + type, ds_atomic<false, true>);
      add_handler(t, "ds_" + op + "_rtn_" + type, ds_atomic<true, true>);
    }
  }
  add_handler(t, "ds_swizzle_b32", ds_swizzle);
  add_handler(t, "ds_bpermute_b32", ds_bpermute);
  add_handler(t, "ds_permute_b32", ds_permute);
}

}  // namespace amdsim
