// Launching kernels: kernel[{grid, block}](args...) and kernel[{grid, block, stream}](args...).
#pragma once

#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "rocjit/compiler/host.hpp"
#include "rocjit/runtime/kernel.hpp"
#include "rocjit/runtime/array.hpp"
#include "rocjit/runtime/smart_array.hpp"
#include "rocjit/runtime/stream.hpp"

namespace rocjit {

/// grid: work-groups per dimension (Numba's blocks per grid); block: work-items per group;
/// shared_bytes: dynamic shared memory per work-group (CUDA's and Numba's `sharedmem`).
struct LaunchConfig {
  /// Grid `g` (in work-groups), block `b` (in work-items), on stream `s`, with `shared` bytes of
  /// dynamic shared memory per work-group (what shared::dynamic<T>() arrays see).
  LaunchConfig(Dim3 g, Dim3 b, Stream s = {}, uint64_t shared = 0)
      : grid(g), block(b), stream(std::move(s)), shared_bytes(shared) {}
  /// Work-groups per dimension.
  Dim3 grid;
  /// Work-items per work-group per dimension.
  Dim3 block;
  Stream stream;  ///< empty: the default stream of the default device
  /// Bytes of dynamic shared memory per work-group; with the kernel's static shared arrays at most
  /// the device's limit (64 KiB on most AMD GPUs, 160 KiB on gfx950; 64 MiB on the CPU).
  uint64_t shared_bytes = 0;
};

namespace runtime {

/// prepare_launch(kernel, config) (namespace rocjit) through the device of config.stream.
void prepare_launch(const Kernel& kernel, const LaunchConfig& config);

/// One launch argument, type-erased: a device array view, host memory the kernel uses in place,
/// or a scalar's bits and type.
struct LaunchArgument {
  /// The array, for array arguments.
  const DeviceArrayBase* array = nullptr;
  /// Host memory passed in place (a HostArray, std::vector or std::span): its first element. The
  /// launch maps it for its device; memory the device cannot reach is a LaunchError.
  void* host = nullptr;
  /// The host memory's shape, strides and element type.
  ArrayLayout host_layout;
  /// A HostArray's storage (kept alive by the launch; says whether and by whom it is pinned);
  /// null for vectors and spans.
  std::shared_ptr<HostStorage> host_storage;
  /// The scalar's IR type, for scalar arguments.
  ir::Type scalar_type = ir::Type::none;
  /// The scalar's bytes.
  unsigned char bits[8] = {};
  /// The C++ type's name, for messages.
  const char* cxx_type = "";
};

/// Whether D is host memory a launch may use in place, and its element type.
template <class D>
struct is_host_memory : std::false_type {};
/// A host array (pinned, or in registered memory, or any on the CPU device).
template <class T>
struct is_host_memory<HostArray<T>> : std::true_type {
  /// The elements' type.
  using element_type = T;
  /// Whether it is a HostArray (with a layout and storage).
  static constexpr bool host_array = true;
};
/// A vector's elements, as a one-dimensional array.
template <class T, class A>
struct is_host_memory<std::vector<T, A>> : std::true_type {
  /// The elements' type.
  using element_type = T;
  /// Whether it is a HostArray.
  static constexpr bool host_array = false;
};
/// A span's elements, as a one-dimensional array.
template <class T, size_t E>
struct is_host_memory<std::span<T, E>> : std::true_type {
  /// The elements' type (const removed).
  using element_type = std::remove_const_t<T>;
  /// Whether it is a HostArray.
  static constexpr bool host_array = false;
};

/// Whether D is a std::vector.
template <class D>
struct is_std_vector : std::false_type {};
/// A std::vector is one.
template <class T, class A>
struct is_std_vector<std::vector<T, A>> : std::true_type {};
/// Whether a launch argument of forwarded type A is a temporary std::vector, whose memory is
/// freed when the call returns, possibly before an asynchronous launch has used it.
template <class A>
inline constexpr bool is_temporary_vector = !std::is_lvalue_reference_v<A> && is_std_vector<std::decay_t<A>>::value;

/// Packs one kernel argument (a device array, host memory or an arithmetic scalar).
template <class A>
LaunchArgument make_argument(A& a) {
  LaunchArgument arg;
  using D = std::decay_t<A>;
  if constexpr (std::is_base_of_v<DeviceArrayBase, D>) {
    arg.array = &a;
  } else if constexpr (std::is_arithmetic_v<D>) {
    static_assert(!std::is_same_v<D, long double>, "long double kernel arguments are not supported; pass a double");
    // The value as the C++ type of its IR type (a short -1 becomes an int32_t -1, not 0xFFFF).
    using Canonical = ir::arithmetic_row_t<D>;
    arg.scalar_type = ir::type_of<Canonical>();
    const Canonical value = static_cast<Canonical>(a);
    std::memcpy(arg.bits, &value, sizeof value);
  } else if constexpr (std::is_same_v<D, half> || std::is_same_v<D, bfloat16>) {
    arg.scalar_type = ir::type_of<D>();
    std::memcpy(arg.bits, &a, sizeof a);
  } else if constexpr (is_host_memory<D>::value) {
    // Used in place: the host's memory is the kernel's (launch() checks the device reaches it).
    using T = typename is_host_memory<D>::element_type;
    arg.host = const_cast<T*>(a.data());
    if constexpr (is_host_memory<D>::host_array) {
      arg.host_layout = a.layout();
      arg.host_storage = a.storage();
    } else {
      arg.host_layout = ArrayLayout::contiguous({static_cast<int64_t>(a.size())}, dtype_of<T>(), Order::C);
    }
  } else {
    static_assert(sizeof(D) == 0,
                  "kernel arguments are DeviceArray<T>, SmartArray<T>, host memory the device reaches (HostArray<T>, "
                  "std::vector<T>, std::span<T>), arithmetic scalars, half or bfloat16");
  }
  return arg;
}

/// Launches `kernel` with packed arguments (checked against its parameters).
void launch(const Kernel& kernel, const LaunchConfig& config, const std::vector<LaunchArgument>& args);

/// The launch Kernel::forall(n) makes on `stream` (empty: the default device's default stream):
/// work-groups of min(256, the kernel's max_block_size, the device's max_group_size()) work-items,
/// rounded down to a multiple of the device's wave size when at least one wave, and
/// ceil(n / block) of them (none for n = 0). A negative n, or more groups than a launch may
/// have, is a LaunchError naming the kernel.
LaunchConfig forall_config(const Kernel& kernel, int64_t n, const Stream& stream);

}  // namespace runtime

/// Checks the arguments against the kernel's signature, compiles on first use for the stream's
/// device (then reuses the compiled kernel), and enqueues the launch.
class Launcher {
 public:
  /// Launches `kernel` with `config`.
  Launcher(Kernel kernel, LaunchConfig config) : kernel_(std::move(kernel)), config_(std::move(config)) {}
  /// With `nothing`: a launch over no work-items (forall(0)), which does nothing.
  Launcher(Kernel kernel, LaunchConfig config, bool nothing)
      : kernel_(std::move(kernel)), config_(std::move(config)), nothing_(nothing) {}

