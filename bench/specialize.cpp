// bench-specialize: what runtime specialisation (KernelOptions::specialize, specialize_shapes)
// does to saxpy, jacobi and matmul: time per launch on the CPU device and AMDGPU instruction
// counts, the generic kernel against the version for the launch's values. Prints a table.
//   build/bin/bench-specialize [--repeat=N]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include <rocjit/rocjit.hpp>

#include "assembly.hpp"
#include "sample_kernels.hpp"

using namespace rocjit;
using namespace rocjit::samples;
using Clock = std::chrono::steady_clock;

namespace {

int instructions(const Kernel& k, const char* processor) {
  int n = 0;
  for (const std::string& line : bench::function_lines(k.assembly(Target::amdgpu(processor)), k.name()))
    n += bench::is_instruction(line) ? 1 : 0;
  return n;
}

// Median milliseconds of `launch` (synchronised), after one warm-up launch (the compile).
double median_ms(const std::function<void()>& launch, int repeat) {
  launch();
  default_stream().synchronize();
  std::vector<double> ms;
  for (int r = 0; r < repeat; ++r) {
    auto t0 = Clock::now();
    launch();
    default_stream().synchronize();
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

struct Row {
  std::string name, values;
  Kernel generic, special;
  std::function<void(const Kernel&)> launch;
  std::vector<uint64_t> bits;                 // the specialised scalars' argument bits, by parameter
  std::vector<std::vector<int64_t>> shapes;  // the arrays' shapes, by parameter
};

}  // namespace

int main(int argc, char** argv) {
  int repeat = 9;
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], "--repeat=", 9) == 0) repeat = std::max(1, std::atoi(argv[i] + 9));
  set_default_device(get_device("cpu"));

  const int64_t n = int64_t(1) << 22, grid_n = 1024, mat_n = 256;
  const float a = 2.5f;
  uint64_t a_bits = 0;
  std::memcpy(&a_bits, &a, sizeof a);
  DeviceArray<float> x = to_device(std::vector<float>(n, 1.0f)), y = to_device(std::vector<float>(n, 2.0f));
  DeviceArray<float> g0 = to_device(std::vector<float>(grid_n * grid_n, 1.0f), {grid_n, grid_n});
  DeviceArray<float> g1 = device_array<float>({grid_n, grid_n});
  DeviceArray<float> A = to_device(std::vector<float>(mat_n * mat_n, 0.5f), {mat_n, mat_n});
  DeviceArray<float> B = to_device(std::vector<float>(mat_n * mat_n, 0.25f), {mat_n, mat_n});
  DeviceArray<float> C = device_array<float>({mat_n, mat_n});

  std::vector<Row> rows;
  rows.push_back({"saxpy", "a = 2.5, n = 2^22", saxpy(), saxpy_with({.specialize = {"a"}, .specialize_shapes = true}),
                  [&](const Kernel& k) { k[{static_cast<uint32_t>(n / BLOCK), BLOCK}](a, x, y); },
                  {a_bits, 0, 0}, {{}, {n}, {n}}});
  rows.push_back({"jacobi", "1024 x 1024", jacobi(), jacobi_with({.specialize_shapes = true}),
                  [&](const Kernel& k) { k[{{grid_n / 16, grid_n / 16}, {16, 16}}](g0, g1); },
                  {0, 0}, {{grid_n, grid_n}, {grid_n, grid_n}}});
  rows.push_back({"matmul", "256 x 256", matmul(), matmul_with({.specialize_shapes = true}),
                  [&](const Kernel& k) { k[{{mat_n / TPB, mat_n / TPB}, {TPB, TPB}}](A, B, C); },
                  {0, 0, 0}, {{mat_n, mat_n}, {mat_n, mat_n}, {mat_n, mat_n}}});

  std::printf("runtime specialisation: generic kernel vs the version for the launch's values\n");
  std::printf("CPU device (%u threads): median of %d launches (ms); AMDGPU: instructions\n", host_thread_count(), repeat);
  std::printf("%-8s %-20s %10s %10s %7s | %14s %14s\n", "kernel", "specialised on", "cpu gen", "cpu spec", "ratio",
              "gfx90a gen/sp", "gfx1100 gen/sp");
  for (Row& r : rows) {
    const double generic_ms = median_ms([&] { r.launch(r.generic); }, repeat);
    const double special_ms = median_ms([&] { r.launch(r.special); }, repeat);
    const Kernel version(r.special.specialized(r.bits, r.shapes));
    const int g90 = instructions(r.generic, "gfx90a"), s90 = instructions(version, "gfx90a");
    const int g11 = instructions(r.generic, "gfx1100"), s11 = instructions(version, "gfx1100");
    std::printf("%-8s %-20s %10.3f %10.3f %6.2fx | %6d / %-6d %6d / %-6d\n", r.name.c_str(), r.values.c_str(), generic_ms,
                special_ms, generic_ms / special_ms, g90, s90, g11, s11);
  }
  return 0;
}
