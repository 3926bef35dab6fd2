// Host and device arrays with shapes, strides and order, after Numba's device arrays.
#pragma once

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <memory>
#include <source_location>
#include <span>
#include <string>
#include <vector>

#include "rocjit/compiler/ir.hpp"
#include "rocjit/runtime/device.hpp"
#include "rocjit/runtime/stream.hpp"

namespace rocjit {

/// Element order of a new array: C (last index fastest) or Fortran (first index fastest).
enum class Order { C, F };

/// Extents per dimension.
using Shape = std::vector<int64_t>;

/// The IR type of element type T.
template <class T>
constexpr ir::Type dtype_of() {
  static_assert(ir::has_type_of<T> && !std::is_same_v<T, bool>,
                "rocjit arrays hold int32_t, int64_t, uint32_t, uint64_t, float or double");
  return ir::type_of<T>();
}

namespace runtime {
struct HostStorage;    ///< host memory: ordinary, pinned (page-locked) or borrowed
struct Allocation;     ///< device memory, owned by a device
struct ArrayAccess;    ///< the runtime's access to a view's internals
}  // namespace runtime

/// One dimension of DeviceArray::slice(): the elements start, start + step, ... below stop, as
/// Python's `start:stop:step` with a positive step. `{}` (or Slice::all()) keeps the whole
/// dimension, `{2}` keeps elements 2 .. end, `{2, 8, 3}` keeps 2, 5. Slice::at(i) keeps element i
/// only and drops the dimension, like NumPy's `a[i]`. Indices are never negative and never wrap
/// or clamp: a start beyond the extent, a stop beyond it or before start, or a step below 1 is a
/// MemoryError.
struct Slice {
  /// `stop` of a slice that runs to the end of its dimension.
  static constexpr int64_t end = std::numeric_limits<int64_t>::max();
  /// First element.
  int64_t start = 0;
  /// One past the last element considered (Slice::end: the extent).
  int64_t stop = end;
  /// Distance between kept elements (at least 1).
  int64_t step = 1;
  /// Whether the dimension is dropped (Slice::at).
  bool drop = false;
  /// The whole dimension.
  static Slice all() { return {}; }
  /// Element `i` only, with the dimension dropped.
  static Slice at(int64_t i) { return {i, i == end ? end : i + 1, 1, true}; }  // no overflow at the largest i
};

/// Shape/stride bookkeeping shared by host and device arrays. Strides are in bytes, as in NumPy.
struct ArrayLayout {
  /// Extents per dimension.
  Shape shape;
  /// Element strides per dimension.
  std::vector<int64_t> strides;
  /// Element type.
  ir::Type dtype = ir::Type::f32;

  /// A contiguous layout of `shape` in C or Fortran order.
  static ArrayLayout contiguous(const Shape& shape, ir::Type dtype, Order order);
  int64_t size() const;     ///< elements
  int64_t nbytes() const;   ///< size() * itemsize
  /// Bytes per element.
  int64_t itemsize() const { return ir::byte_size(dtype); }
  /// Number of dimensions.
  size_t ndim() const { return shape.size(); }
  /// Whether elements are contiguous with the last index fastest.
  bool is_c_contiguous() const;
  /// Whether elements are contiguous with the first index fastest.
  bool is_f_contiguous() const;
};

/// A host array owning (or borrowing) its memory: what copy_to_host() returns and pinned_array()
/// makes. Element access with operator()(i, j, ...) in the array's own order.
template <class T>
class HostArray {
 public:
  HostArray() = default;
  /// A new host array of `shape`.
  explicit HostArray(const Shape& shape, Order order = Order::C);
  /// A host array over existing storage.
  HostArray(std::shared_ptr<runtime::HostStorage> storage, const Shape& shape, Order order);

  /// The first element.
  T* data() { return data_; }
  /// The first element.
  const T* data() const { return data_; }
  /// Extents per dimension.
  const Shape& shape() const { return layout_.shape; }
  /// Element strides per dimension.
  const std::vector<int64_t>& strides() const { return layout_.strides; }
  /// Number of elements.
  int64_t size() const { return layout_.size(); }
  /// Bytes of the elements.
  int64_t nbytes() const { return layout_.nbytes(); }
  /// Number of dimensions.
  size_t ndim() const { return layout_.ndim(); }
  /// Shape, strides and element type.
  const ArrayLayout& layout() const { return layout_; }
  /// Whether its memory is pinned (page-locked).
  bool is_pinned() const;
  /// The elements as a span.
  std::span<T> span() { return {data_, static_cast<size_t>(size())}; }
  /// The elements as a span.
  std::span<const T> span() const { return {data_, static_cast<size_t>(size())}; }
  /// A copy of the elements.
  std::vector<T> to_vector() const { return std::vector<T>(data_, data_ + size()); }
  /// The element at position `i` of the elements in memory order (the span's): for a 1-D array,
  /// element i. Unchecked, like std::vector's.
  ///@{
  T& operator[](int64_t i) { return data_[i]; }
  const T& operator[](int64_t i) const { return data_[i]; }
  ///@}
  /// Iteration over the elements in memory order: `for (float& v : host) ...`, std algorithms.
  ///@{
  T* begin() { return data_; }
  T* end() { return data_ + size(); }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size(); }
  ///@}

