// Launch: arguments checked against the traced signature, the kernel compiled once per device,
// geometry checked, then the launch enqueued with everything it uses kept alive.
#include "rocjit/runtime/launch.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <mutex>
#include <optional>
#include <unordered_map>

#include "rocjit/compiler/error.hpp"
#include "rocjit/compiler/kernel_abi.hpp"
#include "rocjit/compiler/verifier.hpp"
#include "rocjit/compiler/visitor.hpp"
#include "rocjit/settings.hpp"
#include "src/backend.hpp"
#include "src/host_memory.h"
#include "rocjit/compiler/mma.hpp"

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

// Appends one 8-byte argument slot holding `value`.
template <class T>
void put(ArgumentPack& pack, T value) {
  size_t at = pack.bytes.size();
  pack.bytes.resize(at + 8);
  std::memcpy(pack.bytes.data() + at, &value, sizeof(T));
}

// A scalar argument's value, read from its bits: an integer (bool as 0 or 1) or a float.
struct ScalarValue {
  bool is_float = false;
  __int128 i = 0;
  double f = 0;
};

ScalarValue read_scalar(const LaunchArgument& a) {
  ScalarValue v;
  ir::with_cpp_type(a.scalar_type, [&](auto x) {
    using T = decltype(x);
    T value;
    std::memcpy(&value, a.bits, sizeof value);
    if constexpr (ir::is_float_v<T>) {
      v.is_float = true;
      v.f = static_cast<double>(value);
    } else {
      v.i = static_cast<__int128>(value);
    }
  });
  return v;
}

// The value as the parameter's type when that type holds it exactly, written to `out`.
bool convert_exactly(const ScalarValue& v, ir::Type want, unsigned char (&out)[8]) {
  bool ok = false;
  ir::with_cpp_type(want, [&](auto x) {
    using T = decltype(x);
    T result{};
    if constexpr (ir::is_float_v<T>) {
      if (v.is_float) {
        result = static_cast<T>(v.f);
        ok = std::isnan(v.f) || static_cast<double>(result) == v.f;
      } else {
        // Through double: a value double cannot hold exactly fails the comparison below anyway.
        result = static_cast<T>(static_cast<double>(v.i));
        ok = std::isfinite(result) && static_cast<__int128>(result) == v.i;
      }
    } else {
      __int128 i = v.i;
      if (v.is_float) {
        // An integral float within 2^100 converts through __int128; anything else cannot fit.
        if (!std::isfinite(v.f) || std::trunc(v.f) != v.f || std::fabs(v.f) >= 0x1p100) return;
        i = static_cast<__int128>(v.f);
      }
      using Limits = std::numeric_limits<T>;
      if (i < static_cast<__int128>(Limits::min()) || i > static_cast<__int128>(Limits::max())) return;
      result = static_cast<T>(i);
      ok = true;
    }
    if (ok) std::memcpy(out, &result, sizeof result);
  });
  return ok;
}

std::string describe_value(const ScalarValue& v) {
  if (v.is_float) return fmt::format("{}", v.f);
  return v.i < 0 ? fmt::format("-{}", static_cast<unsigned __int128>(-v.i) > UINT64_MAX ? UINT64_MAX
                                                                                      : static_cast<uint64_t>(-v.i))
                 : fmt::format("{}", static_cast<uint64_t>(v.i));
}

// Scalars convert implicitly when the parameter's type holds the value exactly (2 or 2.0 for a
// float, 7.0 for an int, 300 for a uint8_t); anything else is refused, saying what to pass.
void put_scalar(const Kernel& k, ArgumentPack& pack, const ir::Param& p, const LaunchArgument& a, size_t index) {
  ir::Type want = p.type;
  unsigned char bits[8] = {};
  if (a.scalar_type == want) {
    std::memcpy(bits, a.bits, 8);
  } else if (!convert_exactly(read_scalar(a), want, bits)) {
    ScalarValue v = read_scalar(a);
    refuse(k, fmt::format("argument {} ('{}') is {} {}, which the parameter's type {} ({}) cannot hold exactly; "
                          "pass a {} (e.g. static_cast<{}>(x)) if the conversion is meant",
                          index, p.name, describe_argument(a), describe_value(v), ir::type_name(want),
                          ir::cpp_type_name(want), ir::cpp_type_name(want), ir::cpp_type_name(want)));
  }
  uint64_t slot;
  std::memcpy(&slot, bits, 8);
  put(pack, slot);
}

}  // namespace

