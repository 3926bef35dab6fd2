// DS read/write/read2/write2/atomics and global loads/stores/atomics (cmpswap, f32 add), with
// inactive lanes neither loading, storing nor updating.
#include "sim.hpp"

using namespace amdsim_test;

namespace {
uint32_t lds32(Sim& sim, uint32_t byte) {
  uint32_t v;
  std::memcpy(&v, sim.group.lds.data() + byte, 4);
  return v;
}
}  // namespace

SIM_TEST(ds_read_write_read2_write2) {
  bool g11 = sim.gfx11();
  sim.fill(0, [](int l) { return uint32_t(l * 4); });  // byte address
  sim.fill(1, [](int l) { return 0x1000u + l; });
  sim.fill(2, [](int l) { return 0x2000u + l; });
  uint64_t exec = sim.all() & ~0xf0ull;
  sim.w.set_exec(exec);
  sim.run(std::string(g11 ? "ds_store_b32" : "ds_write_b32") + " v0, v1 offset:1024");
  for (int l = 0; l < sim.wave_size; ++l) CHECK(lds32(sim, 1024 + l * 4) == (((exec >> l) & 1) ? 0x1000u + l : 0u));
  // write2: two dwords at offset0 * 4 and offset1 * 4 from the address.
  sim.w.set_exec(sim.all());
  sim.fill(3, [](int l) { return uint32_t(l * 8); });
  sim.run(std::string(g11 ? "ds_store_2addr_b32" : "ds_write2_b32") + " v3, v1, v2 offset0:2 offset1:3");
  for (int l = 0; l < sim.wave_size; ++l) {
    CHECK(lds32(sim, l * 8 + 8) == 0x1000u + l);
    CHECK(lds32(sim, l * 8 + 12) == 0x2000u + l);
  }
  sim.run(std::string(g11 ? "ds_load_2addr_b32" : "ds_read2_b32") + " v[4:5], v3 offset0:3 offset1:2\n" +
          (g11 ? "ds_load_b32" : "ds_read_b32") + " v6, v0 offset:1024\n" + (g11 ? "ds_load_b64" : "ds_read_b64") +
          " v[8:9], v3 offset:8");
  for (int l = 0; l < sim.wave_size; ++l) {
    CHECK(sim.v(4, l) == 0x2000u + l);
    CHECK(sim.v(5, l) == 0x1000u + l);
    CHECK(sim.v(6, l) == (((exec >> l) & 1) ? 0x1000u + l : 0u));
    CHECK(sim.v64(8, l) == (uint64_t(0x2000u + l) << 32 | (0x1000u + l)));
  }
  // Sub-dword: u8 / i8 / u16 reads of a known word.
  std::memcpy(sim.group.lds.data() + 4000, "\x81\xff\x7f\x80", 4);
  sim.fill(10, [](int) { return 4000u; });
  sim.run(std::string(g11 ? "ds_load_u8 v11, v10\nds_load_i8 v12, v10\nds_load_u16 v13, v10 offset:2\nds_load_i16 v14, v10 offset:2"
                          : "ds_read_u8 v11, v10\nds_read_i8 v12, v10\nds_read_u16 v13, v10 offset:2\nds_read_i16 v14, v10 offset:2"));
  CHECK(sim.v(11, 0) == 0x81u);
  CHECK(sim.v(12, 0) == 0xffffff81u);
  CHECK(sim.v(13, 0) == 0x807fu);
  CHECK(sim.v(14, 0) == 0xffff807fu);
}

SIM_TEST(ds_atomics) {
  bool g11 = sim.gfx11();
  // Every active lane adds lane+1 to one word; the returning form gives each lane the value before
  // its own update, in lane order.
  sim.fill(0, [](int) { return 256u; });
  sim.fill(1, [](int l) { return uint32_t(l + 1); });
  uint64_t exec = sim.all() & ~0x3ull;
  sim.w.set_exec(exec);
  sim.run("ds_add_rtn_u32 v2, v0, v1");
  uint32_t sum = 0;
  for (int l = 2; l < sim.wave_size; ++l) {
    CHECK(sim.v(2, l) == sum);
    sum += uint32_t(l + 1);
  }
  CHECK(lds32(sim, 256) == sum);
  sim.w.set_exec(sim.all());
  sim.fill(3, [](int l) { return uint32_t(l * 4 + 512); });
  sim.run("ds_add_u32 v3, v1\nds_max_u32 v3, v1\nds_min_i32 v0, v1");
  CHECK(lds32(sim, 512 + 4 * 5) == 6u);
  // Compare-swap: gfx9 ds_cmpst (data0 = compare, data1 = new), gfx11 ds_cmpstore (data0 = new, data1 = compare).
  sim.fill(4, [](int l) { return uint32_t(l + 1); });  // matches the current value in even lanes only
  for (int l = 0; l < 64; l += 2) sim.v(4, l) = 0;
  sim.fill(5, [](int) { return 0xcafeu; });
  sim.run(g11 ? "ds_cmpstore_rtn_b32 v6, v3, v5, v4" : "ds_cmpst_rtn_b32 v6, v3, v4, v5");
  for (int l = 0; l < sim.wave_size; ++l) {
    CHECK(sim.v(6, l) == uint32_t(l + 1));
    CHECK(lds32(sim, 512 + 4 * l) == (l & 1 ? 0xcafeu : uint32_t(l + 1)));
  }
}

