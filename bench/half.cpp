// bench-half: nanoseconds per host conversion of rocjit::half and bfloat16 (the element types of
// f16 and bf16 arrays, converted element by element when a program fills or reads them), against
// the software reference rounding and the compiler's own _Float16. A table, no assertions.
#include <fmt/format.h>

#include <chrono>
#include <cstdint>
#include <vector>

#include <rocjit/rocjit.hpp>

namespace {

volatile uint32_t sink;

template <class F>
double ns_per_call(size_t n, F&& f) {
  uint32_t acc = 0;
  const auto start = std::chrono::steady_clock::now();
  for (size_t i = 0; i < n; ++i) acc += f(i);
  const auto end = std::chrono::steady_clock::now();
  sink = acc;
  return std::chrono::duration<double, std::nano>(end - start).count() / static_cast<double>(n);
}

}  // namespace

int main() {
  constexpr size_t n = 1 << 22;
  std::vector<float> values(4096);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i) * 0.37f - 700.0f;
  auto value = [&](size_t i) { return values[i & 4095]; };
  std::vector<uint16_t> bits(4096);
  for (size_t i = 0; i < bits.size(); ++i) bits[i] = static_cast<uint16_t>(i * 13 % 0x7c00);
  fmt::print("{:<44}{:>10}\n", "conversion", "ns/value");
  auto row = [](const char* what, double ns) { fmt::print("{:<44}{:>10.2f}\n", what, ns); };
  row("half(float)  rocjit::half", ns_per_call(n, [&](size_t i) { return rocjit::half(value(i)).bits(); }));
  row("half(float)  software reference", ns_per_call(n / 16, [&](size_t i) {
        return uint32_t{rocjit::detail::half_bits_reference(value(i))};
      }));
  row("half(float)  _Float16 cast", ns_per_call(n, [&](size_t i) {
        const _Float16 h = static_cast<_Float16>(value(i));
        return uint32_t{__builtin_bit_cast(uint16_t, h)};
      }));
  row("float(half)  rocjit::half", ns_per_call(n, [&](size_t i) {
        return __builtin_bit_cast(uint32_t, float(rocjit::half::from_bits(bits[i & 4095])));
      }));
  row("float(half)  software reference", ns_per_call(n / 16, [&](size_t i) {
        return __builtin_bit_cast(uint32_t, rocjit::detail::half_value_reference(bits[i & 4095]));
      }));
  row("bfloat16(float)  rocjit::bfloat16", ns_per_call(n, [&](size_t i) {
        return uint32_t{rocjit::bfloat16(value(i)).bits()};
      }));
  row("bfloat16(float)  software reference", ns_per_call(n / 16, [&](size_t i) {
        return uint32_t{rocjit::detail::bfloat16_bits_reference(value(i))};
      }));
  return 0;
}
