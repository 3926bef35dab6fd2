// Whole kernels compiled by rocjit and launched with amdsim::launch: bad input (unknown
// instruction, out-of-bounds global access, LDS overflow, a barrier not reached by every live
// wave in strict mode, s_trap) is a clear amdsim::Error and a later launch works; seeded
// interleaving gives the default mode's results.
#include <llvm/Object/ELFObjectFile.h>
#include <llvm/Object/ObjectFile.h>

#include <rocjit/rocjit.hpp>
#include <sample_kernels.hpp>

#include <fmt/format.h>

#include <cstring>
#include <functional>
#include <map>

#include "sim.hpp"

using namespace amdsim_test;
using namespace rocjit::dsl;
using rocjit::kernel;

namespace {

const char* const processors[] = {"gfx942", "gfx90a", "gfx1100"};

struct Buffer {
  std::string name;
  void* data;
  std::vector<int64_t> shape;
};

struct Loaded {
  std::vector<uint8_t> elf;
  std::shared_ptr<amdsim::Program> program;
  const amdsim::KernelInfo* kernel = nullptr;
};

Loaded load(std::vector<uint8_t> elf, const std::string& processor, const std::string& name) {
  Loaded l;
  l.elf = std::move(elf);
  l.program = amdsim::Program::load(l.elf, amdsim::Processor::get(processor));
  l.kernel = l.program->kernel(name);
  REQUIRE(l.kernel != nullptr);
  return l;
}

Loaded build(const rocjit::Kernel& k, const std::string& processor, const std::string& name) {
  rocjit::CodeObject co = rocjit::compile(k, rocjit::Target::amdgpu(processor));
  return load(co.elf, processor, name);
}

// The kernel's explicit arguments from its metadata: a global_buffer per array, then its
// shape ("x.shape0") and strides ("x.stride0") as by_value integers.
std::vector<uint8_t> arguments(const amdsim::KernelInfo& k, const std::vector<Buffer>& buffers, amdsim::Dim3 grid,
                               amdsim::Dim3 block, uint32_t dynamic_lds = 0) {
  std::vector<std::vector<uint8_t>> storage;
  std::vector<void*> values;
  for (const auto& a : k.args) {
    if (a.value_kind.rfind("hidden_", 0) == 0) continue;
    std::vector<uint8_t> bytes(std::max<uint32_t>(a.size, 8), 0);
    std::string array = a.name.substr(0, a.name.find('.'));
    const Buffer* b = nullptr;
    for (const auto& x : buffers)
      if (x.name == array) b = &x;
    INFO("argument " << a.name);
    REQUIRE(b != nullptr);
    uint64_t v = 0;
    if (a.value_kind == "global_buffer") {
      v = reinterpret_cast<uint64_t>(b->data);
    } else {
      std::string field = a.name.substr(a.name.find('.') + 1);
      size_t d = std::stoul(field.substr(field.find_first_of("0123456789")));
      REQUIRE(d < b->shape.size());
      if (field.rfind("shape", 0) == 0) {
        v = uint64_t(b->shape[d]);
      } else {
        int64_t stride = 1;
        for (size_t e = d + 1; e < b->shape.size(); ++e) stride *= b->shape[e];
        v = uint64_t(stride);
      }
    }
    std::memcpy(bytes.data(), &v, 8);
    storage.push_back(std::move(bytes));
  }
  for (auto& s : storage) values.push_back(s.data());
  return amdsim::layout_arguments(k, values.data(), grid, block, dynamic_lds);
}

// Overwrites the kernel's first instruction(s) with `code` (assembled for the processor).
void patch_entry(Loaded& l, const std::string& processor, const std::string& source) {
  auto code = assemble(processor, amdsim::Processor::get(processor).default_wave_size, source);
  auto file = llvm::object::ObjectFile::createObjectFile(
      llvm::MemoryBufferRef(llvm::StringRef(reinterpret_cast<const char*>(l.elf.data()), l.elf.size()), "co"));
  REQUIRE(bool(file));
  auto* elf = llvm::dyn_cast<llvm::object::ELFObjectFileBase>(file->get());
  REQUIRE(elf != nullptr);
  bool patched = false;
  for (const auto& s : elf->sections()) {
    uint64_t addr = s.getAddress(), size = s.getSize();
    if (!s.isText() || l.kernel->code_offset < addr || l.kernel->code_offset + code.size() > addr + size) continue;
    uint64_t at = llvm::object::ELFSectionRef(s).getOffset() + (l.kernel->code_offset - addr);
    std::memcpy(l.elf.data() + at, code.data(), code.size());
    patched = true;
  }
  REQUIRE(patched);
  std::string name = l.kernel->name;
  l = load(std::move(l.elf), processor, name);
}

rocjit::Kernel doubler() {
  return kernel("doubler", [](Array<float> x) {
    Int i = global_id(0);
    If(i < x.shape(0), [&] { x(i) = x(i) * 2.0f; });
  }, {.param_names = {"x"}});
}

// After a failed launch, the same process runs a correct kernel correctly.
void later_launch_works(const std::string& processor) {
  Loaded l = build(doubler(), processor, "doubler");
  amdsim::Memory memory;
  auto* x = static_cast<float*>(memory.allocate(100 * sizeof(float)));
  for (int i = 0; i < 100; ++i) x[i] = float(i);
  amdsim::Dim3 grid{2, 1, 1}, block{64, 1, 1};
  auto args = arguments(*l.kernel, {{"x", x, {100}}}, grid, block);
  amdsim::launch(*l.program, *l.kernel, grid, block, 0, args, memory);
  for (int i = 0; i < 100; ++i) CHECK(x[i] == 2.0f * float(i));
}

void check_error(const std::function<void()>& f, const std::vector<std::string>& needles) {
  bool thrown = false;
  try {
    f();
  } catch (const amdsim::Error& e) {
    thrown = true;
    std::string what = e.what();
    INFO(what);
    for (const auto& n : needles) CHECK(what.find(n) != std::string::npos);
  }
  CHECK(thrown);
}

}  // namespace

