// rocjit IR value types: {code, bits, lanes}, and the one table that maps C++ types to them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>

#include "rocjit/compiler/float16.hpp"

namespace rocjit::ir {

/// The type of an IR value or array element: a code (signed or unsigned integer, IEEE float,
/// bfloat), a bit width and a lane count (1 for scalars). `i1` (booleans) is a 1-bit unsigned
/// integer. The default-constructed type is `none`, the type of ops without a result.
/// Halide's `Type` is the model: new widths and vectors need no new enumerators, only support
/// in the passes (ir::verify says which types each target accepts today).
struct Type {
  /// What the bits mean.
  enum class Code : uint8_t { none, int_, uint, float_, bfloat };

  /// What the bits mean.
  Code code = Code::none;
  /// Bits per lane: 1 (i1), 8, 16, 32 or 64.
  uint8_t bits = 0;
  /// Lanes: 1 for scalars, 2..16 for vectors.
  uint16_t lanes = 1;

  constexpr Type() = default;
  /// A type from its parts.
  constexpr Type(Code c, unsigned b, unsigned l = 1)
      : code(c), bits(static_cast<uint8_t>(b)), lanes(static_cast<uint16_t>(l)) {}

  /// The types every target supports today; further ones are built with the constructor.
  ///@{
  static const Type none, i1, i8, i16, i32, i64, u8, u16, u32, u64, f16, bf16, f32, f64;
  ///@}

  /// Whether this is `none`.
  constexpr bool is_none() const { return code == Code::none; }
  /// Whether this is i1 (or a vector of it).
  constexpr bool is_bool() const { return code == Code::uint && bits == 1; }
  /// Whether this is a signed integer (or a vector of them).
  constexpr bool is_signed_int() const { return code == Code::int_; }
  /// Whether this is an unsigned integer other than i1 (or a vector of them).
  constexpr bool is_unsigned_int() const { return code == Code::uint && bits > 1; }
  /// Whether this is an integer other than i1 (or a vector of them).
  constexpr bool is_integer() const { return is_signed_int() || is_unsigned_int(); }
  /// Whether this is an IEEE float or a bfloat (or a vector of them).
  constexpr bool is_float() const { return code == Code::float_ || code == Code::bfloat; }
  /// Whether this has more than one lane.
  constexpr bool is_vector() const { return lanes > 1; }
  /// One lane of this type.
  constexpr Type element_of() const { return Type(code, bits, 1); }
  /// This type with `n` lanes.
  constexpr Type with_lanes(unsigned n) const { return Type(code, bits, n); }
  /// Bytes one value occupies in memory (i1: one byte per lane).
  constexpr unsigned bytes() const { return (bits == 1 ? 1u : bits / 8u) * lanes; }

