// Runs the kernel `t(const int* in, float* out)` of an OpenCL C file on the first CPU device, as
// one work-group of 4 work-items (or, with `X Y` or `X Y Z` after the file, one 2-D or 3-D
// work-group) with in = {0, 0, 31, 101, 100}, and prints out[0..3]. With --uint before the file
// the kernel is `t(const int* in, uint* out)` and out is printed as unsigned integers.
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

int main(int argc, char** argv) {
  const bool as_uint = argc > 1 && std::string(argv[1]) == "--uint";
  if (as_uint) --argc, ++argv;
  if (argc != 2 && argc != 4 && argc != 5) return std::fprintf(stderr, "usage: pocl-run [--uint] FILE.cl [X Y [Z]]\n"), 2;
  std::ifstream file(argv[1]);
  std::stringstream text;
  text << file.rdbuf();
  std::string source = text.str();
  cl_platform_id platform;
  cl_device_id device;
  cl_int status = clGetPlatformIDs(1, &platform, nullptr);
  if (status == CL_SUCCESS) status = clGetDeviceIDs(platform, CL_DEVICE_TYPE_CPU, 1, &device, nullptr);
  if (status != CL_SUCCESS) return std::fprintf(stderr, "no OpenCL CPU device\n"), 1;
  cl_context context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &status);
  cl_command_queue queue = clCreateCommandQueue(context, device, 0, &status);
  const char* src = source.c_str();
  cl_program program = clCreateProgramWithSource(context, 1, &src, nullptr, &status);
  if (clBuildProgram(program, 1, &device, "-cl-std=CL1.2", nullptr, nullptr) != CL_SUCCESS) {
    char log[16384] = {};
    clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, nullptr);
    return std::fprintf(stderr, "%s\n", log), 1;
  }
  cl_kernel kernel = clCreateKernel(program, "t", &status);
  int in[5] = {0, 0, 31, 101, 100};
  float out[4] = {};
  cl_mem in_buffer = clCreateBuffer(context, CL_MEM_COPY_HOST_PTR, sizeof in, in, &status);
  cl_mem out_buffer = clCreateBuffer(context, CL_MEM_COPY_HOST_PTR, sizeof out, out, &status);
  clSetKernelArg(kernel, 0, sizeof in_buffer, &in_buffer);
  clSetKernelArg(kernel, 1, sizeof out_buffer, &out_buffer);
  size_t size[3] = {4, 1, 1};
  if (argc >= 4) size[0] = std::strtoul(argv[2], nullptr, 10), size[1] = std::strtoul(argv[3], nullptr, 10);
  if (argc == 5) size[2] = std::strtoul(argv[4], nullptr, 10);
  clEnqueueNDRangeKernel(queue, kernel, argc - 2 > 0 ? argc - 2 : 1, nullptr, size, size, 0, nullptr, nullptr);
  clEnqueueReadBuffer(queue, out_buffer, CL_TRUE, 0, sizeof out, out, 0, nullptr, nullptr);
  if (as_uint) {
    unsigned u[4];
    std::memcpy(u, out, sizeof u);
    std::printf("%u %u %u %u\n", u[0], u[1], u[2], u[3]);
  } else {
    std::printf("%g %g %g %g\n", out[0], out[1], out[2], out[3]);
  }
  return 0;
}
