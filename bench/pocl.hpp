// The PoCL side of bench-cpu: finds PoCL's CPU device, builds OpenCL C from a source string and
// runs kernels to completion (enqueue + clFinish), through the plain OpenCL C API.
#pragma once

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace bench {

inline void check_cl(cl_int status, const std::string& what) {
  if (status != CL_SUCCESS) throw std::runtime_error("OpenCL: " + what + " failed with error " + std::to_string(status));
}

// A device buffer that releases itself.
class ClBuffer {
 public:
  explicit ClBuffer(cl_mem mem) : mem_(mem) {}
  ClBuffer(ClBuffer&& other) noexcept : mem_(std::exchange(other.mem_, nullptr)) {}
  ClBuffer(const ClBuffer&) = delete;
  ClBuffer& operator=(const ClBuffer&) = delete;
  ~ClBuffer() {
    if (mem_) clReleaseMemObject(mem_);
  }
  cl_mem get() const { return mem_; }

 private:
  cl_mem mem_;
};

class Pocl {
 public:
  // Leaves available() false, with the reason, when there is no PoCL CPU device; throws when
  // PoCL is there but `source` does not build (a bug in the bench, not a missing runtime).
  explicit Pocl(const char* source) {
    cl_uint count = 0;
    if (clGetPlatformIDs(0, nullptr, &count) != CL_SUCCESS || count == 0) {
      reason_ = "no OpenCL platform";
      return;
    }
    std::vector<cl_platform_id> platforms(count);
    check_cl(clGetPlatformIDs(count, platforms.data(), nullptr), "clGetPlatformIDs");
    for (cl_platform_id platform : platforms) {
      char name[256] = {};
      clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof name - 1, name, nullptr);
      if (!std::strstr(name, "Portable Computing Language")) continue;
      if (clGetDeviceIDs(platform, CL_DEVICE_TYPE_CPU, 1, &device_, nullptr) != CL_SUCCESS) continue;
      char device_name[256] = {};
      clGetDeviceInfo(device_, CL_DEVICE_NAME, sizeof device_name - 1, device_name, nullptr);
      device_name_ = device_name;
      clGetDeviceInfo(device_, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof compute_units_, &compute_units_, nullptr);
      cl_int status = CL_SUCCESS;
      context_ = clCreateContext(nullptr, 1, &device_, nullptr, nullptr, &status);
      check_cl(status, "clCreateContext");
      queue_ = clCreateCommandQueue(context_, device_, 0, &status);
      check_cl(status, "clCreateCommandQueue");
      program_ = clCreateProgramWithSource(context_, 1, &source, nullptr, &status);
      check_cl(status, "clCreateProgramWithSource");
      if (clBuildProgram(program_, 1, &device_, "-cl-std=CL1.2", nullptr, nullptr) != CL_SUCCESS) {
        size_t size = 0;
        clGetProgramBuildInfo(program_, device_, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size);
        std::string log(size, '\0');
        clGetProgramBuildInfo(program_, device_, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr);
        throw std::runtime_error("PoCL could not build the bench's OpenCL C:\n" + log);
      }
      return;
    }
    reason_ = "no PoCL CPU device among " + std::to_string(count) + " OpenCL platform(s)";
  }
  ~Pocl() {
    for (cl_kernel k : kernels_) clReleaseKernel(k);
    if (program_) clReleaseProgram(program_);
    if (queue_) clReleaseCommandQueue(queue_);
    if (context_) clReleaseContext(context_);
  }
  Pocl(const Pocl&) = delete;
  Pocl& operator=(const Pocl&) = delete;

  bool available() const { return program_ != nullptr; }
  const std::string& unavailable_reason() const { return reason_; }
  const std::string& device_name() const { return device_name_; }
  cl_uint compute_units() const { return compute_units_; }

  // A device buffer holding a copy of `host`, made once, before anything is timed.
  template <class T>
  ClBuffer buffer(const std::vector<T>& host) {
    cl_int status = CL_SUCCESS;
    cl_mem mem = clCreateBuffer(context_, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, host.size() * sizeof(T),
                                const_cast<T*>(host.data()), &status);
    check_cl(status, "clCreateBuffer");
    return ClBuffer(mem);
  }

  template <class T>
  std::vector<T> read(const ClBuffer& buffer, size_t count) {
    std::vector<T> host(count);
    check_cl(clEnqueueReadBuffer(queue_, buffer.get(), CL_TRUE, 0, count * sizeof(T), host.data(), 0, nullptr, nullptr),
             "clEnqueueReadBuffer");
    return host;
  }

  // Overwrites the buffer with `host` (outside timed regions: resets in-place kernels' inputs).
  template <class T>
  void write(const ClBuffer& buffer, const std::vector<T>& host) {
    check_cl(clEnqueueWriteBuffer(queue_, buffer.get(), CL_TRUE, 0, host.size() * sizeof(T), host.data(), 0, nullptr,
                                  nullptr),
             "clEnqueueWriteBuffer");
  }

  void zero(const ClBuffer& buffer, size_t bytes) {
    const cl_uint zero = 0;
    check_cl(clEnqueueFillBuffer(queue_, buffer.get(), &zero, sizeof zero, 0, bytes, 0, nullptr, nullptr),
             "clEnqueueFillBuffer");
    check_cl(clFinish(queue_), "clFinish");
  }

  // The kernel `name` with its arguments set, in order: ClBuffers, ints, floats.
  template <class... Args>
  cl_kernel kernel(const char* name, const Args&... args) {
    cl_int status = CL_SUCCESS;
    cl_kernel k = clCreateKernel(program_, name, &status);
    check_cl(status, std::string("clCreateKernel(") + name + ")");
    kernels_.push_back(k);
    cl_uint index = 0;
    (set_argument(k, name, index++, args), ...);
    return k;
  }

  // One launch over `global` work-items in groups of `local`, returning when it is done.
  void run(cl_kernel k, const std::vector<size_t>& global, const std::vector<size_t>& local) {
    check_cl(clEnqueueNDRangeKernel(queue_, k, static_cast<cl_uint>(global.size()), nullptr, global.data(),
                                    local.data(), 0, nullptr, nullptr),
             "clEnqueueNDRangeKernel");
    check_cl(clFinish(queue_), "clFinish");
  }

 private:
  static void set_argument(cl_kernel k, const char* name, cl_uint index, const ClBuffer& buffer) {
    cl_mem mem = buffer.get();
    check_cl(clSetKernelArg(k, index, sizeof mem, &mem), std::string("clSetKernelArg(") + name + ")");
  }
  template <class T>
  static void set_argument(cl_kernel k, const char* name, cl_uint index, const T& value) {
    check_cl(clSetKernelArg(k, index, sizeof value, &value), std::string("clSetKernelArg(") + name + ")");
  }

  cl_device_id device_ = nullptr;
  cl_context context_ = nullptr;
  cl_command_queue queue_ = nullptr;
  cl_program program_ = nullptr;
  std::vector<cl_kernel> kernels_;
  std::string device_name_, reason_;
  cl_uint compute_units_ = 0;
};

}  // namespace bench
