// Private memory and flat addressing: scratch_* (each lane its own private memory at the same
// offset), MUBUF through the private segment buffer with the scratch wave offset added to the V#
// base as LLVM's gfx90a prologue does, FLAT_SCRATCH set up from flat_scratch_init, and flat_*
// loads, stores and atomics to global memory, into LDS through the shared aperture
// (src_shared_base) and into scratch through the private aperture (src_private_base).
#include <rocjit/rocjit.hpp>

#include <algorithm>
#include <map>

#include "sim.hpp"

using namespace amdsim_test;

namespace {

uint32_t priv32(Sim& sim, int lane, uint32_t byte) {
  uint32_t v;
  std::memcpy(&v, sim.w.scratch.data() + size_t(lane) * sim.w.private_size + byte, 4);
  return v;
}
uint32_t lds32(Sim& sim, uint32_t byte) {
  uint32_t v;
  std::memcpy(&v, sim.group.lds.data() + byte, 4);
  return v;
}

// Runs `source`, expecting a memory fault whose message contains every string of `parts`.
void expect_fault(Sim& sim, const std::string& source, std::initializer_list<const char*> parts) {
  try {
    sim.run(source);
    FAIL("no fault: " << source);
  } catch (const amdsim::Error& e) {
    std::string what = e.what();
    INFO(what);
    for (const char* p : parts) CHECK(what.find(p) != std::string::npos);
  }
}

// The private segment buffer as the dispatch gives it: base = the scratch backing memory.
void private_segment_buffer(Sim& sim, int first) {
  sim.s(first) = uint32_t(amdsim::private_backing);
  sim.s(first + 1) = uint32_t(amdsim::private_backing >> 32);
  sim.s(first + 2) = 0xffffffffu;
  sim.s(first + 3) = 0x00e27000u;
}

}  // namespace

SIM_TEST(scratch_load_store_per_lane) {
  bool g11 = sim.gfx11();
  auto name = [&](const char* gfx9, const char* gfx11) { return std::string(g11 ? gfx11 : gfx9); };
  // The same offsets in every group of four lanes: each lane still has its own memory.
  sim.fill(0, [](int l) { return uint32_t(l % 4) * 4; });
  sim.fill(1, [](int l) { return 0x1000u + l; });
  sim.fill(2, [](int) { return 0xdeadu; });
  uint64_t exec = sim.all() & ~0x8ull;  // lane 3 inactive
  sim.w.set_exec(exec);
  sim.run(name("scratch_store_dword", "scratch_store_b32") + " v0, v1, off offset:8\n" +
          name("scratch_load_dword", "scratch_load_b32") + " v2, v0, off offset:8");
  for (int l = 0; l < sim.wave_size; ++l) {
    bool active = (exec >> l) & 1;
    CHECK(priv32(sim, l, 8 + (l % 4) * 4) == (active ? 0x1000u + l : 0u));
    CHECK(sim.v(2, l) == (active ? 0x1000u + l : 0xdeadu));
  }
  // SGPR offset only (LLVM's form for a uniform index): 64-bit store and load.
  sim.w.set_exec(sim.all());
  sim.s(0) = 32;
  sim.fill(4, [](int l) { return 0x4000u + l; });
  sim.fill(5, [](int l) { return 0x5000u + l; });
  sim.run(name("scratch_store_dwordx2", "scratch_store_b64") + " off, v[4:5], s0 offset:4\n" +
          name("scratch_load_dwordx2", "scratch_load_b64") + " v[6:7], off, s0 offset:4");
  for (int l = 0; l < sim.wave_size; ++l) {
    CHECK(priv32(sim, l, 36) == 0x4000u + l);
    CHECK(priv32(sim, l, 40) == 0x5000u + l);
    CHECK(sim.v64(6, l) == (uint64_t(0x5000u + l) << 32 | (0x4000u + l)));
  }
  // Sub-dword stores and sign/zero-extending loads.
  sim.fill(8, [](int) { return 0x12348081u; });
  sim.fill(9, [](int) { return 48u; });
  sim.fill(10, [](int) { return 0xf0u; });
  sim.run(name("scratch_store_short", "scratch_store_b16") + " v9, v8, off\n" +
          name("scratch_store_byte", "scratch_store_b8") + " v9, v10, off offset:2\n" +
          name("scratch_load_ubyte", "scratch_load_u8") + " v11, v9, off\n" +
          name("scratch_load_sbyte", "scratch_load_i8") + " v12, v9, off\n" +
          name("scratch_load_ushort", "scratch_load_u16") + " v13, v9, off\n" +
          name("scratch_load_sshort", "scratch_load_i16") + " v14, v9, off\n" +
          name("scratch_load_ubyte", "scratch_load_u8") + " v15, v9, off offset:2");
  CHECK(priv32(sim, 5, 48) == 0x00f08081u);
  CHECK(sim.v(11, 5) == 0x81u);
  CHECK(sim.v(12, 5) == 0xffffff81u);
  CHECK(sim.v(13, 5) == 0x8081u);
  CHECK(sim.v(14, 5) == 0xffff8081u);
  CHECK(sim.v(15, 5) == 0xf0u);
  // Past the work-item's 64 bytes: a fault naming the first lane out of range.
  sim.fill(0, [](int l) { return uint32_t(l % 4) * 4; });
  expect_fault(sim, name("scratch_load_dword", "scratch_load_b32") + " v2, v0, off offset:56",
               {"memory fault: lane 2", "private"});
}

