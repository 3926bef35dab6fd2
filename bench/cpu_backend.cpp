// CPU backend throughput: each sample kernel on rocjit's host JIT next to the same algorithm as
// a plain C++ -O3 loop (same thread count) and the same kernel in OpenCL C on PoCL.
//   build/bin/bench-cpu [--repeat=N] [--quick]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "sample_kernels.hpp"

#ifdef ROCJIT_HAVE_OPENCL
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#endif

using namespace rocjit;
using Clock = std::chrono::steady_clock;

namespace {

int repeats = 5;
bool quick = false;

double median_ms(const std::function<void()>& run) {
  run();  // warm-up
  std::vector<double> t;
  for (int i = 0; i < repeats; ++i) {
    auto a = Clock::now();
    run();
    t.push_back(std::chrono::duration<double, std::milli>(Clock::now() - a).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

// run_host's argument array: per array a pointer and its extents, scalars by value.
class Args {
 public:
  Args& array(void* p, std::initializer_list<int32_t> shape) {
    push(p);
    for (int32_t e : shape) push(e);
    return *this;
  }
  template <class T>
  Args& scalar(T v) {
    push(v);
    return *this;
  }
  const void* const* data() const { return pointers_.data(); }

 private:
  template <class T>
  void push(T v) {
    cells_.push_back(std::make_unique<unsigned char[]>(8));
    std::memcpy(cells_.back().get(), &v, sizeof(T));
    pointers_.push_back(cells_.back().get());
  }
  std::vector<std::unique_ptr<unsigned char[]>> cells_;
  std::vector<const void*> pointers_;
};

// Splits [0, n) over the same number of threads rocjit uses.
void parallel_for(int64_t n, const std::function<void(int64_t, int64_t)>& body) {
  unsigned t = host_thread_count();
  std::vector<std::thread> threads;
  int64_t chunk = (n + t - 1) / t;
  for (unsigned i = 0; i < t; ++i) {
    int64_t b = i * chunk, e = std::min(n, b + chunk);
    if (b < e) threads.emplace_back(body, b, e);
  }
  for (auto& th : threads) th.join();
}

bool close(float a, float b, float tol = 1e-3f) { return std::fabs(a - b) <= tol * std::max(1.0f, std::fabs(b)); }

#ifdef ROCJIT_HAVE_OPENCL
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
    sA[ty][tx] = 0.0f; sB[ty][tx] = 0.0f;
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
  for (int b = t; b < 256; b += threads) if (counts[b] != 0) atomic_add(&hist[b], counts[b]);
}
__kernel void jacobi(__global const float* in, __global float* out, int rows, int cols) {
  int j = get_global_id(0), i = get_global_id(1);
  if (i >= 1 && i < rows - 1 && j >= 1 && j < cols - 1)
    out[i * cols + j] = 0.25f * (in[(i - 1) * cols + j] + in[(i + 1) * cols + j] + in[i * cols + j - 1] + in[i * cols + j + 1]);
}
)CL";

struct OpenCL {
  cl_context context = nullptr;
  cl_command_queue queue = nullptr;
  cl_program program = nullptr;
  std::string device_name;
  bool ok = false;

  OpenCL() {
    cl_uint count = 0;
    if (clGetPlatformIDs(0, nullptr, &count) != CL_SUCCESS || count == 0) return;
    std::vector<cl_platform_id> platforms(count);
    clGetPlatformIDs(count, platforms.data(), nullptr);
    for (auto p : platforms) {
      char name[256] = {};
      clGetPlatformInfo(p, CL_PLATFORM_NAME, sizeof name, name, nullptr);
      if (!std::strstr(name, "Portable Computing Language")) continue;
      cl_device_id device;
      if (clGetDeviceIDs(p, CL_DEVICE_TYPE_CPU, 1, &device, nullptr) != CL_SUCCESS) continue;
      char dname[256] = {};
      clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof dname, dname, nullptr);
      device_name = dname;
      cl_int err;
      context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &err);
      queue = clCreateCommandQueue(context, device, 0, &err);
      program = clCreateProgramWithSource(context, 1, &opencl_source, nullptr, &err);
      if (clBuildProgram(program, 1, &device, "-cl-std=CL1.2", nullptr, nullptr) != CL_SUCCESS) {
        char log[8192] = {};
        clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, sizeof log, log, nullptr);
        std::fprintf(stderr, "PoCL build failed:\n%s\n", log);
        return;
      }
      ok = true;
      return;
    }
  }
  cl_mem buffer(void* host, size_t bytes) {
    cl_int err;
    return clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, bytes, host, &err);
  }
  // Runs `name` with `args` (buffers or scalars set by the caller) over the NDRange; median ms.
  double time(const char* name, const std::function<void(cl_kernel)>& set_args, std::vector<size_t> global,
              std::vector<size_t> local, const std::function<void()>& before = {}) {
    cl_int err;
    cl_kernel k = clCreateKernel(program, name, &err);
    set_args(k);
    double ms = median_ms([&] {
      if (before) before();
      clEnqueueNDRangeKernel(queue, k, static_cast<cl_uint>(global.size()), nullptr, global.data(), local.data(), 0,
                             nullptr, nullptr);
      clFinish(queue);
    });
    clReleaseKernel(k);
    return ms;
  }
};
#endif

