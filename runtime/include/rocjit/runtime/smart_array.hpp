// SmartArray: a host array and its device mirror, transferred only when the other side changed
// (after Numba's SmartArray).
#pragma once

#include <cstdint>

#include "rocjit/runtime/array.hpp"

namespace rocjit {

/// Where a SmartArray's current data is.
enum class Where { host, device };

/// A host array with a device copy kept in sync on demand (Numba's SmartArray).
template <class T>
class SmartArray {
 public:
  /// Wraps `host`; the device copy is made on `device` when first needed.
  explicit SmartArray(HostArray<T> host, const Device& device = {}) : host_(std::move(host)), device_handle_(device) {}
  /// A copy of `v`; the device copy is made on `device` when first needed.
  explicit SmartArray(const std::vector<T>& v, const Device& device = {})
      : host_(Shape{static_cast<int64_t>(v.size())}), device_handle_(device) {
    std::copy(v.begin(), v.end(), host_.data());
  }

  /// The host side: brought up to date from the device first if the device side changed.
  HostArray<T>& host() {
    if (device_changed_) {
      device_.copy_to_host(host_);
      ++device_to_host_;
      device_changed_ = false;
    }
    return host_;
  }
  /// The device side: allocated on first use and brought up to date if the host side changed.
  DeviceArray<T>& device() {
    if (!device_) {
      device_ = device_array<T>(host_.shape(), Order::C, device_handle_);
      host_changed_ = true;
    }
    if (host_changed_) {
      device_.copy_to_device(host_);
      ++host_to_device_;
      host_changed_ = false;
    }
    return device_;
  }
  /// Numba's get(where).
  HostArray<T>& get_host() { return host(); }
  /// The device copy (copied from the host if stale).
  DeviceArray<T>& get_device() { return device(); }
  /// Says that `where` was written: the other side is refreshed before its next use.
  void mark_changed(Where where) {
    if (where == Where::host) {
      if (device_changed_) throw_conflict();
      host_changed_ = true;
    } else {
      device_changed_ = true;
    }
  }
  /// Extents per dimension.
  const Shape& shape() const { return host_.shape(); }
  /// Transfers performed so far, for tests and tuning.
  uint64_t host_to_device_copies() const { return host_to_device_; }
  /// How many device-to-host copies it has made.
  uint64_t device_to_host_copies() const { return device_to_host_; }

 private:
  [[noreturn]] static void throw_conflict();
  HostArray<T> host_;
  DeviceArray<T> device_;
  Device device_handle_;
  bool host_changed_ = false, device_changed_ = false;
  uint64_t host_to_device_ = 0, device_to_host_ = 0;
};

namespace runtime {
/// Throws the MemoryError for a SmartArray changed on both sides.
[[noreturn]] void throw_smart_array_conflict();
}
template <class T>
void SmartArray<T>::throw_conflict() {
  runtime::throw_smart_array_conflict();
}

}  // namespace rocjit
