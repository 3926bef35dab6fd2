// Pinned (page-locked) and registered host memory, after Numba's pinned_array, pinned() and
// the ROC target's register()/deregister().
#pragma once

#include <cstddef>
#include <span>
#include <utility>
#include <vector>

#include "rocjit/runtime/array.hpp"

namespace rocjit {

namespace runtime {
/// Allocates pinned host memory for `device`.
std::shared_ptr<HostStorage> allocate_pinned(size_t bytes, const Device& device);
/// Registers (page-locks) host memory with `device`.
void register_host(const void* data, size_t bytes, const Device& device);
/// Undoes register_host().
void deregister_host(const void* data, size_t bytes, const Device& device);
/// mapped_array() (managed = false) and managed_array() (managed = true), untyped.
DeviceArrayBase allocate_host_accessible(const Shape& shape, ir::Type dtype, Order order, const Device& device,
                                         bool managed);
/// The host address of a view's first element (MemoryError when the host cannot reach its memory).
void* host_address(const DeviceArrayBase& array);
/// Whether the view's memory is managed memory.
bool is_managed(const DeviceArrayBase& array);
}  // namespace runtime

/// A device array the host reads and writes directly, at its host address: made by
/// mapped_array() (pinned host memory mapped into the device) or managed_array() (managed memory).
/// It is a DeviceArray for launches, copies, views and fill; data(), operator[], operator() and
/// iteration reach the same bytes from the host. Kernels and the host see each other's writes
/// once the stream that ran the kernel has been synchronised (no copy is made either way).
template <class T>
class MappedArray : public DeviceArray<T> {
 public:
  MappedArray() = default;
  /// A host view of a host-accessible device array (MemoryError for device-only memory).
  explicit MappedArray(const DeviceArrayBase& base)
      : DeviceArray<T>(base), data_(static_cast<T*>(runtime::host_address(base))) {}

  /// The first element, at its host address.
  T* data() const { return data_; }
  /// The elements as a span (the array is contiguous).
  std::span<T> span() const { return {data_, static_cast<size_t>(this->size())}; }
  /// Element `i` of the elements in memory order (for a 1-D array, element i). Unchecked.
  T& operator[](int64_t i) const { return data_[i]; }
  /// The element at `index...`.
  template <class... I>
  T& operator()(I... index) const {
    const int64_t idx[] = {static_cast<int64_t>(index)...};
    int64_t offset = 0;
    for (size_t d = 0; d < sizeof...(I); ++d) offset += idx[d] * this->strides()[d];
    return *reinterpret_cast<T*>(reinterpret_cast<std::byte*>(data_) + offset);
  }
  /// Iteration over the elements in memory order.
  ///@{
  T* begin() const { return data_; }
  T* end() const { return data_ + this->size(); }
  ///@}
  /// Whether it is managed memory (managed_array) rather than mapped pinned memory.
  bool is_managed() const { return runtime::is_managed(*this); }

 private:
  T* data_ = nullptr;
};

/// A host-accessible array in pinned host memory mapped into `device` (Numba's
/// cuda.mapped_array; HIP's hipHostMalloc with hipHostMallocMapped): kernels read and write the
/// host's memory in place (over the bus on a discrete GPU: for data touched once, or small).
/// On cpu and interp it is ordinary memory.
template <class T>
MappedArray<T> mapped_array(const Shape& shape, Order order = Order::C, const Device& device = {}) {
  return MappedArray<T>(runtime::allocate_host_accessible(shape, dtype_of<T>(), order, device, false));
}
/// A host-accessible array in managed memory (Numba's cuda.managed_array; HIP's hipMallocManaged),
/// which the driver migrates between host and device as they touch it. On cpu and interp it is
/// ordinary memory.
template <class T>
MappedArray<T> managed_array(const Shape& shape, Order order = Order::C, const Device& device = {}) {
  return MappedArray<T>(runtime::allocate_host_accessible(shape, dtype_of<T>(), order, device, true));
}

/// A host array in page-locked memory of `device`: copies to and from it can run asynchronously,
/// and kernels on that device may use it in place (pass it to a launch; mapped on HIP).
template <class T>
HostArray<T> pinned_array(const Shape& shape, Order order = Order::C, const Device& device = {}) {
  ArrayLayout l = ArrayLayout::contiguous(shape, dtype_of<T>(), order);
  return HostArray<T>(runtime::allocate_pinned(static_cast<size_t>(l.nbytes()), device), shape, order);
}

/// Page-locks existing host memory for the lifetime of the guard (Numba: `with cuda.pinned(a):`,
/// ROC: roc.register(a) ... roc.deregister(a)). Registering memory that is already registered, or
/// deregistering memory that is not, is a MemoryError.
class RegisteredMemory {
 public:
  RegisteredMemory() = default;
  RegisteredMemory(const RegisteredMemory&) = delete;
  RegisteredMemory& operator=(const RegisteredMemory&) = delete;
  /// Takes over the registrations of `o`.
  RegisteredMemory(RegisteredMemory&& o) noexcept : ranges_(std::move(o.ranges_)), device_(o.device_) { o.ranges_.clear(); }
  ~RegisteredMemory() {
    for (auto& [p, n] : ranges_) {
      try {
        runtime::deregister_host(p, n, device_);
      } catch (...) {  // never throw from a destructor; the memory stays registered
      }
    }
  }
  /// Registers `bytes` at `data` too.
  void add(const void* data, size_t bytes) {
    runtime::register_host(data, bytes, device_);
    ranges_.emplace_back(data, bytes);
  }
  /// An empty set of registrations with `d`.
  explicit RegisteredMemory(const Device& d) : device_(d) {}

 private:
  std::vector<std::pair<const void*, size_t>> ranges_;
  Device device_;
};

namespace detail {
template <class T>
void register_one(RegisteredMemory& g, std::vector<T>& v) {
  g.add(v.data(), v.size() * sizeof(T));
}
template <class T>
void register_one(RegisteredMemory& g, HostArray<T>& a) {
  g.add(a.data(), static_cast<size_t>(a.nbytes()));
}
template <class T>
void register_one(RegisteredMemory& g, std::span<T> s) {
  g.add(s.data(), s.size_bytes());
}
}  // namespace detail

/// Registers host arrays (std::vector, HostArray, std::span) with the default device for the
/// guard's lifetime: `auto guard = registered(a, b);`. While registered, launches on that device
/// may take them in place (`k[cfg](a, b)`, no copy), as in the HSA target's
/// `with hsa.register(a, b): kernel(a, b)`.
template <class... A>
[[nodiscard]] RegisteredMemory registered(A&... arrays) {
  RegisteredMemory guard{Device()};
  (detail::register_one(guard, arrays), ...);
  return guard;
}
/// Numba's cuda.pinned(*arrays): the same scope guard.
template <class... A>
[[nodiscard]] RegisteredMemory pinned(A&... arrays) {
  return registered(arrays...);
}

/// Explicit forms, as the ROC target's roc.register()/roc.deregister().
template <class T>
void register_host(std::vector<T>& v, const Device& device = {}) {
  runtime::register_host(v.data(), v.size() * sizeof(T), device);
}
/// Undoes register_host() for a vector's elements.
template <class T>
void deregister_host(std::vector<T>& v, const Device& device = {}) {
  runtime::deregister_host(v.data(), v.size() * sizeof(T), device);
}

}  // namespace rocjit
