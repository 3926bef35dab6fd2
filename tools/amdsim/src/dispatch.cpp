// Launching a kernel: argument layout, the dispatch packet, each wave's initial state from the
// kernel descriptor, and the scheduling of waves within work-groups (barriers) and of
// work-groups across worker threads.
#include <hsa/hsa.h>
#include <llvm/Support/AMDHSAKernelDescriptor.h>

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cfenv>
#include <cstdlib>
#include <exception>
#include <random>
#include <thread>

#include "decoder.h"
#include "inst.h"
#include "race.h"

namespace amdsim {

namespace {

uint64_t env_number(const char* name, uint64_t fallback) {
  const char* v = std::getenv(name);
  if (!v || !*v) return fallback;
  return std::strtoull(v, nullptr, 0);
}

struct LaunchContext {
  const Program* program;
  const KernelInfo* kernel;
  const DecodeTable* code;
  Memory* memory;
  llvm::amdhsa::kernel_descriptor_t kd;
  Dim3 grid, block;
  uint32_t lds_bytes;
  uint32_t private_size;
  int wave_size;
  std::vector<uint8_t> kernargs;  // aligned copy
  hsa_kernel_dispatch_packet_t packet;
  LaunchOptions options;
  bool strict = false;
  RaceChecker* race = nullptr;  // LaunchOptions::check_races
};

void execute(Wave& w, const DecodeTable& code) {
  const Inst* inst = code.find(w.pc);
  if (!inst) {
    Inst none;
    none.text = "<no instruction>";
    w.pc += 4;
    w.fail(none, fmt::format("the program counter left the code (PC offset 0x{:x})", w.pc - 4));
  }
  w.pc += inst->size;
  if (!inst->valid) w.fail(*inst, "LLVM cannot decode this instruction word");
  if (!inst->handler) w.fail(*inst, fmt::format("instruction '{}' is not implemented by amdsim", inst->name));
  if (inst->second && !inst->second->handler)
    w.fail(*inst, fmt::format("instruction '{}' is not implemented by amdsim", inst->second->name));
  execute_inst(w, *inst);
  ++w.instructions;
}

// The host rounding direction for an AMDGPU FP_ROUND field value (0 nearest even, 1 toward +inf,
// 2 toward -inf, 3 toward zero).
int host_rounding(uint32_t field) {
  static const int modes[4] = {FE_TONEAREST, FE_UPWARD, FE_DOWNWARD, FE_TOWARDZERO};
  return modes[field & 3];
}

}  // namespace

void execute_rounded(Wave& w, const Inst& inst) {
  uint32_t field = (w.round_mode >> inst.round_shift) & 3;
  auto run = [&] {
    if (inst.second) execute_dual(w, inst);
    else inst.handler(w, inst);
  };
  if (field == 0) return run();
  // Restores the host's default rounding however the handler leaves (a fault throws).
  struct Restore {
    ~Restore() { std::fesetround(FE_TONEAREST); }
  } restore;
  std::fesetround(host_rounding(field));
  run();
}

// gfx9 VGPR index mode: a vector instruction runs with M0[7:0] added to the VGPR operands that
// M0[15:12] selects (SRC0, SRC1, SRC2, DST). Operands are printed destination first.
void execute_indexed(Wave& w, const Inst& inst) {
  if (inst.name.rfind("v_", 0) != 0) {  // scalar instructions are not indexed (and may end the mode)
    if (w.round_mode != 0) return execute_rounded(w, inst);
    return inst.handler(w, inst);
  }
  Inst indexed = inst;
  uint32_t index = w.s[m0] & 0xff, mode = (w.s[m0] >> 12) & 0xf;
  auto shift = [&](size_t op) {
    if (op < indexed.ops.size() && indexed.ops[op].kind == Operand::vgpr) {
      indexed.ops[op].index = static_cast<uint16_t>(indexed.ops[op].index + index);
      if (indexed.ops[op].index + indexed.ops[op].dwords > w.v.size() / 64)
        w.fail(inst, fmt::format("VGPR index {} puts an operand past the register file", index));
    }
  };
  if (mode & 8) shift(0);
  for (int k = 0; k < 3; ++k)
    if (mode & (1u << k)) shift(size_t(k) + 1);
  w.gpr_idx_on = false;
  execute_inst(w, indexed);
  w.gpr_idx_on = true;
}

// VOPD: both halves read their sources before either writes (the Y half may read the X half's
// destination, e.g. a swap). The halves write different VGPRs (one even, one odd).
void execute_dual(Wave& w, const Inst& x) {
  const Inst& y = *x.second;
  const Operand& d = x.ops.empty() ? Operand{} : x.ops[0];
  if (d.kind != Operand::vgpr) {
    x.handler(w, x);
    y.handler(w, y);
    return;
  }
  uint32_t* column = &w.v[size_t(d.index) * 64];
  std::array<uint32_t, 64> before, after;
  std::copy(column, column + 64, before.begin());
  x.handler(w, x);
  std::copy(column, column + 64, after.begin());
  std::copy(before.begin(), before.end(), column);
  y.handler(w, y);
  std::copy(after.begin(), after.end(), column);
}

namespace {

void init_wave(Wave& w, const LaunchContext& c, Group& g, uint32_t wave_index, uint32_t items) {
  using namespace llvm::amdhsa;
  w.program = c.program;
  w.kernel = c.kernel;
  w.memory = c.memory;
  w.group = &g;
  w.wave_size = c.wave_size;
  w.lane_mask = c.wave_size == 64 ? ~0ull : 0xffffffffull;
  w.wave_in_group = wave_index;
  w.race = c.race;
  w.pc = c.kernel->code_offset;
  uint32_t vgprs = std::max<uint32_t>(c.kernel->vgpr_count, 256);
  w.v.assign(size_t(vgprs) * 64, 0);
  w.a.assign(size_t(256) * 64, 0);
  w.private_size = c.private_size;
  w.scratch.assign(size_t(c.private_size) * c.wave_size, 0);
  // The wave's slice of the scratch backing memory: never at offset 0, so a kernel that forgets
  // to add the scratch wave offset (to the V# base or to flat_scratch_init) faults.
  bool architected = c.program->processor().architected_flat_scratch;
  uint32_t wave_offset = (wave_index + 1) * std::max<uint32_t>(c.private_size * c.wave_size, 1024);
  w.private_base = private_backing + wave_offset;
  w.flat_scratch_sgprs = !architected;
  const std::string& numerics = c.program->processor().matrix_numerics;
  w.matrix_group = numerics == "cdna2" ? 2 : numerics == "cdna3" ? 4 : 0;
  w.launch_ranges = {{reinterpret_cast<uint64_t>(c.kernargs.data()), c.kernargs.size()},
                     {reinterpret_cast<uint64_t>(&c.packet), sizeof(c.packet)}};
  uint32_t rsrc1 = c.kd.compute_pgm_rsrc1, rsrc2 = c.kd.compute_pgm_rsrc2;
  uint16_t props = c.kd.kernel_code_properties;
  w.denorm_mode = (rsrc1 >> 16) & 0xf;
  w.round_mode = (rsrc1 >> 12) & 0xf;
  w.ieee = (rsrc1 >> 23) & 1;

  // User SGPRs, densely in AMDGPUUsage's order.
  uint32_t s = 0;
  if (props & KERNEL_CODE_PROPERTY_ENABLE_SGPR_PRIVATE_SEGMENT_BUFFER) {
    // A V# whose base is the scratch backing memory (AMDGPUUsage: the kernel adds the scratch wave
    // offset to it); MUBUF accesses through it are the lane's private memory (the hardware's
    // swizzle makes the same offset a different dword per lane). Word 3: DST_SEL_XYZW, 32-bit
    // data format, ADD_TID_ENABLE.
    w.s[s++] = uint32_t(private_backing);
    w.s[s++] = uint32_t(private_backing >> 32);
    w.s[s++] = 0xffffffffu;
    w.s[s++] = 0x00e00000u | 0x00027000u;
  }
  if (props & KERNEL_CODE_PROPERTY_ENABLE_SGPR_DISPATCH_PTR) w.set_s64(s, reinterpret_cast<uint64_t>(&c.packet)), s += 2;
  if (props & KERNEL_CODE_PROPERTY_ENABLE_SGPR_QUEUE_PTR) w.set_s64(s, 0), s += 2;
  if (props & KERNEL_CODE_PROPERTY_ENABLE_SGPR_KERNARG_SEGMENT_PTR)
    w.set_s64(s, reinterpret_cast<uint64_t>(c.kernargs.data())), s += 2;
  if (props & KERNEL_CODE_PROPERTY_ENABLE_SGPR_DISPATCH_ID) w.set_s64(s, 0), s += 2;
  // GFX9: the 64-bit base of the queue's scratch backing memory; the kernel adds its wave offset
  // and moves the sum to FLAT_SCRATCH.
  if (props & KERNEL_CODE_PROPERTY_ENABLE_SGPR_FLAT_SCRATCH_INIT) w.set_s64(s, private_backing), s += 2;
  uint32_t preload = c.kd.kernarg_preload & 0x7f, preload_offset = (c.kd.kernarg_preload >> 7) & 0x1ff;
  for (uint32_t i = 0; i < preload; ++i) {
    uint32_t word = 0;
    size_t at = size_t(preload_offset + i) * 4;
    if (at + 4 <= c.kernargs.size()) std::memcpy(&word, c.kernargs.data() + at, 4);
    w.s[s++] = word;
  }
  if (props & KERNEL_CODE_PROPERTY_ENABLE_SGPR_PRIVATE_SEGMENT_SIZE) w.s[s++] = c.private_size;
  // System SGPRs start after USER_SGPR_COUNT (which includes gfx11's padding to 16).
  s = (rsrc2 >> 1) & 0x1f;
  if (rsrc2 & COMPUTE_PGM_RSRC2_ENABLE_SGPR_WORKGROUP_ID_X) w.s[s++] = g.id[0];
  if (rsrc2 & COMPUTE_PGM_RSRC2_ENABLE_SGPR_WORKGROUP_ID_Y) w.s[s++] = g.id[1];
  if (rsrc2 & COMPUTE_PGM_RSRC2_ENABLE_SGPR_WORKGROUP_ID_Z) w.s[s++] = g.id[2];
  if (rsrc2 & COMPUTE_PGM_RSRC2_ENABLE_SGPR_WORKGROUP_INFO) w.s[s++] = 0;
  if ((rsrc2 & COMPUTE_PGM_RSRC2_ENABLE_PRIVATE_SEGMENT) && !architected)
    w.s[s++] = wave_offset;  // the scratch wave offset (architected flat scratch: none, FLAT_SCRATCH is set)

  // Work-item ids: packed x | y << 10 | z << 20 in v0 on these processors.
  uint32_t dims = (rsrc2 & COMPUTE_PGM_RSRC2_ENABLE_VGPR_WORKITEM_ID) >> COMPUTE_PGM_RSRC2_ENABLE_VGPR_WORKITEM_ID_SHIFT;
  uint64_t exec = 0;
  for (int lane = 0; lane < c.wave_size; ++lane) {
    uint32_t item = wave_index * c.wave_size + lane;
    if (item >= items) break;
    exec |= 1ull << lane;
    uint32_t x = item % c.block.x, y = (item / c.block.x) % c.block.y, z = item / (c.block.x * c.block.y);
    uint32_t packed = x;
    if (dims >= 1) packed |= y << 10;
    if (dims >= 2) packed |= z << 20;
    w.v[lane] = packed;
  }
  w.set_exec(exec);
}

// A work-group in flight: its LDS and its waves (which point at `g`, so it never moves).
struct GroupRun {
  Group g;
  std::vector<Wave> waves;
  std::unique_ptr<RaceGroupShadow> race_shadow;
};

// A group that ended: its LDS shadow goes back to the checker for a later group.
void end_group(const LaunchContext& c, GroupRun& r) {
  if (c.race) c.race->release_shadow(std::move(r.race_shadow));
}

std::unique_ptr<GroupRun> start_group(const LaunchContext& c, uint64_t index) {
  auto r = std::make_unique<GroupRun>();
  r->g.id[0] = uint32_t(index % c.grid.x);
  r->g.id[1] = uint32_t((index / c.grid.x) % c.grid.y);
  r->g.id[2] = uint32_t(index / (uint64_t(c.grid.x) * c.grid.y));
  r->g.linear = static_cast<uint32_t>(index);
  r->g.waves = (c.block.x * c.block.y * c.block.z + c.wave_size - 1) / c.wave_size;
  r->g.lds.assign(c.lds_bytes, 0);
  if (c.race) {
    r->race_shadow = c.race->group_shadow();
    r->g.race_shadow = r->race_shadow.get();
  }
  uint32_t items = c.block.x * c.block.y * c.block.z;
  uint32_t nwaves = (items + c.wave_size - 1) / c.wave_size;
  r->waves.resize(nwaves);
  for (uint32_t i = 0; i < nwaves; ++i) init_wave(r->waves[i], c, r->g, i, items);
  return r;
}

// Called when no wave of the group is running: releases the barrier every live wave waits at
// (ended waves leave the count) and returns true, or returns false when every wave has ended.
bool release_barrier(const LaunchContext& c, GroupRun& r) {
  uint32_t ended = 0, waiting = 0;
  for (auto& w : r.waves) {
    if (w.status == Wave::Status::ended) ++ended;
    if (w.status == Wave::Status::at_barrier) ++waiting;
  }
  if (waiting == 0) return false;
  if (c.race) c.race->barrier(r.waves);
  if (c.strict && ended > 0) {
    Inst barrier;
    barrier.text = "s_barrier";
    r.waves[0].fail(barrier, fmt::format("{} of {} waves ended without reaching the barrier the other {} wait at "
                                         "(strict barrier mode, AMDSIM_STRICT_BARRIERS)",
                                         ended, r.waves.size(), waiting));
  }
  for (auto& w : r.waves)
    if (w.status == Wave::Status::at_barrier) w.status = Wave::Status::running;
  return true;
}

void count_group(const GroupRun& r, LaunchStats& stats) {
  for (auto& w : r.waves) {
    stats.wave_instructions += w.instructions;
    stats.lane_instructions += w.lane_instructions;
  }
  ++stats.work_groups;
}

// Round-robin: each wave runs until it waits at a barrier or ends, in wave order.
void run_group(const LaunchContext& c, uint64_t index, LaunchStats& stats) {
  std::unique_ptr<GroupRun> r = start_group(c, index);
  do {
    for (auto& w : r->waves)
      while (w.status == Wave::Status::running) execute(w, *c.code);
  } while (release_barrier(c, *r));
  count_group(*r, stats);
  end_group(c, *r);
}

// Seeded interleaving of the waves of up to `resident_groups` work-groups at once: a random
// running wave (of any resident group) runs `interleave` instructions, then another is drawn.
// Groups are admitted in launch order as earlier ones end, as a GPU dispatches them, so a
// group may wait for an earlier one (look-back scans) but never for a later one. One thread
// runs the whole launch: the same seed gives the same order.
void run_interleaved(const LaunchContext& c, uint64_t groups, LaunchStats& stats) {
  std::mt19937_64 rng(c.options.seed);
  const uint64_t resident_limit = std::max<uint64_t>(1, c.options.resident_groups);
  std::vector<std::unique_ptr<GroupRun>> resident;
  std::vector<std::pair<GroupRun*, Wave*>> running;
  uint64_t next = 0;
  auto admit = [&] {
    while (resident.size() < resident_limit && next < groups) {
      resident.push_back(start_group(c, next++));
      for (auto& w : resident.back()->waves) running.emplace_back(resident.back().get(), &w);
    }
  };
  admit();
  while (!running.empty()) {
    size_t pick = rng() % running.size();
    auto [group, wave] = running[pick];
    for (uint32_t n = 0; n < c.options.interleave && wave->status == Wave::Status::running; ++n) execute(*wave, *c.code);
    if (wave->status == Wave::Status::running) continue;
    running[pick] = running.back();
    running.pop_back();
    if (std::any_of(group->waves.begin(), group->waves.end(),
                    [](const Wave& w) { return w.status == Wave::Status::running; }))
      continue;
    if (release_barrier(c, *group)) {
      for (auto& w : group->waves)
        if (w.status == Wave::Status::running) running.emplace_back(group, &w);
      continue;
    }
    count_group(*group, stats);
    end_group(c, *group);
    std::erase_if(resident, [&](const std::unique_ptr<GroupRun>& r) { return r.get() == group; });
    admit();
  }
}

}  // namespace

LaunchOptions options_from_environment() {
  LaunchOptions o;
  o.interleave = static_cast<uint32_t>(env_number("AMDSIM_INTERLEAVE", 0));
  o.seed = env_number("AMDSIM_SEED", 1);
  o.threads = static_cast<unsigned>(env_number("AMDSIM_THREADS", 0));
  o.strict_barriers = env_number("AMDSIM_STRICT_BARRIERS", 0) != 0;
  o.resident_groups = static_cast<uint32_t>(env_number("AMDSIM_RESIDENT_GROUPS", o.resident_groups));
  return o;
}

std::vector<uint8_t> layout_arguments(const KernelInfo& k, void** values, Dim3 grid, Dim3 block, uint32_t dynamic_lds) {
  std::vector<uint8_t> out(std::max<uint32_t>(k.kernarg_size, 1), 0);
  size_t explicit_index = 0;
  for (const auto& a : k.args) {
    if (a.offset + a.size > out.size()) out.resize(a.offset + a.size, 0);
    uint8_t* p = out.data() + a.offset;
    auto put = [&](uint64_t v) { std::memcpy(p, &v, std::min<uint32_t>(a.size, 8)); };
    const std::string& kind = a.value_kind;
    if (kind.rfind("hidden_", 0) != 0) {
      if (values && values[explicit_index]) std::memcpy(p, values[explicit_index], a.size);
      ++explicit_index;
    } else if (kind == "hidden_block_count_x") put(grid.x);
    else if (kind == "hidden_block_count_y") put(grid.y);
    else if (kind == "hidden_block_count_z") put(grid.z);
    else if (kind == "hidden_group_size_x") put(block.x);
    else if (kind == "hidden_group_size_y") put(block.y);
    else if (kind == "hidden_group_size_z") put(block.z);
    else if (kind == "hidden_grid_dims") put(grid.z * block.z > 1 ? 3 : grid.y * block.y > 1 ? 2 : 1);
    else if (kind == "hidden_dynamic_lds_size") put(dynamic_lds);
    else if (kind == "hidden_private_base") put(private_aperture_hi);
    else if (kind == "hidden_shared_base") put(shared_aperture_hi);
    else put(0);  // offsets, remainders (whole groups only), queue/heap/printf/hostcall pointers
  }
  return out;
}

LaunchStats launch(const Program& program, const KernelInfo& kernel, Dim3 grid, Dim3 block, uint32_t dynamic_lds,
                   std::span<const uint8_t> kernargs, Memory& memory, const LaunchOptions& options) {
  LaunchContext c;
  c.program = &program;
  c.kernel = &kernel;
  c.memory = &memory;
  c.options = options;
  c.strict = options.strict_barriers;
  std::memcpy(&c.kd, kernel.descriptor.data(), sizeof c.kd);
  c.grid = grid;
  c.block = block;
  c.wave_size = static_cast<int>(kernel.wavefront_size);
  c.code = &ProgramAccess::table(program, c.wave_size);
  uint64_t items = uint64_t(block.x) * block.y * block.z;
  if (grid.x == 0 || grid.y == 0 || grid.z == 0 || items == 0)
    throw Error(fmt::format("amdsim: kernel '{}': empty grid or block", kernel.name));
  if (items > 1024)
    throw Error(fmt::format("amdsim: kernel '{}': a block of {} work-items exceeds 1024", kernel.name, items));
  uint64_t lds = uint64_t(c.kd.group_segment_fixed_size) + dynamic_lds;
  const uint32_t lds_limit = program.processor().lds_bytes;
  if (lds > lds_limit)
    throw Error(fmt::format("amdsim: kernel '{}': {} bytes of LDS ({} static + {} dynamic) exceed the {} a "
                            "work-group can have on {}",
                            kernel.name, lds, c.kd.group_segment_fixed_size, dynamic_lds, lds_limit,
                            program.processor().name));
  c.lds_bytes = static_cast<uint32_t>(lds);
  c.private_size = (c.kd.private_segment_fixed_size + 15) & ~15u;
  c.kernargs.assign(kernargs.begin(), kernargs.end());
  c.kernargs.resize(std::max<size_t>(c.kernargs.size() + 256, kernel.kernarg_size + 256), 0);  // s_load_dwordx8 may over-read
  std::memset(&c.packet, 0, sizeof c.packet);
  c.packet.setup = grid.z * block.z > 1 ? 3 : grid.y * block.y > 1 ? 2 : 1;
  c.packet.workgroup_size_x = static_cast<uint16_t>(block.x);
  c.packet.workgroup_size_y = static_cast<uint16_t>(block.y);
  c.packet.workgroup_size_z = static_cast<uint16_t>(block.z);
  c.packet.grid_size_x = grid.x * block.x;
  c.packet.grid_size_y = grid.y * block.y;
  c.packet.grid_size_z = grid.z * block.z;
  c.packet.private_segment_size = c.private_size;
  c.packet.group_segment_size = c.lds_bytes;
  c.packet.kernarg_address = c.kernargs.data();

  uint64_t groups = uint64_t(grid.x) * grid.y * grid.z;
  std::unique_ptr<RaceChecker> race;
  if (options.check_races) {
    race = std::make_unique<RaceChecker>(program, kernel, grid, block, c.wave_size, c.lds_bytes, kernargs, memory,
                                         options.check_same_value);
    c.race = race.get();
  }
  if (options.interleave) {
    LaunchStats total;
    run_interleaved(c, groups, total);
    if (race) total.race_report = race->report();
    return total;
  }
  unsigned threads = options.threads ? options.threads : std::max(1u, std::thread::hardware_concurrency());
  threads = static_cast<unsigned>(std::min<uint64_t>(threads, groups));
  std::atomic<uint64_t> next{0};
  std::atomic<bool> failed{false};
  std::exception_ptr error;
  std::mutex error_lock;
  std::vector<LaunchStats> per_thread(threads);
  auto worker = [&](unsigned t) {
    try {
      for (;;) {
        uint64_t i = next.fetch_add(1);
        if (i >= groups || failed.load()) return;
        run_group(c, i, per_thread[t]);
      }
    } catch (...) {
      std::lock_guard<std::mutex> g(error_lock);
      if (!error) error = std::current_exception();
      failed = true;
    }
  };
  if (threads <= 1) {
    worker(0);
  } else {
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t) pool.emplace_back(worker, t);
    for (auto& th : pool) th.join();
  }
  if (error) std::rethrow_exception(error);
  LaunchStats total;
  for (auto& s : per_thread) {
    total.wave_instructions += s.wave_instructions;
    total.lane_instructions += s.lane_instructions;
    total.work_groups += s.work_groups;
  }
  if (race) total.race_report = race->report();
  return total;
}

}  // namespace amdsim