void launch(const Kernel& kernel, const LaunchConfig& config, const std::vector<LaunchArgument>& given) {
  const ir::Kernel& ir = kernel.ir();
  Stream stream = config.stream ? config.stream : default_stream();
  std::shared_ptr<DeviceImpl> device = stream.impl().device();
  device->check_open(fmt::format("launch kernel '{}'", kernel.name()));
  if (given.size() != ir.params.size())
    refuse(kernel, fmt::format("it takes {} arguments, {} were given", ir.params.size(), given.size()));

  // Host memory passed in place becomes a view of that memory for the device, then is checked as
  // any array is.
  std::vector<DeviceArrayBase> mapped;
  std::vector<LaunchArgument> resolved;
  const std::vector<LaunchArgument>& args =
      resolve_host_arguments(device, given, mapped, resolved, [&](size_t i, const std::string& why) {
        refuse(kernel, fmt::format("argument {} ('{}') is {}", i, ir.params[i].name, why));
      });

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
      refuse(kernel, fmt::format("argument {} ('{}') must be C-contiguous, but it is a view with strides ({}) bytes; "
                                 "declare the parameter Array<T, N, ir::Layout::strided> to take views such as slices",
                                 i, p.name, fmt::join(arr.strides(), ", ")));
    if (m.layout == ir::Layout::F && !arr.is_f_contiguous())
      refuse(kernel, fmt::format("argument {} ('{}') must be F-contiguous, but it is a view with strides ({}) bytes; "
                                 "declare the parameter Array<T, N, ir::Layout::strided> to take views such as slices",
                                 i, p.name, fmt::join(arr.strides(), ", ")));
    for (int64_t e : arr.shape())
      if (e > std::numeric_limits<int32_t>::max())
        refuse(kernel, fmt::format("argument {} ('{}') has extent {}; kernels index with 32-bit extents", i, p.name, e));
  }

  // Runtime specialisation: the scalars' bits and the arrays' shapes pick (or make) a version.
  std::vector<uint64_t> scalar_bits(kernel.specializes() ? ir.params.size() : 0);
  auto pack = std::make_shared<ArgumentPack>();
  const KernelAbi abi = kernel_abi(ir);
  pack->bytes.reserve(8 * abi.arguments.size());
  size_t print_slot = SIZE_MAX;  // the print buffer's argument, filled once the kernel is compiled
  for (const AbiArgument& arg : abi.arguments) {
    if (arg.kind == AbiArgument::Kind::dynamic_shared) {
      put(*pack, static_cast<uint32_t>(std::min<uint64_t>(config.shared_bytes, UINT32_MAX)));
      continue;
    }
    if (arg.kind == AbiArgument::Kind::print_buffer) {
      print_slot = pack->bytes.size();
      put(*pack, uint64_t{0});
      continue;
    }
    const LaunchArgument& a = args[arg.param];
    switch (arg.kind) {
      case AbiArgument::Kind::scalar:
        put_scalar(kernel, *pack, ir.params[arg.param], a, arg.param);
        if (kernel.specializes()) std::memcpy(&scalar_bits[arg.param], pack->bytes.data() + pack->bytes.size() - 8, 8);
        break;
      case AbiArgument::Kind::pointer:
        put(*pack, a.array->device_pointer());
        pack->keep_alive.push_back(a.array->allocation());
        break;
      case AbiArgument::Kind::extent: put(*pack, static_cast<int32_t>(a.array->shape()[arg.dim])); break;
      case AbiArgument::Kind::stride:
        put(*pack, a.array->strides()[arg.dim] / static_cast<int64_t>(a.array->layout().itemsize()));
        break;
      case AbiArgument::Kind::print_buffer:
      case AbiArgument::Kind::dynamic_shared: break;  // above
    }
  }
  for (size_t at = 0; at < pack->bytes.size(); at += 8) pack->pointers.push_back(pack->bytes.data() + at);

  std::shared_ptr<const ir::Kernel> version = kernel.ir_ptr();
  if (kernel.specializes()) {
    std::vector<std::vector<int64_t>> shapes(ir.params.size());
    for (size_t i = 0; i < args.size(); ++i)
      if (args[i].array) shapes[i].assign(args[i].array->shape().begin(), args[i].array->shape().end());
    version = kernel.specialized(scalar_bits, shapes);
  }
  // 32-bit element offsets (AMDGPU) when every C or F array of this launch has fewer than 2^31
  // elements, so that every in-bounds offset fits; otherwise the 64-bit version.
  if (device->narrow_offsets() && has_launch_sized_arrays(*version)) {
    bool small = true;
    for (size_t i = 0; i < args.size() && small; ++i)
      if (args[i].array && ir.params[i].kind == ir::Param::Kind::array &&
          ir.memories[ir.params[i].memory].layout != ir::Layout::strided)
        small = ir::fewer_than_2_31_elements(args[i].array->shape());
    if (small) version = small_arrays_version(version);
  }
  std::shared_ptr<CompiledKernel> compiled = device->kernel(version);
  device->check_geometry(*compiled, config.grid, config.block);
  const Dim3 b = config.block;
  if (!compiled->wave_rows.empty() && (b.y > 1 || b.z > 1) && b.x % compiled->wave_size != 0)
    throw LaunchError(fmt::format("kernel '{}': {}, which is the same for a whole wavefront only when the work-group "
                                  "is 1-D or its x extent is a multiple of the wave size ({} on device '{}'); "
                                  "block ({}, {}, {}) is neither",
                                  kernel.name(), compiled->wave_rows, compiled->wave_size, device->id(), b.x, b.y, b.z));
  if (!compiled->mma_site.empty() && (b.x * b.y * b.z) % ir::mma::wave_lanes != 0)
    throw LaunchError(fmt::format("kernel '{}': the mma at {} needs work-groups of whole 64-lane waves; block ({}, {}, "
                                  "{}) has {} work-items",
                                  kernel.name(), compiled->mma_site, b.x, b.y, b.z, b.x * b.y * b.z));
  const uint64_t limit = device->shared_memory_limit();
  if (config.shared_bytes > limit || compiled->static_shared_bytes + config.shared_bytes > limit)
    throw LaunchError(fmt::format("kernel '{}': {} bytes of shared memory per work-group ({} static + {} dynamic) "
                                  "exceed the {} bytes device '{}' ({}) gives a work-group",
                                  kernel.name(), compiled->static_shared_bytes + config.shared_bytes,
                                  compiled->static_shared_bytes, config.shared_bytes, limit, device->id(),
                                  device->target()));
  // Device output: a fresh print buffer for the launch, its header written before the kernel
  // runs and the whole buffer copied back after it, delivered when the stream is synchronised
  // (the synchronous default stream: now).
  std::shared_ptr<const PrintTable> prints = compiled->prints;
  if (!prints || prints->empty() || print_slot == SIZE_MAX) {
    stream.impl().launch(std::move(compiled), config.grid, config.block, static_cast<uint32_t>(config.shared_bytes),
                         std::move(pack));
    return;
  }
  const Settings now = settings();
  const bool any_print = std::any_of(prints->sites.begin(), prints->sites.end(),
                                     [](const PrintSite& s) { return !s.is_assert; });
  const auto capacity = static_cast<uint32_t>(any_print ? now.print_buffer_bytes / 8 * 8 : 0);
  auto header = std::make_shared<std::vector<uint8_t>>(print_buffer_header(*prints, capacity));
  auto buffer = std::make_shared<Allocation>();
  buffer->bytes = header->size() + capacity;
  buffer->pointer = device->allocate(buffer->bytes);
  buffer->device = device;
  std::memcpy(pack->bytes.data() + print_slot, &buffer->pointer, sizeof(void*));
  pack->keep_alive.push_back(buffer);
  StreamImpl& s = stream.impl();
  s.copy(buffer->pointer, header->data(), header->size(), CopyKind::host_to_device, {buffer, header});
  auto host = std::make_shared<std::vector<uint8_t>>(buffer->bytes);
  try {
    s.launch(std::move(compiled), config.grid, config.block, static_cast<uint32_t>(config.shared_bytes),
             std::move(pack));
  } catch (const LaunchError& failed) {
    // A kernel that failed on the synchronous default stream: what it printed is delivered, and
    // if it trapped after a failed assert (ROCJIT_ASSERT=trap), the assert is the error to
    // report. Where the device cannot even copy the buffer back (a real GPU's queue is gone),
    // the launch's own error stands.
    if (!s.is_default()) throw;
    std::optional<DeviceAssertion> assertion;
    try {
      s.copy(host->data(), buffer->pointer, buffer->bytes, CopyKind::device_to_host, {buffer, host});
      assertion = deliver_prints(*prints, *host, kernel.name(), config.grid, config.block, now.print_sorted).assertion;
    } catch (const std::exception&) {
    }
    if (!assertion || now.asserts != AssertMode::trap) throw;
    DeviceAssertion e(fmt::format("{}; the kernel trapped there (ROCJIT_ASSERT=trap): {}", assertion->what(),
                                  failed.what()));
    e.kernel = assertion->kernel;
    e.file = assertion->file;
    e.line = assertion->line;
    e.group = assertion->group;
    e.item = assertion->item;
    e.text = assertion->text;
    e.failures = assertion->failures;
    throw e;
  }
  s.copy(host->data(), buffer->pointer, buffer->bytes, CopyKind::device_to_host, {buffer, host});
  s.add_prints(StreamImpl::PrintJob{std::move(prints), std::move(host), kernel.name(), config.grid, config.block,
                                    now.print_sorted});
  if (s.is_default()) s.deliver_prints();
}

