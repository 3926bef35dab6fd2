// Spellings of IR types (.rjir and C++) and which ones the targets support.
#include "rocjit/compiler/type.hpp"

#include <fmt/format.h>

#include <array>
#include <charconv>

namespace rocjit::ir {

std::string type_name(Type t) {
  // The common types without formatting (the printer, and so every cache fingerprint, asks often).
  if (t == Type::i32) return "i32";
  if (t == Type::f32) return "f32";
  if (t == Type::i1) return "i1";
  if (t == Type::i64) return "i64";
  if (t == Type::u32) return "u32";
  if (t == Type::u64) return "u64";
  if (t == Type::f64) return "f64";
  std::string s;
  switch (t.code) {
    case Type::Code::none: return "none";
    case Type::Code::int_: s = "i"; break;
    case Type::Code::uint: s = t.bits == 1 ? "i" : "u"; break;  // i1 is spelled as LLVM spells it
    case Type::Code::float_: s = "f"; break;
    case Type::Code::bfloat: s = "bf"; break;
  }
  s += std::to_string(t.bits);
  if (t.lanes != 1) s += fmt::format("x{}", t.lanes);
  return s;
}

std::optional<Type> parse_type_name(std::string_view name) {
  Type::Code code;
  if (name.starts_with("bf")) {
    code = Type::Code::bfloat;
    name.remove_prefix(2);
  } else if (!name.empty() && (name[0] == 'i' || name[0] == 'u' || name[0] == 'f')) {
    code = name[0] == 'i' ? Type::Code::int_ : name[0] == 'u' ? Type::Code::uint : Type::Code::float_;
    name.remove_prefix(1);
  } else {
    return std::nullopt;
  }
  auto number = [&](unsigned& out) {
    const char* end = name.data() + name.size();
    auto [p, ec] = std::from_chars(name.data(), end, out);
    if (ec != std::errc() || p == name.data() || name[0] == '0') return false;
    name.remove_prefix(static_cast<size_t>(p - name.data()));
    return true;
  };
  unsigned bits = 0, lanes = 1;
  if (!number(bits)) return std::nullopt;
  if (!name.empty()) {
    if (name[0] != 'x') return std::nullopt;
    name.remove_prefix(1);
    if (!number(lanes) || lanes < 2 || lanes > 16) return std::nullopt;
  }
  if (!name.empty()) return std::nullopt;
  const bool bits_ok = code == Type::Code::bfloat   ? bits == 16
                       : code == Type::Code::float_ ? (bits == 16 || bits == 32 || bits == 64)
                       : code == Type::Code::uint   ? (bits == 8 || bits == 16 || bits == 32 || bits == 64)
                                                    : (bits == 1 || bits == 8 || bits == 16 || bits == 32 || bits == 64);
  if (!bits_ok) return std::nullopt;
  if (code == Type::Code::int_ && bits == 1) code = Type::Code::uint;  // "i1" is the boolean
  return Type(code, bits, lanes);
}

std::string cpp_type_name(Type t) {
  if (t == Type::i1) return "bool";
  if (t == Type::f32) return "float";
  if (t == Type::f64) return "double";
  if (t.code == Type::Code::float_ && t.bits == 16 && t.lanes == 1) return "half";
  if (t.code == Type::Code::bfloat && t.lanes == 1) return "bfloat16";
  if (t.is_integer() && t.lanes == 1) return fmt::format("{}int{}_t", t.is_signed_int() ? "" : "u", t.bits);
  return type_name(t);
}

double round_to_type(Type t, double v) {
  if (t.code == Type::Code::float_ && t.bits == 32) return static_cast<double>(static_cast<float>(v));
  if (t == Type::f16) return static_cast<double>(static_cast<float>(half(v)));
  if (t == Type::bf16) return static_cast<double>(static_cast<float>(bfloat16(v)));
  return v;
}

bool is_supported(Type t) {
  return t == Type::none || with_cpp_type(t, [](auto) {});
}

bool is_fragment_vector(Type t) {
  return t.lanes >= 2 && t.lanes <= 16 && t.element_of() != Type::i1 && !t.is_none() && is_supported(t.element_of());
}

bool is_supported_vector(Type t) {
  return t.lanes >= 2 && t.lanes <= 4 && t.element_of() != Type::i1 && !t.is_none() && is_supported(t.element_of());
}

namespace {

template <class... T>
std::array<Type, sizeof...(T)> all_types(std::tuple<T...>*) {
  return {TypeOf<T>::value...};
}

}  // namespace

const std::string& supported_type_names() {
  static const std::string names = [] {
    std::string s;
    for (Type t : all_types(static_cast<CppTypes*>(nullptr))) s += (s.empty() ? "" : ", ") + type_name(t);
    return s;
  }();
  return names;
}

}  // namespace rocjit::ir
