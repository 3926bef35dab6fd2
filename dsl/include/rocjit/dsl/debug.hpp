// Seeing inside a running kernel: dsl::print and dsl::device_assert.
#pragma once

#include <concepts>
#include <source_location>
#include <string_view>
#include <vector>

#include "rocjit/dsl/value.hpp"
#include "rocjit/dsl/vector.hpp"

namespace rocjit::dsl {

/// A format string and the line it was written on (the first argument of print and
/// device_assert; a string literal converts to it).
struct Format {
  std::string_view text;     ///< fmt-style: "{}", "{:.3f}", "{:08x}", "{0} {0}"
  std::source_location loc;  ///< where print or device_assert was called
  /// The format `s`, at the caller's line.
  template <class S>
    requires std::convertible_to<const S&, std::string_view>
  Format(const S& s, std::source_location where = std::source_location::current()) : text(s), loc(where) {}
};

namespace detail {
/// One vector value of `lanes` (2 to 4 values of one type).
Value vector_value(const std::vector<Value>& lanes, const std::source_location& loc);
/// A print argument as a value: traced values, Vars and array elements as they are; literals as
/// their own C++ type (2 is i32, 2.0 is f64); a Vec as one vector value. Ops it records (a Var's
/// read, a literal's constant) are at the print's line.
template <class X>
Value print_value(const X& x, const std::source_location& loc) {
  if constexpr (Loadable<X>) {
    return x.load(loc);
  } else if constexpr (requires { X::lanes_v; }) {
    return vector_value(std::vector<Value>(x.lanes().begin(), x.lanes().end()), loc);
  } else {
    const Operand o(x, loc);
    return coerce(o, o.type(), false, "a print value");
  }
}
void print(const Format& format, const std::vector<Value>& values);
void device_assert(const Operand& condition, const Format& message, const std::vector<Value>& values);
}  // namespace detail

/// Prints from every work-item that reaches it: `format` (fmt syntax, one replacement field per
/// value) applied to `values`, which may be values, Vars, array elements, literals and Vecs of
/// any type. The format is checked against the values' types when the kernel is traced (a bad
/// one is a CompileError naming this line). Each record is printed through the print handler
/// (stdout by default) when the stream is synchronised, prefixed with its work-item:
/// "[group 3 item 17] x = 1.500". See the README, "Debugging kernels".
template <class... Values>
void print(Format format, const Values&... values) {
  detail::print(format, {detail::print_value(values, format.loc)...});
}

/// Checks `condition` in every work-item that reaches it. A work-item where it is false records
/// the failure (the first one also its work-item and `message` formatted with `values`, as print
/// formats them) and carries on; the launch's next synchronisation throws rocjit::DeviceAssertion
/// naming this line. ROCJIT_ASSERT=off compiles it out, ROCJIT_ASSERT=trap makes AMDGPU code trap.
template <class... Values>
void device_assert(const Operand& condition, Format message, const Values&... values) {
  detail::device_assert(condition, message, {detail::print_value(values, message.loc)...});
}

}  // namespace rocjit::dsl
