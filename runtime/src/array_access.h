// The runtime's access to a DeviceArrayBase's internals (views of an allocation). Internal.
#pragma once

#include <memory>

#include "rocjit/runtime/array.hpp"

namespace rocjit::runtime {

struct ArrayAccess {
  // A view of `a` at byte `offset` with layout `l`.
  static DeviceArrayBase make(std::shared_ptr<Allocation> a, int64_t offset, ArrayLayout l) {
    return DeviceArrayBase(std::move(a), offset, std::move(l));
  }
  // `a` with its elements read as `type` (of the same size).
  static DeviceArrayBase retyped(const DeviceArrayBase& a, ir::Type type) {
    ArrayLayout l = a.layout_;
    l.dtype = type;
    return DeviceArrayBase(a.allocation_, a.offset_, std::move(l));
  }
  // The view's byte offset into its allocation.
  static int64_t offset(const DeviceArrayBase& a) { return a.offset_; }
};

}  // namespace rocjit::runtime
