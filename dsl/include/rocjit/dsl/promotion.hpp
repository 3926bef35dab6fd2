// The DSL's promotion rule (the type of a binary operation on two values) as a constexpr
// function, so host code can name at compile time the type a traced expression will have.
#pragma once

#include <tuple>

#include "rocjit/compiler/type.hpp"

namespace rocjit::dsl {

/// The type of a binary operation on two values of types `a` and `b` (README, "Types and
/// promotion"): the wider float if either is a float (f16 with bf16: f32, which holds both
/// exactly); otherwise C++'s rule for integers of different widths and signedness, but without
/// C++'s promotion of 8- and 16-bit integers to int: two i8 values add as i8 (wrapping), like two
/// i32 values. bool counts as int32_t. The DSL's operators use this very function.
constexpr ir::Type promote(ir::Type a, ir::Type b) {
  if (a.is_float() || b.is_float()) {
    if (!a.is_float()) return b;
    if (!b.is_float()) return a;
    if (a == b) return a;
    if (a.bits != b.bits) return a.bits > b.bits ? a : b;
    return ir::Type::f32;  // f16 and bf16
  }
  if (a == ir::Type::i1) a = ir::Type::i32;
  if (b == ir::Type::i1) b = ir::Type::i32;
  if (a == b) return a;
  const bool sa = a.is_signed_int(), sb = b.is_signed_int();
  if (sa == sb) return a.bits >= b.bits ? a : b;
  const ir::Type s = sa ? a : b, u = sa ? b : a;
  return u.bits >= s.bits ? u : s;
}

/// \cond INTERNAL
template <class... T>
constexpr ir::Type promote_all() {
  ir::Type types[] = {ir::TypeOf<T>::value...};
  ir::Type r = types[0];
  for (size_t i = 1; i < sizeof...(T); ++i) r = promote(r, types[i]);
  return r;
}
// The row of `t` in the type table (rocjit/compiler/type.hpp). (By row index rather than with an
// ir::Type template argument, which GCC 12 does not compile.)
template <class... Rows>
constexpr size_t table_row(ir::Type t, std::tuple<Rows...>*) {
  const ir::Type types[] = {ir::TypeOf<Rows>::value...};
  for (size_t i = 0; i < sizeof...(Rows); ++i)
    if (types[i] == t) return i;
  return sizeof...(Rows);
}
/// \endcond

/// The C++ type values of the table's types T... take when combined by binary operations:
/// promote() folded over them (one type alone is itself).
template <class... T>
  requires(sizeof...(T) > 0)
using promoted_t =
    std::tuple_element_t<table_row(promote_all<T...>(), static_cast<ir::CppTypes*>(nullptr)), ir::CppTypes>;

}  // namespace rocjit::dsl
