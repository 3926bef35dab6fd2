// The run-time helpers of host kernels: the functions the CPU back end's code calls by name
// (rocjit_host_*, emitted by compiler/targets/host/lower.cpp). They are exported from librocjit
// (default visibility) and the host JIT resolves them among the process's symbols
// (compiler/targets/host/jit.cpp: DynamicLibrarySearchGenerator::GetForCurrentProcess), so the
// compiler layer needs no reference to them.
#include <algorithm>
#include <array>
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

// mma over each wave of `threads` work-items: gathers the wave's fragments (lane l's element e at
// byte l * stride + e * element size of each operand; stride 0 for a value the group computed
// once), runs ir::mma::interpret and scatters the result. The launch requires work-groups of
// whole 64-lane waves (CompiledKernel::mma_site); a partial wave would never get here.
extern "C" __attribute__((visibility("default"))) void rocjit_host_mma(
    uint32_t m, uint32_t n, uint32_t k, uint32_t input_type, uint32_t accumulator_type, const uint8_t* c,
    uint64_t c_stride, const uint8_t* a, uint64_t a_stride, const uint8_t* b, uint64_t b_stride, uint8_t* out,
    uint64_t out_stride, uint32_t threads) {
  namespace mma = rocjit::ir::mma;
  const mma::Shape shape{m, n, k};
  const mma::Counts counts = mma::counts(shape);
  const auto in = std::bit_cast<rocjit::ir::Type>(input_type);
  const auto acc = std::bit_cast<rocjit::ir::Type>(accumulator_type);
  const unsigned in_bytes = rocjit::ir::byte_size(in), acc_bytes = rocjit::ir::byte_size(acc);
  constexpr unsigned lanes = mma::wave_lanes;
  std::array<uint64_t, lanes * 16> cv, av, bv, rv;
  auto gather = [&](const uint8_t* from, uint64_t stride, unsigned count, unsigned bytes, uint32_t w0, uint64_t* to) {
    for (unsigned l = 0; l < lanes; ++l)
      for (unsigned e = 0; e < count; ++e) {
        uint64_t x = 0;
        std::memcpy(&x, from + (w0 + l) * stride + e * bytes, bytes);
        to[l * count + e] = x;
      }
  };
  for (uint32_t w0 = 0; w0 + lanes <= threads; w0 += lanes) {
    gather(c, c_stride, counts.c, acc_bytes, w0, cv.data());
    gather(a, a_stride, counts.a, in_bytes, w0, av.data());
    gather(b, b_stride, counts.b, in_bytes, w0, bv.data());
    mma::interpret(shape, in, acc, av.data(), bv.data(), cv.data(), rv.data());
    for (unsigned l = 0; l < lanes; ++l)
      for (unsigned e = 0; e < counts.c; ++e)
        std::memcpy(out + (w0 + l) * out_stride + e * acc_bytes, &rv[l * counts.c + e], acc_bytes);
  }
}
