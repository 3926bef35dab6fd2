// Memory and streams the application owns (external_array, external_stream) and DLPack.
#include "rocjit/runtime/interop.hpp"

#include <dlpack/dlpack.h>
#include <fmt/format.h>

#include "rocjit/compiler/error.hpp"
#include "src/array_access.h"
#include "src/backend.hpp"

namespace rocjit {
namespace runtime {

namespace {

std::string where(const std::source_location& loc) { return fmt::format("{}:{}", loc.file_name(), loc.line()); }

bool is_host_device(const DeviceImpl& d) { return d.kind() == "cpu" || d.kind() == "interp"; }

// Checks `l` (strides in bytes) and returns the bytes from the first element to past the last.
int64_t check_layout(const ArrayLayout& l, const std::string& what) {
  if (l.shape.empty() || l.shape.size() > 3)
    throw MemoryError(fmt::format("{}: arrays have 1 to 3 dimensions; got {}", what, l.shape.size()));
  if (l.strides.size() != l.shape.size())
    throw MemoryError(fmt::format("{}: {} strides for a shape of {} dimension(s), ({})", what, l.strides.size(),
                                  l.shape.size(), fmt::join(l.shape, ", ")));
  int64_t extent = l.itemsize();
  for (size_t d = 0; d < l.shape.size(); ++d) {
    if (l.shape[d] < 0)
      throw MemoryError(fmt::format("{}: shape ({}) has a negative extent", what, fmt::join(l.shape, ", ")));
    if (l.strides[d] <= 0 || l.strides[d] % l.itemsize() != 0)
      throw MemoryError(fmt::format("{}: stride {} of dimension {} is not a positive multiple of the element size "
                                    "({} bytes of {}); rocjit views need positive strides",
                                    what, l.strides[d], d, l.itemsize(), ir::type_name(l.dtype)));
    if (l.shape[d] == 0) return 0;
    extent += (l.shape[d] - 1) * l.strides[d];
  }
  return extent;
}

}  // namespace

DeviceArrayBase wrap_external(void* pointer, ir::Type dtype, const Shape& shape, const ExternalArrayOptions& options,
                              const std::source_location& loc) {
  const std::string what = fmt::format("external_array at {}", where(loc));
  Device d = options.device ? options.device : default_device();
  d.impl().check_open("wrap external memory");
  ArrayLayout l;
  if (options.strides.empty()) {
    l = ArrayLayout::contiguous(shape, dtype, options.order);
  } else {
    l.shape = shape;
    l.strides = options.strides;
    l.dtype = dtype;
  }
  const int64_t extent = check_layout(l, what);
  if (!pointer && extent > 0) throw MemoryError(fmt::format("{}: the pointer is null", what));
  if (reinterpret_cast<uintptr_t>(pointer) % static_cast<uintptr_t>(l.itemsize()) != 0)
    throw MemoryError(fmt::format("{}: pointer {} is not aligned to its {}-byte elements ({})", what, pointer,
                                  l.itemsize(), ir::type_name(dtype)));
  if (options.bytes != 0 && static_cast<uint64_t>(extent) > options.bytes)
    throw MemoryError(fmt::format("{}: shape ({}) with strides ({}) reaches {} bytes past the pointer, but the buffer "
                                  "holds {} (ExternalArrayOptions::bytes)",
                                  what, fmt::join(l.shape, ", "), fmt::join(l.strides, ", "), extent, options.bytes));
  auto a = std::make_shared<Allocation>();
  a->device = d.impl_ptr();
  a->pointer = pointer;
  a->bytes = static_cast<size_t>(extent);
  a->external = true;
  a->owner = options.owner;
  return ArrayAccess::make(std::move(a), 0, std::move(l));
}

namespace {

ir::Type dlpack_type(const DLDataType& t) {
  if (t.lanes != 1) return ir::Type::none;
  switch (t.code) {
    case kDLInt:
      return t.bits == 8 ? ir::Type::i8 : t.bits == 16 ? ir::Type::i16 : t.bits == 32 ? ir::Type::i32
           : t.bits == 64 ? ir::Type::i64 : ir::Type::none;
    case kDLUInt:
      return t.bits == 8 ? ir::Type::u8 : t.bits == 16 ? ir::Type::u16 : t.bits == 32 ? ir::Type::u32
           : t.bits == 64 ? ir::Type::u64 : ir::Type::none;
    case kDLFloat:
      return t.bits == 16 ? ir::Type::f16 : t.bits == 32 ? ir::Type::f32 : t.bits == 64 ? ir::Type::f64
                                                                            : ir::Type::none;
    case kDLBfloat: return t.bits == 16 ? ir::Type::bf16 : ir::Type::none;
  }
  return ir::Type::none;
}

DLDataType dlpack_dtype(ir::Type t) {
  DLDataType d;
  d.lanes = 1;
  d.bits = static_cast<uint8_t>(ir::byte_size(t) * 8);
  if (t == ir::Type::bf16) d.code = kDLBfloat;
  else if (t.is_float()) d.code = kDLFloat;
  else if (t.is_signed_int()) d.code = kDLInt;
  else d.code = kDLUInt;
  return d;
}

std::string describe_dlpack_type(const DLDataType& t) {
  const char* code = t.code == kDLInt ? "int" : t.code == kDLUInt ? "uint" : t.code == kDLFloat ? "float"
                     : t.code == kDLBfloat ? "bfloat" : "code ";
  std::string s = t.code <= kDLBfloat && t.code != 3 ? fmt::format("{}{}", code, t.bits)
                                                      : fmt::format("type code {} of {} bits", t.code, t.bits);
  if (t.lanes != 1) s += fmt::format(" x{} lanes", t.lanes);
  return s;
}

// The device of a DLPack tensor: `chosen` when it can hold it, else the default device when it
// can, else the first device that can.
std::shared_ptr<DeviceImpl> device_for(const DLDevice& dev, const Device& chosen, const std::string& what) {
  auto fits = [&](const DeviceImpl& d) {
    if (dev.device_type == kDLCPU) return is_host_device(d);
    if (dev.device_type == kDLROCM) return !is_host_device(d) && d.native_index() == dev.device_id;
    return false;
  };
  if (dev.device_type != kDLCPU && dev.device_type != kDLROCM)
    throw MemoryError(fmt::format("{}: the tensor is on DLPack device type {} (id {}); rocjit takes kDLCPU ({}) and "
                                  "kDLROCM ({}) tensors",
                                  what, static_cast<int>(dev.device_type), dev.device_id, static_cast<int>(kDLCPU),
                                  static_cast<int>(kDLROCM)));
  if (chosen) {
    if (!fits(chosen.impl()))
      throw MemoryError(fmt::format("{}: the tensor is on DLPack device {} (type {}), which device '{}' cannot use",
                                    what, dev.device_id, static_cast<int>(dev.device_type), chosen.id()));
    return chosen.impl_ptr();
  }
  Device def = default_device();
  if (fits(def.impl())) return def.impl_ptr();
  for (const Device& d : devices())
    if (fits(d.impl())) return d.impl_ptr();
  throw MemoryError(fmt::format("{}: no device for the tensor's kDLROCM device {} (devices: pass the simulator or "
                                "HIP device explicitly)",
                                what, dev.device_id));
}

}  // namespace

DeviceArrayBase import_dlpack(DLManagedTensor* tensor, ir::Type dtype, const Device& device,
                              const std::source_location& loc) {
  const std::string what = fmt::format("from_dlpack at {}", where(loc));
  if (!tensor) throw MemoryError(fmt::format("{}: the DLManagedTensor is null", what));
  const DLTensor& t = tensor->dl_tensor;
  const ir::Type got = dlpack_type(t.dtype);
  if (got != dtype)
    throw MemoryError(fmt::format("{}: the tensor holds {} but the array is of {} ({})", what,
                                  describe_dlpack_type(t.dtype), ir::type_name(dtype), ir::cpp_type_name(dtype)));
  if (t.ndim < 1 || t.ndim > 3)
    throw MemoryError(fmt::format("{}: the tensor has {} dimensions; rocjit arrays have 1 to 3", what, t.ndim));
  std::shared_ptr<DeviceImpl> dev = device_for(t.device, device, what);
  dev->check_open("import a DLPack tensor");
  ArrayLayout l;
  l.dtype = dtype;
  l.shape.assign(t.shape, t.shape + t.ndim);
  if (t.strides) {
    for (int d = 0; d < t.ndim; ++d) l.strides.push_back(t.strides[d] * l.itemsize());
  } else {
    l = ArrayLayout::contiguous(l.shape, dtype, Order::C);
  }
  const int64_t extent = check_layout(l, what);
  char* first = static_cast<char*>(t.data) + t.byte_offset;
  if (!t.data && extent > 0) throw MemoryError(fmt::format("{}: the tensor's data pointer is null", what));
  if (reinterpret_cast<uintptr_t>(first) % static_cast<uintptr_t>(l.itemsize()) != 0)
    throw MemoryError(fmt::format("{}: the tensor's first element ({} + byte_offset {}) is not aligned to its "
                                  "{}-byte elements",
                                  what, t.data, t.byte_offset, l.itemsize()));
  auto a = std::make_shared<Allocation>();
  a->device = dev;
  a->pointer = t.data;
  a->bytes = static_cast<size_t>(t.byte_offset + extent);
  a->external = true;
  // From here on the array owns the tensor: its deleter runs when the memory is released.
  a->owner = std::shared_ptr<void>(tensor, [](void* p) {
    auto* m = static_cast<DLManagedTensor*>(p);
    if (m->deleter) m->deleter(m);
  });
  return ArrayAccess::make(std::move(a), static_cast<int64_t>(t.byte_offset), std::move(l));
}

namespace {

// What to_dlpack hands out: the tensor, its shape and strides, and the memory kept alive.
struct Exported {
  DLManagedTensor tensor{};
  int64_t shape[3] = {};
  int64_t strides[3] = {};
  std::shared_ptr<Allocation> memory;
};

}  // namespace
}  // namespace runtime

DLManagedTensor* to_dlpack(const DeviceArrayBase& array) {
  using namespace runtime;
  if (!array) throw MemoryError("to_dlpack: this DeviceArray is empty");
  array.allocation()->device->check_open("export an array through DLPack");
  auto* e = new Exported;
  e->memory = array.allocation();
  DLTensor& t = e->tensor.dl_tensor;
  t.data = e->memory->pointer;
  t.byte_offset = static_cast<uint64_t>(ArrayAccess::offset(array));
  const DeviceImpl& dev = *e->memory->device;
  t.device.device_type = is_host_device(dev) ? kDLCPU : kDLROCM;
  t.device.device_id = is_host_device(dev) ? 0 : dev.native_index();
  t.ndim = static_cast<int>(array.ndim());
  t.dtype = dlpack_dtype(array.dtype());
  for (size_t d = 0; d < array.ndim(); ++d) {
    e->shape[d] = array.shape()[d];
    e->strides[d] = array.strides()[d] / array.layout().itemsize();
  }
  t.shape = e->shape;
  t.strides = e->strides;
  e->tensor.manager_ctx = e;
  e->tensor.deleter = [](DLManagedTensor* self) { delete static_cast<Exported*>(self->manager_ctx); };
  return &e->tensor;
}

Stream external_stream(void* hip_stream, const Device& device) {
  Device d = device ? device : default_device();
  d.impl().check_open("wrap an external stream");
  if (!hip_stream)
    throw DeviceError(fmt::format("external_stream: the stream handle is null; the HIP null stream is rocjit's "
                                  "default stream (default_stream(device) for '{}')",
                                  d.id()));
  auto s = d.impl().wrap_stream(hip_stream);
  d.impl().remember_stream(s);
  return Stream(s);
}

}  // namespace rocjit
