// Prebuilt code objects: AMDGPU code objects rocjit did not build (from hipcc, clang, an earlier
// rocjit-dump --emit=hsaco), loaded on a HIP or simulator device and launched by kernel name with
// their arguments checked against the object's metadata.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "rocjit/compiler/code_object.hpp"
#include "rocjit/runtime/device.hpp"
#include "rocjit/runtime/launch.hpp"

namespace rocjit {

class PrebuiltKernel;

namespace runtime {
struct ModuleState;
struct CompiledKernel;
/// Launches a prebuilt kernel with packed arguments (checked against its metadata).
void launch_prebuilt(const PrebuiltKernel& kernel, const LaunchConfig& config, const std::vector<LaunchArgument>& args);
}  // namespace runtime

/// A code object loaded on one device (load_code_object()). A shared handle: its kernels keep it
/// loaded.
class Module {
 public:
  Module() = default;
  /// The code object: its processor (target), ELF bytes and every kernel's metadata.
  const CodeObject& code() const;
  /// The device it is loaded on.
  Device device() const;
  /// The names of its kernels.
  std::vector<std::string> kernel_names() const;
  /// The kernel called `name` (the metadata's .name); a LaunchError listing the kernels there are
  /// when it has none of that name.
  PrebuiltKernel kernel(const std::string& name) const;
  /// Whether it holds a code object.
  explicit operator bool() const { return state_ != nullptr; }

 private:
  friend Module load_code_object(std::vector<uint8_t> elf, const Device& device, const std::string& source);
  std::shared_ptr<runtime::ModuleState> state_;
};

/// Loads an AMDGPU code object (the bytes of an .hsaco / .co file) on `device` (default: the
/// default device), which must be a HIP or simulator device of the object's processor. A
/// clang-offload-bundler fat binary (hipcc's, rocjit::bundle::fat_binary's) gives the entry for the
/// device's processor; a fat binary without one is a DeviceError listing its entries. `source`
/// names it in messages. Not an AMDGPU code object, another processor, or a device that cannot run
/// AMDGPU code (cpu, interp) is a DeviceError.
Module load_code_object(std::vector<uint8_t> elf, const Device& device = {}, const std::string& source = "bytes");
/// Reads the file at `path` and loads it (a missing or unreadable file is a DeviceError naming it).
Module load_code_object_file(const std::string& path, const Device& device = {});

/// One kernel of a Module. `k[{grid, block[, stream[, shared_bytes]]}](args...)` launches it like a
/// rocjit kernel: DeviceArrays for the object's global_buffer arguments, scalars for its by_value
/// ones, in the order of the metadata's explicit arguments (.args without the hidden_ ones). The
/// count, each argument's kind and each scalar's size are checked (an integer scalar may narrow to
/// a smaller argument when its value fits; a float must have the argument's size), as is the
/// geometry against the kernel's .max_flat_workgroup_size; a mismatch is a LaunchError naming the
/// kernel, the argument and what the metadata says.
class PrebuiltKernel {
 public:
  class Launcher;
  /// The kernel's name.
  const std::string& name() const { return metadata_->name; }
  /// Its metadata: .args (offset, size, value_kind), registers, LDS, wave size, maximum group size.
  const KernelMetadata& metadata() const { return *metadata_; }
  /// The module it belongs to.
  const Module& module() const { return module_; }
  /// The loaded kernel (internal).
  const std::shared_ptr<runtime::CompiledKernel>& compiled() const { return compiled_; }

  /// `k[{grid, block}](args...)`, as for rocjit kernels.
  Launcher operator[](const LaunchConfig& config) const;

 private:
  friend class Module;
  Module module_;
  const KernelMetadata* metadata_ = nullptr;
  std::shared_ptr<runtime::CompiledKernel> compiled_;
};

/// The launch of a prebuilt kernel with a configuration; call it with the arguments.
class PrebuiltKernel::Launcher {
 public:
  /// A launch of `k` with `c`.
  Launcher(PrebuiltKernel k, LaunchConfig c) : kernel_(std::move(k)), config_(std::move(c)) {}
  /// Launches with `args` (checked against the metadata).
  template <class... A>
  void operator()(A&&... args) const {
    static_assert((!runtime::is_temporary_vector<A> && ...),
                  "a temporary std::vector passed to a launch would be freed before the kernel has run; pass a "
                  "named vector (registered with the device) or copy it with to_device");
    std::vector<runtime::LaunchArgument> list;
    (list.push_back(runtime::make_argument(args)), ...);
    runtime::launch_prebuilt(kernel_, config_, list);
  }

 private:
  PrebuiltKernel kernel_;
  LaunchConfig config_;
};

inline PrebuiltKernel::Launcher PrebuiltKernel::operator[](const LaunchConfig& config) const {
  return Launcher(*this, config);
}

}  // namespace rocjit