void prepare_launch(const Kernel& kernel, const LaunchConfig& config) {
  Stream stream = config.stream ? config.stream : default_stream();
  std::shared_ptr<DeviceImpl> device = stream.impl().device();
  device->check_open(fmt::format("prepare kernel '{}'", kernel.name()));
  if (kernel.specializes())
    throw LaunchError(fmt::format("kernel '{}' specialises on its arguments (KernelOptions::specialize), so which "
                                  "version a launch runs depends on them: prepare_launch() cannot compile it "
                                  "ahead; a first launch compiles each version",
                                  kernel.name()));
  // The version launches with arrays of fewer than 2^31 elements run (launch()).
  std::shared_ptr<const ir::Kernel> version = kernel.ir_ptr();
  if (device->narrow_offsets() && has_launch_sized_arrays(*version)) version = small_arrays_version(version);
  std::shared_ptr<CompiledKernel> compiled = device->kernel(version);
  device->prepare_final(*compiled, config.grid, config.block);
}

LaunchConfig forall_config(const Kernel& kernel, int64_t n, const Stream& stream) {
  if (n < 0) throw LaunchError(fmt::format("kernel '{}': forall({}) needs a non-negative count", kernel.name(), n));
  Stream s = stream ? stream : default_stream();
  Device device = s.device();
  const int64_t wave = device.wave_size();
  int64_t block = std::min<int64_t>({256, kernel.ir().max_block_size, device.max_group_size()});
  if (block >= wave) block -= block % wave;
  const int64_t groups = (n + block - 1) / block;
  if (groups > std::numeric_limits<int32_t>::max() / block)
    throw LaunchError(fmt::format("kernel '{}': forall({}) needs more than 2^31 - 1 work-items in one dimension; "
                                  "split the work",
                                  kernel.name(), n));
  return LaunchConfig(Dim3(groups), Dim3(block), s);
}

