// The run-time helpers of host kernels: the functions the CPU back end's code calls by name
// (rocjit_host_*, emitted by compiler/targets/host/lower.cpp). They are exported from librocjit
// (default visibility) and the host JIT resolves them among the process's symbols
// (compiler/targets/host/jit.cpp: DynamicLibrarySearchGenerator::GetForCurrentProcess), so the
// compiler layer needs no reference to them.
#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <type_traits>
#include <vector>

#include "rocjit/compiler/host.hpp"
#include "rocjit/compiler/interpret.hpp"
#include "rocjit/compiler/ir.hpp"
#include "rocjit/compiler/mma.hpp"

// Called by host kernels for each wave op (targets/host/lower.cpp), once per work-group: gathers
// each wave's operands from per-work-item storage, applies interpret_wave and scatters the results.
// Types travel as the bits of ir::Type; a stride of 0 passes one uniform operand.
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

namespace {

// x[0] op x[1] op ... op x[n - 1], left to right (n >= 1).
template <class T, class F>
T fold(const T* x, unsigned n, F f) {
  T r = x[0];
  for (unsigned l = 1; l < n; ++l) r = f(r, x[l]);
  return r;
}

// rocjit_host_wave for 32- and 64-bit operands of type T whose result is a T: the steps of
// rocjit::interpret_wave (the reference every target matches bit for bit) on native values, with
// no per-lane type dispatch. Float reductions and scans keep interpret_wave's trees; only add is
// taken for floats (min/max have their own NaN and zero rules there). Returns false for what it
// does not handle, which then goes through interpret_wave.
// Each wave's operands are copied into an array, combined there by a loop specialised for the
// op (integer reductions vectorise), and copied out; where the storage is contiguous (a value's
// items are sizeof(T) apart, as the CPU back end lays out 32- and 64-bit values) each copy is one
// memcpy. (Reading and writing lane by lane at a run-time stride, with the op chosen per lane,
// was 78% of the scan sample's time.)
template <class T>
bool typed_wave(rocjit::ir::WaveOp op, const uint8_t* a, uint64_t a_stride, const uint8_t* b, uint64_t b_stride,
                uint8_t* out, uint64_t out_stride, uint32_t threads, uint32_t width) {
  using W = rocjit::ir::WaveOp;
  constexpr bool floating = std::is_floating_point_v<T>;
  const bool reduce = op == W::reduce_add || op == W::reduce_min || op == W::reduce_max || op == W::reduce_and ||
                      op == W::reduce_or || op == W::reduce_xor;
  const bool scan = op == W::inclusive_scan_add || op == W::exclusive_scan_add;
  const bool move = op == W::shuffle || op == W::shuffle_xor || op == W::shuffle_up || op == W::shuffle_down ||
                    op == W::broadcast || op == W::read_first;
  if (!reduce && !scan && !move) return false;
  if (floating && reduce && op != W::reduce_add) return false;
  // Integer add wraps (through the unsigned type); floats add as IEEE.
  auto add = [](T x, T y) -> T {
    if constexpr (floating) {
      return x + y;
    } else {
      using U = std::make_unsigned_t<T>;
      return static_cast<T>(static_cast<U>(x) + static_cast<U>(y));
    }
  };
  // Only lanes below `active` are read: the arrays need no initialisation.
  std::array<T, 64> x, y, next;  // width is host_wave_size (64)
  std::array<int32_t, 64> lanes;
  for (uint32_t w0 = 0; w0 < threads; w0 += width) {
    const uint32_t active = std::min({width, threads - w0, uint32_t{64}});
    if (a_stride == sizeof(T)) std::memcpy(x.data(), a + uint64_t{w0} * sizeof(T), active * sizeof(T));
    else for (uint32_t l = 0; l < active; ++l) std::memcpy(&x[l], a + (w0 + l) * a_stride, sizeof(T));
    if (reduce) {
      T r{};
      if constexpr (floating) {
        // interpret_wave's tree: at distance k = 1, 2, 4, ..., lane l (a multiple of 2k) adds lane
        // l + k if that is below `active`. The same additions in the same order, with the lanes
        // still in play packed to the front each level (contiguous pairs, which vectorise).
        T* from = x.data();
        T* to = next.data();
        for (unsigned n = active; n > 1; n = (n + 1) / 2) {
          const unsigned half = n / 2;
          for (unsigned i = 0; i < half; ++i) to[i] = from[2 * i] + from[2 * i + 1];
          if (n % 2) to[half] = from[n - 1];
          std::swap(from, to);
        }
        r = from[0];
      } else {
        switch (op) {
          case W::reduce_min: r = fold(x.data(), active, [](T p, T q) { return std::min(p, q); }); break;
          case W::reduce_max: r = fold(x.data(), active, [](T p, T q) { return std::max(p, q); }); break;
          case W::reduce_and: r = fold(x.data(), active, [](T p, T q) { return static_cast<T>(p & q); }); break;
          case W::reduce_or: r = fold(x.data(), active, [](T p, T q) { return static_cast<T>(p | q); }); break;
          case W::reduce_xor: r = fold(x.data(), active, [](T p, T q) { return static_cast<T>(p ^ q); }); break;
          case W::reduce_add: r = fold(x.data(), active, add); break;
          case W::shuffle: case W::shuffle_xor: case W::shuffle_up: case W::shuffle_down: case W::broadcast:
          case W::read_first: case W::ballot: case W::any: case W::all: case W::count: case W::inclusive_scan_add:
          case W::exclusive_scan_add:
            return false;  // not reductions (`reduce` is false for them)
        }
      }
      std::fill_n(y.data(), active, r);
    } else if (scan) {
      if constexpr (floating) {
        T* from = x.data();
        T* to = next.data();
        for (unsigned k = 1; k < width; k <<= 1) {
          for (unsigned l = 0; l < active; ++l) to[l] = l >= k ? from[l - k] + from[l] : from[l];
          std::swap(from, to);
        }
        if (from != x.data()) std::copy_n(from, active, x.data());
      } else {
        for (unsigned l = 1; l < active; ++l) x[l] = add(x[l - 1], x[l]);
      }
      if (op == W::inclusive_scan_add) {
        std::copy_n(x.data(), active, y.data());
      } else {
        y[0] = T{0};
        for (unsigned l = 1; l < active; ++l) y[l] = x[l - 1];
      }
    } else {
      if (!b) std::fill_n(lanes.data(), active, 0);
      else if (b_stride == sizeof(int32_t)) std::memcpy(lanes.data(), b + uint64_t{w0} * sizeof(int32_t), active * sizeof(int32_t));
      else for (uint32_t l = 0; l < active; ++l) std::memcpy(&lanes[l], b + (w0 + l) * b_stride, sizeof(int32_t));
      for (uint32_t l = 0; l < active; ++l) {
        const int64_t lane = lanes[l];
        int64_t src = op == W::shuffle_xor    ? int64_t{l} ^ lane
                      : op == W::shuffle_up   ? int64_t{l} - lane
                      : op == W::shuffle_down ? int64_t{l} + lane
                      : op == W::read_first   ? 0
                                              : lane;
        y[l] = src >= 0 && src < int64_t{active} ? x[src] : x[l];
      }
    }
    if (out_stride == sizeof(T)) std::memcpy(out + uint64_t{w0} * sizeof(T), y.data(), active * sizeof(T));
    else for (uint32_t l = 0; l < active; ++l) std::memcpy(out + (w0 + l) * out_stride, &y[l], sizeof(T));
  }
  return true;
}

}  // namespace

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