namespace {
void scratch_svs(Sim& sim) {
  bool g11 = sim.gfx11();
  sim.fill(0, [](int l) { return uint32_t(l % 3) * 8; });
  sim.fill(1, [](int l) { return 0x700u + l; });
  sim.s(1) = 16;
  sim.run(std::string(g11 ? "scratch_store_b32" : "scratch_store_dword") + " v0, v1, s1 offset:4\n" +
          (g11 ? "scratch_load_b32" : "scratch_load_dword") + " v2, v0, s1 offset:4");
  for (int l = 0; l < sim.wave_size; ++l) {
    CHECK(priv32(sim, l, 20 + (l % 3) * 8) == 0x700u + l);
    CHECK(sim.v(2, l) == 0x700u + l);
  }
}
}  // namespace

// A VGPR and an SGPR offset together (SVS): gfx940 and gfx11 only.
TEST_CASE("scratch_svs gfx942", "[gfx942]") { Sim sim("gfx942"); scratch_svs(sim); }
TEST_CASE("scratch_svs gfx1100", "[gfx1100]") { Sim sim("gfx1100"); scratch_svs(sim); }

TEST_CASE("MUBUF through the private segment buffer after the prologue adds the scratch wave offset", "[gfx90a]") {
  Sim sim("gfx90a");
  // The dispatch: V# in s[0:3], the scratch wave offset in s4; the wave's slice starts there.
  const uint32_t wave_offset = 0x4000;
  sim.w.private_base = amdsim::private_backing + wave_offset;
  private_segment_buffer(sim, 0);
  sim.s(4) = wave_offset;
  sim.s(5) = 16 * 64;  // an SGPR offset: wave bytes, 16 bytes per lane
  sim.fill(0, [](int l) { return uint32_t(l % 4) * 4; });
  sim.fill(1, [](int l) { return 0x100u + l; });
  sim.fill(2, [](int l) { return 0x200u + l; });
  sim.fill(3, [](int) { return 0xdeadu; });
  uint64_t exec = ~0ull & ~(1ull << 40);
  sim.w.set_exec(exec);
  const std::string prologue = "s_add_u32 s0, s0, s4\ns_addc_u32 s1, s1, 0\n";
  sim.run(prologue +
          "buffer_store_dword v1, v0, s[0:3], 0 offen offset:4\n"
          "buffer_store_dword v2, off, s[0:3], s5 offset:8\n"
          "buffer_load_dword v3, v0, s[0:3], 0 offen offset:4\n"
          "buffer_load_dwordx2 v[6:7], off, s[0:3], s5 offset:4");
  CHECK(sim.w.s64(0) == amdsim::private_backing + wave_offset);
  for (int l = 0; l < 64; ++l) {
    bool active = (exec >> l) & 1;
    CHECK(priv32(sim, l, 4 + (l % 4) * 4) == (active ? 0x100u + l : 0u));
    CHECK(priv32(sim, l, 24) == (active ? 0x200u + l : 0u));
    CHECK(sim.v(3, l) == (active ? 0x100u + l : 0xdeadu));
    if (active) CHECK(sim.v64(6, l) == uint64_t(0x200u + l) << 32);
  }
  // Sub-dword: store a short and a byte, load them back extended.
  sim.w.set_exec(~0ull);
  sim.fill(8, [](int) { return 0x12348081u; });
  sim.fill(9, [](int) { return 0xf0u; });
  sim.run("buffer_store_short v8, off, s[0:3], 0 offset:48\n"
          "buffer_store_byte v9, off, s[0:3], 0 offset:50\n"
          "buffer_load_ubyte v10, off, s[0:3], 0 offset:48\n"
          "buffer_load_sbyte v11, off, s[0:3], 0 offset:48\n"
          "buffer_load_ushort v12, off, s[0:3], 0 offset:48\n"
          "buffer_load_sshort v13, off, s[0:3], 0 offset:48");
  CHECK(priv32(sim, 63, 48) == 0x00f08081u);
  CHECK(sim.v(10, 63) == 0x81u);
  CHECK(sim.v(11, 63) == 0xffffff81u);
  CHECK(sim.v(12, 63) == 0x8081u);
  CHECK(sim.v(13, 63) == 0xffff8081u);
  // LLVM's large spill offsets and stack pointer: the SGPR offset scaled by the wave size.
  sim.s(6) = 40 * 64;
  sim.run("buffer_load_dword v14, off, s[0:3], s6 offset:8");  // lane byte 48
  CHECK(sim.v(14, 63) == 0x00f08081u);
  // Past the end of the work-item's memory; an SGPR offset that is not whole dwords per lane.
  expect_fault(sim, "buffer_load_dword v3, v0, s[0:3], 0 offen offset:56", {"memory fault: lane 2", "private memory"});
  sim.s(6) = 4;
  expect_fault(sim, "buffer_load_dword v3, off, s[0:3], s6", {"memory fault: lane 0", "multiples of 256"});
  // Without the prologue the V# addresses the slice of the wave before: a fault naming the offset.
  private_segment_buffer(sim, 0);
  expect_fault(sim, "buffer_store_dword v1, v0, s[0:3], 0 offen", {"memory fault: lane 0", "scratch wave offset"});
}

