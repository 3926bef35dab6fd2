// amdsim: a functional simulator of AMDGPU machine code (gfx942, gfx90a, gfx1100). It loads
// code objects, lays out kernel arguments and runs every wave's instructions on the host.
// No LLVM header appears here: the HIP shim and the tests use only this interface.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <map>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace amdsim {

// Every failure the simulator reports: bad code objects, unknown instructions, memory faults,
// traps, barriers that cannot release. The message names the kernel, the instruction, the PC
// offset and (for memory) the lane and the address.
struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The processors the simulator models, and their facts.
struct Processor {
  std::string name;          // "gfx942"
  int major = 0;             // 9, 11
  bool architected_flat_scratch = false;  // gfx942: scratch_* address private memory directly
  int default_wave_size = 64;
  int max_waves_per_group = 16;  // 1024 work-items
  uint32_t lds_bytes = 65536;    // LDS a work-group may have (gfx950: 160 KiB)
  // How f16/bf16 matrix instructions sum (rocjit's models, docs/mma.md): "cdna2" (gfx90a),
  // "cdna3" (gfx942, gfx950), "fma_chain" (gfx1100 WMMA).
  std::string matrix_numerics = "fma_chain";
  static Processor get(const std::string& name);  // throws Error for processors not simulated
  static std::vector<std::string> supported();
};

// Device memory: host memory handed out by allocate() and checked on every access.
class Memory {
 public:
  void* allocate(size_t bytes);
  // Registers memory the simulator did not allocate (host-registered or pinned host memory).
  void add_host_range(void* p, size_t bytes);
  bool release(void* p);  // false when `p` is not a live allocation
  // Whether [address, address + bytes) lies inside one live range.
  bool contains(uint64_t address, uint64_t bytes) const;
  // The live range holding `address`: true and its start and size, or false.
  bool range_of(uint64_t address, uint64_t& start, uint64_t& size) const;
  size_t allocated_bytes() const;
  ~Memory();

 private:
  mutable std::mutex lock_;
  struct Range {
    uint64_t size;
    bool owned;
  };
  std::map<uint64_t, Range> ranges_;
  size_t allocated_ = 0;
};

// One argument of a kernel, from the code object's metadata (.args).
struct KernelArgument {
  std::string name;
  std::string value_kind;  // "global_buffer", "by_value", "hidden_block_count_x", ...
  uint32_t offset = 0, size = 0;
};

// A shared array of the kernel and where it lies in the group's LDS, from the rocjit-specific
// field ".rocjit_lds" of the kernel's metadata (a list of maps with ".name", ".offset", ".size"
// and ".element_size", in bytes), which rocjit's compiles for race checking carry. Code objects
// without it have none (the race checker then names LDS bytes by offset).
struct SharedArray {
  std::string name;
  uint32_t offset = 0, size = 0, element_size = 1;
};

struct KernelInfo {
  std::string name;
  uint64_t code_offset = 0;   // of the entry point, relative to the code object's load base
  uint32_t kernarg_size = 0, kernarg_align = 8;
  uint32_t group_segment_size = 0, private_segment_size = 0;
  uint32_t wavefront_size = 64;
  uint32_t sgpr_count = 0, vgpr_count = 0;
  std::vector<KernelArgument> args;
  std::vector<SharedArray> shared_arrays;
  std::vector<uint8_t> descriptor;  // the 64-byte kernel descriptor (<kernel>.kd)
};

// A loaded code object: its image in memory (with relocations applied) and its kernels.
class Program {
 public:
  // Throws Error naming what is wrong with the ELF, its notes or its descriptors.
  static std::shared_ptr<Program> load(std::span<const uint8_t> elf, const Processor& processor);
  ~Program();
  const KernelInfo* kernel(const std::string& name) const;
  const std::vector<KernelInfo>& kernels() const { return kernels_; }
  int code_object_version() const { return version_; }
  const Processor& processor() const { return processor_; }
  const uint8_t* image() const { return image_.data(); }
  size_t image_size() const { return image_.size(); }
  // Instruction names (encoding suffix stripped) of every instruction of every kernel.
  std::vector<std::string> instruction_names() const;
  // "file:line" of the source the code at image offset `address` was compiled from, per the code
  // object's DWARF line table (.debug_line); "" when it has none for that address.
  std::string source_line(uint64_t address) const;
  struct Decoded;  // decode cache, internal

