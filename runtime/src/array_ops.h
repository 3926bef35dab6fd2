// Array operations done with the runtime's own kernels (array_ops.cpp). Internal.
#pragma once

#include "rocjit/runtime/array.hpp"

namespace rocjit::runtime {

// Whether the layout covers its nbytes() in one block (C- or F-contiguous).
bool is_dense(const ArrayLayout& l);
// dst = src, element by element, for any two layouts of the same shape and element size on one
// device; enqueued on `stream` (not empty).
void copy_with_kernel(const DeviceArrayBase& dst, const DeviceArrayBase& src, const Stream& stream);
// Every element of `a` = the itemsize() bytes at `bits`; enqueued on `stream` (not empty).
void fill_with_kernel(const DeviceArrayBase& a, const void* bits, const Stream& stream);

}  // namespace rocjit::runtime
