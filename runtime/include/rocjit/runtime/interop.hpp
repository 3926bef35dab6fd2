// rocjit inside an existing application: memory and streams the application owns, and DLPack.
// No HIP or DLPack header here: handles are void*, DLManagedTensor is declared (include
// <dlpack/dlpack.h>, Debian's libdlpack-dev, to fill or read one).
#pragma once

#include <cstdint>
#include <memory>
#include <source_location>
#include <vector>

#include "rocjit/runtime/array.hpp"
#include "rocjit/runtime/stream.hpp"

struct DLManagedTensor;

namespace rocjit {

/// How external_array() lays out and keeps the memory it wraps.
struct ExternalArrayOptions {
  /// Byte strides per dimension (NumPy's convention); empty: contiguous in `order`.
  std::vector<int64_t> strides;
  /// Element order when `strides` is empty.
  Order order = Order::C;
  /// The device whose memory it is: a HIP device pointer for hip:N and sim:* devices (memory
  /// from that device's hipMalloc), a host pointer for cpu and interp. Empty: the default device.
  Device device;
  /// Kept alive (and released when the last view and the last pending operation using the memory
  /// are gone): e.g. a shared_ptr whose deleter frees the memory. rocjit never frees the memory
  /// itself.
  std::shared_ptr<void> owner;
  /// Bytes the application's buffer holds from `pointer` on; when given (non-zero), the view must
  /// lie inside them.
  uint64_t bytes = 0;
};

namespace runtime {
/// Untyped external_array().
DeviceArrayBase wrap_external(void* pointer, ir::Type dtype, const Shape& shape, const ExternalArrayOptions& options,
                              const std::source_location& loc);
/// Untyped from_dlpack(); `dtype` is what the caller's T needs.
DeviceArrayBase import_dlpack(DLManagedTensor* tensor, ir::Type dtype, const Device& device,
                              const std::source_location& loc);
}  // namespace runtime

/// A DeviceArray view of memory the application owns, at `pointer` with `shape` (and the strides,
/// device and owner of `options`). Launches, copies, slices and fill use it like any array; rocjit
/// never frees it. Bad input (a null pointer, a pointer not aligned to the element, strides that
/// do not match the shape or are not positive multiples of the element size, a view larger than
/// options.bytes) is a MemoryError naming the caller's file:line.
template <class T>
DeviceArray<T> external_array(T* pointer, const Shape& shape, const ExternalArrayOptions& options = {},
                              std::source_location loc = std::source_location::current()) {
  return DeviceArray<T>(runtime::wrap_external(pointer, dtype_of<T>(), shape, options, loc));
}

/// Wraps a stream the application made (a hipStream_t, passed as void*) on a HIP or simulator
/// device: launches and copies on the returned Stream go to it, in order with the application's
/// own work there. rocjit never destroys it: it must outlive the Stream and the work rocjit
/// enqueued on it. A null handle or a device without native streams (cpu, interp) is a
/// DeviceError.
Stream external_stream(void* hip_stream, const Device& device = {});

/// Imports a DLPack tensor without a copy: a view of its memory that owns `tensor` and calls
/// its deleter once the last view and pending operation using it are gone. kDLCPU tensors go to
/// the CPU device (or `device`, when it is cpu or interp), kDLROCM ones to the HIP device (or
/// simulator device) of the tensor's device_id. The element type must be T; rank 1..3; strides
/// (in elements) positive or absent (compact row-major). Anything else is a MemoryError naming
/// the caller's file:line, and the tensor stays the caller's (its deleter is not called).
template <class T>
DeviceArray<T> from_dlpack(DLManagedTensor* tensor, const Device& device = {},
                           std::source_location loc = std::source_location::current()) {
  return DeviceArray<T>(runtime::import_dlpack(tensor, dtype_of<T>(), device, loc));
}

/// Exports an array or view as a DLPack tensor without a copy (kDLCPU for cpu and interp,
/// kDLROCM with the HIP device index for hip:N and sim:*; data is the allocation's
/// start and byte_offset the view's offset; strides in elements). The tensor keeps the memory
/// alive until its consumer calls its deleter.
DLManagedTensor* to_dlpack(const DeviceArrayBase& array);

}  // namespace rocjit
