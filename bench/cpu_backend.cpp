// CPU backend throughput: each sample kernel on rocjit's host JIT next to the same algorithm as
// a plain C++ loop over the same number of threads and the same kernel in OpenCL C on PoCL.
//   build/bin/bench-cpu [--repeat=N] [--min] [--quick] [--any-shape] [--check=races] [--only=kernel,...]
// --min reports the fastest timed run instead of the median: on a machine shared with other
// work, the least disturbed run is the steadier basis for comparing two builds.
// --any-shape compiles the kernels for any work-group shape (read at launch) instead of the one
// they are launched with, to see what shape specialisation is worth. --check=races compiles them
// with the race checker (CompileOptions::check_races): the rocjit column is then the checked
// run, and a finding fails the row (the samples are race-free).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "sample_kernels.hpp"

#ifdef ROCJIT_HAVE_OPENCL
#include "pocl.hpp"
#else
#ifndef ROCJIT_BENCH_NO_OPENCL_REASON
#define ROCJIT_BENCH_NO_OPENCL_REASON "bench-cpu was built without OpenCL"
#endif
namespace bench {
struct Pocl {
  bool available() const { return false; }
  std::string unavailable_reason() const { return ROCJIT_BENCH_NO_OPENCL_REASON; }
};
}  // namespace bench
#endif

using namespace rocjit;
using bench::Pocl;
using Body = std::function<void()>;

namespace {

int repeats = 5;
bool fastest = false;  // --min

// One untimed run (the warm-up, whose result `check` verifies), then `repeats` timed runs;
// `before` resets accumulating outputs outside the timed region. Returns the median in ms (the
// minimum with --min).
double measure(const Body& run, const Body& check, const Body& before = {}) {
  if (before) before();
  run();
  if (check) check();
  std::vector<double> ms;
  for (int i = 0; i < repeats; ++i) {
    if (before) before();
    auto start = std::chrono::steady_clock::now();
    run();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(ms.begin(), ms.end());
  if (fastest) return ms.front();
  size_t mid = ms.size() / 2;
  return ms.size() % 2 ? ms[mid] : (ms[mid - 1] + ms[mid]) / 2;
}

// run_host's argument array: per array a pointer and one i32 extent per dimension, scalars by value.
class Args {
 public:
  template <class T>
  Args& array(std::vector<T>& v, std::initializer_list<int32_t> shape) {
    push(static_cast<void*>(v.data()));
    for (int32_t e : shape) push(e);
    return *this;
  }
  template <class T>
  Args& scalar(T value) {
    push(value);
    return *this;
  }
  const void* const* data() const { return pointers_.data(); }

 private:
  template <class T>
  void push(T value) {
    cells_.push_back(std::make_unique<std::byte[]>(sizeof(T)));
    std::memcpy(cells_.back().get(), &value, sizeof(T));
    pointers_.push_back(cells_.back().get());
  }
  std::vector<std::unique_ptr<std::byte[]>> cells_;
  std::vector<const void*> pointers_;
};

// The C++ baseline's threading: [0, n) split into one contiguous chunk per thread, over as many
// std::threads as rocjit's worker pool has.
void parallel_for(int64_t n, const std::function<void(unsigned, int64_t, int64_t)>& body) {
  unsigned count = host_thread_count();
  int64_t chunk = (n + count - 1) / count;
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < count; ++t) {
    int64_t begin = t * chunk, end = std::min(n, begin + chunk);
    if (begin < end) threads.emplace_back(body, t, begin, end);
  }
  for (auto& thread : threads) thread.join();
}

int64_t ceil_div(int64_t n, int64_t d) { return (n + d - 1) / d; }

// The time of moving a kernel's unavoidable bytes on the same threads, as a floor under its row:
// `in` read once (an integer sum of its 8-byte words, which the compiler vectorises) and, when
// `out` is given, written once (a copy of `in`). A kernel that streams more data than fits in the
// caches cannot run faster than this, whatever its code.
double memory_floor(const void* in, size_t bytes, void* out = nullptr) {
  const auto* words = static_cast<const uint64_t*>(in);
  auto* copy = static_cast<uint64_t*>(out);
  const int64_t n = static_cast<int64_t>(bytes / sizeof(uint64_t));
  std::vector<uint64_t> sums(host_thread_count());
  return measure([&] {
    parallel_for(n, [&](unsigned t, int64_t b, int64_t e) {
      if (copy) {
        std::copy(words + b, words + e, copy + b);
      } else {
        uint64_t sum = 0;
        for (int64_t i = b; i < e; ++i) sum += words[i];
        sums[t] = sum;  // kept, so the reads are not optimised away
      }
    });
  }, {});
}

[[noreturn]] void fail(const std::string& kernel, const std::string& what) {
  std::fflush(stdout);
  std::printf("FAIL %s: %s\n", kernel.c_str(), what.c_str());
  std::exit(1);
}

template <class T>
void verify(const std::string& kernel, const char* who, const std::vector<T>& got, const std::vector<T>& want,
            double tolerance = 0) {
  if (got.size() != want.size()) fail(kernel, fmt::format("{} gave {} values, C++ {}", who, got.size(), want.size()));
  for (size_t i = 0; i < got.size(); ++i) {
    double g = got[i], w = want[i];
    if (!(std::fabs(g - w) <= tolerance * std::max(1.0, std::fabs(w))))
      fail(kernel, fmt::format("{} gives {} at index {}, the C++ reference {}", who, g, i, w));
  }
}

std::vector<float> pattern(size_t n, int period, float scale, float offset = 0.0f) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = float(i % period) * scale + offset;
  return v;
}

struct Row {
  std::string kernel, size, launch;
  double rocjit = 0, cxx = 0;
  std::optional<double> pocl;
  std::optional<double> traffic;  // memory_floor: the row's bytes read and written, nothing else
};

bool any_shape = false;
bool check_races = false;  // --check=races

// As the CPU device compiles: for the work-group shape it is launched with.
HostCompileOptions shaped(Dim3 block) {
  HostCompileOptions options;
  if (!any_shape) options.block = block;
  options.check_races = check_races;
  return options;
}

std::string launch_text(Dim3 grid, Dim3 block) {
  if (grid.y == 1 && block.y == 1) return fmt::format("{} x {}", grid.x, block.x);
  return fmt::format("{}x{} x {}x{}", grid.x, grid.y, block.x, block.y);
}

