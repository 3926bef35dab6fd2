// A wave on its own: assemble a snippet, decode it with amdsim's decoder and run it through the
// handlers the way dispatch.cpp's execute() does, on register values the test chooses.
#pragma once

#include <catch2/catch.hpp>

#include <bit>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "assembler.hpp"
#include "decoder.h"
#include "inst.h"

namespace amdsim_test {

using amdsim::Wave;

struct Sim {
  amdsim::Processor proc;
  int wave_size;
  std::shared_ptr<amdsim::Decoder> decoder;
  amdsim::KernelInfo kernel;
  amdsim::Memory memory;
  amdsim::Group group;
  Wave w;
  std::vector<amdsim::Inst> last;  // the decoded snippet

  explicit Sim(const std::string& processor, int wave = 0)
      : proc(amdsim::Processor::get(processor)), wave_size(wave ? wave : proc.default_wave_size) {
    decoder = std::make_shared<amdsim::Decoder>(proc, wave_size);
    kernel.name = "snippet";
    kernel.wavefront_size = wave_size;
    reset();
  }
  bool gfx11() const { return proc.major >= 11; }
  bool wave32() const { return wave_size == 32; }
  uint64_t all() const { return wave_size == 64 ? ~0ull : 0xffffffffull; }

  void reset() {
    w = Wave{};
    w.kernel = &kernel;
    w.memory = &memory;
    w.group = &group;
    w.wave_size = wave_size;
    w.lane_mask = all();
    w.v.assign(256 * 64, 0);
    w.a.assign(256 * 64, 0);
    w.private_size = 64;
    w.scratch.assign(64 * 64, 0);
    // The wave's private slice at the start of the scratch backing space (scratch wave offset 0);
    // without architected flat scratch, FLAT_SCRATCH as a prologue would have set it.
    w.private_base = amdsim::private_backing;
    w.flat_scratch_sgprs = !proc.architected_flat_scratch;
    w.matrix_group = proc.matrix_numerics == "cdna2" ? 2 : proc.matrix_numerics == "cdna3" ? 4 : 0;  // as dispatch.cpp
    if (w.flat_scratch_sgprs) w.set_s64(amdsim::flat_scratch_lo, amdsim::private_backing);
    group.lds.assign(65536, 0);
    w.set_exec(all());
  }

  // Decodes every instruction of `source`; fails the test on an undecodable word.
  std::vector<amdsim::Inst> decode(const std::string& source) {
    auto bytes = assemble(proc.name, wave_size, source);
    std::vector<amdsim::Inst> out;
    for (size_t pc = 0; pc < bytes.size();) {
      std::span<const uint8_t> window(bytes.data() + pc, std::min<size_t>(bytes.size() - pc, 20));
      amdsim::Inst inst = decoder->decode(window, pc);
      if (!inst.valid) FAIL("undecodable word in: " << source);
      inst.handler = amdsim::find_handler(inst.name);
      if (inst.second) inst.second->handler = amdsim::find_handler(inst.second->name);
      pc += inst.size;
      out.push_back(std::move(inst));
    }
    return out;
  }

  // Runs `source` from its first instruction until the PC leaves it or the wave ends. An
  // unimplemented instruction is an amdsim::Error, as in a launch.
  void run(const std::string& source) {
    last = decode(source);
    std::vector<const amdsim::Inst*> at;  // by byte offset / 4
    uint64_t end = 0;
    for (auto& i : last) {
      at.resize((end + i.size) / 4, nullptr);
      at[end / 4] = &i;
      end += i.size;
    }
    w.pc = 0;
    w.status = Wave::Status::running;
    for (int steps = 0; w.status == Wave::Status::running && w.pc < end; ++steps) {
      if (steps > 100000) FAIL("snippet does not terminate: " << source);
      const amdsim::Inst* inst = at[w.pc / 4];
      REQUIRE(inst != nullptr);
      w.pc += inst->size;
      if (!inst->handler) w.fail(*inst, "instruction '" + inst->name + "' is not implemented by amdsim");
      if (inst->second && !inst->second->handler)
        w.fail(*inst, "instruction '" + inst->second->name + "' is not implemented by amdsim");
      amdsim::execute_inst(w, *inst);  // as dispatch.cpp's execute()
      ++w.instructions;
    }
  }