struct Row {
  std::string kernel, size;
  double rocjit = 0, cxx = 0, pocl = -1;
};

void print(const std::vector<Row>& rows, const std::string& pocl_device) {
  std::printf("\nCPU backend, median kernel ms over %d runs; rocjit and C++ use %u threads%s\n", repeats,
              host_thread_count(), pocl_device.empty() ? "" : (", PoCL device: " + pocl_device).c_str());
  std::printf("%-10s %-16s %10s %10s %10s %12s %12s\n", "kernel", "size", "rocjit", "C++ -O3", "PoCL",
              "rocjit/C++", "rocjit/PoCL");
  for (const Row& r : rows) {
    char pocl[32] = "n/a", ratio[32] = "n/a";
    if (r.pocl > 0) {
      std::snprintf(pocl, sizeof pocl, "%.3f", r.pocl);
      std::snprintf(ratio, sizeof ratio, "%.2f", r.rocjit / r.pocl);
    }
    std::printf("%-10s %-16s %10.3f %10.3f %10s %12.2f %12s\n", r.kernel.c_str(), r.size.c_str(), r.rocjit, r.cxx,
                pocl, r.rocjit / r.cxx, ratio);
  }
  std::printf("goals: rocjit/PoCL <= 1.0 on every kernel; saxpy rocjit/C++ <= 1.25\n");
}

[[noreturn]] void fail(const char* kernel, const std::string& what) {
  std::printf("FAIL %s: %s\n", kernel, what.c_str());
  std::exit(1);
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--repeat=", 9) == 0) repeats = std::max(1, std::atoi(argv[i] + 9));
    if (std::strcmp(argv[i], "--quick") == 0) quick = true;
  }
  std::vector<Row> rows;
  std::string pocl_device;
#ifdef ROCJIT_HAVE_OPENCL
  OpenCL cl;
  if (cl.ok) pocl_device = cl.device_name;
#endif
  const int n1 = quick ? 1 << 12 : 1 << 24;
  const int mm = quick ? 48 : 512;
  const int side = quick ? 64 : 4096;
  std::vector<float> x(n1), y(n1), out(n1);
  for (int i = 0; i < n1; ++i) x[i] = float(i % 1000) * 0.001f, y[i] = 1.0f;

  {  // saxpy
    HostKernel k = compile_host(samples::saxpy().ir());
    Row r{"saxpy", std::to_string(n1)};
    Args args;
    args.scalar(2.0f).array(x.data(), {n1}).array(y.data(), {n1});
    r.rocjit = median_ms([&] { run_host(k, {(n1 + 255) / 256}, {256}, args.data()); });
    std::vector<float> yc(n1, 1.0f);
    r.cxx = median_ms([&] {
      parallel_for(n1, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) yc[i] = 2.0f * x[i] + yc[i];
      });
    });
    if (!close(y[7], yc[7], 1e-2f)) fail("saxpy", "rocjit and C++ disagree");