TEST_CASE("MUBUF with a global V# reads and writes the allocation", "[gfx90a]") {
  Sim sim("gfx90a");
  auto* buf = static_cast<uint32_t*>(sim.memory.allocate(64 * 4 + 64));
  for (int i = 0; i < 80; ++i) buf[i] = 0x9000u + i;
  uint64_t a = reinterpret_cast<uint64_t>(buf);
  sim.s(8) = uint32_t(a), sim.s(9) = uint32_t(a >> 32), sim.s(10) = 64 * 4 + 64, sim.s(11) = 0x00027000u;
  sim.fill(0, [](int l) { return uint32_t(l) * 4; });
  sim.run("buffer_load_dword v1, v0, s[8:11], 0 offen offset:8");
  for (int l = 0; l < 64; ++l) CHECK(sim.v(1, l) == 0x9000u + l + 2);
  sim.fill(2, [](int l) { return 0x3000u + l; });
  sim.run("buffer_store_dword v2, v0, s[8:11], 0 offen");
  for (int l = 0; l < 64; ++l) CHECK(buf[l] == 0x3000u + l);
}

TEST_CASE("gfx90a scratch_* are relative to FLAT_SCRATCH: flat_scratch_init plus the wave offset", "[gfx90a]") {
  Sim sim("gfx90a");
  const uint32_t wave_offset = 0x2000;
  sim.w.private_base = amdsim::private_backing + wave_offset;
  sim.w.set_s64(amdsim::flat_scratch_lo, 0);  // not yet set up
  sim.w.set_s64(6, amdsim::private_backing);  // flat_scratch_init
  sim.s(9) = wave_offset;                     // scratch wave offset
  sim.fill(0, [](int l) { return uint32_t(l % 2) * 4; });
  sim.fill(1, [](int l) { return 0x600u + l; });
  expect_fault(sim, "scratch_store_dword v0, v1, off", {"memory fault: lane 0", "FLAT_SCRATCH 0x0"});
  sim.run("s_add_u32 flat_scratch_lo, s6, s9\ns_addc_u32 flat_scratch_hi, s7, 0\n"
          "scratch_store_dword v0, v1, off offset:12\nscratch_load_dword v2, v0, off offset:12");
  for (int l = 0; l < 64; ++l) {
    CHECK(priv32(sim, l, 12 + (l % 2) * 4) == 0x600u + l);
    CHECK(sim.v(2, l) == 0x600u + l);
  }
}