#ifdef ROCJIT_HAVE_OPENCL
// The sample kernels of sample_kernels.hpp in OpenCL C, line for line; reduce's wave finish
// (wave::reduce_add over the last 32 partial sums) stays a shared-memory tree with barriers, as
// OpenCL C 1.2 has no wavefront operations, and scan_blocks' wave scans become a Hillis-Steele
// scan in local memory with a barrier per step. Arrays come with their extents as int arguments.
const char* opencl_source = R"CL(
__kernel void saxpy(float a, __global const float* x, __global float* y, int n) {
  int i = get_global_id(0);
  if (i < n) y[i] = a * x[i] + y[i];
}
__kernel void reverse(__global const float* in, __global float* out, int n) {
  __local float tile[256];
  int t = get_local_id(0), base = get_group_id(0) * 256;
  int len = min(256, n - base);
  if (t < len) tile[t] = in[base + t];
  barrier(CLK_LOCAL_MEM_FENCE);
  if (t < len) out[base + t] = tile[len - 1 - t];
}
__kernel void matmul(__global const float* A, __global const float* B, __global float* C, int n, int k, int m) {
  __local float sA[16][16], sB[16][16];
  int x = get_global_id(0), y = get_global_id(1), tx = get_local_id(0), ty = get_local_id(1);
  float acc = 0.0f;
  for (int t = 0; t < (k + 15) / 16; ++t) {
    sA[ty][tx] = 0.0f;
    sB[ty][tx] = 0.0f;
    if (y < n && t * 16 + tx < k) sA[ty][tx] = A[y * k + t * 16 + tx];
    if (x < m && t * 16 + ty < k) sB[ty][tx] = B[(t * 16 + ty) * m + x];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int j = 0; j < 16; ++j) acc += sA[ty][j] * sB[j][tx];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (y < n && x < m) C[y * m + x] = acc;
}
__kernel void reduce(__global const float* in, __global float* partial, int n) {
  __local float sums[256];
  int t = get_local_id(0), i = get_global_id(0);
  sums[t] = i < n ? in[i] : 0.0f;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int s = 128; s > 0; s >>= 1) {
    if (t < s) sums[t] += sums[t + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (t == 0) partial[get_group_id(0)] = sums[0];
}
__kernel void scan_blocks(__global const int* in, __global int* out, __global int* totals, int n) {
  __local int s[2][256];
  int t = get_local_id(0), i = get_global_id(0);
  int v = i < n ? in[i] : 0;
  s[0][t] = v;
  barrier(CLK_LOCAL_MEM_FENCE);
  int src = 0;
  for (int d = 1; d < 256; d <<= 1) {
    int x = s[src][t];
    if (t >= d) x += s[src][t - d];
    s[1 - src][t] = x;
    src = 1 - src;
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (i < n) out[i] = s[src][t] - v;
  if (t == 255) totals[get_group_id(0)] = s[src][t];
}
__kernel void transpose(__global const float* in, __global float* out, int rows, int cols) {
  __local float tile[16][17];
  int tx = get_local_id(0), ty = get_local_id(1);
  int x = get_group_id(0) * 16 + tx, y = get_group_id(1) * 16 + ty;
  if (y < rows && x < cols) tile[ty][tx] = in[y * cols + x];
  barrier(CLK_LOCAL_MEM_FENCE);
  int ox = get_group_id(1) * 16 + tx, oy = get_group_id(0) * 16 + ty;
  if (oy < cols && ox < rows) out[oy * rows + ox] = tile[tx][ty];
}
__kernel void histogram(__global const uint* data, __global uint* hist, int n) {
  __local uint counts[256];
  int t = get_local_id(0), threads = get_local_size(0);
  for (int b = t; b < 256; b += threads) counts[b] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int i = get_global_id(0); i < n; i += get_global_size(0)) atomic_inc(&counts[data[i] % 256]);
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int b = t; b < 256; b += threads) {
    uint c = counts[b];
    if (c != 0) atomic_add(&hist[b], c);
  }
}
__kernel void jacobi(__global const float* in, __global float* out, int rows, int cols) {
  int j = get_global_id(0), i = get_global_id(1);
  if (i >= 1 && i < rows - 1 && j >= 1 && j < cols - 1)
    out[i * cols + j] = 0.25f * (in[(i - 1) * cols + j] + in[(i + 1) * cols + j] + in[i * cols + j - 1] +
                                 in[i * cols + j + 1]);
}
__kernel void tree_reduce(__global const float* in, __global float* partial, int n) {
  __local float s[256];
  int t = get_local_id(0), i = get_global_id(0);
  s[t] = i < n ? in[i] : 0.0f;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int k = 128; k > 0; k >>= 1) {
    if (t < k) s[t] += s[t + k];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (t == 0) partial[get_group_id(0)] = s[0];
}
__kernel void block_scan(__global const int* in, __global int* out, int n) {
  __local int s[256];
  int t = get_local_id(0), i = get_global_id(0);
  s[t] = i < n ? in[i] : 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int k = 1; k < 256; k <<= 1) {
    int v = s[t];
    if (t >= k) v += s[t - k];
    barrier(CLK_LOCAL_MEM_FENCE);
    s[t] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (i < n) out[i] = s[t];
}
__kernel void bitonic_sort(__global int* data, int n) {
  __local int s[256];
  int t = get_local_id(0), i = get_global_id(0);
  s[t] = i < n ? data[i] : INT_MAX;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int k = 2; k <= 256; k <<= 1)
    for (int j = k >> 1; j > 0; j >>= 1) {
      int p = t ^ j;
      if (p > t) {
        int a = s[t], b = s[p];
        bool up = (t & k) == 0;
        if ((up && a > b) || (!up && a < b)) { s[t] = b; s[p] = a; }
      }
      barrier(CLK_LOCAL_MEM_FENCE);
    }
  if (i < n) data[i] = s[t];
}
__kernel void tile_stencil(__global const float* in, __global float* out, int rows, int cols) {
  __local float tile[18][18];
  int tx = get_local_id(0), ty = get_local_id(1);
  int x = get_group_id(0) * 16 + tx, y = get_group_id(1) * 16 + ty;
  for (int c = ty * 16 + tx; c < 18 * 18; c += 256) {
    int ly = c / 18, lx = c % 18, gy = get_group_id(1) * 16 + ly - 1, gx = get_group_id(0) * 16 + lx - 1;
    tile[ly][lx] = gy >= 0 && gy < rows && gx >= 0 && gx < cols ? in[gy * cols + gx] : 0.0f;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (y >= 1 && y < rows - 1 && x >= 1 && x < cols - 1)
    out[y * cols + x] = 0.2f * ((((tile[ty + 1][tx + 1] + tile[ty][tx + 1]) + tile[ty + 2][tx + 1]) + tile[ty + 1][tx]) +
                                tile[ty + 1][tx + 2]);
}
)CL";

// The NDRange of a rocjit launch: OpenCL counts work-items, rocjit counts groups.
std::vector<size_t> global_size(Dim3 grid, Dim3 block) {
  if (grid.y == 1 && block.y == 1) return {size_t(grid.x * block.x)};
  return {size_t(grid.x * block.x), size_t(grid.y * block.y)};
}
std::vector<size_t> local_size(Dim3 block) {
  if (block.y == 1) return {size_t(block.x)};
  return {size_t(block.x), size_t(block.y)};
}
#endif

Row bench_saxpy(int n, Pocl& pocl) {
  const float a = 2.0f;
  Dim3 grid{ceil_div(n, 256)}, block{256};
  Row row{"saxpy", fmt::format("n={}", n), launch_text(grid, block)};
  std::vector<float> x = pattern(n, 1000, 0.001f), y0(n, 1.0f), reference;
  std::vector<float> y_cxx = y0;  // y is updated in place: each side checks its first run against y0
  row.cxx = measure([&] {
    parallel_for(n, [&](unsigned, int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) y_cxx[i] = a * x[i] + y_cxx[i];
    });
  }, [&] { reference = y_cxx; });
  HostKernel k = compile_host(samples::saxpy().ir(), shaped(block));
  std::vector<float> y = y0;
  Args args;
  args.scalar(a).array(x, {n}).array(y, {n});
  row.rocjit = measure([&] { run_host(k, grid, block, args.data()); },
                       [&] { verify(row.kernel, "rocjit", y, reference, 1e-6); });