TEST_CASE("unknown instruction is a launch error naming it", "[launch]") {
  for (std::string p : processors) {
    INFO(p);
    Loaded l = build(doubler(), p, "doubler");
    std::string source = p == "gfx1100" ? "image_load v[0:3], v0, s[0:7] dmask:0xf dim:SQ_RSRC_IMG_1D"
                                        : "v_mfma_f32_4x4x1f32 a[0:3], v0, v0, a[0:3]";
    patch_entry(l, p, source);
    amdsim::Memory memory;
    auto* x = static_cast<float*>(memory.allocate(64 * sizeof(float)));
    auto args = arguments(*l.kernel, {{"x", x, {64}}}, {1, 1, 1}, {64, 1, 1});
    check_error([&] { amdsim::launch(*l.program, *l.kernel, {1, 1, 1}, {64, 1, 1}, 0, args, memory); },
                {"kernel 'doubler'", "not implemented", p == "gfx1100" ? "image_load" : "v_mfma_f32_4x4x1"});
    later_launch_works(p);
  }
}

TEST_CASE("s_trap is a launch error", "[launch]") {
  for (std::string p : processors) {
    INFO(p);
    Loaded l = build(doubler(), p, "doubler");
    patch_entry(l, p, "s_trap 2");
    amdsim::Memory memory;
    auto* x = static_cast<float*>(memory.allocate(64 * sizeof(float)));
    auto args = arguments(*l.kernel, {{"x", x, {64}}}, {1, 1, 1}, {64, 1, 1});
    check_error([&] { amdsim::launch(*l.program, *l.kernel, {1, 1, 1}, {64, 1, 1}, 0, args, memory); },
                {"kernel 'doubler'", "s_trap", fmt::format("PC offset 0x{:x}", l.kernel->code_offset)});
    later_launch_works(p);
  }
}

