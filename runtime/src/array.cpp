// Array layouts, allocation, host<->device copies, views, pinned and registered host memory.
#include "rocjit/runtime/array.hpp"

#include <fmt/format.h>

#include <new>

#include "rocjit/compiler/error.hpp"
#include "rocjit/runtime/memory.hpp"
#include "src/array_ops.h"
#include "src/backend.hpp"

namespace rocjit {

ArrayLayout ArrayLayout::contiguous(const Shape& shape, ir::Type dtype, Order order) {
  if (shape.empty() || shape.size() > 3)
    throw MemoryError(fmt::format("arrays have 1 to 3 dimensions; got a shape with {}", shape.size()));
  for (int64_t e : shape)
    if (e < 0) throw MemoryError(fmt::format("shape ({}) has a negative extent", fmt::join(shape, ", ")));
  ArrayLayout l;
  l.shape = shape;
  l.dtype = dtype;
  l.strides.assign(shape.size(), 0);
  int64_t stride = ir::byte_size(dtype);
  if (order == Order::C) {
    for (size_t d = shape.size(); d-- > 0;) {
      l.strides[d] = stride;
      stride *= std::max<int64_t>(shape[d], 1);
    }
  } else {
    for (size_t d = 0; d < shape.size(); ++d) {
      l.strides[d] = stride;
      stride *= std::max<int64_t>(shape[d], 1);
    }
  }
  return l;
}

int64_t ArrayLayout::size() const {
  int64_t n = 1;
  for (int64_t e : shape) n *= e;
  return n;
}
int64_t ArrayLayout::nbytes() const { return size() * itemsize(); }

bool ArrayLayout::is_c_contiguous() const {
  int64_t stride = itemsize();
  for (size_t d = shape.size(); d-- > 0;) {
    if (shape[d] != 1 && strides[d] != stride) return false;
    stride *= shape[d];
  }
  return true;
}

bool ArrayLayout::is_f_contiguous() const {
  int64_t stride = itemsize();
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] != 1 && strides[d] != stride) return false;
    stride *= shape[d];
  }
  return true;
}

namespace {

std::string describe(const ArrayLayout& l) {
  return fmt::format("{}[{}]", ir::type_name(l.dtype), fmt::join(l.shape, ", "));
}

// Copies element by element between two layouts of the same shape (both in host memory).
void copy_strided(void* dst, const ArrayLayout& dl, const void* src, const ArrayLayout& sl) {
  const int64_t item = dl.itemsize();
  const size_t rank = dl.shape.size();
  int64_t index[3] = {0, 0, 0};
  const int64_t n = dl.size();
  for (int64_t k = 0; k < n; ++k) {
    int64_t doff = 0, soff = 0;
    for (size_t d = 0; d < rank; ++d) {
      doff += index[d] * dl.strides[d];
      soff += index[d] * sl.strides[d];
    }
    std::memcpy(static_cast<char*>(dst) + doff, static_cast<const char*>(src) + soff, item);
    for (size_t d = rank; d-- > 0;) {
      if (++index[d] < dl.shape[d]) break;
      index[d] = 0;
    }
  }
}

bool same_order(const ArrayLayout& a, const ArrayLayout& b) { return a.strides == b.strides; }

}  // namespace

Device DeviceArrayBase::device() const {
  if (!allocation_) throw MemoryError("this DeviceArray is empty (default-constructed)");
  return Device(allocation_->device);
}

void* DeviceArrayBase::device_pointer() const {
  if (!allocation_) throw MemoryError("this DeviceArray is empty (default-constructed)");
  return static_cast<char*>(allocation_->pointer) + offset_;
}