SIM_TEST(flat_global_load_store_atomics) {
  bool g11 = sim.gfx11();
  std::string glc = sim.proc.name == "gfx942" ? "sc0" : "glc";
  auto name = [&](const char* gfx9, const char* gfx11) { return std::string(g11 ? gfx11 : gfx9); };
  auto* buf = static_cast<uint32_t*>(sim.memory.allocate(70 * 4));
  for (int i = 0; i < 70; ++i) buf[i] = 0x8000u + i;
  for (int l = 0; l < 64; ++l) sim.set_v64(0, l, reinterpret_cast<uint64_t>(buf + l));
  uint64_t exec = sim.all() & ~0x2ull;
  sim.w.set_exec(exec);
  sim.fill(2, [](int) { return 0xdeadu; });
  sim.run(name("flat_load_dword", "flat_load_b32") + " v2, v[0:1] offset:4");
  for (int l = 0; l < sim.wave_size; ++l) CHECK(sim.v(2, l) == (l == 1 ? 0xdeadu : 0x8000u + l + 1));
  sim.fill(3, [](int l) { return 0x100u + l; });
  sim.run(name("flat_store_dword", "flat_store_b32") + " v[0:1], v3");
  for (int l = 0; l < sim.wave_size; ++l) CHECK(buf[l] == (l == 1 ? 0x8001u : 0x100u + l));
  // Atomics on one word: add returning the pre-op values in lane order, then cmpswap.
  sim.w.set_exec(sim.all());
  buf[66] = 7;
  for (int l = 0; l < 64; ++l) sim.set_v64(0, l, reinterpret_cast<uint64_t>(buf + 66));
  sim.fill(4, [](int) { return 3u; });
  sim.run(name("flat_atomic_add", "flat_atomic_add_u32") + " v5, v[0:1], v4 " + glc);
  for (int l = 0; l < sim.wave_size; ++l) CHECK(sim.v(5, l) == 7u + 3u * l);
  CHECK(buf[66] == 7u + 3u * sim.wave_size);
  buf[67] = 9;
  for (int l = 0; l < 64; ++l) sim.set_v64(0, l, reinterpret_cast<uint64_t>(buf + 67));
  sim.fill(6, [](int l) { return 500u + l; });  // new
  sim.fill(7, [](int l) { return uint32_t(l); });  // compare: lane 9 matches
  sim.run(name("flat_atomic_cmpswap", "flat_atomic_cmpswap_b32") + " v8, v[0:1], v[6:7] " + glc);
  CHECK(buf[67] == 509u);
  CHECK(sim.v(8, 9) == 9u);
  CHECK(sim.v(8, 10) == 509u);
  // A flat address outside every allocation is a global memory fault.
  for (int l = 0; l < 64; ++l) sim.set_v64(0, l, reinterpret_cast<uint64_t>(buf + 70 + l));
  expect_fault(sim, name("flat_load_dword", "flat_load_b32") + " v2, v[0:1]", {"memory fault: lane 0", "global"});
}