TEST_CASE("out-of-bounds global store is a memory fault", "[launch]") {
  auto k = kernel("oob", [](Array<float> x) {
    Int i = global_id(0);
    // No bounds check: 1 GiB past the 64-element allocation, where nothing the simulator knows
    // lies (a few KiB past it may be another host allocation, such as the loaded code object).
    x(i + (1 << 28)) = 1.0f;
  }, {.param_names = {"x"}});
  for (std::string p : processors) {
    INFO(p);
    Loaded l = build(k, p, "oob");
    amdsim::Memory memory;
    auto* x = static_cast<float*>(memory.allocate(64 * sizeof(float)));
    auto args = arguments(*l.kernel, {{"x", x, {64}}}, {1, 1, 1}, {64, 1, 1});
    uint64_t lane0 = reinterpret_cast<uint64_t>(x) + (uint64_t(1) << 30);
    check_error([&] { amdsim::launch(*l.program, *l.kernel, {1, 1, 1}, {64, 1, 1}, 0, args, memory); },
                {"kernel 'oob'", "memory fault", "global_store", "lane 0", fmt::format("0x{:x}", lane0),
                 "not inside any live device allocation"});
    later_launch_works(p);
  }
}

TEST_CASE("LDS overflow: too much dynamic LDS, and a DS access past the LDS", "[launch]") {
  auto k = kernel("lds_oob", [](Array<float> x) {
    auto tile = shared::array<float>({64}, "tile");
    Int t = local_id(0);
    tile(t * 1024) = x(t);  // t * 4096 bytes: lane 16 and up are past 64 KiB
    barrier(CLK_LOCAL_MEM_FENCE);
    x(t) = tile(63 - t);
  }, {.param_names = {"x"}});
  for (std::string p : processors) {
    INFO(p);
    Loaded l = build(k, p, "lds_oob");
    amdsim::Memory memory;
    auto* x = static_cast<float*>(memory.allocate(64 * sizeof(float)));
    auto args = arguments(*l.kernel, {{"x", x, {64}}}, {1, 1, 1}, {64, 1, 1}, 70000);
    check_error([&] { amdsim::launch(*l.program, *l.kernel, {1, 1, 1}, {64, 1, 1}, 70000, args, memory); },
                {"kernel 'lds_oob'", "bytes of LDS", "70000 dynamic", "65536"});
    args = arguments(*l.kernel, {{"x", x, {64}}}, {1, 1, 1}, {64, 1, 1});
    check_error([&] { amdsim::launch(*l.program, *l.kernel, {1, 1, 1}, {64, 1, 1}, 0, args, memory); },
                {"kernel 'lds_oob'", "memory fault", "LDS memory", "ds_", "outside the work-group's"});
    later_launch_works(p);
  }
}

