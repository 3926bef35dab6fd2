// The PoCL executor (plain OpenCL C API) and the comparison of two executors' outputs.
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "smith.hpp"

namespace smith {

namespace {

void check(cl_int status, const char* what) {
  if (status != CL_SUCCESS) throw std::runtime_error(std::string("OpenCL: ") + what + " failed with error " + std::to_string(status));
}

struct Context {
  cl_device_id device = nullptr;
  cl_context context = nullptr;
  cl_command_queue queue = nullptr;
  std::string why;

  Context() {
    cl_uint count = 0;
    if (clGetPlatformIDs(0, nullptr, &count) != CL_SUCCESS || count == 0) {
      why = "no OpenCL platform";
      return;
    }
    std::vector<cl_platform_id> platforms(count);
    clGetPlatformIDs(count, platforms.data(), nullptr);
    for (cl_platform_id platform : platforms) {
      char name[256] = {};
      clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof name - 1, name, nullptr);
      if (!std::strstr(name, "Portable Computing Language")) continue;
      if (clGetDeviceIDs(platform, CL_DEVICE_TYPE_CPU, 1, &device, nullptr) != CL_SUCCESS) continue;
      cl_int status = CL_SUCCESS;
      context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &status);
      check(status, "clCreateContext");
      queue = clCreateCommandQueue(context, device, 0, &status);
      check(status, "clCreateCommandQueue");
      return;
    }
    why = "no PoCL CPU device among " + std::to_string(count) + " OpenCL platform(s)";
  }
};

Context& ctx() {
  static Context c;
  return c;
}

struct Mem {
  cl_mem m = nullptr;
  ~Mem() {
    if (m) clReleaseMemObject(m);
  }
};

// Every buffer is followed by a guard zone of known bytes. A kernel PoCL miscompiles can index
// past an output (seen with the loop-nest bug of tests/smith/known-external.md); the guard keeps
// that from corrupting the process's heap, and a changed guard becomes an error naming the array.
constexpr size_t kGuardBytes = 4096;
constexpr unsigned char kGuardByte = 0xc5;

template <class T>
void make(Mem& m, const std::vector<T>& host) {
  std::vector<unsigned char> bytes(host.size() * sizeof(T) + kGuardBytes, kGuardByte);
  if (!host.empty()) std::memcpy(bytes.data(), host.data(), host.size() * sizeof(T));
  cl_int status = CL_SUCCESS;
  m.m = clCreateBuffer(ctx().context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes.size(), bytes.data(), &status);
  check(status, "clCreateBuffer");
}
// Throws when the kernel changed the guard zone behind the buffer's `elements` elements.
template <class T>
void check_guard(Mem& m, size_t elements, const char* name) {
  const size_t used = elements * sizeof(T);
  std::vector<unsigned char> guard(kGuardBytes);
  check(clEnqueueReadBuffer(ctx().queue, m.m, CL_TRUE, used, guard.size(), guard.data(), 0, nullptr, nullptr),
        "clEnqueueReadBuffer");
  for (size_t i = 0; i < guard.size(); ++i)
    if (guard[i] != kGuardByte)
      throw std::runtime_error("pocl: the kernel wrote past the end of " + std::string(name) + " (" + std::to_string(elements) +
                               " elements), at byte " + std::to_string(i) + " after it");
}
template <class T>
void read(Mem& m, std::vector<T>& host, const char* name) {
  check_guard<T>(m, host.size(), name);
  if (host.empty()) return;
  check(clEnqueueReadBuffer(ctx().queue, m.m, CL_TRUE, 0, host.size() * sizeof(T), host.data(), 0, nullptr, nullptr),
        "clEnqueueReadBuffer");
}

}  // namespace

bool pocl_available(std::string& why) {
  why = ctx().why;
  return ctx().context != nullptr;
}