void DeviceArrayBase::copy_from_host(const void* host, const ArrayLayout& hl, const Stream& stream,
                                     std::shared_ptr<void> keep_alive) const {
  if (!allocation_) throw MemoryError("copy_to_device: this DeviceArray is empty");
  allocation_->device->check_open("copy to a device array");
  if (hl.dtype != layout_.dtype || hl.size() != layout_.size() ||
      (hl.shape != layout_.shape && hl.ndim() != 1))
    throw MemoryError(fmt::format("copy_to_device: the host data is {} but the device array is {}; shapes and "
                                  "element types must match (nothing was copied)",
                                  describe(hl), describe(layout_)));
  Stream s = stream ? stream : default_stream(device());
  if (s.device().impl_ptr() != allocation_->device)
    throw MemoryError("copy_to_device: the stream belongs to another device than the array");
  if (!runtime::is_dense(layout_)) {
    // A strided view (a slice): the host data goes to a dense array on the device, then a copy
    // kernel scatters it into the view; the gaps between the view's elements stay untouched.
    DeviceArrayBase dense = runtime::allocate_array(layout_.shape, layout_.dtype, Order::C, device());
    dense.copy_from_host(host, hl, s, std::move(keep_alive));
    runtime::copy_with_kernel(*this, dense, s);
    return;
  }
  std::vector<std::shared_ptr<void>> keep{allocation_};
  if (keep_alive) keep.push_back(keep_alive);
  ArrayLayout flat_host = hl;
  if (hl.ndim() == 1 && layout_.ndim() != 1) flat_host = ArrayLayout::contiguous(layout_.shape, hl.dtype, Order::C);
  if (same_order(flat_host, layout_)) {
    s.impl().copy(device_pointer(), host, static_cast<size_t>(nbytes()), runtime::CopyKind::host_to_device, keep);
    return;
  }
  // Different orders: reorder into a staging buffer in the device's layout, then copy.
  auto staging = runtime::allocate_host(static_cast<size_t>(nbytes()));
  copy_strided(runtime::host_storage_data(*staging), layout_, host, flat_host);
  keep.push_back(staging);
  s.impl().copy(device_pointer(), runtime::host_storage_data(*staging), static_cast<size_t>(nbytes()),
                runtime::CopyKind::host_to_device, keep);
}

void DeviceArrayBase::copy_to_host_memory(void* host, const ArrayLayout& hl, const Stream& stream,
                                          std::shared_ptr<void> keep_alive) const {
  if (!allocation_) throw MemoryError("copy_to_host: this DeviceArray is empty");
  allocation_->device->check_open("copy from a device array");
  if (hl.dtype != layout_.dtype || hl.size() != layout_.size() || (hl.shape != layout_.shape && hl.ndim() != 1))
    throw MemoryError(fmt::format("copy_to_host: the destination is {} but the device array is {}; shapes and "
                                  "element types must match (nothing was copied)",
                                  describe(hl), describe(layout_)));
  Stream s = stream ? stream : default_stream(device());
  if (s.device().impl_ptr() != allocation_->device)
    throw MemoryError("copy_to_host: the stream belongs to another device than the array");
  if (!runtime::is_dense(layout_)) {
    // A strided view: a copy kernel gathers it into a dense array on the device, which is copied.
    DeviceArrayBase dense = runtime::allocate_array(layout_.shape, layout_.dtype, Order::C, device());
    runtime::copy_with_kernel(dense, *this, s);
    dense.copy_to_host_memory(host, hl, s, std::move(keep_alive));
    return;
  }
  std::vector<std::shared_ptr<void>> keep{allocation_};
  if (keep_alive) keep.push_back(keep_alive);
  ArrayLayout flat_host = hl;
  if (hl.ndim() == 1 && layout_.ndim() != 1) flat_host = ArrayLayout::contiguous(layout_.shape, hl.dtype, Order::C);
  if (same_order(flat_host, layout_)) {
    s.impl().copy(host, device_pointer(), static_cast<size_t>(nbytes()), runtime::CopyKind::device_to_host, keep);
    return;
  }
  auto staging = runtime::allocate_host(static_cast<size_t>(nbytes()));
  void* staged = runtime::host_storage_data(*staging);
  s.impl().copy(staged, device_pointer(), static_cast<size_t>(nbytes()), runtime::CopyKind::device_to_host, keep);
  ArrayLayout device_layout = layout_;
  s.impl().host_callback([host, flat_host, staging, device_layout, keep] {
    copy_strided(host, flat_host, runtime::host_storage_data(*staging), device_layout);
  });
}