TEST_CASE("a barrier not reached by every live wave fails in strict mode", "[launch]") {
  // rocjit rejects barriers under divergent control, so the kernel's code is replaced: work-items
  // 64 and up (wave 1 in wave64, waves 2 and 3 in wave32) end, the others wait at the barrier,
  // then store 7 to x(work-item id).
  for (std::string p : processors) {
    INFO(p);
    bool w32 = p == "gfx1100";
    Loaded l = build(doubler(), p, "doubler");
    std::string vcc = w32 ? "vcc_lo" : "vcc";
    // The kernarg pointer's user SGPRs: after the private segment buffer, dispatch and queue
    // pointers the descriptor enables (kernel_code_properties at byte 56).
    uint16_t props = uint16_t(l.kernel->descriptor[56] | l.kernel->descriptor[57] << 8);
    int k = (props & 1 ? 4 : 0) + (props & 2 ? 2 : 0) + (props & 4 ? 2 : 0);
    REQUIRE((props & 8) != 0);
    std::string kernarg = fmt::format("s[{}:{}]", k, k + 1);
    patch_entry(l, p, "v_cmp_gt_u32 " + vcc + R"(, 64, v0
      s_cbranch_vccz done
      s_barrier
      s_load_dwordx2 s[20:21], )" + kernarg + R"(, 0x0
      s_waitcnt lgkmcnt(0)
      v_lshlrev_b32 v1, 2, v0
      v_mov_b32 v2, 7
      global_store_dword v1, v2, s[20:21]
    done:
      s_endpgm)");
    amdsim::Memory memory;
    auto* x = static_cast<uint32_t*>(memory.allocate(128 * sizeof(float)));
    amdsim::Dim3 grid{1, 1, 1}, block{128, 1, 1};
    auto args = arguments(*l.kernel, {{"x", x, {128}}}, grid, block);
    // Hardware semantics (ended waves leave the barrier count): it completes.
    amdsim::launch(*l.program, *l.kernel, grid, block, 0, args, memory);
    for (int i = 0; i < 128; ++i) CHECK(x[i] == (i < 64 ? 7u : 0u));
    amdsim::LaunchOptions strict;
    strict.strict_barriers = true;
    check_error([&] { amdsim::launch(*l.program, *l.kernel, grid, block, 0, args, memory, strict); },
                {"kernel 'doubler'", "ended without reaching the barrier", "strict"});
    later_launch_works(p);
  }
}

TEST_CASE("seeded interleaving gives the default mode's results", "[launch]") {
  for (std::string p : processors) {
    INFO(p);
    Loaded rev = build(rocjit::samples::reverse(), p, "reverse");
    Loaded hist = build(rocjit::samples::histogram(), p, "histogram");
    Loaded mm = build(rocjit::samples::matmul(), p, "matmul");
    const int n = 1000, bins = rocjit::samples::HISTOGRAM_BINS, m = 40;
    auto run = [&](const amdsim::LaunchOptions& options) {
      amdsim::Memory memory;
      auto* in = static_cast<float*>(memory.allocate(n * 4));
      auto* out = static_cast<float*>(memory.allocate(n * 4));
      auto* data = static_cast<uint32_t*>(memory.allocate(n * 4));
      auto* h = static_cast<uint32_t*>(memory.allocate(bins * 4));
      auto* a = static_cast<float*>(memory.allocate(m * m * 4));
      auto* b = static_cast<float*>(memory.allocate(m * m * 4));
      auto* c = static_cast<float*>(memory.allocate(m * m * 4));
      for (int i = 0; i < n; ++i) in[i] = float(i) * 0.5f, data[i] = uint32_t(i * 7919) % 1000;
      for (int i = 0; i < m * m; ++i) a[i] = float(i % 13) - 6.0f, b[i] = float(i % 7) * 0.25f;
      amdsim::Dim3 block{256, 1, 1}, grid{(n + 255) / 256, 1, 1};
      auto args = arguments(*rev.kernel, {{"in", in, {n}}, {"out", out, {n}}}, grid, block);
      amdsim::launch(*rev.program, *rev.kernel, grid, block, 0, args, memory, options);
      args = arguments(*hist.kernel, {{"data", data, {n}}, {"hist", h, {bins}}}, {2, 1, 1}, block);
      amdsim::launch(*hist.program, *hist.kernel, {2, 1, 1}, block, 0, args, memory, options);
      amdsim::Dim3 tile{16, 16, 1}, tiles{3, 3, 1};
      args = arguments(*mm.kernel, {{"A", a, {m, m}}, {"B", b, {m, m}}, {"C", c, {m, m}}}, tiles, tile);
      amdsim::launch(*mm.program, *mm.kernel, tiles, tile, 0, args, memory, options);
      std::vector<uint32_t> result;
      for (int i = 0; i < n; ++i) result.push_back(std::bit_cast<uint32_t>(out[i]));
      for (int i = 0; i < bins; ++i) result.push_back(h[i]);
      for (int i = 0; i < m * m; ++i) result.push_back(std::bit_cast<uint32_t>(c[i]));
      return result;
    };
    auto reference = run({});
    // The default mode is right: reverse within 256-blocks, a histogram of n values, a product.
    CHECK(std::bit_cast<float>(reference[0]) == 255 * 0.5f);
    CHECK(std::bit_cast<float>(reference[999]) == 768 * 0.5f);  // the last, partial block of 232
    uint64_t total = 0;
    for (int i = 0; i < bins; ++i) total += reference[n + i];
    CHECK(total == uint64_t(n));
    float c01 = 0;
    for (int k = 0; k < m; ++k) c01 += (float((0 * m + k) % 13) - 6.0f) * (float((k * m + 1) % 7) * 0.25f);
    CHECK(std::bit_cast<float>(reference[n + bins + 1]) == Approx(c01));
    for (uint64_t seed : {1, 2, 3, 17}) {
      amdsim::LaunchOptions o;
      o.interleave = 3;
      o.seed = seed;
      INFO("seed " << seed);
      CHECK(run(o) == reference);
    }
  }
}