 private:
  friend struct ProgramAccess;
  Program() = default;
  Processor processor_;
  std::vector<uint8_t> image_;
  std::vector<KernelInfo> kernels_;
  int version_ = 0;
  std::unique_ptr<Decoded> decoded_;
  // The line table, by address: each row covers the addresses up to the next row's.
  struct LineRow {
    uint64_t address;
    uint32_t file;  // index into line_files_
    uint32_t line;  // 0: no source line (or the end of a sequence)
  };
  std::vector<LineRow> lines_;
  std::vector<std::string> line_files_;
};

struct Dim3 {
  uint32_t x = 1, y = 1, z = 1;
};

struct LaunchOptions {
  // 0: work-groups run on `threads` worker threads; within a group each wave runs until it waits
  // or ends (round-robin, deterministic order inside a group). N > 0: one thread switches waves
  // every N instructions in a random order drawn from `seed`, among the waves of up to
  // `resident_groups` work-groups at once, admitted in launch order (AMDSIM_INTERLEAVE,
  // AMDSIM_SEED, AMDSIM_RESIDENT_GROUPS): deterministic for a seed, and exercising orderings
  // both within a group and between groups.
  uint32_t interleave = 0;
  uint64_t seed = 1;
  uint32_t resident_groups = 4;
  // Worker threads for work-groups (0: hardware concurrency).
  unsigned threads = 0;
  // Fail when a wave ends while others wait at a barrier (AMDSIM_STRICT_BARRIERS=1). Hardware
  // lets ended waves leave the barrier count; strict mode reports it as the likely bug it is.
  bool strict_barriers = false;
  // The race and sync checker (rocjit's ROCJIT_CHECK=races; docs/debugging.md, "Race checking"):
  // conflicting LDS and global accesses nothing orders, reads of LDS the group never wrote, and
  // waves at different barriers or ending while others wait. Findings go to
  // LaunchStats::race_report; the launch itself completes. `check_same_value` also reports
  // racing plain writes of the value the memory already holds.
  bool check_races = false;
  bool check_same_value = false;
};

struct LaunchStats {
  uint64_t wave_instructions = 0;
  uint64_t lane_instructions = 0;  // summed over active lanes of vector instructions + 1 per scalar one
  uint64_t work_groups = 0;
  // LaunchOptions::check_races: "" when nothing was found, else one line per pair of sites and a
  // summary line ("race check: kernel 'k': N races and M uninitialised shared reads ...").
  std::string race_report;
};

// Runs one kernel over a grid (in work-groups) of blocks (in work-items). `kernargs` is the
// kernel's argument segment, laid out per the metadata (see layout_arguments). Throws Error.
LaunchStats launch(const Program& program, const KernelInfo& kernel, Dim3 grid, Dim3 block, uint32_t dynamic_lds,
                   std::span<const uint8_t> kernargs, Memory& memory, const LaunchOptions& options = {});

// Lays out the argument segment as HIP does: `values[i]` points at the bytes of the i-th
// explicit argument (hipModuleLaunchKernel's kernelParams); hidden arguments (code object v5)
// are filled from their value kinds and the launch geometry.
std::vector<uint8_t> layout_arguments(const KernelInfo& kernel, void** values, Dim3 grid, Dim3 block,
                                      uint32_t dynamic_lds);

// The options above from AMDSIM_INTERLEAVE / AMDSIM_SEED / AMDSIM_THREADS.
LaunchOptions options_from_environment();

}  // namespace amdsim