  /// The element at `index...`.
  template <class... I>
  T& operator()(I... index) {
    int64_t idx[] = {static_cast<int64_t>(index)...};
    int64_t offset = 0;
    for (size_t d = 0; d < sizeof...(I); ++d) offset += idx[d] * layout_.strides[d];
    return *reinterpret_cast<T*>(reinterpret_cast<std::byte*>(data_) + offset);
  }
  /// The element at `index...`.
  template <class... I>
  const T& operator()(I... index) const {
    return const_cast<HostArray*>(this)->operator()(index...);
  }
  /// The storage it views.
  const std::shared_ptr<runtime::HostStorage>& storage() const { return storage_; }

 private:
  std::shared_ptr<runtime::HostStorage> storage_;
  T* data_ = nullptr;
  ArrayLayout layout_;
};

/// The untyped part of a device array: a view (offset, shape, strides) of a device allocation.
class DeviceArrayBase {
 public:
  /// Extents per dimension.
  const Shape& shape() const { return layout_.shape; }
  /// Element strides per dimension.
  const std::vector<int64_t>& strides() const { return layout_.strides; }
  /// Number of elements.
  int64_t size() const { return layout_.size(); }
  /// Bytes of the elements.
  int64_t nbytes() const { return layout_.nbytes(); }
  /// Number of dimensions.
  size_t ndim() const { return layout_.ndim(); }
  /// Element type.
  ir::Type dtype() const { return layout_.dtype; }
  /// Whether the view is C-contiguous.
  bool is_c_contiguous() const { return layout_.is_c_contiguous(); }
  /// Whether the view is Fortran-contiguous.
  bool is_f_contiguous() const { return layout_.is_f_contiguous(); }
  /// Shape, strides and element type.
  const ArrayLayout& layout() const { return layout_; }
  /// The device holding the memory.
  Device device() const;
  /// Address of the first element on the device (valid while the array lives).
  void* device_pointer() const;
  /// The allocation it views (shared by its views).
  const std::shared_ptr<runtime::Allocation>& allocation() const { return allocation_; }
  /// Whether it holds memory.
  explicit operator bool() const { return allocation_ != nullptr; }

 protected:
  DeviceArrayBase() = default;
  /// A view of `a` at byte `offset`.
  DeviceArrayBase(std::shared_ptr<runtime::Allocation> a, int64_t offset, ArrayLayout layout)
      : allocation_(std::move(a)), offset_(offset), layout_(std::move(layout)) {}
  /// Allocates an array on `device`.
  static DeviceArrayBase allocate(const Shape& shape, ir::Type dtype, Order order, const Device& device);
  /// Copies between this array and host memory laid out as `host`. Both must match in shape and
  /// dtype; non-contiguous views are copied element-wise through a staging buffer.
  void copy_from_host(const void* host, const ArrayLayout& host_layout, const Stream& stream,
                      std::shared_ptr<void> keep_alive) const;
  /// Copies the array into host memory laid out as `host_layout`.
  void copy_to_host_memory(void* host, const ArrayLayout& host_layout, const Stream& stream,
                           std::shared_ptr<void> keep_alive) const;
  /// A view with another shape (MemoryError if that would need a copy).
  DeviceArrayBase reshaped(const Shape& shape, Order order) const;
  /// A one-dimensional view (MemoryError if that would need a copy).
  DeviceArrayBase raveled(Order order) const;
  /// A view of some of the elements (MemoryError for an out-of-range slice, naming `loc`).
  DeviceArrayBase sliced(std::span<const Slice> slices, const std::source_location& loc) const;
  /// Sets every element to the `itemsize()` bytes at `bits`, without a user kernel.
  void fill_bits(const void* bits, const Stream& stream) const;

  friend struct runtime::ArrayAccess;

  /// The memory (shared with views and pending work).
  std::shared_ptr<runtime::Allocation> allocation_;
  int64_t offset_ = 0;  ///< bytes
  /// Shape, strides and element type.
  ArrayLayout layout_;
};

/// An array in device memory. A shared handle: copies, ravel() and reshape() are views of the
/// same memory (as in Numba); the memory is freed when the last handle and the last pending
/// stream operation using it are gone.
template <class T>
class DeviceArray : public DeviceArrayBase {
 public:
  /// The C++ element type.
  using element_type = T;
  DeviceArray() = default;
  /// Typed view of an untyped device array.
  explicit DeviceArray(const DeviceArrayBase& base) : DeviceArrayBase(base) {}

