// Devices: the CPU (always present) and AMD GPUs through HIP (loaded at run time).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace rocjit {

namespace runtime {
class DeviceImpl;
}

/// A handle on one device. Copies refer to the same device.
class Device {
 public:
  Device() = default;
  /// Wraps a backend device.
  explicit Device(std::shared_ptr<runtime::DeviceImpl> impl) : impl_(std::move(impl)) {}

  std::string name() const;    ///< "AMD Instinct MI210", "CPU (16 threads)"
  std::string kind() const;    ///< "cpu" or "hip"
  std::string id() const;      ///< "cpu", "hip:0"
  std::string target() const;  ///< "host" or the gfx processor, e.g. "gfx90a"
  /// Bytes of device memory.
  uint64_t total_memory() const;
  /// Bytes of device memory free now.
  uint64_t free_memory() const;
  /// The processor rocjit compiles for: the gfx name ("gfx942", "gfx90a", "gfx1100"), or "host" for
  /// the CPU and the interpreter (the same as target()).
  std::string processor() const;
  /// Work-items per wavefront in the code rocjit runs on the device (what the DSL's
  /// wave::wave_size() returns there): 64 on gfx9, 32 on gfx10+, rocjit::host_wave_size (64) on
  /// the CPU and the interpreter.
  unsigned wave_size() const;
  /// Compute units (HIP's multiProcessorCount; the simulator reports its worker threads), or, for
  /// the CPU and the interpreter, the worker threads that run work-groups.
  unsigned compute_units() const;
  /// Bytes of shared memory (static plus dynamic) one work-group may use: 65536 on AMD GPUs
  /// (163840 on gfx950), rocjit::host_shared_bytes_limit on the CPU and the interpreter.
  uint64_t shared_memory_per_group() const;
  /// The most work-items a work-group may have on the device (1024 on AMD GPUs and the CPU).
  unsigned max_group_size() const;
  /// Whether the device is the AMDGPU simulator (ids sim:gfx942, sim:gfx90a, ...).
  bool is_simulator() const;
  /// Waits for all work on every stream of the device.
  void synchronize() const;
  /// Releases the device: arrays, streams and kernels that still refer to it fail with a
  /// DeviceError from now on (like numba.cuda.close()).
  void close() const;
  /// Whether the device was closed.
  bool closed() const;

  /// Whether this names a device.
  explicit operator bool() const { return impl_ != nullptr; }
  /// The backend device.
  runtime::DeviceImpl& impl() const;
  /// The shared backend device.
  const std::shared_ptr<runtime::DeviceImpl>& impl_ptr() const { return impl_; }
  /// Whether both name the same device.
  bool operator==(const Device& o) const { return impl_ == o.impl_; }

 private:
  std::shared_ptr<runtime::DeviceImpl> impl_;
};

/// Every usable device: HIP GPUs first (when libamdhip64 and a GPU are present), then the CPU.
std::vector<Device> devices();

/// The device new arrays, streams and launches use when none is given: $ROCJIT_DEVICE
/// ("cpu", "hip", "hip:N") if set, else the first HIP GPU, else the CPU.
Device default_device();

/// A device by id: "cpu", "hip" (= "hip:0") or "hip:N". Throws DeviceError saying why a HIP
/// device is not available (library not found and where rocjit looked, or no GPU).
Device get_device(const std::string& id);

/// A separate instance of the CPU device with its own streams and kernel cache, independent of
/// the shared "cpu" device (for isolation, e.g. a device that can be closed on its own).
Device new_cpu_device();

/// Makes `d` the default device for this process.
void set_default_device(const Device& d);

}  // namespace rocjit