#ifdef ROCJIT_HAVE_OPENCL
  if (pocl.available()) {
    auto bx = pocl.buffer(x), by = pocl.buffer(y0);
    cl_kernel ck = pocl.kernel("saxpy", a, bx, by, n);
    row.pocl = measure([&] { pocl.run(ck, global_size(grid, block), local_size(block)); },
                       [&] { verify(row.kernel, "PoCL", pocl.read<float>(by, n), reference, 1e-6); });
  }
#endif
  return row;
}

Row bench_reverse(int n, Pocl& pocl) {
  Dim3 grid{ceil_div(n, samples::BLOCK)}, block{samples::BLOCK};
  Row row{"reverse", fmt::format("n={}", n), launch_text(grid, block)};
  std::vector<float> in = pattern(n, 1 << 20, 1.0f), reference(n), out(n);
  row.cxx = measure([&] {
    parallel_for(grid.x, [&](unsigned, int64_t b, int64_t e) {
      for (int64_t g = b; g < e; ++g) {
        int64_t base = g * samples::BLOCK, len = std::min<int64_t>(samples::BLOCK, n - base);
        for (int64_t t = 0; t < len; ++t) reference[base + t] = in[base + len - 1 - t];
      }
    });
  }, {});
  HostKernel k = compile_host(samples::reverse().ir(), shaped(block));
  Args args;
  args.array(in, {n}).array(out, {n});
  row.rocjit = measure([&] { run_host(k, grid, block, args.data()); },
                       [&] { verify(row.kernel, "rocjit", out, reference); });
#ifdef ROCJIT_HAVE_OPENCL
  if (pocl.available()) {
    auto bi = pocl.buffer(in), bo = pocl.buffer(std::vector<float>(n));
    cl_kernel ck = pocl.kernel("reverse", bi, bo, n);
    row.pocl = measure([&] { pocl.run(ck, global_size(grid, block), local_size(block)); },
                       [&] { verify(row.kernel, "PoCL", pocl.read<float>(bo, n), reference); });
  }
#endif
  return row;
}

Row bench_matmul(int n, Pocl& pocl) {
  const int T = samples::TPB;
  Dim3 grid{ceil_div(n, T), ceil_div(n, T)}, block{T, T};
  Row row{"matmul", fmt::format("{}x{}x{}", n, n, n), launch_text(grid, block)};
  // Small integers: every product and partial sum is exact in float, whatever the order.
  std::vector<float> a = pattern(size_t(n) * n, 13, 1.0f, -6.0f), b = pattern(size_t(n) * n, 7, 1.0f, -3.0f);
  std::vector<float> reference(size_t(n) * n), c(size_t(n) * n);
  row.cxx = measure([&] {
    parallel_for(n, [&](unsigned, int64_t rb, int64_t re) {  // i-k-j: unit stride in the inner loop
      for (int64_t i = rb; i < re; ++i) {
        float* out = &reference[i * n];
        std::fill(out, out + n, 0.0f);
        for (int64_t q = 0; q < n; ++q) {
          float av = a[i * n + q];
          const float* brow = &b[q * n];
          for (int64_t j = 0; j < n; ++j) out[j] += av * brow[j];
        }
      }
    });
  }, {});
  HostKernel k = compile_host(samples::matmul().ir(), shaped(block));
  Args args;
  args.array(a, {n, n}).array(b, {n, n}).array(c, {n, n});
  row.rocjit = measure([&] { run_host(k, grid, block, args.data()); },
                       [&] { verify(row.kernel, "rocjit", c, reference); });
#ifdef ROCJIT_HAVE_OPENCL
  if (pocl.available()) {
    auto ba = pocl.buffer(a), bb = pocl.buffer(b), bc = pocl.buffer(std::vector<float>(c.size()));
    cl_kernel ck = pocl.kernel("matmul", ba, bb, bc, n, n, n);
    row.pocl = measure([&] { pocl.run(ck, global_size(grid, block), local_size(block)); },
                       [&] { verify(row.kernel, "PoCL", pocl.read<float>(bc, c.size()), reference); });
  }
#endif
  return row;
}

// Per-block float sums of a 256-item block (sample-reduce's kernel, and the tree with a barrier
// per level below): `kernel` on rocjit, `opencl_name` on PoCL, a loop per block in C++.
Row bench_block_sums(const char* name, const Kernel& kernel, const char* opencl_name, int n, Pocl& pocl) {
  Dim3 grid{ceil_div(n, samples::BLOCK)}, block{samples::BLOCK};
  const int groups = int(grid.x);
  Row row{name, fmt::format("n={}", n), launch_text(grid, block)};
  std::vector<float> in = pattern(n, 1000, 0.001f), reference(groups), partial(groups);
  row.cxx = measure([&] {
    parallel_for(groups, [&](unsigned, int64_t b, int64_t e) {
      for (int64_t g = b; g < e; ++g) {
        float sum = 0.0f;
        for (int64_t i = g * samples::BLOCK; i < std::min<int64_t>(n, (g + 1) * samples::BLOCK); ++i) sum += in[i];
        reference[g] = sum;
      }
    });
  }, {});
  row.traffic = memory_floor(in.data(), in.size() * sizeof(float));
  // A tree sums in another order than the loop: allow float rounding.
  HostKernel k = compile_host(kernel.ir(), shaped(block));
  Args args;
  args.array(in, {n}).array(partial, {groups});
  row.rocjit = measure([&] { run_host(k, grid, block, args.data()); },
                       [&] { verify(row.kernel, "rocjit", partial, reference, 1e-4); });
#ifdef ROCJIT_HAVE_OPENCL
  if (pocl.available()) {
    auto bi = pocl.buffer(in), bp = pocl.buffer(std::vector<float>(groups));
    cl_kernel ck = pocl.kernel(opencl_name, bi, bp, n);
    row.pocl = measure([&] { pocl.run(ck, global_size(grid, block), local_size(block)); },
                       [&] { verify(row.kernel, "PoCL", pocl.read<float>(bp, groups), reference, 1e-4); });
  }
#endif
  return row;
}

// The block pass of sample-scan: wave scans (exclusive, per 256-item block) and block totals.
Row bench_scan(int n, Pocl& pocl) {
  Dim3 grid{ceil_div(n, samples::SCAN_BLOCK)}, block{samples::SCAN_BLOCK};
  const int groups = int(grid.x);
  Row row{"scan", fmt::format("n={}", n), launch_text(grid, block)};
  std::vector<int32_t> in(n), reference(n), out(n), totals(groups), reference_totals(groups);
  for (int i = 0; i < n; ++i) in[i] = (i * 37 + i / 1000) % 201 - 100;
  row.cxx = measure([&] {
    parallel_for(groups, [&](unsigned, int64_t b, int64_t e) {
      for (int64_t g = b; g < e; ++g) {
        int32_t sum = 0;
        for (int64_t i = g * samples::SCAN_BLOCK; i < std::min<int64_t>(n, (g + 1) * samples::SCAN_BLOCK); ++i) {
          reference[i] = sum;
          sum += in[i];
        }
        reference_totals[g] = sum;
      }
    });
  }, {});
  row.traffic = memory_floor(in.data(), in.size() * sizeof(int32_t), out.data());
  HostKernel k = compile_host(samples::scan_blocks().ir(), shaped(block));
  Args args;
  args.array(in, {n}).array(out, {n}).array(totals, {groups});
  row.rocjit = measure([&] { run_host(k, grid, block, args.data()); }, [&] {
    verify(row.kernel, "rocjit", out, reference);
    verify(row.kernel, "rocjit (totals)", totals, reference_totals);
  });
#ifdef ROCJIT_HAVE_OPENCL
  if (pocl.available()) {
    auto bi = pocl.buffer(in), bo = pocl.buffer(std::vector<int32_t>(n)), bt = pocl.buffer(std::vector<int32_t>(groups));
    cl_kernel ck = pocl.kernel("scan_blocks", bi, bo, bt, n);
    row.pocl = measure([&] { pocl.run(ck, global_size(grid, block), local_size(block)); }, [&] {
      verify(row.kernel, "PoCL", pocl.read<int32_t>(bo, n), reference);
      verify(row.kernel, "PoCL (totals)", pocl.read<int32_t>(bt, groups), reference_totals);
    });
  }
#endif
  return row;
}

