// Prints rocjit IR as text. The grammar is line-oriented: one op per line, regions in braces.
#include "rocjit/compiler/printer.hpp"

#include <fmt/format.h>

#include <ostream>

#include <cmath>

namespace rocjit::ir {
namespace {

// A string in double quotes: '"' and '\' escaped with a backslash, newline and tab as \n and \t,
// other control characters as \xHH (the parser's unescape() reverses it).
std::string quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '\n') out += "\\n";
    else if (c == '\t') out += "\\t";
    else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) out += fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
    else {
      if (c == '"' || c == '\\') out += '\\';
      out += c;
    }
  }
  return out + "\"";
}

std::string float_literal(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  std::string s = fmt::format("{}", v);
  // Keep a float literal recognisable as one ("1" -> "1.0").
  if (s.find_first_of(".eE") == std::string::npos) s += ".0";
  return s;
}

class Printer {
 public:
  Printer(const Kernel& k, const PrintOptions& o) : kernel_(k), options_(o) {}

  std::string run() {
    out_ += fmt::format("kernel @{}(", kernel_.name);
    for (size_t i = 0; i < kernel_.params.size(); ++i) {
      const Param& p = kernel_.params[i];
      if (i) out_ += ", ";
      if (p.kind == Param::Kind::scalar) {
        out_ += fmt::format("%{} {}: {}", p.value, p.name, type_name(p.type));
      } else {
        const Memory& m = kernel_.memories.at(p.memory);
        out_ += fmt::format("@{}: array<{}, {}, {}", m.name, type_name(m.element), m.rank, layout_name(m.layout));
        if (!m.shape.empty()) out_ += fmt::format(", [{}]", fmt::join(m.shape, ", "));
        out_ += ">";
      }
    }
    out_ += fmt::format(") max_block_size({})", kernel_.max_block_size);
    if (kernel_.fast_math) out_ += " fast_math";
    if (kernel_.small_arrays) out_ += " small_arrays";
    location(kernel_.loc);
    out_ += " {\n";
    for (const Memory& m : kernel_.memories) {
      if (m.space == MemorySpace::global) continue;
      if (m.dynamic)
        out_ += fmt::format("  {} @{}: {}[dynamic]", space_name(m.space), m.name, type_name(m.element));
      else
        out_ += fmt::format("  {} @{}: {}[{}]", space_name(m.space), m.name, type_name(m.element),
                            fmt::join(m.shape, ", "));
      location(m.loc);
      out_ += "\n";
    }
    for (const Slot& s : kernel_.slots) {
      out_ += fmt::format("  var ${}: {}", s.name, type_name(s.type));
      location(s.loc);
      out_ += "\n";
    }
    region(kernel_.body, 1);
    out_ += "}\n";
    return std::move(out_);
  }

 private:
  void location(const SourceLoc& loc) {
    if (!options_.locations || loc.file.empty()) return;
    out_ += fmt::format(" loc({}:{}:{})", quote(loc.file), loc.line, loc.column);
  }

  std::string v(ValueId id) const { return fmt::format("%{}", id); }
  std::string mem(uint32_t id) const { return "@" + kernel_.memories.at(id).name; }
  std::string slot(uint32_t id) const { return "$" + kernel_.slots.at(id).name; }

  std::string indices(const Op& op, size_t count) const {
    std::string s = "[";
    for (size_t i = 0; i < count; ++i) s += (i ? ", " : "") + v(op.operands[i]);
    return s + "]";
  }

  // The type a store writes: the element type, or a vector of it (printable before verification).
  Type stored_type(const Op& op, unsigned rank) const {
    const ValueId v = rank < op.operands.size() ? op.operands[rank] : 0;
    return v != 0 && v < kernel_.values.size() ? kernel_.value_type(v) : kernel_.memories.at(op.memory()).element;
  }

  std::string operand_list(const Op& op) const {
    std::string s;
    for (size_t i = 0; i < op.operands.size(); ++i) s += (i ? ", " : "") + v(op.operands[i]);
    return s;
  }

  // An atomic's order and scope when they are not the defaults (relaxed, device).
  void ordering(const Op& op) {
    if (op.order() != MemoryOrder::relaxed) out_ += fmt::format(" {}", memory_order_name(op.order()));
    if (op.scope() != MemoryScope::device) out_ += fmt::format(" {}", memory_scope_name(op.scope()));
  }

  // A loop's unroll request: " unroll N" (nothing when LLVM decides).
  void unroll(const Op& op) {
    if (op.unroll() != 0) out_ += fmt::format(" unroll {}", op.unroll());
  }

  void region(const Region& r, int depth) {
    for (const auto& op : r.ops) operation(*op, depth);
  }

