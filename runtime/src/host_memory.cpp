// Host memory used by kernels in place: which host memory a device reaches and at what address,
// and the host-accessible arrays (mapped_array, managed_array).
#include "src/host_memory.h"

#include <fmt/format.h>

#include <algorithm>

#include "rocjit/compiler/error.hpp"
#include "rocjit/runtime/memory.hpp"
#include "src/array_access.h"

namespace rocjit::runtime {

namespace {

// `device`'s address of the host bytes [data, data + bytes), or nullptr with `why`: every
// address on devices that share the host's memory; elsewhere memory this device pinned
// (`storage`) or that is registered with it, through the device's mapping of that block.
void* device_address(DeviceImpl& device, void* data, size_t bytes, const HostStorage* storage, std::string& why) {
  if (device.shares_host_memory()) return data;
  auto* at = static_cast<char*>(data);
  if (storage && storage->pinned_by.get() == &device) {
    auto* block = static_cast<char*>(storage->data);
    return static_cast<char*>(device.mapped_address(block)) + (at - block);
  }
  if (const void* block = device.registered_block(data, std::max<size_t>(bytes, 1))) {
    auto* b = static_cast<char*>(const_cast<void*>(block));
    return static_cast<char*>(device.mapped_address(b)) + (at - b);
  }
  why = storage && storage->pinned_by
            ? fmt::format("it is pinned by device '{}', not by '{}'", storage->pinned_by->id(), device.id())
            : fmt::format("device '{}' reaches host memory only where it is pinned for it (pinned_array(shape, order, "
                          "device), mapped_array) or registered with it (registered(...), register_host), and this "
                          "memory is neither; register it, or copy it (to_device)",
                          device.id());
  return nullptr;
}

}  // namespace

const std::vector<LaunchArgument>& resolve_host_arguments(
    const std::shared_ptr<DeviceImpl>& device, const std::vector<LaunchArgument>& given,
    std::vector<DeviceArrayBase>& mapped, std::vector<LaunchArgument>& resolved,
    const std::function<void(size_t, const std::string&)>& refuse) {
  if (std::none_of(given.begin(), given.end(), [](const LaunchArgument& a) { return a.host; })) return given;
  mapped.reserve(given.size());  // `resolved` points into it
  for (size_t i = 0; i < given.size(); ++i) {
    const LaunchArgument& g = given[i];
    if (!g.host) {
      resolved.push_back(g);
      continue;
    }
    const ArrayLayout& l = g.host_layout;
    int64_t extent = 0;  // bytes from the first element to the end of the last
    for (size_t d = 0; d < l.ndim(); ++d)
      if (l.shape[d] > 0) extent += (l.shape[d] - 1) * l.strides[d];
    extent = l.size() > 0 ? extent + l.itemsize() : 0;
    std::string why;
    void* pointer = device_address(*device, g.host, static_cast<size_t>(extent), g.host_storage.get(), why);
    if (!pointer)
      refuse(i, fmt::format("host memory ({} of rank {}) that the launch's device cannot use in place: {}",
                            ir::type_name(l.dtype), l.ndim(), why));
    auto alloc = std::make_shared<Allocation>();
    alloc->device = device;
    alloc->pointer = pointer;
    alloc->bytes = static_cast<size_t>(extent);
    alloc->external = true;  // the host's memory: never freed by the device
    alloc->release = Allocation::Release::none;
    alloc->host = g.host;
    alloc->owner = g.host_storage;
    mapped.push_back(ArrayAccess::make(std::move(alloc), 0, l));
    LaunchArgument a;
    a.array = &mapped.back();
    resolved.push_back(std::move(a));
  }
  return resolved;
}

DeviceArrayBase allocate_host_accessible(const Shape& shape, ir::Type dtype, Order order, const Device& device,
                                         bool managed) {
  Device d = device ? device : default_device();
  ArrayLayout l = ArrayLayout::contiguous(shape, dtype, order);
  const auto bytes = static_cast<size_t>(l.nbytes());
  auto a = std::make_shared<Allocation>();
  a->device = d.impl_ptr();
  a->bytes = bytes;
  if (managed) {
    a->pointer = d.impl().allocate_managed(bytes);
    a->host = a->pointer;
    a->release = Allocation::Release::managed;
  } else {
    a->host = d.impl().allocate_pinned(bytes);
    a->release = Allocation::Release::pinned;
    try {
      a->pointer = d.impl().mapped_address(a->host);
    } catch (...) {
      d.impl().deallocate_pinned(a->host);
      a->host = nullptr;
      throw;
    }
  }
  return ArrayAccess::make(std::move(a), 0, std::move(l));
}

void* host_address(const DeviceArrayBase& array) {
  const std::shared_ptr<Allocation>& a = array.allocation();
  if (!a) throw MemoryError("host_address: the array is empty");
  void* host = a->host ? a->host : a->device && a->device->shares_host_memory() ? a->pointer : nullptr;
  if (!host)
    throw MemoryError(fmt::format("the host cannot reach this array's memory on device '{}' directly (it is device "
                                  "memory); allocate it with mapped_array or managed_array, or copy it (copy_to_host)",
                                  a->device ? a->device->id() : std::string("?")));
  return static_cast<char*>(host) + ArrayAccess::offset(array);
}

bool is_managed(const DeviceArrayBase& array) {
  return array.allocation() && array.allocation()->release == Allocation::Release::managed;
}

}  // namespace rocjit::runtime