  /// Copies to a new host array (synchronous on the default stream; on another stream the
  /// returned array is filled when the stream reaches the copy).
  HostArray<T> copy_to_host(const Stream& stream = {}) const {
    HostArray<T> out(layout_.shape, is_f_contiguous() && !is_c_contiguous() ? Order::F : Order::C);
    copy_to_host_memory(out.data(), out.layout(), stream, out.storage());
    return out;
  }
  /// Copies into an existing host array of the same shape and dtype.
  void copy_to_host(HostArray<T>& out, const Stream& stream = {}) const {
    copy_to_host_memory(out.data(), out.layout(), stream, out.storage());
  }
  /// Copies into a contiguous host buffer of exactly size() elements, C order.
  void copy_to_host(std::span<T> out, const Stream& stream = {}) const {
    copy_to_host_memory(out.data(), host_layout(out.size()), stream, nullptr);
  }
  /// Copies `host` into this array.
  void copy_to_device(const HostArray<T>& host, const Stream& stream = {}) const {
    copy_from_host(host.data(), host.layout(), stream, host.storage());
  }
  /// Copies `host` into this array.
  void copy_to_device(std::span<const T> host, const Stream& stream = {}) const {
    copy_from_host(host.data(), host_layout(host.size()), stream, nullptr);
  }
  /// Copies another device array into this one.
  void copy_to_device(const DeviceArray<T>& other, const Stream& stream = {}) const;

  /// A one-dimensional view (never a copy).
  DeviceArray ravel(Order order = Order::C) const { return DeviceArray(raveled(order)); }
  /// A view with another shape (never a copy).
  DeviceArray reshape(const Shape& shape, Order order = Order::C) const { return DeviceArray(reshaped(shape, order)); }

  /// A view of some of the elements, one Slice per leading dimension (the dimensions after them
  /// are kept whole): `a.slice({{1, 5}, {0, Slice::end, 2}})` is NumPy's `a[1:5, ::2]`,
  /// `a.slice({Slice::at(3)})` is `a[3]` (one dimension fewer). The view shares the memory;
  /// launches take it as an Array<T, N, ir::Layout::strided> parameter (or as C / F when it
  /// is still contiguous in that order), copies and copy_to_host() accept it. A slice outside
  /// the array is a MemoryError naming the dimension and the caller's file:line.
  DeviceArray slice(std::initializer_list<Slice> slices,
                    std::source_location loc = std::source_location::current()) const {
    return DeviceArray(sliced(std::span<const Slice>(slices.begin(), slices.size()), loc));
  }
  /// The same with the slices in a vector.
  DeviceArray slice(const std::vector<Slice>& slices, std::source_location loc = std::source_location::current()) const {
    return DeviceArray(sliced(std::span<const Slice>(slices), loc));
  }

  /// Sets every element of the array or view to `value`, in order on `stream` (default: the
  /// device's default stream), on every device, without a user kernel (rocjit launches its own).
  void fill(const T& value, const Stream& stream = {}) const { fill_bits(&value, stream); }
  /// Sets every element to zero (all bits clear).
  void zero(const Stream& stream = {}) const {
    unsigned char none[sizeof(T)] = {};
    fill_bits(none, stream);
  }

 private:
  ArrayLayout host_layout(size_t elements) const {
    ArrayLayout l = ArrayLayout::contiguous(layout_.shape, layout_.dtype, Order::C);
    if (static_cast<int64_t>(elements) != l.size()) {
      l.shape = {static_cast<int64_t>(elements)};
      l.strides = {static_cast<int64_t>(sizeof(T))};
    }
    return l;
  }
};

/// Allocates an uninitialised device array.
template <class T>
DeviceArray<T> device_array(const Shape& shape, Order order = Order::C, const Device& device = {});

/// An uninitialised device array of `other`'s shape and order on its device.
template <class T>
DeviceArray<T> device_array_like(const DeviceArray<T>& other) {
  return device_array<T>(other.shape(), other.is_f_contiguous() && !other.is_c_contiguous() ? Order::F : Order::C,
                         other.device());
}
/// An uninitialised device array of `other`'s shape on `device`.
template <class T>
DeviceArray<T> device_array_like(const HostArray<T>& other, const Device& device = {}) {
  return device_array<T>(other.shape(), Order::C, device);
}