Row bench_transpose(int rows, int cols, Pocl& pocl) {
  const int T = samples::TPB;
  Dim3 grid{ceil_div(cols, T), ceil_div(rows, T)}, block{T, T};
  Row row{"transpose", fmt::format("{}x{}", rows, cols), launch_text(grid, block)};
  std::vector<float> in = pattern(size_t(rows) * cols, 4093, 1.0f), reference(in.size()), out(in.size());
  row.cxx = measure([&] {
    parallel_for(grid.y, [&](unsigned, int64_t tb, int64_t te) {  // 16x16 tiles, like the kernel
      for (int64_t ti = tb; ti < te; ++ti)
        for (int64_t tj = 0; tj < grid.x; ++tj)
          for (int64_t i = ti * T; i < std::min<int64_t>(rows, ti * T + T); ++i)
            for (int64_t j = tj * T; j < std::min<int64_t>(cols, tj * T + T); ++j)
              reference[j * rows + i] = in[i * cols + j];
    });
  }, {});
  HostKernel k = compile_host(samples::transpose().ir(), shaped(block));
  Args args;
  args.array(in, {rows, cols}).array(out, {cols, rows});
  row.rocjit = measure([&] { run_host(k, grid, block, args.data()); },
                       [&] { verify(row.kernel, "rocjit", out, reference); });
#ifdef ROCJIT_HAVE_OPENCL
  if (pocl.available()) {
    auto bi = pocl.buffer(in), bo = pocl.buffer(std::vector<float>(in.size()));
    cl_kernel ck = pocl.kernel("transpose", bi, bo, rows, cols);
    row.pocl = measure([&] { pocl.run(ck, global_size(grid, block), local_size(block)); },
                       [&] { verify(row.kernel, "PoCL", pocl.read<float>(bo, in.size()), reference); });
  }
#endif
  return row;
}

Row bench_histogram(int n, int groups, Pocl& pocl) {
  const int bins = samples::HISTOGRAM_BINS;
  Dim3 grid{groups}, block{samples::BLOCK};
  Row row{"histogram", fmt::format("n={}", n), launch_text(grid, block)};
  std::vector<uint32_t> data(n), reference(bins), hist(bins);
  for (int i = 0; i < n; ++i) data[i] = uint32_t(i) * 2654435761u;  // Knuth's multiplicative hash
  // Per-thread counts merged at the end, as the kernel merges per-group shared counts.
  std::vector<std::vector<uint32_t>> counts(host_thread_count(), std::vector<uint32_t>(bins));
  row.cxx = measure([&] {
    parallel_for(n, [&](unsigned t, int64_t b, int64_t e) {
      std::fill(counts[t].begin(), counts[t].end(), 0u);
      for (int64_t i = b; i < e; ++i) ++counts[t][data[i] % bins];
    });
    std::fill(reference.begin(), reference.end(), 0u);
    for (const auto& c : counts)
      for (int b = 0; b < bins; ++b) reference[b] += c[b];
  }, {});
  row.traffic = memory_floor(data.data(), data.size() * sizeof(uint32_t));
  HostKernel k = compile_host(samples::histogram().ir(), shaped(block));
  Args args;
  args.array(data, {n}).array(hist, {bins});
  row.rocjit = measure([&] { run_host(k, grid, block, args.data()); },
                       [&] { verify(row.kernel, "rocjit", hist, reference); },
                       [&] { std::fill(hist.begin(), hist.end(), 0u); });
#ifdef ROCJIT_HAVE_OPENCL
  if (pocl.available()) {
    auto bd = pocl.buffer(data), bh = pocl.buffer(std::vector<uint32_t>(bins));
    cl_kernel ck = pocl.kernel("histogram", bd, bh, n);
    row.pocl = measure([&] { pocl.run(ck, global_size(grid, block), local_size(block)); },
                       [&] { verify(row.kernel, "PoCL", pocl.read<uint32_t>(bh, bins), reference); },
                       [&] { pocl.zero(bh, bins * sizeof(uint32_t)); });
  }
#endif
  return row;
}

Row bench_jacobi(int rows, int cols, Pocl& pocl) {
  Dim3 grid{ceil_div(cols, 32), ceil_div(rows, 8)}, block{32, 8};
  Row row{"jacobi", fmt::format("{}x{}", rows, cols), launch_text(grid, block)};
  std::vector<float> in = pattern(size_t(rows) * cols, 977, 1.0f), reference(in.size()), out(in.size());
  row.cxx = measure([&] {
    parallel_for(rows - 2, [&](unsigned, int64_t b, int64_t e) {
      for (int64_t i = b + 1; i < e + 1; ++i)
        for (int64_t j = 1; j < cols - 1; ++j)
          reference[i * cols + j] = 0.25f * (in[(i - 1) * cols + j] + in[(i + 1) * cols + j] +
                                             in[i * cols + j - 1] + in[i * cols + j + 1]);
    });
  }, {});
  HostKernel k = compile_host(samples::jacobi().ir(), shaped(block));
  Args args;
  args.array(in, {rows, cols}).array(out, {rows, cols});
  row.rocjit = measure([&] { run_host(k, grid, block, args.data()); },
                       [&] { verify(row.kernel, "rocjit", out, reference, 1e-6); });
#ifdef ROCJIT_HAVE_OPENCL
  if (pocl.available()) {
    auto bi = pocl.buffer(in), bo = pocl.buffer(std::vector<float>(in.size()));
    cl_kernel ck = pocl.kernel("jacobi", bi, bo, rows, cols);
    row.pocl = measure([&] { pocl.run(ck, global_size(grid, block), local_size(block)); },
                       [&] { verify(row.kernel, "PoCL", pocl.read<float>(bo, in.size()), reference, 1e-6); });
  }
#endif
  return row;
}

constexpr const char* row_format = "{:<13} {:<16} {:<20} {:>10} {:>10} {:>10} {:>11} {:>12} {:>10}\n";

// ---- Barrier-heavy kernels (issue goal: each within 3x of the plain C++ loop) ------------------
// Kernels whose work between barriers is a step or two: a barrier per tree level, per scan step,
// per bitonic merge step, and a stencil that stages a haloed tile. The C++ baselines do the same
// work without barriers, one block after another on each thread.

using namespace rocjit::dsl;

constexpr int heavy_block = samples::BLOCK;

Kernel tree_reduce_kernel() {
  return kernel("tree_reduce", [](Array<float> in, Array<float> partial) {
    auto s = shared::array<float>({heavy_block}, "s");
    Int t = local_id(0), i = global_id(0);
    s(t) = 0.0f;
    If(i < in.shape(0), [&] { s(t) = in(i); });
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = heavy_block / 2; k > 0; k /= 2) {  // unrolled while tracing: a barrier per level
      If(t < k, [&] { s(t) += s(t + k); });
      barrier(CLK_LOCAL_MEM_FENCE);
    }
    If(t == 0, [&] { partial(group_id(0)) = s(0); });
  }, {.max_block_size = heavy_block});
}