TEST_CASE("seeded interleaving runs waves of several work-groups at once, the same way for a seed") {
  // Each group takes a ticket when it starts and one when it ends, after waiting for the previous
  // group's flag (as a look-back scan does). With one group at a time the tickets of a group are
  // consecutive; interleaved groups overlap. Groups are admitted in order, so the wait for an
  // earlier group always ends.
  rocjit::Kernel k = kernel("group_overlap", [](Array<uint32_t> ticket, Array<uint32_t> flags, Array<uint32_t> out) {
    Int g = group_id(0);
    If(local_id(0) == 0, [&] {
      UInt start = atomic::add(ticket, 0, 1u);
      If(g > 0, [&] {
        While([&] { return atomic::load(flags, g - 1, memory_order::acquire) == 0u; }, [&] {});
      });
      atomic::store(flags, g, 1u, memory_order::release);
      UInt end = atomic::add(ticket, 0, 1u);
      out(2 * g) = start;
      out(2 * g + 1) = end;
    });
  }, {.param_names = {"ticket", "flags", "out"}});
  const uint32_t groups = 8;
  for (const char* processor : processors) {
    INFO(processor);
    Loaded l = build(k, processor, "group_overlap");
    auto run = [&](uint64_t seed, uint32_t resident) {
      amdsim::Memory memory;
      auto* ticket = static_cast<uint32_t*>(memory.allocate(4));
      auto* flags = static_cast<uint32_t*>(memory.allocate(groups * 4));
      auto* result = static_cast<uint32_t*>(memory.allocate(2 * groups * 4));
      ticket[0] = 0;
      std::fill(flags, flags + groups, 0u);
      amdsim::Dim3 grid{groups, 1, 1}, block{64, 1, 1};
      auto args = arguments(*l.kernel, {{"ticket", ticket, {1}}, {"flags", flags, {groups}},
                                        {"out", result, {2 * groups}}},
                            grid, block);
      amdsim::LaunchOptions o;
      o.interleave = 2;
      o.seed = seed;
      o.resident_groups = resident;
      amdsim::launch(*l.program, *l.kernel, grid, block, 0, args, memory, o);
      return std::vector<uint32_t>(result, result + 2 * groups);
    };
    bool overlapped = false, seeds_differ = false;
    std::vector<uint32_t> first = run(1, 4);
    for (uint64_t seed : {1, 2, 3, 4}) {
      std::vector<uint32_t> out = run(seed, 4);
      CHECK(out == run(seed, 4));  // deterministic for a seed
      seeds_differ |= out != first;
      for (uint32_t g = 1; g < groups; ++g) overlapped |= out[2 * g] < out[2 * (g - 1) + 1];
      for (uint32_t g = 0; g < groups; ++g) CHECK(out[2 * g] < out[2 * g + 1]);
    }
    CHECK(overlapped);
    CHECK(seeds_differ);
    // One resident group: the groups run one after another, each ticket pair consecutive.
    std::vector<uint32_t> serial = run(5, 1);
    for (uint32_t g = 0; g < groups; ++g) CHECK(serial[2 * g + 1] == serial[2 * g] + 1);
  }
}