  uint32_t& v(int reg, int lane) { return w.vreg(reg, lane); }
  uint32_t& s(int reg) { return w.s[reg]; }
  uint64_t v64(int reg, int lane) { return uint64_t(v(reg + 1, lane)) << 32 | v(reg, lane); }
  void set_v64(int reg, int lane, uint64_t x) { v(reg, lane) = uint32_t(x), v(reg + 1, lane) = uint32_t(x >> 32); }
  float vf(int reg, int lane) { return std::bit_cast<float>(v(reg, lane)); }
  double vd(int reg, int lane) { return std::bit_cast<double>(v64(reg, lane)); }
  // Fills vector register `reg` with f(lane) in every lane.
  template <typename F>
  void fill(int reg, F f) {
    for (int l = 0; l < 64; ++l) v(reg, l) = static_cast<uint32_t>(f(l));
  }
  void fillf(int reg, float x) { fill(reg, [&](int) { return std::bit_cast<uint32_t>(x); }); }
  // Carry / compare masks: VCC (a pair in wave64, vcc_lo in wave32).
  uint64_t vcc() const { return w.vcc(); }
  uint64_t s64(int reg) const { return wave_size == 32 ? w.s[reg] : w.s64(reg); }
  // The register pair / single SGPR naming a lane mask in this wave size: "s[4:5]" or "s4".
  std::string mask(int reg) const {
    return wave_size == 32 ? "s" + std::to_string(reg) : "s[" + std::to_string(reg) + ":" + std::to_string(reg + 1) + "]";
  }
  std::string vcc_name() const { return wave_size == 32 ? "vcc_lo" : "vcc"; }
  std::string exec_name() const { return wave_size == 32 ? "exec_lo" : "exec"; }
  std::string b() const { return wave_size == 32 ? "b32" : "b64"; }  // lane-mask suffix for SALU ops
};

// Defines a test body `name(Sim&)` run on each processor (tagged [gfx942], [gfx90a], [gfx1100]).
#define SIM_TEST(name)                                                             \
  static void name(::amdsim_test::Sim& sim);                                       \
  TEST_CASE(#name " gfx942", "[gfx942]") { ::amdsim_test::Sim s("gfx942"); name(s); }  \
  TEST_CASE(#name " gfx90a", "[gfx90a]") { ::amdsim_test::Sim s("gfx90a"); name(s); }  \
  TEST_CASE(#name " gfx1100", "[gfx1100]") { ::amdsim_test::Sim s("gfx1100"); name(s); } \
  static void name(::amdsim_test::Sim& sim)

// Defines a test body run on gfx942 and gfx90a only (the CDNA processors: SDWA, packed f32, MFMA).
#define GFX9_TEST(name)                                                           \
  static void name(::amdsim_test::Sim& sim);                                      \
  TEST_CASE(#name " gfx942", "[gfx942]") { ::amdsim_test::Sim s("gfx942"); name(s); } \
  TEST_CASE(#name " gfx90a", "[gfx90a]") { ::amdsim_test::Sim s("gfx90a"); name(s); } \
  static void name(::amdsim_test::Sim& sim)


// The sequences llc-22 emits for `fdiv float` / `fdiv double` with IEEE denormals (dividend
// v0 / v[0:1], divisor v1 / v[2:3]; quotient in v0 / v[0:1]).
inline std::string div_f32(const Sim& sim) {
  std::string carry = sim.gfx11() ? "null" : "s[0:1]";
  return "v_div_scale_f32 v2, " + carry + ", v1, v1, v0\n" + R"(
    v_rcp_f32 v3, v2
    v_fma_f32 v4, -v2, v3, 1.0
    v_fmac_f32 v3, v4, v3
    v_div_scale_f32 v4, )" + sim.vcc_name() + R"(, v0, v1, v0
    v_mul_f32 v5, v4, v3
    v_fma_f32 v6, -v2, v5, v4
    v_fmac_f32 v5, v6, v3
    v_fma_f32 v2, -v2, v5, v4
    v_div_fmas_f32 v2, v2, v3, v5
    v_div_fixup_f32 v0, v2, v1, v0)";
}
inline std::string div_f64(const Sim& sim) {
  if (sim.gfx11())
    return R"(
    v_div_scale_f64 v[4:5], null, v[2:3], v[2:3], v[0:1]
    v_div_scale_f64 v[10:11], vcc_lo, v[0:1], v[2:3], v[0:1]
    v_rcp_f64 v[6:7], v[4:5]
    v_fma_f64 v[8:9], -v[4:5], v[6:7], 1.0
    v_fma_f64 v[6:7], v[6:7], v[8:9], v[6:7]
    v_fma_f64 v[8:9], -v[4:5], v[6:7], 1.0
    v_fma_f64 v[6:7], v[6:7], v[8:9], v[6:7]
    v_mul_f64 v[8:9], v[10:11], v[6:7]
    v_fma_f64 v[4:5], -v[4:5], v[8:9], v[10:11]
    v_div_fmas_f64 v[4:5], v[4:5], v[6:7], v[8:9]
    v_div_fixup_f64 v[0:1], v[4:5], v[2:3], v[0:1])";
  return R"(
    v_div_scale_f64 v[4:5], s[0:1], v[2:3], v[2:3], v[0:1]
    v_rcp_f64 v[6:7], v[4:5]
    v_fma_f64 v[8:9], -v[4:5], v[6:7], 1.0
    v_fmac_f64 v[6:7], v[6:7], v[8:9]
    v_fma_f64 v[8:9], -v[4:5], v[6:7], 1.0
    v_fmac_f64 v[6:7], v[6:7], v[8:9]
    v_div_scale_f64 v[8:9], vcc, v[0:1], v[2:3], v[0:1]
    v_mul_f64 v[10:11], v[8:9], v[6:7]
    v_fma_f64 v[4:5], -v[4:5], v[10:11], v[8:9]
    v_div_fmas_f64 v[4:5], v[4:5], v[6:7], v[10:11]
    v_div_fixup_f64 v[0:1], v[4:5], v[2:3], v[0:1])";
}

// Explicit arguments of 1-D arrays from a kernel's metadata: a global_buffer per array ("x"),
// then its shape ("x.shape0") and stride ("x.stride0") as by_value integers.
inline std::vector<uint8_t> array_arguments(const amdsim::KernelInfo& k,
                                            const std::map<std::string, std::pair<void*, int64_t>>& arrays,
                                            amdsim::Dim3 grid, amdsim::Dim3 block) {
  std::vector<uint64_t> storage;
  for (const auto& a : k.args) {
    if (a.value_kind.rfind("hidden_", 0) == 0) continue;
    INFO("argument " << a.name);
    auto it = arrays.find(a.name.substr(0, a.name.find('.')));
    REQUIRE(it != arrays.end());
    if (a.value_kind == "global_buffer") storage.push_back(reinterpret_cast<uint64_t>(it->second.first));
    else if (a.name.find(".shape") != std::string::npos) storage.push_back(uint64_t(it->second.second));
    else storage.push_back(1);
  }
  std::vector<void*> values;
  for (auto& s : storage) values.push_back(&s);
  return amdsim::layout_arguments(k, values.data(), grid, block, 0);
}

}  // namespace amdsim_test