Kernel block_scan_kernel() {
  return kernel("block_scan", [](Array<int32_t> in, Array<int32_t> out) {
    auto s = shared::array<int32_t>({heavy_block}, "s");
    Int t = local_id(0), i = global_id(0), n = in.shape(0);
    s(t) = 0;
    If(i < n, [&] { s(t) = in(i); });
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = 1; k < heavy_block; k *= 2) {  // Hillis-Steele: two barriers per step
      Var<int32_t> v = s(t);
      If(t >= k, [&] { v += s(t - k); });
      barrier(CLK_LOCAL_MEM_FENCE);
      s(t) = v;
      barrier(CLK_LOCAL_MEM_FENCE);
    }
    If(i < n, [&] { out(i) = s(t); });
  }, {.max_block_size = heavy_block});
}

Kernel bitonic_sort_kernel() {
  return kernel("bitonic_sort", [](Array<int32_t> data) {
    auto s = shared::array<int32_t>({heavy_block}, "s");
    Int t = local_id(0), i = global_id(0), n = data.shape(0);
    s(t) = std::numeric_limits<int32_t>::max();
    If(i < n, [&] { s(t) = data(i); });
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = 2; k <= heavy_block; k *= 2)
      for (int j = k / 2; j > 0; j /= 2) {  // 36 compare-exchange steps, a barrier after each
        Int p = t ^ j;
        If(p > t, [&] {
          Int a = s(t), b = s(p);
          Bool up = (t & k) == 0, down = (t & k) != 0;
          If((up && a > b) || (down && a < b), [&] {
            s(t) = b;
            s(p) = a;
          });
        });
        barrier(CLK_LOCAL_MEM_FENCE);
      }
    If(i < n, [&] { data(i) = s(t); });
  }, {.max_block_size = heavy_block});
}