namespace {

rocjit::Kernel lds_user() {
  return kernel("lds_user", [](Array<float> x) {
    auto s = shared::array<float>({256}, "s");
    Int t = local_id(0);
    s(t) = x(t);
    barrier();
    x(t) = s(255 - t);
  }, {.param_names = {"x"}});
}

std::string race_report(const Loaded& l, amdsim::Dim3 block, amdsim::Memory& memory, const std::vector<uint8_t>& args) {
  amdsim::LaunchOptions o;
  o.check_races = true;
  return amdsim::launch(*l.program, *l.kernel, {1, 1, 1}, block, 0, args, memory, o).race_report;
}

}  // namespace

TEST_CASE("race checker: lanes of one instruction, and rocjit's wavebarrier marker", "[launch]") {
  // The kernel's code is replaced (it keeps its 1 KiB of LDS); one wave of the processor's size.
  for (std::string p : processors) {
    INFO(p);
    const uint32_t wave = uint32_t(amdsim::Processor::get(p).default_wave_size);
    amdsim::Memory memory;
    auto* x = static_cast<float*>(memory.allocate(256 * sizeof(float)));
    amdsim::Dim3 block{wave, 1, 1};
    {
      // Every lane writes its id to LDS byte 0 in one instruction: a race (the values differ).
      // The code object is a plain compile's, without rocjit's LDS layout: bytes are named by
      // their offset.
      Loaded l = build(lds_user(), p, "lds_user");
      patch_entry(l, p, R"(v_mov_b32 v1, 0
        ds_write_b32 v1, v0
        s_waitcnt lgkmcnt(0)
        s_endpgm)");
      auto args = arguments(*l.kernel, {{"x", x, {256}}}, {1, 1, 1}, block);
      const std::string report = race_report(l, block, memory, args);
      INFO(report);
      CHECK(report.find("shared memory at byte 0 of the group's LDS") != std::string::npos);
      CHECK(report.find("lanes of one wavefront in one instruction") != std::string::npos);
      CHECK(report.find("1 race and 0 uninitialised shared reads") != std::string::npos);
      // Without the checker nothing is reported.
      CHECK(amdsim::launch(*l.program, *l.kernel, {1, 1, 1}, block, 0, args, memory).race_report.empty());
    }
    for (bool marker : {false, true}) {
      // Lane i writes element i, then reads element i + 1 (the last lane's is never written).
      // rocjit's wavebarrier marker between them (s_ttracedata, M0 = 0x524a5701) orders the lanes.
      Loaded l = build(lds_user(), p, "lds_user");
      std::string sync = marker ? "s_mov_b32 m0, 0x524a5701\n s_ttracedata\n" : "";
      patch_entry(l, p, "v_lshlrev_b32 v1, 2, v0\n ds_write_b32 v1, v0\n s_waitcnt lgkmcnt(0)\n" + sync +
                            "ds_read_b32 v2, v1 offset:4\n s_waitcnt lgkmcnt(0)\n s_endpgm");
      auto args = arguments(*l.kernel, {{"x", x, {256}}}, {1, 1, 1}, block);
      const std::string report = race_report(l, block, memory, args);
      INFO(marker << "\n" << report);
      CHECK(report.find(marker ? "0 races and 1 uninitialised shared read" : "1 race and 1 uninitialised shared read") !=
            std::string::npos);
      CHECK(report.find(fmt::format("byte {} of the group's LDS", 4 * wave)) != std::string::npos);
      if (!marker) CHECK(report.find("lanes of one wavefront with no barrier or wavebarrier()") != std::string::npos);
    }
  }
}

