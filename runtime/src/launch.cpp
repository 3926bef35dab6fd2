// Launch: arguments checked against the traced signature, the kernel compiled once per device,
// geometry checked, then the launch enqueued with everything it uses kept alive.
#include "rocjit/runtime/launch.hpp"

#include <fmt/format.h>

#include <limits>

#include "rocjit/compiler/error.hpp"
#include "rocjit/compiler/kernel_abi.hpp"
#include "rocjit/compiler/verifier.hpp"
#include "runtime/src/backend.hpp"

namespace rocjit::runtime {
namespace {

std::string describe_argument(const LaunchArgument& a) {
  if (a.array)
    return fmt::format("DeviceArray<{}> of rank {}", ir::type_name(a.array->dtype()), a.array->ndim());
  return fmt::format("scalar {}", ir::type_name(a.scalar_type));
}

[[noreturn]] void refuse(const Kernel& k, const std::string& what) {
  throw LaunchError(fmt::format("kernel '{}': {}; the kernel's signature is {} (defined at {})", k.name(), what,
                                k.signature(), k.ir().loc.str()));
}

template <class T>
void put(ArgumentPack& pack, T value) {
  size_t at = pack.bytes.size();
  pack.bytes.resize(at + 8);
  std::memcpy(pack.bytes.data() + at, &value, sizeof(T));
}

// Scalars: exact types, or integers whose value fits the parameter's integer type.
void put_scalar(const Kernel& k, ArgumentPack& pack, const ir::Param& p, const LaunchArgument& a, size_t index) {
  ir::Type want = p.type, have = a.scalar_type;
  if (have == want) {
    size_t at = pack.bytes.size();
    pack.bytes.resize(at + 8);
    std::memcpy(pack.bytes.data() + at, a.bits, 8);
    return;
  }
  if (ir::is_integer(want) && ir::is_integer(have)) {
    __int128 v = 0;
    if (have == ir::Type::i32) { int32_t x; std::memcpy(&x, a.bits, 4); v = x; }
    else if (have == ir::Type::i64) { int64_t x; std::memcpy(&x, a.bits, 8); v = x; }
    else if (have == ir::Type::u32) { uint32_t x; std::memcpy(&x, a.bits, 4); v = x; }
    else { uint64_t x; std::memcpy(&x, a.bits, 8); v = x; }
    bool fits = false;
    if (want == ir::Type::i32) {
      fits = v >= INT32_MIN && v <= INT32_MAX;
      if (fits) put(pack, static_cast<int32_t>(v));
    } else if (want == ir::Type::i64) {
      fits = v >= INT64_MIN && v <= INT64_MAX;
      if (fits) put(pack, static_cast<int64_t>(v));
    } else if (want == ir::Type::u32) {
      fits = v >= 0 && v <= UINT32_MAX;
      if (fits) put(pack, static_cast<uint32_t>(v));
    } else if (want == ir::Type::u64) {
      fits = v >= 0;
      if (fits) put(pack, static_cast<uint64_t>(v));
    }
    if (fits) return;
    refuse(k, fmt::format("argument {} ('{}') does not fit {}", index, p.name, ir::type_name(want)));
  }
  refuse(k, fmt::format("argument {} ('{}') is {} but the parameter is {} (convert it explicitly, e.g. {})", index,
                        p.name, describe_argument(a), ir::type_name(want),
                        want == ir::Type::f32 ? "2.5f or static_cast<float>(x)" : "static_cast<T>(x)"));
}

}  // namespace

void launch(const Kernel& kernel, const LaunchConfig& config, const std::vector<LaunchArgument>& args) {
  const ir::Kernel& ir = kernel.ir();
  Stream stream = config.stream ? config.stream : default_stream();
  std::shared_ptr<DeviceImpl> device = stream.impl().device();
  device->check_open(fmt::format("launch kernel '{}'", kernel.name()));
  if (args.size() != ir.params.size())
    refuse(kernel, fmt::format("it takes {} arguments, {} were given", ir.params.size(), args.size()));

  // Every argument is checked against its parameter first; then the pack follows the kernel ABI
  // (kernel_abi.hpp), one 8-byte slot per explicit argument.
  for (size_t i = 0; i < args.size(); ++i) {
    const ir::Param& p = ir.params[i];
    const LaunchArgument& a = args[i];
    if (p.kind == ir::Param::Kind::scalar) {
      if (a.array) refuse(kernel, fmt::format("argument {} ('{}') is a {}, but the parameter is a scalar {}", i, p.name,
                                              describe_argument(a), ir::type_name(p.type)));
      continue;
    }
    const ir::Memory& m = ir.memories[p.memory];
    if (!a.array)
      refuse(kernel, fmt::format("argument {} ('{}') is a {}, but the parameter is array<{}, {}>", i, p.name,
                                 describe_argument(a), ir::type_name(m.element), m.rank));
    const DeviceArrayBase& arr = *a.array;
    if (!arr) refuse(kernel, fmt::format("argument {} ('{}') is an empty DeviceArray", i, p.name));
    if (arr.dtype() != m.element || arr.ndim() != m.rank)
      refuse(kernel, fmt::format("argument {} ('{}') is a {}, but the parameter is array<{}, {}>", i, p.name,
                                 describe_argument(a), ir::type_name(m.element), m.rank));
    if (arr.allocation()->device != device)
      refuse(kernel, fmt::format("argument {} ('{}') lives on device '{}' but the launch is on '{}'", i, p.name,
                                 arr.allocation()->device->id(), device->id()));
    arr.allocation()->device->check_open(fmt::format("pass argument '{}' to kernel '{}'", p.name, kernel.name()));
    if (m.layout == ir::Layout::C && !arr.is_c_contiguous())
      refuse(kernel, fmt::format("argument {} ('{}') must be C-contiguous", i, p.name));
    if (m.layout == ir::Layout::F && !arr.is_f_contiguous())
      refuse(kernel, fmt::format("argument {} ('{}') must be F-contiguous", i, p.name));
    for (int64_t e : arr.shape())
      if (e > std::numeric_limits<int32_t>::max())
        refuse(kernel, fmt::format("argument {} ('{}') has extent {}; kernels index with 32-bit extents", i, p.name, e));
  }

  auto pack = std::make_shared<ArgumentPack>();
  const KernelAbi abi = kernel_abi(ir);
  pack->bytes.reserve(8 * abi.arguments.size());
  for (const AbiArgument& arg : abi.arguments) {
    if (arg.kind == AbiArgument::Kind::dynamic_shared) {
      put(*pack, static_cast<uint32_t>(std::min<uint64_t>(config.shared_bytes, UINT32_MAX)));
      continue;
    }
    const LaunchArgument& a = args[arg.param];
    switch (arg.kind) {
      case AbiArgument::Kind::scalar: put_scalar(kernel, *pack, ir.params[arg.param], a, arg.param); break;
      case AbiArgument::Kind::pointer:
        put(*pack, a.array->device_pointer());
        pack->keep_alive.push_back(a.array->allocation());
        break;
      case AbiArgument::Kind::extent: put(*pack, static_cast<int32_t>(a.array->shape()[arg.dim])); break;
      case AbiArgument::Kind::stride:
        put(*pack, a.array->strides()[arg.dim] / static_cast<int64_t>(a.array->layout().itemsize()));
        break;
      case AbiArgument::Kind::dynamic_shared: break;  // above
    }
  }
  for (size_t at = 0; at < pack->bytes.size(); at += 8) pack->pointers.push_back(pack->bytes.data() + at);

  std::shared_ptr<CompiledKernel> compiled = device->kernel(kernel.ir_ptr());
  device->check_geometry(*compiled, config.grid, config.block);
  const Dim3 b = config.block;
  if (!compiled->wave_rows.empty() && (b.y > 1 || b.z > 1) && b.x % compiled->wave_size != 0)
    throw LaunchError(fmt::format("kernel '{}': {}, which is the same for a whole wavefront only when the work-group "
                                  "is 1-D or its x extent is a multiple of the wave size ({} on device '{}'); "
                                  "block ({}, {}, {}) is neither",
                                  kernel.name(), compiled->wave_rows, compiled->wave_size, device->id(), b.x, b.y, b.z));
  const uint64_t limit = device->shared_memory_limit();
  if (config.shared_bytes > limit || compiled->static_shared_bytes + config.shared_bytes > limit)
    throw LaunchError(fmt::format("kernel '{}': {} bytes of shared memory per work-group ({} static + {} dynamic) "
                                  "exceed the {} bytes device '{}' ({}) gives a work-group",
                                  kernel.name(), compiled->static_shared_bytes + config.shared_bytes,
                                  compiled->static_shared_bytes, config.shared_bytes, limit, device->id(),
                                  device->target()));
  stream.impl().launch(std::move(compiled), config.grid, config.block, static_cast<uint32_t>(config.shared_bytes),
                       std::move(pack));
}

std::string describe_wave_rows(const ir::Kernel& kernel) {
  const auto rows = ir::wave_rows_assumption(kernel);
  if (!rows) return {};
  return fmt::format("the {} at {} is in control flow built from local_id(0) / wave_size() at {}",
                     ir::op_spelling(*rows->sync), rows->sync->loc.str(), rows->source->loc.str());
}

}  // namespace rocjit::runtime