Kernel tile_stencil_kernel() {
  return kernel("tile_stencil", [](Array<float, 2> in, Array<float, 2> out) {
    auto tile = shared::array<float>({18, 18}, "tile");  // a 16x16 block and a one-cell halo
    Int tx = local_id(0), ty = local_id(1);
    Int x = group_id(0) * 16 + tx, y = group_id(1) * 16 + ty;
    Int rows = in.shape(0), cols = in.shape(1);
    for (int r = 0; r < 2; ++r) {  // 324 cells, 256 work-items: up to two loads each
      Int c = ty * 16 + tx + r * 256;
      If(c < 18 * 18, [&] {
        Int ly = c / 18, lx = c % 18;
        Int gy = group_id(1) * 16 + ly - 1, gx = group_id(0) * 16 + lx - 1;
        tile(ly, lx) = 0.0f;
        If(gy >= 0 && gy < rows && gx >= 0 && gx < cols, [&] { tile(ly, lx) = in(gy, gx); });
      });
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    If(y >= 1 && y < rows - 1 && x >= 1 && x < cols - 1, [&] {
      out(y, x) = 0.2f * ((((tile(ty + 1, tx + 1) + tile(ty, tx + 1)) + tile(ty + 2, tx + 1)) + tile(ty + 1, tx)) +
                          tile(ty + 1, tx + 2));
    });
  }, {.max_block_size = 256});
}

// ---- Wave-heavy kernels (issue 38: each within 3x of the same algorithm in plain C++) ----------
// A decoupled look-back scan (single pass, as CUB and rocPRIM do it; tests/e2e/lookback_scan.hpp's
// look-back, with the group's scan done by wave scans) and one pass of an LSD radix sort (4-bit
// digits: ranks from wave ballots and popcounts, the digit counts scanned by the look-back scan,
// then a scatter). The C++ baselines run the same algorithms on as many std::threads, taking
// blocks in ascending chunks as rocjit's worker pool takes work-groups.

constexpr int radix_bits = 4, radix_buckets = 1 << radix_bits;

// y = inclusive scan of x. Per group: wave scans, a wave scan of the waves' totals, then work-item
// 0 publishes the group's aggregate (flag 1), looks back over lower groups and publishes its
// inclusive prefix (flag 2). `flag` must be zero before a launch.
Kernel lookback_kernel() {
  return kernel("lookback_scan", [](Array<int32_t> x, Array<int32_t> y, Array<int32_t> aggregate,
                                    Array<int32_t> inclusive, Array<uint32_t> flag) {
    auto wave_totals = shared::array<int32_t>({heavy_block / 32}, "wave_totals");
    auto prefix = shared::array<int32_t>({1}, "prefix");
    Int t = local_id(0), g = group_id(0), i = global_id(0), n = x.shape(0);
    Var<int32_t> v = 0;
    If(i < n, [&] { v = x(i); });
    Int scanned = wave::inclusive_scan_add(v);
    Int wave = t / wave_size();
    If(lane_id() == wave_size() - 1, [&] { wave_totals(wave) = scanned; });
    barrier(CLK_LOCAL_MEM_FENCE);
    Int waves = dsl::local_size(0) / wave_size();
    Var<int32_t> total = 0;
    If(lane_id() < waves, [&] { total = wave_totals(lane_id()); });
    Int offset = wave::broadcast(wave::exclusive_scan_add(total), wave);
    Int block_total = wave::reduce_add(total);
    If(t == 0, [&] {
      aggregate(g) = block_total;
      atomic::store(flag, g, 1u, memory_order::release);
      Var<int32_t> before = 0;
      Var<int32_t> p = g - 1;
      While([&] { return p >= 0; }, [&] {
        Var<uint32_t> f = 0u;
        While([&] { return f == 0u; }, [&] { f = atomic::load(flag, p, memory_order::acquire); });
        If(f == 2u, [&] {
          before += inclusive(p);
          p = -1;
        }).Else([&] {
          before += aggregate(p);
          p = p - 1;
        });
      });
      inclusive(g) = before + block_total;
      atomic::store(flag, g, 2u, memory_order::release);
      prefix(0) = before;
    });
    barrier(CLK_LOCAL_MEM_FENCE);
    If(i < n, [&] { y(i) = prefix(0) + offset + scanned; });
  }, {.max_block_size = heavy_block});
}

// Radix pass, step 1: each key's rank among the keys of its group with the same digit (wave
// ballots give the lanes with my digit, a popcount below my lane my rank in the wave, per-wave
// counts in shared memory the rest), and the group's count of each digit at
// counts(digit * groups + group).
Kernel radix_rank_kernel() {
  return kernel("radix_rank", [](Array<uint32_t> keys, Array<int32_t> ranks, Array<int32_t> counts, Int shift) {
    auto wave_counts = shared::array<int32_t>({heavy_block / 32 * radix_buckets}, "wave_counts");
    Int t = local_id(0), g = group_id(0), i = global_id(0), n = keys.shape(0), groups = num_groups(0);
    Int waves = dsl::local_size(0) / wave_size();
    Int wave = t / wave_size();
    For(t, waves * radix_buckets, dsl::local_size(0), [&](Int c) { wave_counts(c) = 0; });
    Var<uint32_t> key = 0u;
    If(i < n, [&] { key = keys(i); });
    Int digit = cast<int32_t>((key >> cast<uint32_t>(shift)) & uint32_t{radix_buckets - 1});
    Var<uint64_t> same = wave::ballot(i < n);
    for (int b = 0; b < radix_bits; ++b) {  // unrolled while tracing: one ballot per digit bit
      Bool set = ((digit >> b) & 1) == 1;
      ULong bits = wave::ballot(set);
      same = same & select(set, bits, ~bits);
    }
    ULong below = (uint64_t{1} << cast<uint64_t>(lane_id())) - uint64_t{1};
    Int rank = cast<int32_t>(popcount(same & below));
    barrier(CLK_LOCAL_MEM_FENCE);
    If(i < n && rank == 0, [&] { wave_counts(wave * radix_buckets + digit) = cast<int32_t>(popcount(same)); });
    barrier(CLK_LOCAL_MEM_FENCE);
    If(i < n, [&] {
      Var<int32_t> offset = 0;
      For(0, wave, 1, [&](Int w) { offset += wave_counts(w * radix_buckets + digit); });
      ranks(i) = offset + rank;
    });
    If(t < radix_buckets, [&] {
      Var<int32_t> sum = 0;
      For(0, waves, 1, [&](Int w) { sum += wave_counts(w * radix_buckets + t); });
      counts(t * groups + g) = sum;
    });
  }, {.max_block_size = heavy_block});
}

// Radix pass, step 3: out(exclusive start of (digit, group) + rank) = key, where `starts` is the
// inclusive scan of counts.
Kernel radix_scatter_kernel() {
  return kernel("radix_scatter", [](Array<uint32_t> keys, Array<int32_t> ranks, Array<int32_t> counts,
                                    Array<int32_t> starts, Array<uint32_t> out, Int shift) {
    Int i = global_id(0), g = group_id(0), groups = num_groups(0);
    If(i < keys.shape(0), [&] {
      UInt key = keys(i);
      Int c = cast<int32_t>((key >> cast<uint32_t>(shift)) & uint32_t{radix_buckets - 1}) * groups + g;
      out(starts(c) - counts(c) + ranks(i)) = key;
    });
  }, {.max_block_size = heavy_block});
}

Row bench_block_scan(int n, Pocl& pocl) {
  Dim3 grid{ceil_div(n, heavy_block)}, block{heavy_block};
  const int groups = int(grid.x);
  Row row{"block-scan", fmt::format("n={}", n), launch_text(grid, block)};
  std::vector<int32_t> in(n), reference(n), out(n);
  for (int i = 0; i < n; ++i) in[i] = (i * 37 + i / 1000) % 201 - 100;
  row.cxx = measure([&] {
    parallel_for(groups, [&](unsigned, int64_t b, int64_t e) {
      for (int64_t g = b; g < e; ++g) {
        int32_t sum = 0;
        for (int64_t i = g * heavy_block; i < std::min<int64_t>(n, (g + 1) * heavy_block); ++i) reference[i] = sum += in[i];
      }
    });
  }, {});
  HostKernel k = compile_host(block_scan_kernel().ir(), shaped(block));
  Args args;
  args.array(in, {n}).array(out, {n});
  row.rocjit = measure([&] { run_host(k, grid, block, args.data()); }, [&] { verify(row.kernel, "rocjit", out, reference); });
#ifdef ROCJIT_HAVE_OPENCL
  if (pocl.available()) {
    auto bi = pocl.buffer(in), bo = pocl.buffer(std::vector<int32_t>(n));
    cl_kernel ck = pocl.kernel("block_scan", bi, bo, n);
    row.pocl = measure([&] { pocl.run(ck, global_size(grid, block), local_size(block)); },
                       [&] { verify(row.kernel, "PoCL", pocl.read<int32_t>(bo, n), reference); });
  }
#endif
  return row;
}

Row bench_bitonic_sort(int n, Pocl& pocl) {
  Dim3 grid{ceil_div(n, heavy_block)}, block{heavy_block};
  const int groups = int(grid.x);
  Row row{"bitonic-sort", fmt::format("n={}", n), launch_text(grid, block)};
  std::vector<int32_t> keys(n), reference(n), data(n);
  for (int i = 0; i < n; ++i) keys[i] = static_cast<int32_t>(uint32_t(i) * 2654435761u) >> 4;
  // std::sort of each block of 256 keys (what the kernel computes), on the same threads.
  row.cxx = measure([&] {
    parallel_for(groups, [&](unsigned, int64_t b, int64_t e) {
      std::copy(keys.begin() + b * heavy_block, keys.begin() + std::min<int64_t>(n, e * heavy_block),
                reference.begin() + b * heavy_block);
      for (int64_t g = b; g < e; ++g)
        std::sort(reference.begin() + g * heavy_block, reference.begin() + std::min<int64_t>(n, (g + 1) * heavy_block));
    });
  }, {});
  HostKernel k = compile_host(bitonic_sort_kernel().ir(), shaped(block));
  Args args;
  args.array(data, {n});
  row.rocjit = measure([&] { run_host(k, grid, block, args.data()); }, [&] { verify(row.kernel, "rocjit", data, reference); },
                       [&] { data = keys; });
#ifdef ROCJIT_HAVE_OPENCL
  if (pocl.available()) {
    auto bd = pocl.buffer(keys);
    cl_kernel ck = pocl.kernel("bitonic_sort", bd, n);
    row.pocl = measure([&] { pocl.run(ck, global_size(grid, block), local_size(block)); },
                       [&] { verify(row.kernel, "PoCL", pocl.read<int32_t>(bd, n), reference); },
                       [&] { pocl.write(bd, keys); });
  }
#endif
  return row;
}

Row bench_tile_stencil(int rows, int cols, Pocl& pocl) {
  Dim3 grid{ceil_div(cols, 16), ceil_div(rows, 16)}, block{16, 16};
  Row row{"tile-stencil", fmt::format("{}x{}", rows, cols), launch_text(grid, block)};
  std::vector<float> in = pattern(size_t(rows) * cols, 977, 1.0f), reference(in.size()), out(in.size());
  row.cxx = measure([&] {
    parallel_for(rows - 2, [&](unsigned, int64_t b, int64_t e) {
      for (int64_t i = b + 1; i < e + 1; ++i)
        for (int64_t j = 1; j < cols - 1; ++j)
          reference[i * cols + j] = 0.2f * ((((in[i * cols + j] + in[(i - 1) * cols + j]) + in[(i + 1) * cols + j]) +
                                             in[i * cols + j - 1]) + in[i * cols + j + 1]);
    });
  }, {});
  HostKernel k = compile_host(tile_stencil_kernel().ir(), shaped(block));
  Args args;
  args.array(in, {rows, cols}).array(out, {rows, cols});
  row.rocjit = measure([&] { run_host(k, grid, block, args.data()); }, [&] { verify(row.kernel, "rocjit", out, reference, 1e-6); });
#ifdef ROCJIT_HAVE_OPENCL
  if (pocl.available()) {
    auto bi = pocl.buffer(in), bo = pocl.buffer(std::vector<float>(in.size()));
    cl_kernel ck = pocl.kernel("tile_stencil", bi, bo, rows, cols);
    row.pocl = measure([&] { pocl.run(ck, global_size(grid, block), local_size(block)); },
                       [&] { verify(row.kernel, "PoCL", pocl.read<float>(bo, in.size()), reference, 1e-6); });
  }
#endif
  return row;
}

// The C++ look-back scan: blocks of heavy_block, taken in ascending chunks by each thread (as
// run_host hands out work-groups); per block a sequential scan, the aggregate published (flag 1),
// the look-back, the inclusive prefix published (flag 2), the prefix added.
void cxx_lookback_scan(const int32_t* x, int32_t* y, int64_t n, int32_t* aggregate, int32_t* inclusive,
                       uint32_t* flag) {
  const int64_t blocks = ceil_div(n, heavy_block);
  const unsigned count = host_thread_count();
  const int64_t chunk = std::max<int64_t>(1, blocks / (int64_t(count) * 8));
  std::atomic<int64_t> next{0};
  auto work = [&] {
    for (int64_t begin = next.fetch_add(chunk); begin < blocks; begin = next.fetch_add(chunk))
      for (int64_t g = begin; g < std::min(blocks, begin + chunk); ++g) {
        const int64_t first = g * heavy_block, last = std::min<int64_t>(n, first + heavy_block);
        int32_t sum = 0;
        for (int64_t i = first; i < last; ++i) y[i] = sum += x[i];
        aggregate[g] = sum;
        std::atomic_ref<uint32_t>(flag[g]).store(1, std::memory_order_release);
        int32_t before = 0;
        for (int64_t p = g - 1; p >= 0;) {
          uint32_t f;
          while ((f = std::atomic_ref<uint32_t>(flag[p]).load(std::memory_order_acquire)) == 0) {
          }
          if (f == 2) {
            before += inclusive[p];
            break;
          }
          before += aggregate[p--];
        }
        inclusive[g] = before + sum;
        std::atomic_ref<uint32_t>(flag[g]).store(2, std::memory_order_release);
        for (int64_t i = first; i < last; ++i) y[i] += before;
      }
  };
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < count; ++t) threads.emplace_back(work);
  for (auto& thread : threads) thread.join();
}