TEST_CASE("race checker: rocjit's acquire and release markers order lanes that hand data over", "[launch]") {
  // Lane i writes data[i], then sets flag[i] (an atomic, released with the marker); then reads
  // flag[i ^ 1] (an atomic, acquired with the marker) and data[i ^ 1]. The neighbour's data is
  // ordered before the read only when both the release and the acquire are marked.
  for (std::string p : processors) {
    const uint32_t wave = uint32_t(amdsim::Processor::get(p).default_wave_size);
    amdsim::Memory memory;
    auto* x = static_cast<float*>(memory.allocate(256 * sizeof(float)));
    amdsim::Dim3 block{wave, 1, 1};
    for (int marks = 0; marks < 4; ++marks) {
      const bool release = marks & 1, acquire = marks & 2;
      INFO(p << " release " << release << " acquire " << acquire);
      Loaded l = build(lds_user(), p, "lds_user");
      const std::string atomic = "s_mov_b32 m0, 0x524a5704\n s_ttracedata\n";
      patch_entry(l, p,
                  "v_lshlrev_b32 v1, 2, v0\n ds_write_b32 v1, v0\n v_mov_b32 v3, 1\n s_waitcnt lgkmcnt(0)\n" +
                      std::string(release ? "s_mov_b32 m0, 0x524a5707\n s_ttracedata\n" : "") + atomic +
                      "ds_write_b32 v1, v3 offset:512\n s_waitcnt lgkmcnt(0)\n"
                      "v_xor_b32 v2, 1, v0\n v_lshlrev_b32 v2, 2, v2\n" +
                      std::string(acquire ? "s_mov_b32 m0, 0x524a5706\n s_ttracedata\n" : "") + atomic +
                      "ds_read_b32 v4, v2 offset:512\n s_waitcnt lgkmcnt(0)\n"
                      "ds_read_b32 v5, v2\n s_waitcnt lgkmcnt(0)\n s_endpgm");
      auto args = arguments(*l.kernel, {{"x", x, {256}}}, {1, 1, 1}, block);
      const std::string report = race_report(l, block, memory, args);
      INFO(report);
      if (release && acquire) {
        CHECK(report.empty());
      } else {
        CHECK(report.find("1 race and 0 uninitialised shared reads") != std::string::npos);
        CHECK(report.find("shared memory at byte 4 of the group's LDS") != std::string::npos);
      }
    }
  }
}

TEST_CASE("check_races compiles carry the shared arrays' LDS layout; reports name the array", "[launch]") {
  // Two shared arrays of different element sizes; work-item t writes b(t), then reads b(t + 1)
  // with no barrier between: a race on 'b', named with its element ('a' is read after a barrier;
  // an array nothing reads would be removed by LLVM).
  rocjit::Kernel k = kernel("two_arrays", [](Array<float> x) {
    auto a = shared::array<double>({64}, "a");
    auto b = shared::array<float>({65}, "b");
    Int t = local_id(0);
    a(t) = 2.0;
    b(t) = x(t);
    If(t == 0, [&] { b(64) = 0.0f; });
    Float v = b(t + 1);
    barrier(CLK_LOCAL_MEM_FENCE);
    x(t) = v + cast<float>(a(63 - t));
  }, {.param_names = {"x"}});
  for (std::string p : processors) {
    INFO(p);
    const Loaded plain = build(k, p, "two_arrays");
    CHECK(plain.kernel->shared_arrays.empty());
    rocjit::CompileOptions checked;
    checked.cache = false;
    checked.check_races = true;
    Loaded l = load(rocjit::compile(k, rocjit::Target::amdgpu(p), checked).elf, p, "two_arrays");
    REQUIRE(l.kernel->shared_arrays.size() == 2);
    const amdsim::SharedArray* a = nullptr;
    const amdsim::SharedArray* b = nullptr;
    for (const auto& s : l.kernel->shared_arrays) (s.name == "a" ? a : b) = &s;
    REQUIRE((a && b && b->name == "b"));
    CHECK(a->size == 64 * 8);
    CHECK(a->element_size == 8);
    CHECK(b->size == 65 * 4);
    CHECK(b->element_size == 4);
    CHECK((a->offset + a->size <= b->offset || b->offset + b->size <= a->offset));
    CHECK(std::max(a->offset + a->size, b->offset + b->size) <= l.kernel->group_segment_size);
    amdsim::Memory memory;
    auto* x = static_cast<float*>(memory.allocate(64 * sizeof(float)));
    amdsim::Dim3 block{64, 1, 1};
    auto args = arguments(*l.kernel, {{"x", x, {64}}}, {1, 1, 1}, block);
    const std::string report = race_report(l, block, memory, args);
    INFO(report);
    CHECK(report.find("shared array 'b' [") != std::string::npos);
    CHECK(report.find(fmt::format("(byte {} of the group's LDS)", b->offset + 4)) != std::string::npos);
    CHECK(report.find("shared array 'a'") == std::string::npos);
  }
}

