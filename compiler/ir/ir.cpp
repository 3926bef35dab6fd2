// Names and small queries on rocjit IR types.
#include "rocjit/compiler/ir.hpp"

#include <fmt/format.h>

namespace rocjit::ir {

std::string_view type_name(Type t) {
  switch (t) {
    case Type::none: return "none";
    case Type::i1: return "i1";
    case Type::i32: return "i32";
    case Type::i64: return "i64";
    case Type::u32: return "u32";
    case Type::u64: return "u64";
    case Type::f32: return "f32";
    case Type::f64: return "f64";
  }
  return "?";
}

bool is_integer(Type t) {
  return t == Type::i32 || t == Type::i64 || t == Type::u32 || t == Type::u64;
}
bool is_signed(Type t) { return t == Type::i32 || t == Type::i64; }
bool is_float(Type t) { return t == Type::f32 || t == Type::f64; }

unsigned bit_width(Type t) {
  switch (t) {
    case Type::none: return 0;
    case Type::i1: return 1;
    case Type::i32: case Type::u32: case Type::f32: return 32;
    case Type::i64: case Type::u64: case Type::f64: return 64;
  }
  return 0;
}

unsigned byte_size(Type t) { return t == Type::i1 ? 1 : bit_width(t) / 8; }

std::string SourceLoc::str() const {
  if (file.empty()) return "<unknown>";
  return fmt::format("{}:{}", file, line);
}

std::string_view space_name(MemorySpace s) {
  switch (s) {
    case MemorySpace::global: return "global";
    case MemorySpace::shared: return "shared";
    case MemorySpace::local: return "local";
  }
  return "?";
}

std::string_view layout_name(Layout l) {
  switch (l) {
    case Layout::C: return "C";
    case Layout::F: return "F";
    case Layout::strided: return "strided";
  }
  return "?";
}

int64_t Memory::element_count() const {
  int64_t n = 1;
  for (int64_t e : shape) n *= e;
  return n;
}

std::string_view op_kind_name(OpKind k) {
  switch (k) {
    case OpKind::constant: return "const";
    case OpKind::binary: return "binary";
    case OpKind::unary: return "unary";
    case OpKind::compare: return "cmp";
    case OpKind::select: return "select";
    case OpKind::cast: return "cast";
    case OpKind::math: return "math";
    case OpKind::workitem: return "workitem";
    case OpKind::shape: return "shape";
    case OpKind::load: return "load";
    case OpKind::store: return "store";
    case OpKind::atomic: return "atomic";
    case OpKind::var_load: return "var.load";
    case OpKind::var_store: return "var.store";
    case OpKind::barrier: return "barrier";
    case OpKind::wavebarrier: return "wavebarrier";
    case OpKind::if_: return "if";
    case OpKind::for_: return "for";
    case OpKind::while_: return "while";
    case OpKind::condition: return "condition";
    case OpKind::break_: return "break";
  }
  return "?";
}

std::string_view binary_op_name(BinaryOp o) {
  static constexpr std::string_view names[] = {"add", "sub", "mul", "div", "rem", "min",
                                               "max", "and", "or",  "xor", "shl", "shr"};
  return names[static_cast<int>(o)];
}
std::string_view unary_op_name(UnaryOp o) {
  static constexpr std::string_view names[] = {"neg", "not", "abs"};
  return names[static_cast<int>(o)];
}
std::string_view compare_pred_name(ComparePred p) {
  static constexpr std::string_view names[] = {"eq", "ne", "lt", "le", "gt", "ge"};
  return names[static_cast<int>(p)];
}
std::string_view math_fn_name(MathFn f) {
  static constexpr std::string_view names[] = {"sqrt", "rsqrt", "exp",  "exp2", "log", "log2",
                                               "sin",  "cos",   "tan",  "pow",  "fma", "fabs",
                                               "floor", "ceil", "fmin", "fmax"};
  return names[static_cast<int>(f)];
}
unsigned math_fn_arity(MathFn f) {
  switch (f) {
    case MathFn::pow: case MathFn::fmin: case MathFn::fmax: return 2;
    case MathFn::fma: return 3;
    default: return 1;
  }
}
std::string_view workitem_name(WorkItem w) {
  static constexpr std::string_view names[] = {"local_id",   "group_id",  "local_size",
                                               "num_groups", "global_id", "global_size"};
  return names[static_cast<int>(w)];
}
std::string_view atomic_op_name(AtomicOp o) {
  static constexpr std::string_view names[] = {"add", "sub", "min", "max", "and",
                                               "or",  "xor", "exchange", "compare_exchange"};
  return names[static_cast<int>(o)];
}

int64_t Kernel::shared_bytes() const {
  int64_t total = 0;
  for (const auto& m : memories)
    if (m.space == MemorySpace::shared) total += m.element_count() * byte_size(m.element);
  return total;
}

void Kernel::index_definitions() {
  for (auto& v : values) v.def = nullptr;
  walk(body, [&](const Op& op) {
    if (op.result != 0 && op.result < values.size()) values[op.result].def = &op;
  });
}

}  // namespace rocjit::ir