void run_pocl(const Program& p, Buffers& b, bool inject) {
  Context& c = ctx();
  if (!c.context) throw std::runtime_error("pocl: " + c.why);
  std::string src = to_opencl(p, inject);
  const char* text = src.c_str();
  cl_int status = CL_SUCCESS;
  cl_program prog = clCreateProgramWithSource(c.context, 1, &text, nullptr, &status);
  check(status, "clCreateProgramWithSource");
  struct Release {
    cl_program p;
    cl_kernel k = nullptr;
    ~Release() {
      if (k) clReleaseKernel(k);
      clReleaseProgram(p);
    }
  } release{prog};
  // PoCL 3.1 builds through temporary files in its kernel cache, and two builds at once can
  // rename each other's away ("unable to rename temporary ... No such file or directory", seen
  // with --jobs=2): one build at a time.
  static std::mutex build_lock;
  std::unique_lock<std::mutex> building(build_lock);
  const cl_int built = clBuildProgram(prog, 1, &c.device, "-cl-std=CL1.2 -cl-fp32-correctly-rounded-divide-sqrt -w", nullptr, nullptr);
  building.unlock();
  if (built != CL_SUCCESS) {
    size_t size = 0;
    clGetProgramBuildInfo(prog, c.device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size);
    std::string log(size, '\0');
    clGetProgramBuildInfo(prog, c.device, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr);
    throw std::runtime_error("pocl: the OpenCL C does not build:\n" + log);
  }
  cl_kernel k = clCreateKernel(prog, "smith", &status);
  check(status, "clCreateKernel");
  release.k = k;
  Mem m[15];
  make(m[0], b.in_i), make(m[1], b.in_u), make(m[2], b.in_l), make(m[3], b.in_f), make(m[4], b.in_d);
  make(m[5], b.out_i), make(m[6], b.out_u), make(m[7], b.out_l), make(m[8], b.out_f), make(m[9], b.out_d);
  make(m[10], b.ap_f), make(m[11], b.ap_d), make(m[12], b.at_i), make(m[13], b.at_u), make(m[14], b.at_l);
  for (cl_uint i = 0; i < 15; ++i) check(clSetKernelArg(k, i, sizeof(cl_mem), &m[i].m), "clSetKernelArg");
  size_t global[3], local[3];
  for (int d = 0; d < 3; ++d) {
    local[d] = static_cast<size_t>(p.l[d]);
    global[d] = static_cast<size_t>(p.grid(d)) * local[d];
  }
  check(clEnqueueNDRangeKernel(c.queue, k, 3, nullptr, global, local, 0, nullptr, nullptr), "clEnqueueNDRangeKernel");
  check(clFinish(c.queue), "clFinish");
  // Inputs: only their guards.
  check_guard<int32_t>(m[0], b.in_i.size(), "in_i"), check_guard<uint32_t>(m[1], b.in_u.size(), "in_u"),
      check_guard<int64_t>(m[2], b.in_l.size(), "in_l"), check_guard<float>(m[3], b.in_f.size(), "in_f"),
      check_guard<double>(m[4], b.in_d.size(), "in_d");
  read(m[5], b.out_i, "out_i"), read(m[6], b.out_u, "out_u"), read(m[7], b.out_l, "out_l"), read(m[8], b.out_f, "out_f"),
      read(m[9], b.out_d, "out_d");
  read(m[10], b.ap_f, "ap_f"), read(m[11], b.ap_d, "ap_d"), read(m[12], b.at_i, "at_i"), read(m[13], b.at_u, "at_u"),
      read(m[14], b.at_l, "at_l");
}

namespace {

bool is_loop(const Stmt& s) { return s.k == SK::for_ || s.k == SK::while_; }

// Whether `body` assigns a variable or stores to a local (private) array.
bool assigns_variable(const std::vector<Stmt>& body) {
  for (const Stmt& s : body)
    if (s.k == SK::assign || s.k == SK::store_local || assigns_variable(s.body) || assigns_variable(s.els)) return true;
  return false;
}

// Whether a loop in `v` contains (through Ifs and further loops) a nested loop that assigns a
// variable.
bool loop_nest_assigning_variable(const std::vector<Stmt>& v, bool inside_loop) {
  for (const Stmt& s : v) {
    if (is_loop(s) && inside_loop && assigns_variable(s.body)) return true;
    if (loop_nest_assigning_variable(s.body, inside_loop || is_loop(s)) ||
        loop_nest_assigning_variable(s.els, inside_loop))
      return true;
  }
  return false;
}

// Whether the OpenCL C of `e` rounds a double (or an integer, through a double) to half: rhd(),
// vstore_half_rte of a double. Written conservatively: any node where f16 meets an integer or an
// f64 operand.
bool rounds_double_to_half(const Expr& e) {
  bool f16 = e.t == Ty::f16, wide = false;
  for (const Expr& k : e.kids) {
    if (rounds_double_to_half(k)) return true;
    f16 |= k.t == Ty::f16;
    wide |= is_int(k.t) || k.t == Ty::f64;
  }
  return f16 && wide;
}
bool rounds_double_to_half(const std::vector<Stmt>& v) {
  for (const Stmt& s : v) {
    for (const Expr& e : s.e)
      if (rounds_double_to_half(e) || (s.t == Ty::f16 && (is_int(e.t) || e.t == Ty::f64))) return true;
    if (rounds_double_to_half(s.body) || rounds_double_to_half(s.els)) return true;
  }
  return false;
}
// Whether a loop in `v` (at any depth) rounds a double to half in its body.
bool loop_rounding_double_to_half(const std::vector<Stmt>& v) {
  for (const Stmt& s : v) {
    if (is_loop(s) && rounds_double_to_half(s.body)) return true;
    if (loop_rounding_double_to_half(s.body) || loop_rounding_double_to_half(s.els)) return true;
  }
  return false;
}

// Whether `v` has (at any depth) a For whose counter starts below zero, so that its bound
// (norm(..) + begin) is negative for some work-items.
bool loop_from_negative(const std::vector<Stmt>& v) {
  for (const Stmt& s : v) {
    if (s.k == SK::for_ && s.b < 0) return true;
    if (loop_from_negative(s.body) || loop_from_negative(s.els)) return true;
  }
  return false;
}

}  // namespace