  /// Same code, bits and lanes.
  friend constexpr bool operator==(const Type&, const Type&) = default;
};

inline constexpr Type Type::none{};
inline constexpr Type Type::i1{Type::Code::uint, 1};
inline constexpr Type Type::i8{Type::Code::int_, 8};
inline constexpr Type Type::i16{Type::Code::int_, 16};
inline constexpr Type Type::i32{Type::Code::int_, 32};
inline constexpr Type Type::i64{Type::Code::int_, 64};
inline constexpr Type Type::u8{Type::Code::uint, 8};
inline constexpr Type Type::u16{Type::Code::uint, 16};
inline constexpr Type Type::u32{Type::Code::uint, 32};
inline constexpr Type Type::u64{Type::Code::uint, 64};
inline constexpr Type Type::f16{Type::Code::float_, 16};
inline constexpr Type Type::bf16{Type::Code::bfloat, 16};
inline constexpr Type Type::f32{Type::Code::float_, 32};
inline constexpr Type Type::f64{Type::Code::float_, 64};

/// The .rjir spelling: "i1", "i32", "u64", "f32", "bf16", "f32x4" (lanes after an 'x'), "none".
std::string type_name(Type t);
/// The type a .rjir spelling names (the inverse of type_name), or nothing. Any well-formed
/// spelling parses (i8, f16, u16x4...); whether a target supports it is ir::verify's question.
std::optional<Type> parse_type_name(std::string_view name);
/// The C++ spelling of a supported scalar type ("int32_t", "float", "bool"), for diagnostics.
std::string cpp_type_name(Type t);
/// Whether the IR supports values and array elements of this type on every target today: none
/// and the types of the C++ table below (i1, 8- to 64-bit integers, f16, bf16, f32 and f64 scalars).
bool is_supported(Type t);
/// Whether the IR supports vector values of this type on every target: 2 to 4 lanes of a
/// supported scalar type other than i1 (f32x4, f16x2, u8x4...). Only the vector ops (ops.hpp) use them.
bool is_supported_vector(Type t);
/// Whether `t` can be an mma fragment (rocjit/compiler/mma.hpp): 2 to 16 lanes of a supported
/// scalar type other than i1. Only `vector`, `extract` and `mma` take vectors over 4 lanes.
bool is_fragment_vector(Type t);
/// The supported types' spellings, in table order: "i1, i32, i64, u32, u64, f32, f64, i8, ...".
const std::string& supported_type_names();

/// A float constant as a value of type `t` holds it: rounded to nearest even at t's precision
/// (f32: to the nearest float, f16 and bf16 likewise); unchanged for f64. The DSL and the parser store constants so.
double round_to_type(Type t, double v);

/// Free-function forms of the Type queries, as the passes spell them.
///@{
inline bool is_integer(Type t) { return t.is_integer(); }   ///< i1 excluded
inline bool is_signed(Type t) { return t.is_signed_int(); }  ///< i32, i64
inline bool is_float(Type t) { return t.is_float(); }       ///< f16, bf16, f32, f64
inline unsigned bit_width(Type t) { return t.bits; }        ///< i1 -> 1, per lane
inline unsigned byte_size(Type t) { return t.bytes(); }     ///< i1 -> 1
///@}

// --- The C++ <-> IR mapping: one table for the DSL, the launch packing, the interpreter ---------

/// `TypeOf<T>::value` is the IR type of the C++ type T; undefined (a compile error) for types
/// kernels cannot use. Kernel values: bool, int8_t ... int64_t, uint8_t ... uint64_t, half, bfloat16,
/// float, double.
template <class T>
struct TypeOf;
/// \cond INTERNAL
// The table, one line per C++ type.
template <> struct TypeOf<bool> { static constexpr Type value = Type::i1; };
template <> struct TypeOf<int32_t> { static constexpr Type value = Type::i32; };
template <> struct TypeOf<int64_t> { static constexpr Type value = Type::i64; };
template <> struct TypeOf<uint32_t> { static constexpr Type value = Type::u32; };
template <> struct TypeOf<uint64_t> { static constexpr Type value = Type::u64; };
template <> struct TypeOf<float> { static constexpr Type value = Type::f32; };
template <> struct TypeOf<double> { static constexpr Type value = Type::f64; };
template <> struct TypeOf<int8_t> { static constexpr Type value = Type::i8; };
template <> struct TypeOf<int16_t> { static constexpr Type value = Type::i16; };
template <> struct TypeOf<uint8_t> { static constexpr Type value = Type::u8; };
template <> struct TypeOf<uint16_t> { static constexpr Type value = Type::u16; };
template <> struct TypeOf<half> { static constexpr Type value = Type::f16; };
template <> struct TypeOf<bfloat16> { static constexpr Type value = Type::bf16; };
/// \endcond

/// Whether T is in the table.
template <class T, class = void>
inline constexpr bool has_type_of = false;
/// Whether T is in the table.
template <class T>
inline constexpr bool has_type_of<T, std::void_t<decltype(TypeOf<T>::value)>> = true;

/// The IR type of the C++ type T (cv-qualifiers ignored).
template <class T>
constexpr Type type_of() {
  using U = std::remove_cv_t<T>;
  static_assert(has_type_of<U>,
                "kernel values and array elements are bool, int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, "
                "uint32_t, uint64_t, rocjit::half, rocjit::bfloat16, float or double");
  return TypeOf<U>::value;
}

/// The C++ types of the table, in its order: everything below that walks the table walks this.
/// (The first seven are the original table; the 8- and 16-bit types follow.)
using CppTypes = std::tuple<bool, int32_t, int64_t, uint32_t, uint64_t, float, double, int8_t, int16_t, uint8_t,
                            uint16_t, half, bfloat16>;

/// Whether the table's C++ type T holds floating-point values (float, double, half, bfloat16).
template <class T>
inline constexpr bool is_float_v =
    std::is_floating_point_v<T> || std::is_same_v<T, half> || std::is_same_v<T, bfloat16>;

/// Calls `f(T{})` with the C++ type T whose IR type is `t` (a row of the table) and returns true;
/// returns false, calling nothing, for types without a row (none, vectors, types not supported).
template <class F>
bool with_cpp_type(Type t, F&& f);

/// \cond INTERNAL
template <class F, class... T>
bool with_cpp_type_of(Type t, F& f, std::tuple<T...>*) {
  return ((TypeOf<T>::value == t ? (f(T{}), true) : false) || ...);
}
/// \endcond

template <class F>
bool with_cpp_type(Type t, F&& f) {
  return with_cpp_type_of(t, f, static_cast<CppTypes*>(nullptr));
}

/// The IR type of a C++ integer or floating-point type by its properties rather than its exact
/// name (long, unsigned long long, char...): signed integers as i32/i64, unsigned as u32/u64,
/// bool as i1. Launch arguments use it to name what the caller passed.
template <class T>
constexpr Type type_of_arithmetic() {
  using U = std::remove_cv_t<T>;
  if constexpr (std::is_same_v<U, bool>) return Type::i1;
  else if constexpr (std::is_floating_point_v<U>) return sizeof(U) == 4 ? Type::f32 : Type::f64;
  else if constexpr (std::is_integral_v<U> && std::is_signed_v<U>) return sizeof(U) <= 4 ? Type::i32 : Type::i64;
  else return sizeof(U) <= 4 ? Type::u32 : Type::u64;
}

/// \cond INTERNAL
template <class D, class Rows>
struct ArithmeticRow {
  using type = void;
};
template <class D, class T, class... Rest>
struct ArithmeticRow<D, std::tuple<T, Rest...>> {
  using type = std::conditional_t<TypeOf<T>::value == type_of_arithmetic<D>(), T,
                                  typename ArithmeticRow<D, std::tuple<Rest...>>::type>;
};
/// \endcond
/// The table's C++ type for a value of arithmetic type D: the row of type_of_arithmetic<D>()
/// (short -> int32_t, unsigned long -> uint64_t, bool -> bool).
template <class D>
using arithmetic_row_t = typename ArithmeticRow<std::remove_cv_t<D>, CppTypes>::type;

}  // namespace rocjit::ir