extern "C" __attribute__((visibility("default"))) void rocjit_host_wave(
    uint32_t op, uint32_t a_type, const uint8_t* a, uint64_t a_stride, const uint8_t* b, uint64_t b_stride,
    uint32_t result_type, uint8_t* out, uint64_t out_stride, uint32_t threads, uint32_t width) {
  using rocjit::ir::Type;
  const auto wave_op = static_cast<rocjit::ir::WaveOp>(op);
  if (a_type == result_type && width <= 64) {
    const auto t = std::bit_cast<Type>(a_type);
    auto typed = [&]<class T>(T) { return typed_wave<T>(wave_op, a, a_stride, b, b_stride, out, out_stride, threads, width); };
    if ((t == Type::f32 && typed(float{})) || (t == Type::f64 && typed(double{})) || (t == Type::i32 && typed(int32_t{})) ||
        (t == Type::u32 && typed(uint32_t{})) || (t == Type::i64 && typed(int64_t{})) || (t == Type::u64 && typed(uint64_t{})))
      return;
  }
  const auto at = std::bit_cast<rocjit::ir::Type>(a_type);
  const auto rt = std::bit_cast<rocjit::ir::Type>(result_type);
  const unsigned a_bytes = rocjit::ir::byte_size(at), r_bytes = rocjit::ir::byte_size(rt);
  std::array<uint64_t, 64> av{}, bv{}, rv{};  // width is host_wave_size (64)
  for (uint32_t w0 = 0; w0 < threads; w0 += width) {
    const uint32_t active = std::min(width, threads - w0);
    for (uint32_t l = 0; l < active; ++l) {
      uint64_t x = 0;
      std::memcpy(&x, a + (w0 + l) * a_stride, a_bytes);
      av[l] = at.is_bool() ? (x & 1) : x;  // booleans are stored as a byte: only bit 0 counts
      int32_t lane = 0;
      if (b) std::memcpy(&lane, b + (w0 + l) * b_stride, sizeof lane);
      bv[l] = static_cast<uint32_t>(lane);
    }
    rocjit::interpret_wave(static_cast<rocjit::ir::WaveOp>(op), at, av.data(), bv.data(), rv.data(), active, width);
    for (uint32_t l = 0; l < active; ++l) std::memcpy(out + (w0 + l) * out_stride, &rv[l], r_bytes);
  }
}