DeviceArrayBase DeviceArrayBase::reshaped(const Shape& shape, Order order) const {
  ArrayLayout l = ArrayLayout::contiguous(shape, layout_.dtype, order);
  if (l.size() != layout_.size())
    throw MemoryError(fmt::format("cannot reshape {} ({} elements) to ({}) ({} elements): the element count must "
                                  "stay the same",
                                  describe(layout_), layout_.size(), fmt::join(shape, ", "), l.size()));
  // A view is possible when the memory order is the requested order (or trivially for 1-D).
  bool ok = (order == Order::C && layout_.is_c_contiguous()) || (order == Order::F && layout_.is_f_contiguous());
  if (!ok)
    throw MemoryError(fmt::format("cannot reshape {} in {} order without a copy: the array is not {}-contiguous; "
                                  "rocjit reshapes and ravels only as views (make a copy with device_array_like + "
                                  "copy_to_device)",
                                  describe(layout_), order == Order::C ? "C" : "F", order == Order::C ? "C" : "F"));
  return DeviceArrayBase(allocation_, offset_, l);
}

DeviceArrayBase DeviceArrayBase::raveled(Order order) const { return reshaped({layout_.size()}, order); }

DeviceArrayBase DeviceArrayBase::sliced(std::span<const Slice> slices, const std::source_location& loc) const {
  const std::string where = fmt::format("{}:{}", loc.file_name(), loc.line());
  if (!allocation_) throw MemoryError(fmt::format("slice at {}: this DeviceArray is empty", where));
  if (slices.size() > layout_.ndim())
    throw MemoryError(fmt::format("slice at {}: {} slices for an array of {} dimension(s), {}", where, slices.size(),
                                  layout_.ndim(), describe(layout_)));
  ArrayLayout l;
  l.dtype = layout_.dtype;
  int64_t offset = offset_;
  for (size_t d = 0; d < layout_.ndim(); ++d) {
    const Slice s = d < slices.size() ? slices[d] : Slice{};
    const int64_t extent = layout_.shape[d];
    const int64_t stop = s.stop == Slice::end ? extent : s.stop;
    auto refuse = [&](const std::string& what) {
      throw MemoryError(fmt::format("slice at {}: dimension {} of {} (extent {}): {}; a slice keeps start, start + "
                                    "step, ... below stop, with 0 <= start <= stop <= {} and step >= 1 (nothing "
                                    "was sliced)",
                                    where, d, describe(layout_), extent, what, extent));
    };
    if (s.drop && (s.start < 0 || s.start >= extent))
      refuse(fmt::format("index {} is outside 0 .. {}", s.start, extent - 1));
    if (s.step < 1) refuse(fmt::format("step {} is not positive", s.step));
    if (s.start < 0 || s.start > extent) refuse(fmt::format("start {} is outside 0 .. {}", s.start, extent));
    if (stop < s.start || stop > extent)
      refuse(fmt::format("stop {} is outside {} .. {}", stop, s.start, extent));
    offset += s.start * layout_.strides[d];
    if (s.drop) continue;
    l.shape.push_back((stop - s.start + s.step - 1) / s.step);
    l.strides.push_back(layout_.strides[d] * s.step);
  }
  if (l.shape.empty())
    throw MemoryError(fmt::format("slice at {}: Slice::at drops every dimension of {}; arrays keep at least one "
                                  "(use {{i, i + 1}} for the last)",
                                  where, describe(layout_)));
  return DeviceArrayBase(allocation_, offset, std::move(l));
}

