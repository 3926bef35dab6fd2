// Prebuilt code objects: loading an AMDGPU code object rocjit did not build and launching its
// kernels with arguments checked against the object's metadata.
#include "rocjit/runtime/module.hpp"

#include <fmt/format.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <mutex>

#include "rocjit/compiler/bundle.hpp"
#include "rocjit/compiler/compile.hpp"
#include "rocjit/compiler/error.hpp"
#include "src/backend.hpp"
#include "src/host_memory.h"

namespace rocjit {
namespace runtime {

struct ModuleState {
  CodeObject code;
  std::string source;  // where it came from, for messages
  std::shared_ptr<DeviceImpl> device;
  std::mutex lock;
  std::map<std::string, std::shared_ptr<CompiledKernel>> loaded;  // by kernel name
};

namespace {

bool is_hidden(const KernelArgument& a) { return a.value_kind.rfind("hidden_", 0) == 0; }

std::string describe(const LaunchArgument& a) {
  if (a.array) return fmt::format("a DeviceArray<{}>", ir::type_name(a.array->dtype()));
  return fmt::format("a scalar {} ({} bytes)", ir::type_name(a.scalar_type), ir::byte_size(a.scalar_type));
}

// The scalar's bits as an argument of `size` bytes, or false when it does not fit: integers
// narrow when the value fits, floats need their own size.
bool pack_scalar(const LaunchArgument& a, uint64_t size, unsigned char (&out)[8]) {
  const uint64_t own = ir::byte_size(a.scalar_type);
  if (size == own) {
    std::memcpy(out, a.bits, 8);
    return true;
  }
  if (!a.scalar_type.is_integer() || size > 8 || (size != 1 && size != 2 && size != 4 && size != 8)) return false;
  __int128 v = 0;
  ir::with_cpp_type(a.scalar_type, [&](auto x) {
    using T = decltype(x);
    if constexpr (std::is_integral_v<T>) {
      T value;
      std::memcpy(&value, a.bits, sizeof value);
      v = static_cast<__int128>(value);
    }
  });
  const int bits = static_cast<int>(size * 8);
  const __int128 lo = a.scalar_type.is_signed_int() ? -(static_cast<__int128>(1) << (bits - 1)) : 0;
  const __int128 hi = a.scalar_type.is_signed_int() ? (static_cast<__int128>(1) << (bits - 1)) - 1
                                                    : (static_cast<__int128>(1) << bits) - 1;
  if (v < lo || v > hi) return false;
  const uint64_t low = static_cast<uint64_t>(v);
  std::memset(out, 0, 8);
  std::memcpy(out, &low, size);  // little-endian: the low bytes
  return true;
}

}  // namespace

void launch_prebuilt(const PrebuiltKernel& kernel, const LaunchConfig& config,
                     const std::vector<LaunchArgument>& given) {
  const KernelMetadata& m = kernel.metadata();
  const Module& module = kernel.module();
  std::shared_ptr<DeviceImpl> device = module.device().impl_ptr();
  auto refuse = [&](const std::string& what) {
    throw LaunchError(fmt::format("prebuilt kernel '{}' ({}): {}", m.name, module.code().target.str(), what));
  };
  Stream stream = config.stream ? config.stream : default_stream(module.device());
  if (stream.device().impl_ptr() != device)
    refuse(fmt::format("the stream is on device '{}' but the code object is loaded on '{}'", stream.device().id(),
                       device->id()));
  device->check_open(fmt::format("launch prebuilt kernel '{}'", m.name));
  std::vector<const KernelArgument*> explicit_args;
  for (const KernelArgument& a : m.args)
    if (!is_hidden(a)) explicit_args.push_back(&a);
  if (given.size() != explicit_args.size())
    refuse(fmt::format("it takes {} arguments (the code object's .args), {} were given", explicit_args.size(),
                       given.size()));
  // Host memory passed in place: a view for the device, as for rocjit's kernels.
  std::vector<DeviceArrayBase> mapped;
  std::vector<LaunchArgument> resolved;
  const std::vector<LaunchArgument>& args =
      resolve_host_arguments(device, given, mapped, resolved, [&](size_t i, const std::string& why) {
        refuse(fmt::format("argument {} is {}", i, why));
      });
  auto pack = std::make_shared<ArgumentPack>();
  pack->bytes.resize(8 * args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    const KernelArgument& p = *explicit_args[i];
    const LaunchArgument& a = args[i];
    const std::string name = p.name.empty() ? std::string() : fmt::format(" ('{}')", p.name);
    const std::string where = fmt::format("argument {}{} at offset {} ({} bytes, {})", i, name, p.offset, p.size,
                                          p.value_kind);
    unsigned char cell[8] = {};
    if (p.value_kind == "global_buffer") {
      if (!a.array) refuse(fmt::format("{} takes a DeviceArray, but {} was given", where, describe(a)));
      const DeviceArrayBase& arr = *a.array;
      if (!arr) refuse(fmt::format("{}: the DeviceArray is empty", where));
      if (arr.allocation()->device != device)
        refuse(fmt::format("{}: the array lives on device '{}' but the launch is on '{}'", where,
                           arr.allocation()->device->id(), device->id()));
      if (p.size != sizeof(void*)) refuse(fmt::format("{}: a pointer argument of {} bytes is not supported", where, p.size));
      void* ptr = arr.device_pointer();
      std::memcpy(cell, &ptr, sizeof ptr);
      pack->keep_alive.push_back(arr.allocation());
    } else if (p.value_kind == "by_value") {
      if (a.array) refuse(fmt::format("{} takes a scalar, but {} was given", where, describe(a)));
      if (!pack_scalar(a, p.size, cell))
        refuse(fmt::format("{} cannot take {}: pass a scalar of {} bytes (an integer narrows when its value fits)",
                           where, describe(a), p.size));
    } else {
      refuse(fmt::format("{}: arguments of kind '{}' are not supported (global_buffer and by_value are)", where,
                         p.value_kind));
    }
    std::memcpy(pack->bytes.data() + 8 * i, cell, 8);
  }
  for (size_t at = 0; at < pack->bytes.size(); at += 8) pack->pointers.push_back(pack->bytes.data() + at);
  std::shared_ptr<CompiledKernel> compiled = kernel.compiled();
  device->check_geometry(*compiled, config.grid, config.block);
  const uint64_t limit = device->shared_memory_limit();
  if (config.shared_bytes > limit || compiled->static_shared_bytes + config.shared_bytes > limit)
    refuse(fmt::format("{} bytes of shared memory per work-group ({} static + {} dynamic) exceed the {} bytes device "
                       "'{}' gives a work-group",
                       compiled->static_shared_bytes + config.shared_bytes, compiled->static_shared_bytes,
                       config.shared_bytes, limit, device->id()));
  stream.impl().launch(std::move(compiled), config.grid, config.block, static_cast<uint32_t>(config.shared_bytes),
                       std::move(pack));
}

}  // namespace runtime

const CodeObject& Module::code() const {
  if (!state_) throw DeviceError("this Module is empty; load one with load_code_object()");
  return state_->code;
}

Device Module::device() const {
  if (!state_) throw DeviceError("this Module is empty; load one with load_code_object()");
  return Device(state_->device);
}

std::vector<std::string> Module::kernel_names() const {
  std::vector<std::string> names;
  for (const KernelMetadata& k : code().kernels) names.push_back(k.name);
  return names;
}

PrebuiltKernel Module::kernel(const std::string& name) const {
  const CodeObject& co = code();
  const KernelMetadata* m = nullptr;
  for (const KernelMetadata& k : co.kernels)
    if (k.name == name) m = &k;
  if (!m)
    throw LaunchError(fmt::format("the code object {} has no kernel '{}'; its kernels are: {}", state_->source, name,
                                  fmt::join(kernel_names(), ", ")));
  PrebuiltKernel k;
  k.module_ = *this;
  k.metadata_ = m;
  std::lock_guard<std::mutex> g(state_->lock);
  std::shared_ptr<runtime::CompiledKernel>& loaded = state_->loaded[name];
  if (!loaded) loaded = state_->device->load_prebuilt(co, *m);
  k.compiled_ = loaded;
  return k;
}

Module load_code_object(std::vector<uint8_t> elf, const Device& device, const std::string& source) {
  Device d = device ? device : default_device();
  d.impl().check_open("load a code object");
  if (d.kind() == "cpu" || d.kind() == "interp")
    throw DeviceError(fmt::format("load_code_object({}): device '{}' runs rocjit's IR, not AMDGPU code objects; load "
                                  "it on a HIP device (hip:N) or the simulator (sim:<processor>)",
                                  source, d.id()));
  if (bundle::is_fat_binary(elf.data(), elf.size())) {
    // A clang-offload-bundler fat binary (hipcc's, or rocjit::bundle::fat_binary's): the entry
    // for this device's processor.
    try {
      elf = bundle::fat_binary_entry(elf.data(), elf.size(), d.processor());
    } catch (const Error& e) {
      throw DeviceError(fmt::format("load_code_object({}): {}", source, e.what()));
    }
  }
  CodeObject co;
  try {
    co = read_code_object(std::move(elf));
  } catch (const Error& e) {
    throw DeviceError(fmt::format("load_code_object({}): not a usable AMDGPU code object: {}", source, e.what()));
  }
  if (co.target.processor != d.processor())
    throw DeviceError(fmt::format("load_code_object({}): the code object is for {} but device '{}' is {}", source,
                                  co.target.processor, d.id(), d.processor()));
  auto state = std::make_shared<runtime::ModuleState>();
  state->code = std::move(co);
  state->source = source;
  state->device = d.impl_ptr();
  Module m;
  m.state_ = std::move(state);
  return m;
}

Module load_code_object_file(const std::string& path, const Device& device) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw DeviceError(fmt::format("load_code_object_file: cannot open '{}'", path));
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw DeviceError(fmt::format("load_code_object_file: cannot read '{}'", path));
  return load_code_object(std::move(bytes), device, "'" + path + "'");
}

}  // namespace rocjit