const char* pocl_known_bug(const Program& p) {
  // tests/smith/known-external.md, "PoCL 3.1: loop nests in kernels with barriers": in a kernel
  // with a barrier, a variable assigned in an inner loop can end with the last work-item's value
  // in every work-item when the loops' trip counts or exits differ between work-items.
  if (p.phases.size() > 1)
    for (const auto& phase : p.phases)
      if (loop_nest_assigning_variable(phase, false))
        return "PoCL 3.1 loop-nest bug (an inner loop assigns a variable or private array, kernel with barriers)";
  // known-external.md, "PoCL 3.1: a work-group one work-item wide runs a region twice": with
  // barriers, an x extent of 1 and 3 or more work-items along y (z not tried), one work-item runs
  // the code before a conditional loop twice (an atomic add counted once too often).
  if (p.phases.size() > 1 && p.l[0] == 1 && p.l[1] * p.l[2] >= 3)
    return "PoCL 3.1 narrow-group bug (work-group x extent 1, 3 or more work-items along y/z, kernel with barriers)";
  // known-external.md, "PoCL 3.1: a loop bound below zero for some work-items, kernel with
  // barriers": work-items that run the loop end with the value of those that skip it.
  if (p.phases.size() > 1)
    for (const auto& phase : p.phases)
      if (loop_from_negative(phase))
        return "PoCL 3.1 negative-bound loop bug (a For counts from below zero, kernel with barriers)";
  // known-external.md, "PoCL 3.1: double-to-half rounding in a loop of a kernel with barriers".
  if (p.phases.size() > 1)
    for (const auto& phase : p.phases)
      if (loop_rounding_double_to_half(phase))
        return "PoCL 3.1 half-of-double bug (a loop rounds a double to half, kernel with barriers)";
  return nullptr;
}

namespace {

// Distance in units in the last place between two finite-or-infinite values of one type.
template <class F, class I>
uint64_t ulps(F a, F b) {
  auto key = [](F x) {
    I i = std::bit_cast<I>(x);
    return i < 0 ? std::numeric_limits<I>::min() - i : i;  // monotonic in x, -0 == +0
  };
  I ka = key(a), kb = key(b);
  return ka > kb ? static_cast<uint64_t>(ka) - static_cast<uint64_t>(kb) : static_cast<uint64_t>(kb) - static_cast<uint64_t>(ka);
}

template <class T>
std::string exact(const char* name, const std::vector<T>& a, const std::vector<T>& b) {
  for (size_t i = 0; i < a.size(); ++i) {
    bool same;
    if constexpr (std::is_floating_point_v<T>) same = (std::isnan(a[i]) && std::isnan(b[i])) || std::memcmp(&a[i], &b[i], sizeof(T)) == 0;
    else same = a[i] == b[i];
    if (!same) {
      char buf[200];
      if constexpr (std::is_floating_point_v<T>)
        std::snprintf(buf, sizeof buf, "%s[%zu]: %.17g (%a) vs %.17g (%a)", name, i, (double)a[i], (double)a[i], (double)b[i], (double)b[i]);
      else
        std::snprintf(buf, sizeof buf, "%s[%zu]: %lld vs %lld", name, i, (long long)a[i], (long long)b[i]);
      return buf;
    }
  }
  return "";
}

template <class F, class I>
std::string approx(const char* name, const std::vector<F>& a, const std::vector<F>& b, uint64_t max_ulps, double abs_tol) {
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::isnan(a[i]) && std::isnan(b[i])) continue;
    if (std::isnan(a[i]) != std::isnan(b[i]) || (ulps<F, I>(a[i], b[i]) > max_ulps && std::fabs((double)a[i] - (double)b[i]) > abs_tol)) {
      char buf[200];
      std::snprintf(buf, sizeof buf, "%s[%zu]: %.17g (%a) vs %.17g (%a), %llu ulp", name, i, (double)a[i], (double)a[i], (double)b[i],
                    (double)b[i], (unsigned long long)(std::isnan(a[i]) || std::isnan(b[i]) ? 0 : ulps<F, I>(a[i], b[i])));
      return buf;
    }
  }
  return "";
}

}  // namespace

std::string compare(const Program&, const Buffers& a, const Buffers& b) {
  std::string d;
  if (!(d = exact("out_i", a.out_i, b.out_i)).empty()) return d;
  if (!(d = exact("out_u", a.out_u, b.out_u)).empty()) return d;
  if (!(d = exact("out_l", a.out_l, b.out_l)).empty()) return d;
  if (!(d = exact("out_f", a.out_f, b.out_f)).empty()) return d;
  if (!(d = exact("out_d", a.out_d, b.out_d)).empty()) return d;
  if (!(d = exact("at_i", a.at_i, b.at_i)).empty()) return d;
  if (!(d = exact("at_u", a.at_u, b.at_u)).empty()) return d;
  if (!(d = exact("at_l", a.at_l, b.at_l)).empty()) return d;
  if (!(d = approx<float, int32_t>("ap_f", a.ap_f, b.ap_f, kApproxUlpF32, kApproxAbsF32)).empty()) return d;
  if (!(d = approx<double, int64_t>("ap_d", a.ap_d, b.ap_d, kApproxUlpF64, kApproxAbsF64)).empty()) return d;
  return "";
}

}  // namespace smith