SIM_TEST(flat_through_the_shared_aperture_is_lds) {
  bool g11 = sim.gfx11();
  std::string glc = sim.proc.name == "gfx942" ? "sc0" : "glc";
  auto name = [&](const char* gfx9, const char* gfx11) { return std::string(g11 ? gfx11 : gfx9); };
  // LLVM's addrspacecast local -> flat: the aperture base's high dword, the LDS offset below it.
  sim.fill(0, [](int l) { return 256u + uint32_t(l) * 4; });
  sim.fill(2, [](int l) { return 0xa00u + l; });
  sim.run("s_mov_b64 s[0:1], src_shared_base\nv_mov_b32 v1, s1\n" + name("flat_store_dword", "flat_store_b32") +
          " v[0:1], v2\n" + name("flat_load_dword", "flat_load_b32") + " v3, v[0:1] offset:4");
  CHECK(sim.w.s64(0) == amdsim::shared_aperture);
  for (int l = 0; l < sim.wave_size; ++l) {
    CHECK(lds32(sim, 256 + l * 4) == 0xa00u + l);
    CHECK(sim.v(3, l) == (l + 1 < sim.wave_size ? 0xa00u + l + 1 : 0u));
  }
  // An atomic through the aperture updates LDS.
  sim.fill(0, [](int) { return 1024u; });
  sim.fill(4, [](int l) { return uint32_t(l + 1); });
  sim.run(name("flat_atomic_add", "flat_atomic_add_u32") + " v5, v[0:1], v4 " + glc);
  uint32_t n = uint32_t(sim.wave_size);
  CHECK(lds32(sim, 1024) == n * (n + 1) / 2);
  CHECK(sim.v(5, 3) == 6u);  // 1 + 2 + 3 before lane 3
  // Past the work-group's LDS: an LDS fault.
  sim.fill(0, [](int) { return 65536u; });
  expect_fault(sim, name("flat_load_dword", "flat_load_b32") + " v3, v[0:1]", {"memory fault: lane 0", "LDS"});
}

SIM_TEST(flat_through_the_private_aperture_is_scratch) {
  bool g11 = sim.gfx11();
  auto name = [&](const char* gfx9, const char* gfx11) { return std::string(g11 ? gfx11 : gfx9); };
  sim.fill(0, [](int l) { return uint32_t(l % 4) * 4; });
  sim.fill(2, [](int l) { return 0xb00u + l; });
  sim.fill(4, [](int l) { return 0xc00u + l; });
  sim.run("s_mov_b64 s[0:1], src_private_base\nv_mov_b32 v1, s1\n" + name("flat_store_dword", "flat_store_b32") +
          " v[0:1], v2 offset:16\n" + name("flat_load_dword", "flat_load_b32") + " v3, v[0:1] offset:16\n" +
          name("scratch_store_dword", "scratch_store_b32") + " v0, v4, off offset:32\n" +
          name("flat_load_dword", "flat_load_b32") + " v5, v[0:1] offset:32");
  CHECK(sim.w.s64(0) == amdsim::private_aperture);
  for (int l = 0; l < sim.wave_size; ++l) {
    CHECK(priv32(sim, l, 16 + (l % 4) * 4) == 0xb00u + l);
    CHECK(sim.v(3, l) == 0xb00u + l);
    CHECK(sim.v(5, l) == 0xc00u + l);  // scratch_* and flat see the same private memory
  }
  expect_fault(sim, name("flat_store_dword", "flat_store_b32") + " v[0:1], v2 offset:60",
               {"memory fault: lane 1", "private"});
}