// The look-back scan's per-block bookkeeping, for rocjit and C++ alike.
struct LookbackState {
  explicit LookbackState(int64_t n) : aggregate(ceil_div(n, heavy_block)), inclusive(aggregate.size()), flag(aggregate.size()) {}
  void reset() { std::fill(flag.begin(), flag.end(), 0u); }
  std::vector<int32_t> aggregate, inclusive;
  std::vector<uint32_t> flag;
};

Row bench_lookback_scan(int n) {
  Dim3 grid{ceil_div(n, heavy_block)}, block{heavy_block};
  Row row{"lookback-scan", fmt::format("n={}", n), launch_text(grid, block)};
  std::vector<int32_t> in(n), reference(n), out(n);
  for (int i = 0; i < n; ++i) in[i] = (i * 37 + i / 1000) % 201 - 100;
  LookbackState cxx(n), jit(n);
  row.cxx = measure([&] {
    cxx_lookback_scan(in.data(), reference.data(), n, cxx.aggregate.data(), cxx.inclusive.data(), cxx.flag.data());
  }, [&] {
    int32_t sum = 0;  // the C++ scan checked against a sequential one
    for (int i = 0; i < n; ++i)
      if (reference[i] != (sum += in[i])) fail(row.kernel, fmt::format("the C++ look-back scan is wrong at {}", i));
  }, [&] { cxx.reset(); });
  HostKernel k = compile_host(lookback_kernel().ir(), shaped(block));
  Args args;
  args.array(in, {n}).array(out, {n}).array(jit.aggregate, {int32_t(jit.flag.size())})
      .array(jit.inclusive, {int32_t(jit.flag.size())}).array(jit.flag, {int32_t(jit.flag.size())});
  row.rocjit = measure([&] { run_host(k, grid, block, args.data()); }, [&] { verify(row.kernel, "rocjit", out, reference); },
                       [&] { jit.reset(); });
  return row;
}

// One LSD radix-sort pass over 4-bit digit `shift / 4`: ranks and per-group digit counts, the
// look-back scan of the counts (digit-major), the scatter. Both sides time all three steps.
Row bench_radix_pass(int n) {
  const int shift = 4;
  Dim3 grid{ceil_div(n, heavy_block)}, block{heavy_block};
  const int groups = int(grid.x), cells = radix_buckets * groups;
  Row row{"radix-pass", fmt::format("n={}", n), launch_text(grid, block)};
  std::vector<uint32_t> keys(n), reference(n), out(n);
  for (int i = 0; i < n; ++i) keys[i] = uint32_t(i) * 2654435761u;
  std::vector<int32_t> cxx_ranks(n), cxx_counts(cells), cxx_starts(cells);
  LookbackState cxx(cells), jit(cells);
  row.cxx = measure([&] {
    parallel_for(groups, [&](unsigned, int64_t b, int64_t e) {
      for (int64_t g = b; g < e; ++g) {
        int32_t count[radix_buckets] = {};
        for (int64_t i = g * heavy_block; i < std::min<int64_t>(n, (g + 1) * heavy_block); ++i)
          cxx_ranks[i] = count[(keys[i] >> shift) & (radix_buckets - 1)]++;
        for (int d = 0; d < radix_buckets; ++d) cxx_counts[d * groups + g] = count[d];
      }
    });
    cxx.reset();
    cxx_lookback_scan(cxx_counts.data(), cxx_starts.data(), cells, cxx.aggregate.data(), cxx.inclusive.data(),
                      cxx.flag.data());
    parallel_for(n, [&](unsigned, int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        const int64_t c = int64_t((keys[i] >> shift) & (radix_buckets - 1)) * groups + i / heavy_block;
        reference[cxx_starts[c] - cxx_counts[c] + cxx_ranks[i]] = keys[i];
      }
    });
  }, [&] {
    // The C++ pass checked against a stable sort by the digit.
    std::vector<uint32_t> sorted = keys;
    std::stable_sort(sorted.begin(), sorted.end(), [&](uint32_t a, uint32_t b) {
      return ((a >> shift) & (radix_buckets - 1)) < ((b >> shift) & (radix_buckets - 1));
    });
    if (sorted != reference) fail(row.kernel, "the C++ radix pass is not a stable sort by the digit");
  });
  HostKernel rank = compile_host(radix_rank_kernel().ir(), shaped(block));
  HostKernel scan = compile_host(lookback_kernel().ir(), shaped(block));
  HostKernel scatter = compile_host(radix_scatter_kernel().ir(), shaped(block));
  std::vector<int32_t> ranks(n), counts(cells), starts(cells);
  const int32_t scan_blocks = int32_t(jit.flag.size());
  Args rank_args, scan_args, scatter_args;
  rank_args.array(keys, {n}).array(ranks, {n}).array(counts, {cells}).scalar(int32_t{shift});
  scan_args.array(counts, {cells}).array(starts, {cells}).array(jit.aggregate, {scan_blocks})
      .array(jit.inclusive, {scan_blocks}).array(jit.flag, {scan_blocks});
  scatter_args.array(keys, {n}).array(ranks, {n}).array(counts, {cells}).array(starts, {cells}).array(out, {n})
      .scalar(int32_t{shift});
  row.rocjit = measure([&] {
    run_host(rank, grid, block, rank_args.data());
    jit.reset();
    run_host(scan, Dim3{ceil_div(cells, heavy_block)}, block, scan_args.data());
    run_host(scatter, grid, block, scatter_args.data());
  }, [&] {
    verify(row.kernel, "rocjit (ranks)", ranks, cxx_ranks);
    verify(row.kernel, "rocjit (counts)", counts, cxx_counts);
    verify(row.kernel, "rocjit", out, reference);
  });
  return row;
}

