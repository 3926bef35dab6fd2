// bench-sim: how fast the AMDGPU simulator executes rocjit's sample kernels (and sample-gemm's). For each sample and
// processor: wave- and lane-instructions executed, wall time of one launch, and lane-instructions
// per second (the goal: at least 20 M/s on a 2-core machine), with 1 worker thread and
// with all of them. Timings are printed, never asserted.
// --check=races: the race checker's cost instead: one launch of each kernel compiled as usual
// against one compiled with CompileOptions::check_races and run with LaunchOptions::check_races
// (1 worker thread each), and the number of report lines (0: clean; any finding is printed to
// stderr and makes the exit status 1: the samples are race-free).
//
//   bench-sim [--processor=gfx942,gfx90a,gfx1100] [--repeat=N] [--scale=K] [--check=races]
#include <amdsim/amdsim.hpp>
#include <rocjit/rocjit.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "sample_kernels.hpp"

namespace {

struct ArraySpec {
  std::vector<int64_t> shape;
  bool is_uint = false;
};

struct Case {
  const char* name;
  rocjit::Kernel kernel;
  std::vector<ArraySpec> arrays;  // in parameter order
  float scalar = 2.0f;            // the one by-value float parameter (saxpy's a)
  amdsim::Dim3 grid, block;
};

std::vector<Case> cases(int64_t scale) {
  using namespace rocjit::samples;
  int64_t n = 65536 * scale, m = 64 * scale;
  uint32_t blocks = static_cast<uint32_t>(n / 256), tiles = static_cast<uint32_t>(m / 16);
  return {
      {"saxpy", saxpy(), {{{n}}, {{n}}}, 2.0f, {blocks, 1, 1}, {256, 1, 1}},
      {"reverse", reverse(), {{{n}}, {{n}}}, 0, {blocks, 1, 1}, {256, 1, 1}},
      {"matmul", matmul(), {{{m, m}}, {{m, m}}, {{m, m}}}, 0, {tiles, tiles, 1}, {16, 16, 1}},
      {"reduce", reduce(), {{{n}}, {{int64_t(blocks)}}}, 0, {blocks, 1, 1}, {256, 1, 1}},
      {"transpose", transpose(), {{{4 * m, 4 * m}}, {{4 * m, 4 * m}}}, 0, {4 * tiles, 4 * tiles, 1}, {16, 16, 1}},
      {"histogram", histogram(), {{{n}, true}, {{256}, true}}, 0, {64, 1, 1}, {256, 1, 1}},
      {"jacobi", jacobi(), {{{4 * m, 4 * m}}, {{4 * m, 4 * m}}}, 0, {4 * tiles, 4 * tiles, 1}, {16, 16, 1}},
      // sample-gemm's kernel (dsl::mma): MFMA on gfx90a/gfx942/gfx950, ds_bpermute and fmas elsewhere.
      // Its half arrays get the same 32-bit fill (arbitrary f16 values; only the time is read).
      {"gemm_mma", gemm_mma<rocjit::half>(), {{{4 * m, 4 * m}}, {{4 * m, 4 * m}}, {{4 * m, 4 * m}}}, 0,
       {uint32_t(4 * m / GEMM_TILE), uint32_t(4 * m / GEMM_TILE), 1}, {64, 4, 1}},
  };
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> processors = amdsim::Processor::supported();
  int repeat = 3;
  int64_t scale = 1;
  bool check_races = false, found = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--processor=", 0) == 0) {
      processors.clear();
      std::string list = a.substr(12);
      for (size_t s = 0, e; s <= list.size(); s = e + 1) {
        e = list.find(',', s);
        if (e == std::string::npos) e = list.size();
        if (e > s) processors.push_back(list.substr(s, e - s));
      }
    } else if (a.rfind("--repeat=", 0) == 0) {
      repeat = std::max(1, std::atoi(a.c_str() + 9));
    } else if (a.rfind("--scale=", 0) == 0) {
      scale = std::max(1, std::atoi(a.c_str() + 8));
    } else if (a == "--check=races") {
      check_races = true;
    } else {
      std::fprintf(stderr, "usage: bench-sim [--processor=gfx942,...] [--repeat=N] [--scale=K] [--check=races]\n");
      return 2;
    }
  }
  if (check_races)
    std::printf("%-10s %-8s %14s %10s %12s %8s %8s\n", "kernel", "cpu", "lane instr", "plain ms", "checked ms",
                "ratio", "findings");
  else
    std::printf("%-10s %-8s %12s %14s %10s %12s %10s %12s\n", "kernel", "cpu", "wave instr", "lane instr",
                "1 thr ms", "M lane/s", "all ms", "M lane/s");
  for (const auto& processor : processors) {
    amdsim::Processor p = amdsim::Processor::get(processor);
    for (auto& c : cases(scale)) {
      rocjit::CodeObject co = rocjit::compile(c.kernel, rocjit::Target::amdgpu(processor));
      auto program = amdsim::Program::load(std::span<const uint8_t>(co.elf.data(), co.elf.size()), p);
      const amdsim::KernelInfo& k = program->kernels().front();
      rocjit::CompileOptions checked_options;
      checked_options.check_races = true;  // the markers the checker reads (wavebarriers, global fences)
      std::shared_ptr<amdsim::Program> checked_program;
      if (check_races) {
        rocjit::CodeObject cc = rocjit::compile(c.kernel, rocjit::Target::amdgpu(processor), checked_options);
        checked_program = amdsim::Program::load(std::span<const uint8_t>(cc.elf.data(), cc.elf.size()), p);
      }
      amdsim::Memory memory;
      std::vector<void*> buffers;
      for (const auto& a : c.arrays) {
        int64_t count = 1;
        for (int64_t d : a.shape) count *= d;
        auto* data = static_cast<uint32_t*>(memory.allocate(size_t(count) * 4));
        for (int64_t i = 0; i < count; ++i) {
          if (a.is_uint) data[i] = uint32_t(i * 2654435761u);
          else {
            float f = float(i % 1000) * 0.001f;
            std::memcpy(&data[i], &f, 4);
          }
        }
        buffers.push_back(data);
      }
      // Arguments in the kernel ABI's order (kernel_abi.hpp): pointers, extents, strides, scalars.
      std::vector<std::vector<uint8_t>> values;
      std::vector<void*> pointers;
      size_t next_array = 0;
      std::vector<size_t> array_of_param(c.kernel.ir().params.size(), 0);
      for (const rocjit::AbiArgument& arg : rocjit::kernel_abi(c.kernel.ir()).arguments) {
        std::vector<uint8_t> v(arg.size, 0);
        if (arg.kind == rocjit::AbiArgument::Kind::dynamic_shared ||
            arg.kind == rocjit::AbiArgument::Kind::print_buffer) {  // none of these kernels has any
          values.push_back(std::move(v));
          continue;
        }
        if (arg.kind == rocjit::AbiArgument::Kind::pointer) array_of_param[arg.param] = next_array++;
        const ArraySpec& a = c.arrays[array_of_param[arg.param]];
        switch (arg.kind) {
          case rocjit::AbiArgument::Kind::pointer:
            std::memcpy(v.data(), &buffers[array_of_param[arg.param]], 8);
            break;
          case rocjit::AbiArgument::Kind::extent: {
            int32_t extent = static_cast<int32_t>(a.shape[arg.dim]);
            std::memcpy(v.data(), &extent, 4);
            break;
          }
          case rocjit::AbiArgument::Kind::stride: {
            int64_t stride = 1;
            for (size_t j = arg.dim + 1; j < a.shape.size(); ++j) stride *= a.shape[j];
            std::memcpy(v.data(), &stride, 8);
            break;
          }
          case rocjit::AbiArgument::Kind::scalar:
            std::memcpy(v.data(), &c.scalar, std::min<size_t>(arg.size, 4));
            break;
          case rocjit::AbiArgument::Kind::print_buffer:
          case rocjit::AbiArgument::Kind::dynamic_shared: break;
        }
        values.push_back(std::move(v));
      }
      for (auto& v : values) pointers.push_back(v.data());
      auto kernargs = amdsim::layout_arguments(k, pointers.data(), c.grid, c.block, 0);
      auto run = [&](unsigned threads, amdsim::LaunchStats& stats, bool checked = false) {
        double best = 1e30;
        for (int r = 0; r < repeat; ++r) {
          amdsim::LaunchOptions o;
          o.threads = threads;
          o.check_races = checked;
          const amdsim::Program& pr = checked ? *checked_program : *program;
          auto t0 = std::chrono::steady_clock::now();
          stats = amdsim::launch(pr, pr.kernels().front(), c.grid, c.block, 0, kernargs, memory, o);
          best = std::min(best, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
        }
        return best;
      };
      if (check_races) {
        amdsim::LaunchStats plain, checked;
        double plain_ms = run(1, plain), checked_ms = run(1, checked, true);
        size_t findings = 0;
        for (char ch : checked.race_report) findings += ch == '\n';
        if (!checked.race_report.empty()) {
          ++findings;
          found = true;
          std::fprintf(stderr, "%s\n", checked.race_report.c_str());
        }
        std::printf("%-10s %-8s %14llu %10.2f %12.2f %7.1fx %8zu\n", c.name, processor.c_str(),
                    (unsigned long long)plain.lane_instructions, plain_ms, checked_ms, checked_ms / plain_ms, findings);
        continue;
      }
      amdsim::LaunchStats s1, sn;
      double one = run(1, s1), all = run(0, sn);
      std::printf("%-10s %-8s %12llu %14llu %10.2f %12.1f %10.2f %12.1f\n", c.name, processor.c_str(),
                  (unsigned long long)s1.wave_instructions, (unsigned long long)s1.lane_instructions, one,
                  double(s1.lane_instructions) / one / 1e3, all, double(sn.lane_instructions) / all / 1e3);
    }
  }
  return found ? 1 : 0;
}
