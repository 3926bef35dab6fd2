// The interface every device backend implements (runtime/cpu, runtime/hip). Internal.
#pragma once

#include <atomic>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "rocjit/compiler/code_object.hpp"
#include "rocjit/compiler/device_print.hpp"
#include "rocjit/compiler/host.hpp"
#include "rocjit/compiler/ir.hpp"
#include "rocjit/runtime/device.hpp"

namespace rocjit::runtime {

class DeviceImpl;
class StreamImpl;

// Device memory owned by a device; freed by the device when the last reference goes, unless it
// is external (external_array, from_dlpack, host memory viewed by mapped_view): then only
// `owner` is released. Memory the host reads and writes directly (mapped_array, managed_array,
// mapped_view) has a host address too.
struct Allocation {
  // Who frees `pointer`: the device (device_array), the device's pinned-memory release
  // (mapped_array: `host` is what it frees), its managed-memory release (managed_array), or
  // nobody (external memory).
  enum class Release { device, pinned, managed, none };
  std::shared_ptr<DeviceImpl> device;
  void* pointer = nullptr;  // the device's address
  size_t bytes = 0;
  bool external = false;
  Release release = Release::device;
  void* host = nullptr;         // the host's address of the same bytes, when the host can reach them
  std::shared_ptr<void> owner;  // external memory: what the application asked to keep alive
  ~Allocation();
};

// Host memory for HostArray: ordinary (aligned new) or pinned by a device.
struct HostStorage {
  void* data = nullptr;
  size_t bytes = 0;
  std::shared_ptr<DeviceImpl> pinned_by;  // null for ordinary memory
  ~HostStorage();
};

// A kernel compiled and loaded for one device.
struct CompiledKernel {
  virtual ~CompiledKernel() = default;
  std::string name;
  uint32_t max_block_size = 1024;
  uint64_t static_shared_bytes = 0;  // the kernel's shared arrays, as the device lays them out
  uint32_t wave_size = 64;           // of the code the device runs
  // Non-empty when a wave operation relies on local_id(0) / wave_size() being wave-uniform (see
  // ir::wave_rows_assumption): what, for the launch check's message.
  std::string wave_rows;
  // Non-empty when the kernel uses mma (dsl::mma), which needs whole 64-lane waves: where.
  std::string mma_site;
  // prepare_launch(): makes the code that launches with work-groups of `block` will run final,
  // now (the CPU device: the O3 code for the shape, instead of O1 and a background tier-up).
  // Devices whose kernels are final once compiled have nothing to do.
  virtual void compile_final(Dim3 block) const { (void)block; }
  // The kernel's print and assert sites (dsl::print, dsl::device_assert), from its IR; empty:
  // launches pass no print buffer. Set by DeviceImpl::kernel().
  std::shared_ptr<const PrintTable> prints;
};

// CompiledKernel::wave_rows for `kernel`.
std::string describe_wave_rows(const ir::Kernel& kernel);
// CompiledKernel::mma_site for `kernel`: "file:line" of its first mma, or "".
std::string describe_mma(const ir::Kernel& kernel);

// 32-bit element offsets (ir::Kernel::small_arrays, AMDGPU): whether the promise would change how
// `kernel` compiles (a global array of rank 2 or 3, C or F layout, with extents from the launch:
// AMDGPU keeps rank-1 offsets 64-bit, targets/amdgpu/lower.cpp), and the copy
// of `ir` that makes it, the same object for every call while `ir` lives (the devices' kernel
// tables key on the IR object). Launches whose arrays all have fewer than 2^31 elements run the
// copy on devices with DeviceImpl::narrow_offsets(); Kernel::llvm_ir / assembly / metadata for
// an AMDGPU target show it (launch.cpp).
bool has_launch_sized_arrays(const ir::Kernel& kernel);
std::shared_ptr<const ir::Kernel> small_arrays_version(const std::shared_ptr<const ir::Kernel>& ir);

// Arguments in kernel order, each stored in its own cell; `pointers` is the kernelParams array.
struct ArgumentPack {
  std::vector<unsigned char> bytes;  // cells, 8-byte aligned
  std::vector<const void*> pointers;
  std::vector<std::shared_ptr<void>> keep_alive;  // allocations the launch uses
};

enum class CopyKind { host_to_device, device_to_host, device_to_device };

class EventImpl {
 public:
  virtual ~EventImpl() = default;
  virtual void synchronize() = 0;
  virtual bool query() = 0;
  virtual float elapsed_ms(EventImpl& later) = 0;
};

class StreamImpl {
 public:
  // A device owns its default stream, so the default stream refers back to it weakly (a strong
  // reference both ways would leak every device that is created and dropped). Other streams keep
  // their device alive.
  explicit StreamImpl(std::shared_ptr<DeviceImpl> device, bool is_default, bool non_blocking = false)
      : device_(is_default ? nullptr : device), weak_device_(device), is_default_(is_default),
        non_blocking_(non_blocking && !is_default) {}
  virtual ~StreamImpl() = default;
  // `keep_alive` holds what the operation uses until it has completed.
  virtual void copy(void* dst, const void* src, size_t bytes, CopyKind kind,
                    std::vector<std::shared_ptr<void>> keep_alive) = 0;
  // `shared_bytes`: the launch's dynamic shared memory per work-group (checked by the caller).
  virtual void launch(std::shared_ptr<CompiledKernel> kernel, Dim3 grid, Dim3 block, uint32_t shared_bytes,
                      std::shared_ptr<ArgumentPack> args) = 0;
  // Runs `f` on the host once everything before it on the stream has completed.
  virtual void host_callback(std::function<void()> f) = 0;
  // The stream holds the event until it has reached it, so the caller may drop its Event at once.
  virtual void record(std::shared_ptr<EventImpl> e) = 0;
  virtual void wait(std::shared_ptr<EventImpl> e) = 0;
  virtual void synchronize() = 0;
  bool is_default() const { return is_default_; }