// The e2e private-memory kernels' shape, launched directly: a local array indexed by loaded data
// (64 elements: LLVM promotes 32 to registers) is in scratch (scratch_* on gfx942/gfx1100, MUBUF through the private segment buffer on gfx90a),
// and every work-item's array is its own, in the default and in interleaved wave order.
TEST_CASE("a local array indexed by data lives in scratch and is per work-item", "[launch]") {
  using namespace rocjit::dsl;
  auto k = rocjit::kernel("private_bins", [](Array<uint32_t> data, Array<int32_t> out) {
    auto bins = local::array<int32_t>({64}, "bins");
    Int i = global_id(0);
    For(0, 64, [&](Int b) { bins(b) = 0; });
    For(0, 16, [&](Int j) {
      Int b = cast<int32_t>(data(i * 16 + j) % 64u);
      bins(b) = bins(b) + j + 1;
    });
    For(0, 64, [&](Int b) { out(i * 64 + b) = bins(b) * 100 + b; });
  }, {.param_names = {"data", "out"}});
  const int items = 128;
  std::vector<uint32_t> data(items * 16);
  uint32_t seed = 17;
  for (auto& d : data) seed = seed * 1664525u + 1013904223u, d = seed >> 9;
  std::vector<int32_t> expect(items * 64);
  for (int i = 0; i < items; ++i) {
    int bins[64] = {};
    for (int j = 0; j < 16; ++j) bins[data[i * 16 + j] % 64] += j + 1;
    for (int b = 0; b < 64; ++b) expect[i * 64 + b] = bins[b] * 100 + b;
  }
  for (std::string p : {"gfx942", "gfx90a", "gfx1100"}) {
    INFO(p);
    rocjit::CodeObject co = rocjit::compile(k, rocjit::Target::amdgpu(p));
    auto program = amdsim::Program::load(co.elf, amdsim::Processor::get(p));
    const amdsim::KernelInfo* info = program->kernel("private_bins");
    REQUIRE(info != nullptr);
    CHECK(info->private_segment_size >= 256u);
    auto names = program->instruction_names();
    auto uses = [&](const char* prefix) {
      return std::any_of(names.begin(), names.end(), [&](const std::string& n) { return n.rfind(prefix, 0) == 0; });
    };
    if (p == "gfx90a") {
      CHECK(uses("buffer_store_dword"));
      CHECK(uses("buffer_load_dword"));
    } else {
      CHECK(uses("scratch_store_dword"));
      CHECK(uses("scratch_load_dword"));
    }
    for (uint32_t interleave : {0u, 2u}) {
      amdsim::Memory memory;
      auto* d = static_cast<uint32_t*>(memory.allocate(data.size() * 4));
      auto* out = static_cast<int32_t*>(memory.allocate(expect.size() * 4));
      std::copy(data.begin(), data.end(), d);
      std::vector<uint64_t> storage;
      for (const auto& a : info->args) {
        if (a.value_kind.rfind("hidden_", 0) == 0) continue;
        bool is_data = a.name.rfind("data", 0) == 0;
        if (a.value_kind == "global_buffer") storage.push_back(reinterpret_cast<uint64_t>(is_data ? (void*)d : (void*)out));
        else if (a.name.find(".shape") != std::string::npos) storage.push_back(is_data ? data.size() : expect.size());
        else storage.push_back(1);
      }
      std::vector<void*> values;
      for (auto& v : storage) values.push_back(&v);
      amdsim::Dim3 grid{2, 1, 1}, block{64, 1, 1};
      auto args = amdsim::layout_arguments(*info, values.data(), grid, block, 0);
      amdsim::LaunchOptions o;
      o.interleave = interleave;
      amdsim::launch(*program, *info, grid, block, 0, args, memory, o);
      INFO("interleave " << interleave);
      CHECK(std::equal(expect.begin(), expect.end(), out));
    }
  }
}