TEST_CASE("rocjit's race-checking markers are in check_races compiles only", "[launch]") {
  rocjit::Kernel k = kernel("marked", [](Array<int32_t> x) {
    auto s = shared::array<int32_t>({256}, "s");
    Int t = local_id(0);
    s(t) = x(t);
    wavebarrier();
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    atomic::add(x, 0, s(255 - t));
  }, {.param_names = {"x"}});
  auto count = [](const std::string& text, const std::string& needle) {
    size_t n = 0;
    for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
    return n;
  };
  // The kernel's assembly for processor `p`, compiled afresh, with or without check_races.
  auto assembly = [](const rocjit::Kernel& kernel, const std::string& p, bool check_races) {
    rocjit::CompileOptions options;
    options.emit_assembly = true;
    options.cache = false;
    options.check_races = check_races;
    return rocjit::compile(kernel, rocjit::Target::amdgpu(p), options).assembly;
  };
  for (std::string p : processors) {
    INFO(p);
    const std::string normal = assembly(k, p, false);
    const std::string marked = assembly(k, p, true);
    INFO(marked);
    CHECK(count(normal, "s_ttracedata") == 0);
    // The wavebarrier, the global fence before the barrier and the barrier after it, the atomic.
    CHECK(count(marked, "s_ttracedata") == 4);
    for (const char* m : {"0x524a5701", "0x524a5702", "0x524a5704", "0x524a5705"}) CHECK(count(marked, m) == 1);
  }
  // Acquire and release: a release store, an acquire load, an acq_rel exchange (both) and a
  // seq_cst fence (both fence markers); relaxed atomics get the atomic marker only.
  rocjit::Kernel ordered = kernel("ordered", [](Array<int32_t> x) {
    atomic::store(x, 0, 1, memory_order::release);
    Int a = atomic::load(x, 1, memory_order::acquire);
    fence(memory_scope::device, memory_order::seq_cst);
    Int b = atomic::exchange(x, 2, a, memory_order::acq_rel);
    atomic::store(x, 3, b + atomic::load(x, 4, memory_order::relaxed), memory_order::relaxed);
  }, {.param_names = {"x"}});
  for (std::string p : processors) {
    INFO(p);
    const std::string marked = assembly(ordered, p, true);
    INFO(marked);
    CHECK(count(assembly(ordered, p, false), "s_ttracedata") == 0);
    // Five atomic markers, acquire for the load and the exchange, release for the store and the
    // exchange, two fence markers (LLVM reuses M0 when it holds the value already, so the values
    // are counted as present, the markers by their instructions).
    CHECK(count(marked, "s_ttracedata") == 5 + 2 + 2 + 2);
    for (const char* m : {"0x524a5704", "0x524a5706", "0x524a5707", "0x524a5708", "0x524a5709"})
      CHECK(count(marked, m) >= 1);
    CHECK(count(marked, "0x524a5703") == 0);  // the old "ordered" marker is gone
  }
}
