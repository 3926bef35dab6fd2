// Pinned (page-locked) and registered host memory, after Numba's pinned_array, pinned() and
// the ROC target's register()/deregister().
#pragma once

#include <cstddef>
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
}  // namespace runtime

/// A host array in page-locked memory: copies to and from it can run asynchronously.
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
/// guard's lifetime: `auto guard = registered(a, b);`
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