  // Device output of one launch (dsl::print, dsl::device_assert): its print buffer, copied back
  // to `host` by a copy enqueued after the launch, delivered once the stream has passed it.
  struct PrintJob {
    std::shared_ptr<const PrintTable> table;
    std::shared_ptr<std::vector<uint8_t>> host;
    std::string kernel;
    Dim3 grid, block;
    bool sorted = false;
  };
  void add_prints(PrintJob job) {
    std::lock_guard<std::mutex> g(prints_lock_);
    prints_.push_back(std::move(job));
  }
  // After the stream has been synchronised: prints every pending launch's records, in launch
  // order, then throws the first failed assert's DeviceAssertion.
  void deliver_prints();
  // The backend's own handle (hipStream_t), or nullptr (CPU streams, HIP's null stream).
  virtual void* native_handle() const { return nullptr; }
  // Created with StreamOptions::non_blocking: the default stream does not wait for it.
  bool is_non_blocking() const { return non_blocking_; }
  std::shared_ptr<DeviceImpl> device() const { return device_ ? device_ : weak_device_.lock(); }

 protected:
  // Derived destructors call it once the stream has drained: what was printed is delivered, a
  // failed assert that nobody synchronised for is logged as an error.
  void deliver_prints_at_destruction() noexcept;
  std::mutex prints_lock_;
  std::vector<PrintJob> prints_;
  std::shared_ptr<DeviceImpl> device_;    // null for the default stream
  std::weak_ptr<DeviceImpl> weak_device_;
  bool is_default_;
  bool non_blocking_;
};

class DeviceImpl : public std::enable_shared_from_this<DeviceImpl> {
 public:
  virtual ~DeviceImpl() = default;
  virtual std::string name() const = 0;
  virtual std::string kind() const = 0;
  virtual std::string id() const = 0;
  virtual std::string target() const = 0;
  virtual uint64_t total_memory() const = 0;
  virtual uint64_t free_memory() const = 0;

  // Throws MemoryError naming the bytes requested and available.
  virtual void* allocate(size_t bytes) = 0;
  virtual void deallocate(void* p) noexcept = 0;
  virtual void* allocate_pinned(size_t bytes) = 0;
  virtual void deallocate_pinned(void* p) noexcept = 0;
  virtual void page_lock(const void* p, size_t bytes) = 0;
  virtual void page_unlock(const void* p) = 0;
  // Host-accessible memory in kernels. The device's address of host memory this device pinned
  // (allocate_pinned) or page-locked (page_lock), given the start of that pinned block or
  // registered range: HIP's hipHostGetDevicePointer (mapped pinned memory); the host address
  // itself where device and host share addresses (cpu, interp).
  virtual void* mapped_address(void* host_block) = 0;
  // Whether every host address is one this device's kernels can use (cpu, interp).
  virtual bool shares_host_memory() const { return false; }
  // Memory both the host and this device access at one address (HIP managed memory; ordinary
  // memory on the CPU).
  virtual void* allocate_managed(size_t bytes) = 0;
  virtual void deallocate_managed(void* p) noexcept = 0;