void DeviceArrayBase::fill_bits(const void* bits, const Stream& stream) const {
  if (!allocation_) throw MemoryError("fill: this DeviceArray is empty");
  allocation_->device->check_open("fill a device array");
  Stream s = stream ? stream : default_stream(device());
  if (s.device().impl_ptr() != allocation_->device)
    throw MemoryError("fill: the stream belongs to another device than the array");
  runtime::fill_with_kernel(*this, bits, s);
}

namespace runtime {

DeviceArrayBase allocate_array(const Shape& shape, ir::Type dtype, Order order, const Device& device) {
  Device d = device ? device : default_device();
  ArrayLayout l = ArrayLayout::contiguous(shape, dtype, order);
  auto a = std::make_shared<Allocation>();
  a->pointer = d.impl().allocate(static_cast<size_t>(l.nbytes()));
  a->device = d.impl_ptr();
  a->bytes = static_cast<size_t>(l.nbytes());
  struct Access : DeviceArrayBase {
    Access(std::shared_ptr<Allocation> a, ArrayLayout l) : DeviceArrayBase(std::move(a), 0, std::move(l)) {}
  };
  return Access(std::move(a), std::move(l));
}

std::shared_ptr<HostStorage> allocate_host(size_t bytes) {
  auto s = std::make_shared<HostStorage>();
  s->data = ::operator new[](std::max<size_t>(bytes, 1), std::align_val_t(64));
  s->bytes = bytes;
  return s;
}
void* host_storage_data(const HostStorage& s) { return s.data; }
bool host_storage_pinned(const HostStorage& s) { return s.pinned_by != nullptr; }

void check_host_size(const char* what, size_t elements, const Shape& shape) {
  int64_t n = 1;
  for (int64_t e : shape) n *= e;
  if (static_cast<int64_t>(elements) != n)
    throw MemoryError(fmt::format("{}: the host buffer holds {} elements but shape ({}) needs {}", what, elements,
                                  fmt::join(shape, ", "), n));
}

void copy_device_to_device(const DeviceArrayBase& dst, const DeviceArrayBase& src, const Stream& stream) {
  if (!dst || !src) throw MemoryError("copy_to_device: an empty DeviceArray");
  if (dst.dtype() != src.dtype() || dst.shape() != src.shape())
    throw MemoryError(fmt::format("copy_to_device: source {} and destination {} differ in shape or element type",
                                  describe(src.layout()), describe(dst.layout())));
  if (dst.device().impl_ptr() != src.device().impl_ptr())
    throw MemoryError("copy_to_device: copies between arrays of different devices go through the host");
  dst.allocation()->device->check_open("copy between device arrays");
  Stream s = stream ? stream : default_stream(dst.device());
  if (s.device().impl_ptr() != dst.allocation()->device)
    throw MemoryError("copy_to_device: the stream belongs to another device than the arrays");
  if (dst.strides() != src.strides() || !is_dense(dst.layout())) {
    // Different orders or strided views: a copy kernel, element by element.
    copy_with_kernel(dst, src, s);
    return;
  }
  s.impl().copy(dst.device_pointer(), src.device_pointer(), static_cast<size_t>(dst.nbytes()),
                CopyKind::device_to_device, {dst.allocation(), src.allocation()});
}

std::shared_ptr<HostStorage> allocate_pinned(size_t bytes, const Device& device) {
  Device d = device ? device : default_device();
  auto s = std::make_shared<HostStorage>();
  s->data = d.impl().allocate_pinned(bytes);
  s->bytes = bytes;
  s->pinned_by = d.impl_ptr();
  return s;
}

void register_host(const void* data, size_t bytes, const Device& device) {
  Device d = device ? device : default_device();
  d.impl().register_range(data, bytes);
}

void deregister_host(const void* data, size_t bytes, const Device& device) {
  Device d = device ? device : default_device();
  d.impl().deregister_range(data, bytes);
}

void throw_smart_array_conflict() {
  throw MemoryError("SmartArray::mark_changed(Where::host): the device side changed and the host side was not read "
                    "since; read host() first so no update is lost");
}

}  // namespace runtime
}  // namespace rocjit