  /// Launches the kernel with `args` (checked against its parameters).
  template <class... A>
  void operator()(A&&... args) const {
    static_assert((!runtime::is_temporary_vector<A> && ...),
                  "a temporary std::vector passed to a launch would be freed before the kernel has run; pass a "
                  "named vector (registered with the device off the CPU) or copy it with to_device");
    if (nothing_) return;  // forall(0): nothing to run
    std::vector<runtime::LaunchArgument> list;
    (push(list, args), ...);
    runtime::launch(kernel_, config_, list);
    (after(args), ...);
  }

 private:
  template <class A>
  static void push(std::vector<runtime::LaunchArgument>& list, A& a) {
    if constexpr (is_smart<std::decay_t<A>>::value)
      list.push_back(runtime::make_argument(a.device()));
    else
      list.push_back(runtime::make_argument(a));
  }
  template <class A>
  static void after(A& a) {
    // The kernel may have written a SmartArray's device side: refresh the host lazily.
    if constexpr (is_smart<std::decay_t<A>>::value) a.mark_changed(Where::device);
  }
  template <class X>
  struct is_smart : std::false_type {};
  template <class T>
  struct is_smart<SmartArray<T>> : std::true_type {};

  Kernel kernel_;
  LaunchConfig config_;
  bool nothing_ = false;
};

inline Launcher Kernel::operator[](const LaunchConfig& config) const { return Launcher(*this, config); }
inline Launcher Kernel::forall(int64_t n) const { return forall(n, Stream()); }
inline Launcher Kernel::forall(int64_t n, const Stream& stream) const {
  return Launcher(*this, runtime::forall_config(*this, n, stream), n == 0);
}

/// Compiles what a launch of `kernel` with `config` (its device, through the stream, and its
/// work-group shape) will run, in its final form, without running anything: before timing a
/// kernel, or to take compile time out of a first launch. On the CPU device that is the O3 code
/// for the shape (a first launch would otherwise run O1 code and compile O3 in the background);
/// on the interpreter, HIP and simulated devices the compiled and loaded kernel. Checks the
/// geometry as a launch does (LaunchError). A kernel that specialises on its arguments
/// (KernelOptions::specialize) is refused: its version depends on the arguments.
inline void prepare_launch(const Kernel& kernel, const LaunchConfig& config) { runtime::prepare_launch(kernel, config); }

/// On the host: how many groups of `block` items cover `n` items, rounding up (n + block - 1) /
/// block, for grid sizes: `k[{{ceil_div(m, 16), ceil_div(n, 16)}, {16, 16}}]`. `block` must be
/// positive; `n` at least 0. (In kernels, dsl::ceil_div does the same on values.)
constexpr int64_t ceil_div(int64_t n, int64_t block) { return (n + block - 1) / block; }

}  // namespace rocjit