  virtual std::shared_ptr<StreamImpl> create_stream(bool non_blocking) = 0;
  // The synchronous default stream (called once, under the device's lock).
  virtual std::shared_ptr<StreamImpl> create_stream_locked_default() = 0;
  virtual std::shared_ptr<EventImpl> create_event() = 0;
  // A stream over a native stream the application owns (never destroyed by rocjit).
  virtual std::shared_ptr<StreamImpl> wrap_stream(void* native);
  // Loads `kernel` of a code object rocjit did not build (Module::kernel); DeviceError on devices
  // that do not run AMDGPU code.
  virtual std::shared_ptr<CompiledKernel> load_prebuilt(const CodeObject& code, const KernelMetadata& kernel);
  // The device's index in its native API (HIP's device ordinal; 0 for the CPU).
  virtual int native_index() const { return 0; }
  // Compiles (or finds) the kernel for this device. The device remembers the most recently used
  // kernels (ROCJIT_DEVICE_KERNELS, default 1024) by IR; a forgotten one is freed (HIP module
  // unloaded, host code removed from the JIT) once no pending launch uses it.
  std::shared_ptr<CompiledKernel> kernel(const std::shared_ptr<const ir::Kernel>& ir);
  // How many kernels the device remembers now (at most device_kernel_limit()).
  size_t kernel_count();
  virtual void check_geometry(const CompiledKernel& k, Dim3 grid, Dim3 block) = 0;
  // prepare_launch(): the checks of check_geometry, then the kernel's final code for `block`.
  virtual void prepare_final(const CompiledKernel& k, Dim3 grid, Dim3 block) {
    check_geometry(k, grid, block);
    k.compile_final(block);
  }
  // Bytes of shared memory (static + dynamic) one work-group may use on this device.
  virtual uint64_t shared_memory_limit() const = 0;
  // Device queries (Device::wave_size ...).
  virtual unsigned wave_size() const = 0;
  virtual unsigned compute_units() const = 0;
  virtual unsigned max_group_size() const = 0;
  virtual bool is_simulator() const { return false; }
  // Whether the device's code computes element offsets in 32 bits for kernels compiled with the
  // ir::Kernel::small_arrays promise (AMDGPU); launches whose arrays all have fewer than 2^31
  // elements then run such a copy (small_arrays_version).
  virtual bool narrow_offsets() const { return false; }

  std::shared_ptr<StreamImpl> default_stream();
  void synchronize();
  void close();
  bool closed() const { return closed_.load(std::memory_order_acquire); }
  // Throws DeviceError when the device was closed; `what` says what was attempted.
  void check_open(const std::string& what) const;

  // Registered host ranges (bookkeeping for register/deregister errors).
  void register_range(const void* p, size_t bytes);
  void deregister_range(const void* p, size_t bytes);
  // The start of the registered range holding [p, p + bytes), or nullptr when none holds all of it.
  const void* registered_block(const void* p, size_t bytes);

 protected:
  virtual std::shared_ptr<CompiledKernel> compile(const std::shared_ptr<const ir::Kernel>& ir) = 0;

 private:
  std::mutex lock_;
  std::shared_ptr<StreamImpl> default_stream_;
  std::vector<std::weak_ptr<StreamImpl>> streams_;
  // Kernels by IR, most recently used first in `kernel_order_`. An entry refers to its IR weakly:
  // once nobody holds the IR (the user's Kernel, a pending launch) the entry can never be asked
  // for again, and the next compile sweeps it (a program that traces kernel after kernel, such
  // as rocjit-smith, would otherwise keep ROCJIT_DEVICE_KERNELS dead kernels per device). The
  // weak reference also tells a reused address from the kernel that had it.
  struct LoadedKernel {
    std::weak_ptr<const ir::Kernel> ir;
    std::shared_ptr<CompiledKernel> compiled;
    std::list<const ir::Kernel*>::iterator order;
  };
  // Moves entries whose IR is gone into `out` (freed by the caller after the lock is released).
  void sweep_unreachable_kernels(std::vector<LoadedKernel>& out);
  std::unordered_map<const ir::Kernel*, LoadedKernel> kernels_;
  std::list<const ir::Kernel*> kernel_order_;
  std::map<const void*, size_t> registered_;
  std::atomic<bool> closed_{false};  // read without the lock by check_open()

 public:
  void remember_stream(const std::shared_ptr<StreamImpl>& s);
  // The streams made by stream() that are still alive (not the default stream).
  std::vector<std::shared_ptr<StreamImpl>> live_streams();
};

// How many kernels each device remembers: Settings::device_kernels (ROCJIT_DEVICE_KERNELS, at
// least 1, default 1024) now.
size_t device_kernel_limit();

// Backends.
std::shared_ptr<DeviceImpl> make_cpu_device();
// The interpreter device (`interp`): CPU memory and streams, kernels run by ir::interpret.
std::shared_ptr<DeviceImpl> make_interp_device();
// HIP GPUs found through libamdhip64, or empty with `why` saying why there are none.
std::vector<std::shared_ptr<DeviceImpl>> make_hip_devices(std::string& why);
// The AMDGPU simulator's devices (libamdsim-hip.so through the same HIP code), ids
// sim:<processor>, one per processor of `processors` (Settings::sim_processors); empty with `why`
// saying why.
std::vector<std::shared_ptr<DeviceImpl>> make_sim_devices(std::string& why, const std::string& processors);

}  // namespace rocjit::runtime