bool has_launch_sized_arrays(const ir::Kernel& kernel) {
  for (const ir::Memory& m : kernel.memories)
    if (m.space == ir::MemorySpace::global && m.layout != ir::Layout::strided && m.rank > 1 && m.shape.empty())
      return true;
  return false;
}

std::shared_ptr<const ir::Kernel> small_arrays_version(const std::shared_ptr<const ir::Kernel>& ir) {
  struct Entry {
    std::weak_ptr<const ir::Kernel> original;
    std::shared_ptr<const ir::Kernel> copy;
  };
  static std::mutex lock;
  static std::unordered_map<const ir::Kernel*, Entry> copies;
  static size_t sweep_at = 64;
  std::lock_guard<std::mutex> g(lock);
  auto it = copies.find(ir.get());
  if (it != copies.end() && it->second.original.lock() == ir) return it->second.copy;
  if (copies.size() >= sweep_at) {  // forget the copies of IR that is gone
    std::erase_if(copies, [](const auto& e) { return e.second.original.expired(); });
    sweep_at = std::max<size_t>(64, 2 * copies.size());
  }
  auto copy = std::make_shared<ir::Kernel>(ir::clone(*ir));
  copy->small_arrays = true;
  Entry& e = copies[ir.get()];
  e = Entry{ir, std::move(copy)};
  return e.copy;
}

std::string describe_mma(const ir::Kernel& kernel) {
  std::string site;
  ir::walk(kernel.body, [&](const ir::Op& op) {
    if (op.kind == ir::OpKind::mma && site.empty()) site = op.loc.str();
  });
  return site;
}

std::string describe_wave_rows(const ir::Kernel& kernel) {
  const auto rows = ir::wave_rows_assumption(kernel);
  if (!rows) return {};
  return fmt::format("the {} at {} is in control flow built from local_id(0) / wave_size() at {}",
                     ir::op_spelling(*rows->sync), rows->sync->loc.str(), rows->source->loc.str());
}

}  // namespace rocjit::runtime