SIM_TEST(global_load_store_atomics) {
  bool g11 = sim.gfx11();
  std::string glc = sim.proc.name == "gfx942" ? "sc0" : "glc";
  auto* buf = static_cast<uint32_t*>(sim.memory.allocate(64 * 4 * 4));
  for (int i = 0; i < 64; ++i) buf[i] = 0x5000u + i;
  sim.w.set_s64(0, reinterpret_cast<uint64_t>(buf));
  sim.fill(0, [](int l) { return uint32_t(l * 4); });
  sim.fill(1, [](int) { return 0xdeadu; });
  uint64_t exec = sim.all() & ~0x100ull;
  sim.w.set_exec(exec);
  sim.run(std::string(g11 ? "global_load_b32" : "global_load_dword") + " v1, v0, s[0:1] offset:4");
  for (int l = 0; l < sim.wave_size; ++l)
    CHECK(sim.v(1, l) == (l == 8 ? 0xdeadu : (l + 1 < 64 ? 0x5000u + l + 1 : 0u)));
  // A store to the second quarter through a 64-bit VGPR address.
  for (int l = 0; l < 64; ++l) sim.set_v64(2, l, reinterpret_cast<uint64_t>(buf + 64 + l));
  sim.fill(4, [](int l) { return 0x7000u + l; });
  sim.run(std::string(g11 ? "global_store_b32" : "global_store_dword") + " v[2:3], v4, off");
  for (int l = 0; l < 64; ++l) CHECK(buf[64 + l] == ((l < sim.wave_size && l != 8) ? 0x7000u + l : 0u));
  // Atomics on one word: add with return (pre-op values in lane order), cmpswap, f32 add.
  sim.w.set_exec(sim.all());
  buf[128] = 10;
  sim.fill(5, [](int) { return 128u * 4; });
  sim.fill(6, [](int) { return 2u; });
  sim.run(std::string(g11 ? "global_atomic_add_u32" : "global_atomic_add") + " v7, v5, v6, s[0:1] " + glc);
  for (int l = 0; l < sim.wave_size; ++l) CHECK(sim.v(7, l) == 10u + 2u * l);
  CHECK(buf[128] == 10u + 2u * sim.wave_size);
  // cmpswap: data = {new, compare}. Only the lane whose compare matches the current value swaps.
  buf[129] = 5;
  sim.fill(5, [](int) { return 129u * 4; });
  sim.fill(8, [](int l) { return 1000u + l; });  // new
  sim.fill(9, [](int l) { return uint32_t(l); });  // compare: lane 5 matches first
  sim.run(std::string(g11 ? "global_atomic_cmpswap_b32" : "global_atomic_cmpswap") + " v10, v5, v[8:9], s[0:1] " + glc);
  CHECK(buf[129] == 1005u);
  CHECK(sim.v(10, 4) == 5u);
  CHECK(sim.v(10, 5) == 5u);
  CHECK(sim.v(10, 6) == 1005u);
  // f32 add (no return), with two inactive lanes.
  float f = 0.5f;
  std::memcpy(&buf[130], &f, 4);
  sim.fill(5, [](int) { return 130u * 4; });
  sim.fillf(11, 0.25f);
  sim.w.set_exec(sim.all() & ~0x6ull);
  sim.run("global_atomic_add_f32 v5, v11, s[0:1]");
  std::memcpy(&f, &buf[130], 4);
  CHECK(f == 0.5f + 0.25f * float(sim.wave_size - 2));
  // 64-bit atomic add with carry across the halves.
  uint64_t* q = reinterpret_cast<uint64_t*>(buf + 132);
  *q = 0xffffffffull;
  sim.w.set_exec(1);
  sim.fill(5, [](int) { return 132u * 4; });
  sim.set_v64(12, 0, 1);
  sim.run(std::string(g11 ? "global_atomic_add_u64" : "global_atomic_add_x2") + " v[14:15], v5, v[12:13], s[0:1] " + glc);
  CHECK(*q == 0x100000000ull);
  CHECK(sim.v64(14, 0) == 0xffffffffull);
}

TEST_CASE("global access outside allocations faults in a snippet", "[gfx942]") {
  Sim sim("gfx942");
  auto* buf = static_cast<uint32_t*>(sim.memory.allocate(16));
  sim.w.set_s64(0, reinterpret_cast<uint64_t>(buf));
  sim.fill(0, [](int l) { return uint32_t(l * 4); });  // lanes 4.. are past the 16 bytes
  try {
    sim.run("global_load_dword v1, v0, s[0:1]");
    FAIL("no fault");
  } catch (const amdsim::Error& e) {
    std::string what = e.what();
    CHECK(what.find("memory fault: lane 4") != std::string::npos);
    CHECK(what.find("global_load_dword") != std::string::npos);
  }
}
