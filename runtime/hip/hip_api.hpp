// The HIP runtime entry points rocjit uses, loaded with dlopen so that a binary built here runs
// on machines with any ROCm >= 5 and on machines without one.
#pragma once

#ifndef __HIP_PLATFORM_AMD__
#define __HIP_PLATFORM_AMD__
#endif
#include <hip/hip_runtime_api.h>

#include <string>

namespace rocjit::runtime::hip {

struct Api {
  void* library = nullptr;
  std::string path;
  // libamdsim-hip.so (the AMDGPU simulator behind the HIP API) exports this too: its message for
  // the last call that failed on this thread. Null for a real HIP runtime.
  const char* (*amdsimLastError)() = nullptr;
  // The simulator's race checker (ROCJIT_CHECK=races): amdsimSetLaunchChecks(flags) sets what the
  // launches this thread submits next check (amdsim_check_* below); amdsimTakeReports() returns
  // and clears the reports of checked launches that succeeded (report-only). Null on real HIP.
  void (*amdsimSetLaunchChecks)(unsigned) = nullptr;
  const char* (*amdsimTakeReports)() = nullptr;
  static constexpr unsigned amdsim_check_races = 1, amdsim_check_same_value = 2, amdsim_check_report_only = 4;
#define ROCJIT_HIP_FUNCTIONS(X)                                                                        \
  X(hipInit, hipError_t (*)(unsigned))                                                                 \
  X(hipGetDeviceCount, hipError_t (*)(int*))                                                           \
  X(hipGetDeviceProperties, hipError_t (*)(hipDeviceProp_t*, int))                                     \
  X(hipSetDevice, hipError_t (*)(int))                                                                 \
  X(hipRuntimeGetVersion, hipError_t (*)(int*))                                                        \
  X(hipGetErrorName, const char* (*)(hipError_t))                                                      \
  X(hipMalloc, hipError_t (*)(void**, size_t))                                                         \
  X(hipFree, hipError_t (*)(void*))                                                                    \
  X(hipMemGetInfo, hipError_t (*)(size_t*, size_t*))                                                   \
  X(hipHostMalloc, hipError_t (*)(void**, size_t, unsigned))                                           \
  X(hipHostFree, hipError_t (*)(void*))                                                                \
  X(hipHostRegister, hipError_t (*)(void*, size_t, unsigned))                                          \
  X(hipHostUnregister, hipError_t (*)(void*))                                                          \
  X(hipHostGetDevicePointer, hipError_t (*)(void**, void*, unsigned))                                  \
  X(hipMallocManaged, hipError_t (*)(void**, size_t, unsigned))                                        \
  X(hipMemcpyAsync, hipError_t (*)(void*, const void*, size_t, hipMemcpyKind, hipStream_t))            \
  X(hipStreamCreateWithFlags, hipError_t (*)(hipStream_t*, unsigned))                                  \
  X(hipStreamDestroy, hipError_t (*)(hipStream_t))                                                     \
  X(hipStreamGetFlags, hipError_t (*)(hipStream_t, unsigned*))                                         \
  X(hipStreamSynchronize, hipError_t (*)(hipStream_t))                                                 \
  X(hipStreamWaitEvent, hipError_t (*)(hipStream_t, hipEvent_t, unsigned))                             \
  X(hipStreamAddCallback, hipError_t (*)(hipStream_t, hipStreamCallback_t, void*, unsigned))           \
  X(hipEventCreate, hipError_t (*)(hipEvent_t*))                                                       \
  X(hipEventDestroy, hipError_t (*)(hipEvent_t))                                                       \
  X(hipEventRecord, hipError_t (*)(hipEvent_t, hipStream_t))                                           \
  X(hipEventSynchronize, hipError_t (*)(hipEvent_t))                                                   \
  X(hipEventQuery, hipError_t (*)(hipEvent_t))                                                         \
  X(hipEventElapsedTime, hipError_t (*)(float*, hipEvent_t, hipEvent_t))                               \
  X(hipModuleLoadData, hipError_t (*)(hipModule_t*, const void*))                                      \
  X(hipModuleUnload, hipError_t (*)(hipModule_t))                                                      \
  X(hipModuleGetFunction, hipError_t (*)(hipFunction_t*, hipModule_t, const char*))                    \
  X(hipModuleLaunchKernel, hipError_t (*)(hipFunction_t, unsigned, unsigned, unsigned, unsigned,      \
                                          unsigned, unsigned, unsigned, hipStream_t, void**, void**))
#define ROCJIT_HIP_MEMBER(name, type) \
  using name##_type = type;           \
  name##_type name = nullptr;
  ROCJIT_HIP_FUNCTIONS(ROCJIT_HIP_MEMBER)
#undef ROCJIT_HIP_MEMBER

  // Throws DeviceError "CALL failed: hipErrorName (code)" when `e` is not hipSuccess, followed
  // by the simulator's message when there is one.
  void check(hipError_t e, const char* call) const;
  // "CALL failed: hipErrorName (code)[: simulator message]".
  std::string describe(hipError_t e, const char* call) const;
};

// The loaded API, or nullptr with `why` saying which libraries were tried.
const Api* load(std::string& why);

// The AMDGPU simulator's HIP library, libamdsim-hip.so, loaded as a second Api (a real HIP
// runtime may be loaded too). Looked for in $ROCJIT_SIM_LIBRARY, next to librocjit.so, in the
// build tree rocjit was built in, then in the install prefix. Nullptr with `why` saying where it looked.
const Api* load_simulator(std::string& why);

}  // namespace rocjit::runtime::hip