/// Allocates a device array and copies `host` into it.
template <class T>
DeviceArray<T> to_device(const HostArray<T>& host, const Stream& stream = {}, const Device& device = {});
template <class T>
DeviceArray<T> to_device(const std::vector<T>& host, const Stream& stream = {}, const Device& device = {});
/// A temporary vector: on a non-default stream the call waits for the copy, since the vector is
/// gone when the call returns (an asynchronous copy would read freed memory).
template <class T>
DeviceArray<T> to_device(std::vector<T>&& host, const Stream& stream = {}, const Device& device = {});
/// A span with an explicit shape: its length must equal the shape's element count.
template <class T>
DeviceArray<T> to_device(std::span<const T> host, const Shape& shape, Order order = Order::C,
                         const Stream& stream = {}, const Device& device = {});
/// A vector with an explicit shape, e.g. to_device(v, {rows, cols}): its length must equal the
/// shape's element count.
template <class T>
DeviceArray<T> to_device(const std::vector<T>& host, const Shape& shape, Order order = Order::C,
                         const Stream& stream = {}, const Device& device = {});
/// A temporary vector with an explicit shape; like to_device(std::vector<T>&&), the call waits for
/// the copy on a non-default stream.
template <class T>
DeviceArray<T> to_device(std::vector<T>&& host, const Shape& shape, Order order = Order::C,
                         const Stream& stream = {}, const Device& device = {});

namespace runtime {
/// Non-template helpers behind the templates above.
///@{
DeviceArrayBase allocate_array(const Shape& shape, ir::Type dtype, Order order, const Device& device);
std::shared_ptr<HostStorage> allocate_host(size_t bytes);
void* host_storage_data(const HostStorage& s);
bool host_storage_pinned(const HostStorage& s);
void check_host_size(const char* what, size_t elements, const Shape& shape);
void copy_device_to_device(const DeviceArrayBase& dst, const DeviceArrayBase& src, const Stream& stream);
///@}
}  // namespace runtime

// ---- template definitions --------------------------------------------------------------------

template <class T>
HostArray<T>::HostArray(const Shape& shape, Order order)
    : layout_(ArrayLayout::contiguous(shape, dtype_of<T>(), order)) {
  storage_ = runtime::allocate_host(static_cast<size_t>(layout_.nbytes()));
  data_ = static_cast<T*>(runtime::host_storage_data(*storage_));
}

template <class T>
HostArray<T>::HostArray(std::shared_ptr<runtime::HostStorage> storage, const Shape& shape, Order order)
    : storage_(std::move(storage)), layout_(ArrayLayout::contiguous(shape, dtype_of<T>(), order)) {
  data_ = static_cast<T*>(runtime::host_storage_data(*storage_));
}

template <class T>
bool HostArray<T>::is_pinned() const {
  return storage_ && runtime::host_storage_pinned(*storage_);
}

template <class T>
DeviceArray<T> device_array(const Shape& shape, Order order, const Device& device) {
  return DeviceArray<T>(runtime::allocate_array(shape, dtype_of<T>(), order, device));
}

template <class T>
void DeviceArray<T>::copy_to_device(const DeviceArray<T>& other, const Stream& stream) const {
  runtime::copy_device_to_device(*this, other, stream);
}

template <class T>
DeviceArray<T> to_device(const HostArray<T>& host, const Stream& stream, const Device& device) {
  DeviceArray<T> d = device_array<T>(host.shape(), Order::C, device ? device : stream ? stream.device() : Device());
  d.copy_to_device(host, stream);
  return d;
}

/// A device array holding a copy of `host` (one dimension).
template <class T>
DeviceArray<T> to_device(const std::vector<T>& host, const Stream& stream, const Device& device) {
  return to_device<T>(std::span<const T>(host), Shape{static_cast<int64_t>(host.size())}, Order::C, stream, device);
}

template <class T>
DeviceArray<T> to_device(std::vector<T>&& host, const Stream& stream, const Device& device) {
  DeviceArray<T> d = to_device<T>(std::span<const T>(host), Shape{static_cast<int64_t>(host.size())}, Order::C, stream,
                                  device);
  if (stream) stream.synchronize();
  return d;
}

template <class T>
DeviceArray<T> to_device(std::span<const T> host, const Shape& shape, Order order, const Stream& stream,
                         const Device& device) {
  runtime::check_host_size("to_device", host.size(), shape);
  DeviceArray<T> d = device_array<T>(shape, order, device ? device : stream ? stream.device() : Device());
  d.copy_to_device(host, stream);
  return d;
}

template <class T>
DeviceArray<T> to_device(const std::vector<T>& host, const Shape& shape, Order order, const Stream& stream,
                         const Device& device) {
  return to_device<T>(std::span<const T>(host), shape, order, stream, device);
}

template <class T>
DeviceArray<T> to_device(std::vector<T>&& host, const Shape& shape, Order order, const Stream& stream,
                         const Device& device) {
  DeviceArray<T> d = to_device<T>(std::span<const T>(host), shape, order, stream, device);
  if (stream) stream.synchronize();
  return d;
}

}  // namespace rocjit
