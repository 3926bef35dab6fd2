// Array operations the runtime does with kernels of its own, on every device: copies between
// views of different layouts (strided slices, C to F) and fill. They move bits, so one kernel
// per element size and rank serves every element type (a view is retyped to the unsigned
// integer of its element's size).
#include "src/array_ops.h"

#include <fmt/format.h>

#include <array>
#include <cstring>

#include "rocjit/compiler/error.hpp"
#include "rocjit/dsl.hpp"
#include "rocjit/runtime/kernel.hpp"
#include "rocjit/runtime/launch.hpp"
#include "src/array_access.h"
#include "src/backend.hpp"

namespace rocjit::runtime {

namespace {

constexpr int64_t block_items = 256;
constexpr int64_t max_groups = 1024;

// The element (i0, i1, i2) of the flat C-order index `i` of an N-D array, as 32-bit indices.
template <int N, class A>
std::array<dsl::Int, 3> unflatten(const A& a, const dsl::Long& i) {
  using namespace rocjit::dsl;
  if constexpr (N == 1) {
    Int x = cast<int32_t>(i);
    return {x, x, x};
  } else if constexpr (N == 2) {
    Long e1 = cast<int64_t>(a.shape(1));
    Int r = cast<int32_t>(i / e1), c = cast<int32_t>(i % e1);
    return {r, c, c};
  } else {
    Long e1 = cast<int64_t>(a.shape(1)), e2 = cast<int64_t>(a.shape(2));
    Long rest = i / e2;
    Int k = cast<int32_t>(i % e2), j = cast<int32_t>(rest % e1), p = cast<int32_t>(rest / e1);
    return {p, j, k};
  }
}

template <int N, class A>
auto element(const A& a, const std::array<dsl::Int, 3>& at) {
  if constexpr (N == 1) return a(at[0]);
  else if constexpr (N == 2) return a(at[0], at[1]);
  else return a(at[0], at[1], at[2]);
}

// dst = src over `total` elements, a grid-stride loop over the flat index.
template <class U, int N>
const Kernel& copy_kernel() {
  static const Kernel& k = *new Kernel(kernel(
      fmt::format("rocjit_copy_u{}_{}d", sizeof(U) * 8, N),
      [](dsl::Array<U, N, ir::Layout::strided> dst, dsl::Array<U, N, ir::Layout::strided> src, dsl::Long total) {
        using namespace rocjit::dsl;
        Long first = cast<int64_t>(global_id(0)), step = cast<int64_t>(global_size(0));
        For(first, total, step, [&](Long i) {
          auto at = unflatten<N>(dst, i);
          element<N>(dst, at) = element<N>(src, at);
        });
      },
      {.max_block_size = block_items, .param_names = {"dst", "src", "total"}}));
  return k;
}

// a = value over `total` elements.
template <class U, int N>
const Kernel& fill_kernel() {
  static const Kernel& k = *new Kernel(kernel(
      fmt::format("rocjit_fill_u{}_{}d", sizeof(U) * 8, N),
      [](dsl::Array<U, N, ir::Layout::strided> a, dsl::Expr<U> value, dsl::Long total) {
        using namespace rocjit::dsl;
        Long first = cast<int64_t>(global_id(0)), step = cast<int64_t>(global_size(0));
        For(first, total, step, [&](Long i) { element<N>(a, unflatten<N>(a, i)) = value; });
      },
      {.max_block_size = block_items, .param_names = {"array", "value", "total"}}));
  return k;
}

// Calls f(U{}, std::integral_constant<int, N>{}) for the unsigned integer U of `itemsize` bytes.
template <class F>
void dispatch(int64_t itemsize, size_t rank, F&& f) {
  auto by_rank = [&](auto u) {
    switch (rank) {
      case 1: f(u, std::integral_constant<int, 1>{}); return;
      case 2: f(u, std::integral_constant<int, 2>{}); return;
      case 3: f(u, std::integral_constant<int, 3>{}); return;
    }
    throw MemoryError(fmt::format("arrays have 1 to 3 dimensions, not {}", rank));
  };
  switch (itemsize) {
    case 1: by_rank(uint8_t{}); return;
    case 2: by_rank(uint16_t{}); return;
    case 4: by_rank(uint32_t{}); return;
    case 8: by_rank(uint64_t{}); return;
  }
  throw MemoryError(fmt::format("no array operation for {}-byte elements", itemsize));
}

LaunchConfig config_for(int64_t total, const Stream& stream) {
  const int64_t groups = std::min(max_groups, (total + block_items - 1) / block_items);
  return LaunchConfig(Dim3(groups), Dim3(block_items), stream);
}

ir::Type unsigned_of(int64_t itemsize) {
  switch (itemsize) {
    case 1: return ir::Type::u8;
    case 2: return ir::Type::u16;
    case 4: return ir::Type::u32;
    case 8: return ir::Type::u64;
  }
  throw MemoryError(fmt::format("no array operation for {}-byte elements", itemsize));
}

}  // namespace

bool is_dense(const ArrayLayout& l) { return l.is_c_contiguous() || l.is_f_contiguous(); }

void copy_with_kernel(const DeviceArrayBase& dst, const DeviceArrayBase& src, const Stream& stream) {
  const int64_t total = dst.size();
  if (total == 0) return;
  const ir::Type u = unsigned_of(dst.layout().itemsize());
  DeviceArrayBase d = ArrayAccess::retyped(dst, u), s = ArrayAccess::retyped(src, u);
  dispatch(dst.layout().itemsize(), dst.ndim(), [&](auto type, auto rank) {
    using U = decltype(type);
    copy_kernel<U, decltype(rank)::value>()[config_for(total, stream)](d, s, total);
  });
}

void fill_with_kernel(const DeviceArrayBase& a, const void* bits, const Stream& stream) {
  const int64_t total = a.size();
  if (total == 0) return;
  const ir::Type u = unsigned_of(a.layout().itemsize());
  DeviceArrayBase view = ArrayAccess::retyped(a, u);
  dispatch(a.layout().itemsize(), a.ndim(), [&](auto type, auto rank) {
    using U = decltype(type);
    U value;
    std::memcpy(&value, bits, sizeof value);
    fill_kernel<U, decltype(rank)::value>()[config_for(total, stream)](view, value, total);
  });
}

}  // namespace rocjit::runtime