#ifdef ROCJIT_HAVE_OPENCL
    if (cl.ok) {
      std::vector<float> yo(n1, 1.0f);
      cl_mem bx = cl.buffer(x.data(), n1 * 4), by = cl.buffer(yo.data(), n1 * 4);
      float a = 2.0f;
      r.pocl = cl.time("saxpy", [&](cl_kernel kk) {
        clSetKernelArg(kk, 0, 4, &a); clSetKernelArg(kk, 1, sizeof bx, &bx); clSetKernelArg(kk, 2, sizeof by, &by);
        clSetKernelArg(kk, 3, 4, &n1);
      }, {size_t((n1 + 255) / 256 * 256)}, {256});
      clReleaseMemObject(bx); clReleaseMemObject(by);
    }
#endif
    rows.push_back(r);
  }
  {  // reverse
    HostKernel k = compile_host(samples::reverse().ir());
    Row r{"reverse", std::to_string(n1)};
    Args args;
    args.array(x.data(), {n1}).array(out.data(), {n1});
    r.rocjit = median_ms([&] { run_host(k, {(n1 + 255) / 256}, {256}, args.data()); });
    std::vector<float> ref(n1);
    r.cxx = median_ms([&] {
      parallel_for((n1 + 255) / 256, [&](int64_t b, int64_t e) {
        for (int64_t g = b; g < e; ++g) {
          int64_t base = g * 256, len = std::min<int64_t>(256, n1 - base);
          for (int64_t t = 0; t < len; ++t) ref[base + t] = x[base + len - 1 - t];
        }
      });
    });
    if (out != ref) fail("reverse", "rocjit and C++ disagree");
#ifdef ROCJIT_HAVE_OPENCL
    if (cl.ok) {
      std::vector<float> o(n1);
      cl_mem bi = cl.buffer(x.data(), n1 * 4), bo = cl.buffer(o.data(), n1 * 4);
      r.pocl = cl.time("reverse", [&](cl_kernel kk) {
        clSetKernelArg(kk, 0, sizeof bi, &bi); clSetKernelArg(kk, 1, sizeof bo, &bo); clSetKernelArg(kk, 2, 4, &n1);
      }, {size_t((n1 + 255) / 256 * 256)}, {256});
      clReleaseMemObject(bi); clReleaseMemObject(bo);
    }
#endif
    rows.push_back(r);
  }
  {  // matmul
    HostKernel k = compile_host(samples::matmul().ir());
    Row r{"matmul", std::to_string(mm) + "^3"};
    std::vector<float> a(mm * mm), b(mm * mm), c(mm * mm), ref(mm * mm);
    for (int i = 0; i < mm * mm; ++i) a[i] = float(i % 13) - 6, b[i] = float(i % 7) - 3;
    Args args;
    args.array(a.data(), {mm, mm}).array(b.data(), {mm, mm}).array(c.data(), {mm, mm});
    int g = (mm + 15) / 16;
    r.rocjit = median_ms([&] { run_host(k, {g, g}, {16, 16}, args.data()); });
    r.cxx = median_ms([&] {
      parallel_for(mm, [&](int64_t rb, int64_t re) {
        for (int64_t i = rb; i < re; ++i) {
          float* row = &ref[i * mm];
          std::fill(row, row + mm, 0.0f);
          for (int q = 0; q < mm; ++q) {
            float av = a[i * mm + q];
            for (int j = 0; j < mm; ++j) row[j] += av * b[q * mm + j];
          }
        }
      });
    });
    for (int i = 0; i < mm * mm; i += 97)
      if (!close(c[i], ref[i])) fail("matmul", "rocjit and C++ disagree at " + std::to_string(i));
#ifdef ROCJIT_HAVE_OPENCL
    if (cl.ok) {
      std::vector<float> co(mm * mm);
      cl_mem ba = cl.buffer(a.data(), a.size() * 4), bb = cl.buffer(b.data(), b.size() * 4),
             bc = cl.buffer(co.data(), co.size() * 4);
      r.pocl = cl.time("matmul", [&](cl_kernel kk) {
        clSetKernelArg(kk, 0, sizeof ba, &ba); clSetKernelArg(kk, 1, sizeof bb, &bb); clSetKernelArg(kk, 2, sizeof bc, &bc);
        clSetKernelArg(kk, 3, 4, &mm); clSetKernelArg(kk, 4, 4, &mm); clSetKernelArg(kk, 5, 4, &mm);
      }, {size_t(g * 16), size_t(g * 16)}, {16, 16});
      clReleaseMemObject(ba); clReleaseMemObject(bb); clReleaseMemObject(bc);
    }
#endif
    rows.push_back(r);
  }
  {  // reduce
    HostKernel k = compile_host(samples::reduce().ir());
    Row r{"reduce", std::to_string(n1)};
    int groups = (n1 + 255) / 256;
    std::vector<float> partial(groups), ref(groups);
    Args args;
    args.array(x.data(), {n1}).array(partial.data(), {groups});
    r.rocjit = median_ms([&] { run_host(k, {groups}, {256}, args.data()); });
    r.cxx = median_ms([&] {
      parallel_for(groups, [&](int64_t b, int64_t e) {
        for (int64_t gi = b; gi < e; ++gi) {
          float s = 0;
          for (int64_t i = gi * 256; i < std::min<int64_t>(n1, gi * 256 + 256); ++i) s += x[i];
          ref[gi] = s;
        }
      });
    });
    for (int gi = 0; gi < groups; gi += 31)
      if (!close(partial[gi], ref[gi])) fail("reduce", "rocjit and C++ disagree");
#ifdef ROCJIT_HAVE_OPENCL
    if (cl.ok) {
      std::vector<float> po(groups);
      cl_mem bi = cl.buffer(x.data(), n1 * 4), bp = cl.buffer(po.data(), groups * 4);
      r.pocl = cl.time("reduce", [&](cl_kernel kk) {
        clSetKernelArg(kk, 0, sizeof bi, &bi); clSetKernelArg(kk, 1, sizeof bp, &bp); clSetKernelArg(kk, 2, 4, &n1);
      }, {size_t(groups * 256)}, {256});
      clReleaseMemObject(bi); clReleaseMemObject(bp);
    }
#endif
    rows.push_back(r);
  }
  {  // transpose
    HostKernel k = compile_host(samples::transpose().ir());
    Row r{"transpose", std::to_string(side) + "^2"};
    std::vector<float> in(size_t(side) * side), o(in.size()), ref(in.size());
    for (size_t i = 0; i < in.size(); ++i) in[i] = float(i % 4093);
    Args args;
    args.array(in.data(), {side, side}).array(o.data(), {side, side});
    int g = side / 16;
    r.rocjit = median_ms([&] { run_host(k, {g, g}, {16, 16}, args.data()); });
    r.cxx = median_ms([&] {
      parallel_for(side / 16, [&](int64_t b, int64_t e) {  // 16x16 blocked, like the kernel
        for (int64_t bi = b; bi < e; ++bi)
          for (int bj = 0; bj < side / 16; ++bj)
            for (int i = 0; i < 16; ++i)
              for (int j = 0; j < 16; ++j) ref[(bj * 16 + j) * side + bi * 16 + i] = in[(bi * 16 + i) * side + bj * 16 + j];
      });
    });
    if (o != ref) fail("transpose", "rocjit and C++ disagree");
#ifdef ROCJIT_HAVE_OPENCL
    if (cl.ok) {
      std::vector<float> oo(in.size());
      cl_mem bi = cl.buffer(in.data(), in.size() * 4), bo = cl.buffer(oo.data(), oo.size() * 4);
      r.pocl = cl.time("transpose", [&](cl_kernel kk) {
        clSetKernelArg(kk, 0, sizeof bi, &bi); clSetKernelArg(kk, 1, sizeof bo, &bo);
        clSetKernelArg(kk, 2, 4, &side); clSetKernelArg(kk, 3, 4, &side);
      }, {size_t(side), size_t(side)}, {16, 16});
      clReleaseMemObject(bi); clReleaseMemObject(bo);
    }
#endif
    rows.push_back(r);
  }
  {  // histogram
    HostKernel k = compile_host(samples::histogram().ir());
    Row r{"histogram", std::to_string(n1)};
    std::vector<uint32_t> data(n1), hist(256), ref(256);
    for (int i = 0; i < n1; ++i) data[i] = uint32_t(i) * 2654435761u;
    Args args;
    args.array(data.data(), {n1}).array(hist.data(), {256});
    int groups = 64;
    r.rocjit = median_ms([&] {
      std::fill(hist.begin(), hist.end(), 0u);
      run_host(k, {groups}, {256}, args.data());
    });
    r.cxx = median_ms([&] {
      std::vector<std::vector<uint32_t>> local(host_thread_count(), std::vector<uint32_t>(256));
      std::fill(ref.begin(), ref.end(), 0u);
      unsigned t = host_thread_count();
      int64_t chunk = (n1 + t - 1) / t;
      std::vector<std::thread> threads;
      for (unsigned w = 0; w < t; ++w)
        threads.emplace_back([&, w] {
          for (int64_t i = w * chunk; i < std::min<int64_t>(n1, (w + 1) * chunk); ++i) ++local[w][data[i] % 256];
        });
      for (auto& th : threads) th.join();
      for (auto& l : local)
        for (int b = 0; b < 256; ++b) ref[b] += l[b];
    });
    if (hist != ref) fail("histogram", "rocjit and C++ disagree");
#ifdef ROCJIT_HAVE_OPENCL
    if (cl.ok) {
      std::vector<uint32_t> ho(256);
      cl_mem bd = cl.buffer(data.data(), n1 * 4), bh = cl.buffer(ho.data(), 256 * 4);
      r.pocl = cl.time("histogram", [&](cl_kernel kk) {
        clSetKernelArg(kk, 0, sizeof bd, &bd); clSetKernelArg(kk, 1, sizeof bh, &bh); clSetKernelArg(kk, 2, 4, &n1);
      }, {size_t(groups * 256)}, {256}, [&] {
        uint32_t zero = 0;
        clEnqueueFillBuffer(cl.queue, bh, &zero, 4, 0, 256 * 4, 0, nullptr, nullptr);
      });
      clReleaseMemObject(bd); clReleaseMemObject(bh);
    }
#endif
    rows.push_back(r);
  }
  {  // jacobi
    HostKernel k = compile_host(samples::jacobi().ir());
    Row r{"jacobi", std::to_string(side) + "^2"};
    std::vector<float> in(size_t(side) * side), o(in.size(), 0.0f), ref(in.size(), 0.0f);
    for (size_t i = 0; i < in.size(); ++i) in[i] = float(i % 977);
    Args args;
    args.array(in.data(), {side, side}).array(o.data(), {side, side});
    int gx = side / 32, gy = side / 8;
    r.rocjit = median_ms([&] { run_host(k, {gx, gy}, {32, 8}, args.data()); });
    r.cxx = median_ms([&] {
      parallel_for(side - 2, [&](int64_t b, int64_t e) {
        for (int64_t i = b + 1; i < e + 1; ++i)
          for (int j = 1; j < side - 1; ++j)
            ref[i * side + j] = 0.25f * (in[(i - 1) * side + j] + in[(i + 1) * side + j] + in[i * side + j - 1] +
                                         in[i * side + j + 1]);
      });
    });
    if (o != ref) fail("jacobi", "rocjit and C++ disagree");
#ifdef ROCJIT_HAVE_OPENCL
    if (cl.ok) {
      std::vector<float> oo(in.size());
      cl_mem bi = cl.buffer(in.data(), in.size() * 4), bo = cl.buffer(oo.data(), oo.size() * 4);
      r.pocl = cl.time("jacobi", [&](cl_kernel kk) {
        clSetKernelArg(kk, 0, sizeof bi, &bi); clSetKernelArg(kk, 1, sizeof bo, &bo);
        clSetKernelArg(kk, 2, 4, &side); clSetKernelArg(kk, 3, 4, &side);
      }, {size_t(side), size_t(side)}, {32, 8});
      clReleaseMemObject(bi); clReleaseMemObject(bo);
    }
#endif
    rows.push_back(r);
  }
  print(rows, pocl_device);
  std::printf("PASS\n");
  return 0;
}
