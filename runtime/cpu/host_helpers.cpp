// The run-time helpers of host kernels: the functions the CPU back end's code calls by name
// (rocjit_host_*, emitted by compiler/targets/host/lower.cpp). They are exported from librocjit
// (default visibility) and a kernel's shared object leaves them undefined, to be bound among the
// process's symbols when it is loaded (compiler/loader/host_library.cpp), so the compiler layer
// needs no reference to them.
#include <algorithm>
#include <bit>
#include <cstring>
#include <vector>

#include "rocjit/compiler/host.hpp"
#include "rocjit/compiler/ir.hpp"
#include "rocjit/compiler/mma.hpp"

// Zero, read by host kernels where the optimiser must not know the value (lower.cpp,
// integer_wrap_guard).
extern "C" __attribute__((visibility("default"))) const int64_t rocjit_host_zero = 0;

// Called by bounds-checked host kernels for each uniform(x) the whole group reaches: copies every
// work-item's operand to its result and reports the first work-item whose value differs from
// work-item 0's (bit for bit) as check `check`: (work-item, its bits, work-item 0's bits).
extern "C" __attribute__((visibility("default"))) void rocjit_host_uniform(
    uint32_t type, const uint8_t* in, uint64_t in_stride, uint8_t* out, uint64_t out_stride, uint32_t threads,
    void (*report)(rocjit::HostBoundsReport*, int32_t, int64_t, int64_t, int64_t), rocjit::HostBoundsReport* state,
    int32_t check) {
  const auto t = std::bit_cast<rocjit::ir::Type>(type);
  const unsigned bytes = rocjit::ir::byte_size(t);
  const uint64_t mask = bytes == 1 ? 1 : bytes >= 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * bytes)) - 1;
  auto read = [&](uint32_t i) {
    uint64_t x = 0;
    std::memcpy(&x, in + i * in_stride, bytes);
    return x & mask;
  };
  const uint64_t first = read(0);
  bool reported = false;
  for (uint32_t i = 0; i < threads; ++i) {
    const uint64_t x = read(i);
    if (x != first && !reported) {
      report(state, check, i, static_cast<int64_t>(x), static_cast<int64_t>(first));
      reported = true;
    }
    std::memcpy(out + i * out_stride, &x, bytes);
  }
}

// Called by host kernels' mma under a numerics model with groups (lower.cpp, HostLowering::mma):
// the exact sum of `count` terms (the running sum and a group's products, exact in double)
// rounded once to f32, flushing a subnormal result when `flush` is set.
extern "C" __attribute__((visibility("default"))) float rocjit_host_mma_sum_f32(const double* terms, uint32_t count,
                                                                              uint32_t flush) {
  return rocjit::ir::mma::round_sum_f32(terms, count, flush != 0);
}