void print_header(const Pocl& pocl) {
  unsigned threads = host_thread_count();
  fmt::print("rocjit CPU backend: {} of {} timed runs after one warm-up run checked against the C++ result; ms\n",
             fastest ? "fastest" : "median", repeats);
  fmt::print("  rocjit: run_host on its pool of {} worker threads (rocjit::host_thread_count()), {}\n", threads,
             any_shape ? "compiled for any work-group shape (--any-shape)"
                       : "compiled for the work-group shape (CompileOptions::block), as the CPU device does");
  if (check_races) fmt::print("  rocjit: with the race checker (--check=races, CompileOptions::check_races)\n");
  fmt::print("  C++:    the same algorithm as plain loops, -O3 -march=native, multi-threaded: {} std::threads\n",
             threads);
#ifdef ROCJIT_HAVE_OPENCL
  if (pocl.available())
    fmt::print("  PoCL:   the same kernels in OpenCL C, same work-group sizes, on '{}' ({} compute units)\n",
               pocl.device_name(), pocl.compute_units());
  else
#endif
    fmt::print("  PoCL:   n/a ({})\n", pocl.unavailable_reason());
  fmt::print("  memory: the time of reading the row's input once (and writing its output once), same threads; where measured\n");
  fmt::print("\n");
  fmt::print(row_format, "kernel", "size", "groups x block", "rocjit", fmt::format("C++ {}T", threads), "PoCL",
             "rocjit/C++", "rocjit/PoCL", "memory");
}

void print_row(const Row& r) {
  fmt::print(row_format, r.kernel, r.size, r.launch, fmt::format("{:.3f}", r.rocjit), fmt::format("{:.3f}", r.cxx),
             r.pocl ? fmt::format("{:.3f}", *r.pocl) : "n/a", fmt::format("{:.2f}", r.rocjit / r.cxx),
             r.pocl ? fmt::format("{:.2f}", r.rocjit / *r.pocl) : "n/a",
             r.traffic ? fmt::format("{:.3f}", *r.traffic) : "");
  std::fflush(stdout);
}

// The goals are printed with how far this run is from them; they are never asserted.
void print_goals(const std::vector<Row>& rows) {
  fmt::print("\ngoals (stated, not asserted):\n");
  std::vector<std::string> slower;
  bool measured = false;
  for (const Row& r : rows)
    if (r.pocl) {
      measured = true;
      if (r.rocjit > *r.pocl) slower.push_back(fmt::format("{} {:.2f}x", r.kernel, r.rocjit / *r.pocl));
    }
  fmt::print("  rocjit at least as fast as PoCL on every kernel: {}\n",
             !measured ? "not measured (no PoCL)"
             : slower.empty() ? "met"
                              : fmt::format("not met (slower on {})", fmt::join(slower, ", ")));
  std::vector<std::string> heavy_over;
  bool heavy = false;
  for (const Row& r : rows)
    if (r.kernel == "tree-reduce" || r.kernel == "block-scan" || r.kernel == "bitonic-sort" || r.kernel == "tile-stencil") {
      heavy = true;
      if (r.rocjit > 3 * r.cxx) heavy_over.push_back(fmt::format("{} {:.2f}x", r.kernel, r.rocjit / r.cxx));
    }
  if (heavy)
    fmt::print("  barrier-heavy kernels within 3x of the plain C++ loop: {}\n",
               heavy_over.empty() ? "met" : fmt::format("not met ({})", fmt::join(heavy_over, ", ")));
  std::vector<std::string> wave_over;
  bool wave_heavy = false;
  for (const Row& r : rows)
    if (r.kernel == "lookback-scan" || r.kernel == "radix-pass") {
      wave_heavy = true;
      if (r.rocjit > 3 * r.cxx) wave_over.push_back(fmt::format("{} {:.2f}x", r.kernel, r.rocjit / r.cxx));
    }
  if (wave_heavy)
    fmt::print("  wave-heavy kernels within 3x of the same algorithm in C++: {}\n",
               wave_over.empty() ? "met" : fmt::format("not met ({})", fmt::join(wave_over, ", ")));
  for (const Row& r : rows)
    if (r.kernel == "saxpy")
      fmt::print("  saxpy within 1.25x of the plain C++ loop: {} ({:.2f}x)\n",
                 r.rocjit <= 1.25 * r.cxx ? "met" : "not met", r.rocjit / r.cxx);
}

[[noreturn]] void usage(const char* bad) {
  std::fprintf(stderr, "bench-cpu: unknown option '%s'\nusage: bench-cpu [--repeat=N] [--min] [--quick] [--any-shape] [--check=races] [--only=kernel,...]\n", bad);
  std::exit(2);
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false;
  std::string only;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--repeat=", 9) == 0) {
      repeats = std::atoi(argv[i] + 9);
      if (repeats < 1) usage(argv[i]);
    } else if (std::strcmp(argv[i], "--min") == 0) {
      fastest = true;
    } else if (std::strcmp(argv[i], "--any-shape") == 0) {
      any_shape = true;
    } else if (std::strcmp(argv[i], "--check=races") == 0) {
      check_races = true;
    } else if (std::strncmp(argv[i], "--only=", 7) == 0) {
      only = argv[i] + 7;  // comma-separated kernel names: only those rows run
    } else if (std::strcmp(argv[i], "--quick") == 0) {
      quick = true;  // tiny, ragged sizes: checks every result quickly, timings mean nothing
    } else {
      usage(argv[i]);
    }
  }
  try {
#ifdef ROCJIT_HAVE_OPENCL
    Pocl pocl(opencl_source);
#else
    Pocl pocl;
#endif
    const int n = quick ? 5000 : 1 << 24;
    const int matmul_n = quick ? 50 : 512;
    const int rows = quick ? 70 : 4096, cols = quick ? 45 : 4096;
    print_header(pocl);
    std::vector<Row> table;
    const std::vector<std::pair<const char*, std::function<Row()>>> benches{
             {"saxpy", [&] { return bench_saxpy(n, pocl); }},
             {"reverse", [&] { return bench_reverse(n, pocl); }},
             {"matmul", [&] { return bench_matmul(matmul_n, pocl); }},
             {"reduce", [&] { return bench_block_sums("reduce", samples::reduce(), "reduce", n, pocl); }},
             {"scan", [&] { return bench_scan(n, pocl); }},
             {"transpose", [&] { return bench_transpose(rows, cols, pocl); }},
             {"histogram", [&] { return bench_histogram(n, quick ? 3 : 64, pocl); }},
             {"jacobi", [&] { return bench_jacobi(rows, cols, pocl); }},
             {"tree-reduce", [&] { return bench_block_sums("tree-reduce", tree_reduce_kernel(), "tree_reduce", n, pocl); }},
             {"block-scan", [&] { return bench_block_scan(n, pocl); }},
             {"bitonic-sort", [&] { return bench_bitonic_sort(quick ? n : 1 << 22, pocl); }},
             {"tile-stencil", [&] { return bench_tile_stencil(rows, cols, pocl); }},
             {"lookback-scan", [&] { return bench_lookback_scan(n); }},
             {"radix-pass", [&] { return bench_radix_pass(n); }}};
    for (const auto& [name, bench] : benches) {
      if (!only.empty() && ("," + only + ",").find("," + std::string(name) + ",") == std::string::npos) continue;
      table.push_back(bench());
      print_row(table.back());
    }
    print_goals(table);
  } catch (const std::exception& e) {
    fail("bench-cpu", e.what());
  }
  fmt::print("PASS: every result matched the C++ reference\n");
  return 0;
}