  void operation(const Op& op, int depth) {
    std::string indent(2 * depth, ' ');
    out_ += indent;
    if (op.result != 0 && op.kind != OpKind::for_) out_ += v(op.result) + " = ";
    const std::string t = type_name(op.type);
    const unsigned rank = op_info(op.kind).reference == OpReference::indexed
                              ? kernel_.memories.at(op.memory()).rank
                              : 0;
    switch (op.kind) {
      case OpKind::constant:
        if (is_float(op.type))
          out_ += fmt::format("const {} : {}", float_literal(op.float_value()), t);
        else
          out_ += fmt::format("const {} : {}", op.int_value(), t);
        break;
      case OpKind::binary:
      case OpKind::unary:
      case OpKind::math:
      case OpKind::wave:
      case OpKind::uniform:
      case OpKind::make_vector:
        out_ += fmt::format("{} {} : {}", op_spelling(op), operand_list(op), t);
        break;
      case OpKind::compare:
        out_ += fmt::format("{} {} : {}", op_spelling(op), operand_list(op),
                            type_name(kernel_.value_type(op.operands[0])));
        break;
      case OpKind::select:
        out_ += fmt::format("select {} : {}", operand_list(op), t);
        break;
      case OpKind::cast:
      case OpKind::bitcast:
        out_ += fmt::format("{} {} : {} to {}", op_kind_name(op.kind), v(op.operands[0]),
                            type_name(kernel_.value_type(op.operands[0])), t);
        break;
      case OpKind::extract:
        out_ += fmt::format("extract {}, {} : {}", v(op.operands[0]), op.lane(), t);
        break;
      case OpKind::mma: {
        const auto& m = op.get<MmaAttrs>();
        // xf32 inputs: "mma 16, 16, 8, xf32, %c, %a, %b : f32x4" (full precision prints nothing).
        const std::string precision =
            m.precision == mma::Precision::full ? "" : fmt::format("{}, ", mma::precision_name(m.precision));
        out_ += fmt::format("mma {}, {}, {}, {}{} : {}", m.m, m.n, m.k, precision, operand_list(op), t);
        break;
      }
      case OpKind::workitem:
        out_ += fmt::format("{} {} : {}", op_spelling(op), op.dim(), t);
        break;
      case OpKind::shape:
        out_ += fmt::format("shape {}, {} : {}", mem(op.memory()), op.dim(), t);
        break;
      case OpKind::load:
        out_ += fmt::format("load {}{} : {}", mem(op.memory()), indices(op, rank), t);
        break;
      case OpKind::store:
        out_ += fmt::format("store {}{}, {} : {}", mem(op.memory()), indices(op, rank), v(op.operands[rank]),
                            type_name(stored_type(op, rank)));
        break;
      case OpKind::atomic: {
        std::string rest;
        for (size_t i = rank; i < op.operands.size(); ++i) rest += ", " + v(op.operands[i]);
        out_ += fmt::format("{} {}{}{} : {}", op_spelling(op), mem(op.memory()), indices(op, rank), rest,
                            type_name(kernel_.memories.at(op.memory()).element));
        ordering(op);
        break;
      }
      case OpKind::var_load:
        out_ += fmt::format("var.load {} : {}", slot(op.slot()), t);
        break;
      case OpKind::var_store:
        out_ += fmt::format("var.store {}, {} : {}", slot(op.slot()), v(op.operands[0]),
                            type_name(kernel_.slots.at(op.slot()).type));
        break;
      case OpKind::barrier: {
        std::string flags;
        if (op.fences() & fence_local) flags = "local";
        if (op.fences() & fence_global) flags += flags.empty() ? "global" : "|global";
        out_ += "barrier " + (flags.empty() ? std::string("none") : flags);
        break;
      }
      case OpKind::print: {
        out_ += "print " + quote(op.format());
        for (ValueId id : op.operands) out_ += ", " + v(id);
        break;
      }
      case OpKind::assert_: {
        out_ += "assert " + (op.operands.empty() ? std::string("%0") : v(op.operands[0])) + ", " + quote(op.format());
        for (size_t i = 1; i < op.operands.size(); ++i) out_ += ", " + v(op.operands[i]);
        break;
      }
      case OpKind::wavebarrier: out_ += "wavebarrier"; break;
      case OpKind::fence:
        out_ += fmt::format("fence {} {}", memory_order_name(op.order()), memory_scope_name(op.scope()));
        break;
      case OpKind::condition: out_ += "condition " + v(op.operands[0]); break;
      case OpKind::break_: out_ += "break"; break;
      case OpKind::continue_: out_ += "continue"; break;
      case OpKind::return_: out_ += "return"; break;
      case OpKind::if_:
        out_ += "if " + v(op.operands[0]);
        location(op.loc);
        out_ += " {\n";
        region(op.regions[0], depth + 1);
        if (!op.regions[1].ops.empty()) {
          out_ += indent + "} else {\n";
          region(op.regions[1], depth + 1);
        }
        out_ += indent + "}\n";
        return;
      case OpKind::for_:
        out_ += fmt::format("for {} = {} to {} step {} : {}", v(op.result), v(op.operands[0]),
                            v(op.operands[1]), v(op.operands[2]), t);
        unroll(op);
        location(op.loc);
        out_ += " {\n";
        region(op.regions[0], depth + 1);
        out_ += indent + "}\n";
        return;
      case OpKind::while_:
        out_ += "while";
        unroll(op);
        location(op.loc);
        out_ += " {\n";
        region(op.regions[0], depth + 1);
        out_ += indent + "} do {\n";
        region(op.regions[1], depth + 1);
        if (op.regions.size() > 2 && !op.regions[2].ops.empty()) {
          out_ += indent + "} step {\n";
          region(op.regions[2], depth + 1);
        }
        out_ += indent + "}\n";
        return;
    }
    location(op.loc);
    out_ += "\n";
  }

  const Kernel& kernel_;
  const PrintOptions& options_;
  std::string out_;
};

}  // namespace

std::string print(const Kernel& kernel, const PrintOptions& options) {
  return Printer(kernel, options).run();
}

std::ostream& operator<<(std::ostream& out, const Kernel& kernel) { return out << print(kernel); }

}  // namespace rocjit::ir
