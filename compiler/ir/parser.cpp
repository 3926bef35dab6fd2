// Parses .rjir text (the form ir::print writes) back into kernels, with line:column diagnostics.
#include "rocjit/compiler/parser.hpp"

#include <fmt/format.h>

#include <cstdio>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <map>
#include <unordered_map>

#include "rocjit/compiler/error.hpp"
#include "rocjit/compiler/passes.hpp"
#include "rocjit/compiler/verifier.hpp"
#include "ir/lexer.h"

namespace rocjit::ir {
namespace {

using lexer::describe;
using lexer::fail;
using lexer::Lexer;
using lexer::Tok;
using lexer::Token;

// Kernel::values is indexed by value id, so ids are bounded to keep a typo from allocating
// hundreds of megabytes.
constexpr uint64_t max_value_id = 1u << 20;

// Spellings of every op, built from the IR's own name functions so the two cannot drift apart.
struct OpSpelling {
  OpKind kind;
  uint8_t sub = 0;
};

const std::map<std::string, OpSpelling>& op_spellings() {
  static const auto table = [] {
    std::map<std::string, OpSpelling> t;
    for (const OpInfo& info : all_ops()) {
      const auto members = family_members(info.family);
      if (members.empty()) t[std::string(info.name)] = {info.kind, 0};
      for (size_t i = 0; i < members.size(); ++i)
        t[std::string(family_prefix(info.family)) + std::string(members[i].name)] = {info.kind, uint8_t(i)};
    }
    return t;
  }();
  return table;
}

// The message for a spelling that is no op, listing the family it claims to belong to.
std::string unknown_op(std::string_view name) {
  for (const OpInfo& info : all_ops()) {
    const std::string_view prefix = family_prefix(info.family);
    if (prefix.empty() || !name.starts_with(prefix)) continue;
    std::vector<std::string> members;
    for (const auto& entry : op_spellings())
      if (entry.first.starts_with(prefix)) members.push_back(entry.first);
    return fmt::format("unknown op '{}'; expected one of {}", name, fmt::join(members, ", "));
  }
  if (name == "shared" || name == "local" || name == "var")
    return fmt::format("'{}' declarations must come before the kernel's first op", name);
  return fmt::format("unknown op '{}'; expected an operation such as const, add, cmp.lt, math.sqrt, cast, select, "
                     "global_id, shape, load, store, atomic.add, var.load, var.store, barrier, wavebarrier, fence, uniform, if, "
                     "for, while, condition, break, continue or return", name);
}

// Whether the text form writes a result ('%N = ') before the op; a for loop names its
// induction variable after `for` instead.
bool produces_value(OpKind k) {
  const OpResult r = op_info(k).result;
  return r == OpResult::value || r == OpResult::optional;
}

// Whole-token number conversion: "12x" is not 12.
template <class T>
bool to_number(std::string_view text, T& out) {
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size();
}

struct Use {
  ValueId id = 0;
  Type type = Type::none;
  Token token;
};

class Parser {
 public:
  Parser(std::string_view text, std::string_view source, ParseCheck check)
      : lexer_(text, source), source_(source), check_(check) {
    take();
  }

  bool at_end() {
    while (tok_.kind == Tok::newline) take();
    return tok_.kind == Tok::eof;
  }
  void expect_end() {
    if (!at_end()) expected("end of file");
  }

  Kernel kernel() {
    at_end();
    Kernel k;
    kernel_ = &k;  // names and values are per kernel
    values_.clear();
    live_.clear();
    memories_.clear();
    slots_.clear();
    param_names_.clear();
    const Token head = tok_;
    expect_word("kernel");
    k.name = std::string(expect(Tok::global, "a kernel name such as @saxpy").text.substr(1));
    expect_punct('(');
    if (!at_punct(')')) {
      do parameter();
      while (accept_punct(','));
    }
    expect_punct(')');
    expect_word("max_block_size");
    expect_punct('(');
    k.max_block_size = static_cast<uint32_t>(unsigned_number("the maximum block size", 1u << 30));
    expect_punct(')');
    if (at_word("fast_math")) {
      take();
      k.fast_math = true;
    }
    if (at_word("small_arrays")) {
      take();
      k.small_arrays = true;
    }
    if (auto loc = location()) k.loc = *loc;
    block(k.body, [&] { declarations(); });
    expect_newline();

    ValueId highest = 0;
    for (const auto& entry : values_) highest = std::max(highest, entry.first);
    k.values.assign(highest + 1, ValueInfo{});
    for (const auto& [id, state] : values_) k.values[id].type = state.type;
    k.index_definitions();
    try {
      if (check_ == ParseCheck::pipeline) passes::check(k);
      else verify(k);
    } catch (const CompileError& e) {
      fail(source_, head.line, head.column, e.what());
    }
    kernel_ = nullptr;
    return k;
  }

 private:
  struct ValueState {
    Type type;
    bool live;  // defined in a region that is still open
    uint32_t line, column;
  };
  struct Declared {
    uint32_t id;
    uint32_t line, column;
  };

  // --- tokens ----------------------------------------------------------------------------
  Token take() {
    Token t = tok_;
    tok_ = lexer_.next();
    return t;
  }
  [[noreturn]] void fail_at(const Token& t, const std::string& what) const { fail(source_, t.line, t.column, what); }
  [[noreturn]] void expected(std::string_view what) const {
    fail_at(tok_, fmt::format("expected {}, got {}", what, describe(tok_)));
  }
  bool at_punct(char c) const { return tok_.kind == Tok::punct && tok_.text[0] == c; }
  bool at_word(std::string_view w) const { return tok_.kind == Tok::word && tok_.text == w; }
  bool accept_punct(char c) { return at_punct(c) && (take(), true); }
  void expect_punct(char c) {
    if (!accept_punct(c)) expected(fmt::format("'{}'", c));
  }
  void expect_word(std::string_view w) {
    if (!at_word(w)) expected(fmt::format("'{}'", w));
    take();
  }
  Token expect(Tok kind, std::string_view what) {
    if (tok_.kind != kind) expected(what);
    return take();
  }
  void expect_newline() {
    if (tok_.kind != Tok::newline && tok_.kind != Tok::eof) expected("end of line");
    if (tok_.kind == Tok::newline) take();
  }

  // --- literals ----------------------------------------------------------------------------
  uint64_t unsigned_number(std::string_view what, uint64_t limit) {
    uint64_t v = 0;
    if (tok_.kind != Tok::number || !to_number(tok_.text, v) || v > limit)
      expected(fmt::format("{} (an integer from 0 to {})", what, limit));
    take();
    return v;
  }

  // Any well-formed spelling (i8, f16x4...); ir::verify says whether the targets support it.
  Type type() {
    if (tok_.kind == Tok::word)
      if (std::optional<Type> t = parse_type_name(tok_.text)) return take(), *t;
    expected("a type (i1, i32, i64, u32, u64, f32 or f64)");
  }

  // A constant's literal, read once its type is known.
  void literal(const Token& t, Type ty, Op& op) const {
    auto& c = op.get<ConstantAttrs>();
    if (!is_float(ty)) {
      if (t.kind != Tok::number || !to_number(t.text, c.integer))
        fail_at(t, fmt::format("expected an integer literal for {}, got {}", type_name(ty), describe(t)));
    } else if (t.text == "nan" || t.text == "-nan") {
      c.floating = std::numeric_limits<double>::quiet_NaN();
    } else if (t.text == "inf" || t.text == "-inf") {
      c.floating = t.text[0] == '-' ? -HUGE_VAL : HUGE_VAL;
    } else if (t.kind != Tok::number || !to_number(t.text, c.floating)) {
      fail_at(t, fmt::format("expected a {} literal (such as 1.0, 1e-05, inf or nan), got {}", type_name(ty),
                             describe(t)));
    }
    if (is_float(ty)) c.floating = round_to_type(ty, c.floating);
  }

  // A quoted string's contents: \n, \t and \xHH as the printer writes them, any other escaped
  // character as itself.
  std::string string(const char* what) {
    const Token t = expect(Tok::string, what);
    const std::string_view quoted = t.text;
    std::string out;
    for (size_t i = 1; i + 1 < quoted.size(); ++i) {
      char c = quoted[i];
      if (c == '\\' && i + 2 < quoted.size()) {
        c = quoted[++i];
        if (c == 'n') c = '\n';
        else if (c == 't') c = '\t';
        else if (c == 'x') {
          unsigned v = 0;
          if (i + 3 > quoted.size() - 1 || std::sscanf(std::string(quoted.substr(i + 1, 2)).c_str(), "%2x", &v) != 1)
            fail_at(t, "expected two hex digits after \\x in the string");
          c = static_cast<char>(v);
          i += 2;
        }
      }
      out += c;
    }
    return out;
  }

  // loc("file":line:column); the printer escapes '"' and '\' with a backslash.
  std::optional<SourceLoc> location() {
    if (!at_word("loc")) return std::nullopt;
    take();
    expect_punct('(');
    SourceLoc loc;
    loc.file = string("a quoted file name");
    expect_punct(':');
    loc.line = static_cast<uint32_t>(unsigned_number("a line number", UINT32_MAX));
    expect_punct(':');
    loc.column = static_cast<uint32_t>(unsigned_number("a column number", UINT32_MAX));
    expect_punct(')');
    return loc;
  }

  // --- names and values ---------------------------------------------------------------------
  ValueId value_id(const Token& t) const {
    uint64_t id = 0;
    if (!to_number(t.text.substr(1), id) || id == 0 || id > max_value_id)
      fail_at(t, fmt::format("expected a value id from %1 to %{}, got '{}'", max_value_id, t.text));
    return static_cast<ValueId>(id);
  }

  void define(const Token& t, ValueId id, Type ty) {
    auto [it, fresh] = values_.try_emplace(id, ValueState{ty, true, t.line, t.column});
    if (!fresh)
      fail_at(t, fmt::format("duplicate value %{}: it is already defined at {}:{}", id, it->second.line,
                             it->second.column));
    live_.push_back(id);
  }

  Use use() {
    Token t = expect(Tok::value, "a value such as %1");
    ValueId id = value_id(t);
    auto it = values_.find(id);
    if (it == values_.end()) fail_at(t, fmt::format("use of undefined value %{}", id));
    if (!it->second.live)
      fail_at(t, fmt::format("value %{} (defined at {}:{}) is used outside the region that defines it", id,
                             it->second.line, it->second.column));
    return {id, it->second.type, t};
  }

  void check_type(const Use& u, Type want) const {
    if (u.type != want)
      fail_at(u.token, fmt::format("expected a value of type {}, got %{} of type {}", type_name(want), u.id,
                                   type_name(u.type)));
  }

  // `what` names the kind of object in the message; names keep their sigil.
  void declare(std::map<std::string, Declared>& names, const Token& t, std::string_view what, size_t id) {
    auto [it, fresh] = names.try_emplace(std::string(t.text), Declared{uint32_t(id), t.line, t.column});
    if (!fresh)
      fail_at(t, fmt::format("duplicate {} name '{}': it is already declared at {}:{}", what, t.text,
                             it->second.line, it->second.column));
  }

  // @name or $name declared earlier: its index.
  uint32_t reference(Tok kind, const std::map<std::string, Declared>& names, std::string_view what) {
    Token t = expect(kind, fmt::format("{} such as {}", what, kind == Tok::global ? "@x" : "$v0"));
    auto it = names.find(std::string(t.text));
    if (it == names.end()) fail_at(t, fmt::format("unknown {} '{}'", what.substr(what.find(' ') + 1), t.text));
    return it->second.id;
  }
  // Reads the array an op names into its attributes (ShapeAttrs, AccessAttrs or AtomicAttrs).
  const Memory& memory(Op& op) {
    const MemoryId id = reference(Tok::global, memories_, "an array");
    std::visit(
        [&](auto& a) {
          if constexpr (requires { a.memory; }) a.memory = id;
        },
        op.attrs);
    return kernel_->memories[id];
  }
  const Slot& slot(Op& op) {
    const SlotId id = reference(Tok::slot, slots_, "a variable");
    op.get<SlotAttrs>().slot = id;
    return kernel_->slots[id];
  }

  // [%i, %j]: exactly one integer index per dimension.
  void indices(Op& op, const Memory& m) {
    const Token open = tok_;
    expect_punct('[');
    do {
      Use u = use();
      if (!is_integer(u.type))
        fail_at(u.token, fmt::format("expected an integer index, got %{} of type {}", u.id, type_name(u.type)));
      op.operands.push_back(u.id);
    } while (accept_punct(','));
    expect_punct(']');
    if (op.operands.size() != m.rank)
      fail_at(open, fmt::format("expected {} indices for @{} (rank {}), got {}", m.rank, m.name, m.rank,
                                op.operands.size()));
  }

  // The annotated type of an op against the one its array or variable fixes.
  void declared_type(const Token& at, Type ty, Type want, std::string_view what) const {
    if (ty != want) fail_at(at, fmt::format("expected {} ({}), got {}", type_name(want), what, type_name(ty)));
  }

  // --- kernel header and declarations -------------------------------------------------------
  void parameter() {
    Kernel& k = *kernel_;
    Param p;
    if (tok_.kind == Tok::global) {
      Token name = take();
      Memory m;
      m.name = p.name = std::string(name.text.substr(1));
      expect_punct(':');
      expect_word("array");
      expect_punct('<');
      m.element = p.type = type();
      expect_punct(',');
      m.rank = static_cast<unsigned>(unsigned_number("a rank", 3));
      if (m.rank == 0) fail_at(name, fmt::format("expected a rank of 1, 2 or 3 for {}, got 0", name.text));
      expect_punct(',');
      if (!at_word("C") && !at_word("F") && !at_word("strided")) expected("a layout (C, F or strided)");
      m.layout = at_word("C") ? Layout::C : at_word("F") ? Layout::F : Layout::strided;
      take();
      if (at_punct(',')) {  // extents fixed at compile time: `array<f32, 2, C, [32, 24]>`
        take();
        expect_punct('[');
        do m.shape.push_back(static_cast<int64_t>(unsigned_number("an extent", INT32_MAX)));
        while (at_punct(',') && (take(), true));
        expect_punct(']');
        if (m.shape.size() != m.rank)
          fail_at(name, fmt::format("{} has rank {} but {} fixed extents", name.text, m.rank, m.shape.size()));
      }
      expect_punct('>');
      m.param_index = static_cast<int>(k.params.size());
      declare(memories_, name, "array", k.memories.size());
      declare(param_names_, Token{Tok::word, name.text.substr(1), name.line, name.column}, "parameter", 0);
      p.kind = Param::Kind::array;
      p.memory = static_cast<MemoryId>(k.memories.size());
      k.memories.push_back(std::move(m));
    } else if (tok_.kind == Tok::value) {
      Token id = take();
      Token name = expect(Tok::word, "a parameter name");
      expect_punct(':');
      p.name = std::string(name.text);
      p.type = type();
      p.value = value_id(id);
      declare(param_names_, name, "parameter", 0);
      define(id, p.value, p.type);
    } else {
      expected("a parameter ('@x: array<f32, 1, C>' or '%1 n: i32')");
    }
    k.params.push_back(std::move(p));
  }

  // shared/local arrays and vars, one per line, before the first op.
  void declarations() {
    Kernel& k = *kernel_;
    while (at_word("shared") || at_word("local") || at_word("var")) {
      const Token keyword = take();
      const Token name = keyword.text == "var" ? expect(Tok::slot, "a variable name such as $v0")
                                               : expect(Tok::global, "an array name such as @tile");
      expect_punct(':');
      const Type element = type();
      if (keyword.text == "var") {
        Slot s{std::string(name.text.substr(1)), element, location().value_or(SourceLoc{})};
        declare(slots_, name, "variable", k.slots.size());
        k.slots.push_back(std::move(s));
      } else {
        Memory m;
        m.space = keyword.text == "shared" ? MemorySpace::shared : MemorySpace::local;
        m.name = std::string(name.text.substr(1));
        m.element = element;
        expect_punct('[');
        if (m.space == MemorySpace::shared && at_word("dynamic")) {
          take();
          m.dynamic = true;
        } else {
          do m.shape.push_back(static_cast<int64_t>(unsigned_number("an extent", INT32_MAX)));
          while (accept_punct(','));
        }
        expect_punct(']');
        m.rank = m.dynamic ? 1 : static_cast<unsigned>(m.shape.size());
        m.loc = location().value_or(SourceLoc{});
        declare(memories_, name, "array", k.memories.size());
        k.memories.push_back(std::move(m));
      }
      expect_newline();
    }
  }

  // --- ops -----------------------------------------------------------------------------------
  // { <end of line> ops } — values defined inside are visible only inside; `before` runs first.
  template <class F = void (*)()>
  void block(Region& r, F&& before = [] {}) {
    if (depth_ >= max_region_depth)
      fail_at(tok_, fmt::format("regions are nested more than {} deep", max_region_depth));
    expect_punct('{');
    expect_newline();
    ++depth_;
    const size_t mark = live_.size();
    before();
    while (!at_punct('}')) {
      if (tok_.kind == Tok::eof) expected("'}'");
      operation(r);
    }
    take();
    close_scope(mark);
    --depth_;
  }

  void close_scope(size_t mark) {
    for (size_t i = mark; i < live_.size(); ++i) values_.at(live_[i]).live = false;
    live_.resize(mark);
  }

  void operation(Region& r);
  void operands(Op& op, const Token& name, Token& result_token);
  // An atomic's optional order and scope words (relaxed, device when absent); a fence's
  // required "<order> <scope>".
  void ordering(Op& op, bool required) {
    auto word_in = [&](auto count, auto name_of, auto& out) {
      for (unsigned i = 0; i < count; ++i) {
        if (at_word(name_of(i))) {
          take();
          out = static_cast<std::remove_reference_t<decltype(out)>>(i);
          return true;
        }
      }
      return false;
    };
    auto order_name = [](unsigned i) { return memory_order_name(static_cast<MemoryOrder>(i)); };
    auto scope_name = [](unsigned i) { return memory_scope_name(static_cast<MemoryScope>(i)); };
    const unsigned orders = static_cast<unsigned>(MemoryOrder::seq_cst) + 1;
    const unsigned scopes = static_cast<unsigned>(MemoryScope::system) + 1;
    MemoryOrder order = op.order();
    MemoryScope scope = op.scope();
    if (!word_in(orders, order_name, order) && required)
      expected("a memory order (acquire, release, acq_rel or seq_cst)");
    if (!word_in(scopes, scope_name, scope) && required)
      expected("a memory scope (wavefront, workgroup, device or system)");
    std::visit(
        [&](auto& a) {
          if constexpr (requires { a.order; a.scope; }) a.order = order, a.scope = scope;
        },
        op.attrs);
  }

  // A loop's optional " unroll N" (0 = LLVM decides, 1 = not unrolled).
  void unroll(Op& op) {
    if (!at_word("unroll")) return;
    take();
    op.get<LoopAttrs>().unroll = static_cast<int64_t>(unsigned_number("an unroll count", static_cast<uint64_t>(max_unroll)));
  }

  Lexer lexer_;
  std::string_view source_;
  Token tok_;
  Kernel* kernel_ = nullptr;
  ParseCheck check_;
  std::unordered_map<ValueId, ValueState> values_;
  std::vector<ValueId> live_;  // values defined in the open regions, innermost last
  unsigned depth_ = 0;         // regions open now (the kernel body is the first)
  std::map<std::string, Declared> memories_, slots_, param_names_;
};

void Parser::operation(Region& r) {
  Token result_token;
  const bool has_result = tok_.kind == Tok::value;
  if (has_result) {
    result_token = take();
    expect_punct('=');
  }
  const Token name = expect(Tok::word, "an operation such as 'add' or 'load'");
  const auto found = op_spellings().find(std::string(name.text));
  if (found == op_spellings().end()) fail_at(name, unknown_op(name.text));
  auto op = std::make_unique<Op>(found->second.kind);
  set_member(*op, found->second.sub);
  if (op_info(op->kind).result == OpResult::value && !has_result)
    fail_at(name, fmt::format("expected a result ('%N = ') before '{}', which produces a value", name.text));
  if (!produces_value(op->kind) && has_result)
    fail_at(result_token, fmt::format("expected an operation after '{} =' that produces a value, got '{}'",
                                      result_token.text, name.text));
  operands(*op, name, result_token);
  op->loc = location().value_or(SourceLoc{});

  if (op->kind == OpKind::if_ || op->kind == OpKind::while_) {
    op->regions.resize(op->kind == OpKind::while_ ? 3 : 2);
    block(op->regions[0]);
    if (op->kind == OpKind::while_) {
      expect_word("do");
      block(op->regions[1]);
      if (at_word("step")) {
        take();
        block(op->regions[2]);
      }
    } else if (at_word("else")) {
      take();
      block(op->regions[1]);
    }
  } else if (op->kind == OpKind::for_) {
    op->regions.resize(1);
    // The induction variable is visible in the body only.
    block(op->regions[0], [&] { define(result_token, op->result, op->type); });
  } else if (has_result) {
    op->result = value_id(result_token);
    define(result_token, op->result, op->type);
  }
  expect_newline();
  r.ops.push_back(std::move(op));
}

// Everything between an op's name and its loc(...): operands, immediates and type annotation.
void Parser::operands(Op& op, const Token& name, Token& result_token) {
  Token type_token;
  auto annotated_type = [&] {
    expect_punct(':');
    type_token = tok_;
    return type();
  };
  std::vector<Use> uses;
  auto operand_list = [&] {
    do uses.push_back(use());
    while (accept_punct(','));
  };
  auto arity = [&](size_t n) {
    if (uses.size() != n)
      fail_at(uses.front().token, fmt::format("expected {} operand{} for '{}', got {}", n, n == 1 ? "" : "s",
                                              name.text, uses.size()));
  };
  // A load or store names the element type, or a vector of it (a vector access).
  auto element_type = [&](Type t, const Memory& m) {
    const bool vector_access = op.kind != OpKind::atomic && t.is_vector() && t.element_of() == m.element;
    if (!vector_access) declared_type(type_token, t, m.element, fmt::format("the element type of @{}", m.name));
  };
  auto slot_type = [&](Type t, const Slot& s) {
    declared_type(type_token, t, s.type, fmt::format("the type of ${}", s.name));
  };

  switch (op.kind) {
    case OpKind::constant: {
      const Token lit = tok_;
      if (lit.kind != Tok::number && lit.kind != Tok::word) expected("a literal such as 1, 1.0 or nan");
      take();
      op.type = annotated_type();
      literal(lit, op.type, op);
      break;
    }
    case OpKind::binary: case OpKind::unary: case OpKind::compare: case OpKind::select: case OpKind::math:
    case OpKind::uniform: {
      operand_list();
      op.type = annotated_type();
      const OpKind k = op.kind;
      arity(value_operand_count(op));
      // select's condition is i1 and ldexp's exponent i32; every other operand has the op's type.
      auto operand_type = [&](size_t i) {
        if (k == OpKind::select && i == 0) return Type::i1;
        if (k == OpKind::math && math_fn_domain(op.math_fn()) == MathDomain::ldexp && i == 1) return Type::i32;
        return op.type;
      };
      for (size_t i = 0; i < uses.size(); ++i) check_type(uses[i], operand_type(i));
      if (k == OpKind::compare) op.type = Type::i1;
      break;
    }
    case OpKind::make_vector: {
      operand_list();
      op.type = annotated_type();
      if (!op.type.is_vector())
        fail_at(type_token, fmt::format("expected a vector type such as f32x4, got {}", type_name(op.type)));
      arity(value_operand_count(op));
      for (const Use& u : uses) check_type(u, op.type.element_of());
      break;
    }
    case OpKind::extract: {
      uses.push_back(use());
      expect_punct(',');
      op.get<ExtractAttrs>().lane = static_cast<uint8_t>(unsigned_number("a lane", 15));
      op.type = annotated_type();  // the operand's lanes: ir::verify checks them
      break;
    }
    case OpKind::mma: {  // mma m, n, k, [xf32,] %c, %a, %b : <C's type>; ir::verify checks the rest
      auto& m = op.get<MmaAttrs>();
      m.m = static_cast<uint8_t>(unsigned_number("m", 255));
      expect_punct(',');
      m.n = static_cast<uint8_t>(unsigned_number("n", 255));
      expect_punct(',');
      m.k = static_cast<uint8_t>(unsigned_number("k", 255));
      expect_punct(',');
      if (at_word(mma::precision_name(mma::Precision::xf32))) {
        take();
        m.precision = mma::Precision::xf32;
        expect_punct(',');
      }
      operand_list();
      op.type = annotated_type();
      arity(value_operand_count(op));
      break;
    }
    case OpKind::wave:  // operand types follow from the member: ir::verify checks them
      operand_list();
      op.type = annotated_type();
      arity(value_operand_count(op));
      break;
    case OpKind::cast:
    case OpKind::bitcast:
      uses.push_back(use());
      check_type(uses[0], annotated_type());
      expect_word("to");
      op.type = type();
      break;
    case OpKind::workitem:
      op.get<WorkItemAttrs>().dim = static_cast<uint8_t>(unsigned_number("a dimension", 2));
      op.type = annotated_type();
      break;
    case OpKind::shape: {
      const Memory& m = memory(op);
      expect_punct(',');
      const Token dim = tok_;
      const unsigned d = static_cast<uint8_t>(unsigned_number("a dimension", 2));
      if (d >= m.rank)
        fail_at(dim, fmt::format("expected a dimension below {} (the rank of @{}), got {}", m.rank, m.name, d));
      op.get<ShapeAttrs>().dim = static_cast<uint8_t>(d);
      op.type = annotated_type();
      break;
    }
    case OpKind::load: {
      const Memory& m = memory(op);
      indices(op, m);
      element_type(op.type = annotated_type(), m);
      break;
    }
    case OpKind::store: case OpKind::atomic: {
      const Memory& m = memory(op);
      indices(op, m);
      if (value_operand_count(op) > 0) {
        expect_punct(',');
        operand_list();
      }
      const Type t = annotated_type();
      element_type(t, m);
      arity(value_operand_count(op));
      for (const Use& u : uses) check_type(u, t);
      if (op.kind == OpKind::atomic) {
        op.type = t;
        ordering(op, false);
        const bool store = op.atomic_op() == AtomicOp::store;
        if (store && result_token.kind == Tok::value)
          fail_at(result_token, "expected no result before 'atomic.store', which produces no value");
        if (op.atomic_op() == AtomicOp::load && result_token.kind != Tok::value)
          fail_at(name, "expected a result ('%N = ') before 'atomic.load', which produces a value");
      }
      break;
    }
    case OpKind::fence: ordering(op, true); break;
    case OpKind::var_load: {
      const Slot& s = slot(op);
      slot_type(op.type = annotated_type(), s);
      break;
    }
    case OpKind::var_store: {
      const Slot& s = slot(op);
      expect_punct(',');
      uses.push_back(use());
      const Type t = annotated_type();
      slot_type(t, s);
      check_type(uses[0], t);
      break;
    }
    case OpKind::barrier:
      op.get<BarrierAttrs>().fences = 0;
      if (at_word("none")) {
        take();
        break;
      }
      do {
        if (!at_word("local") && !at_word("global")) expected("barrier fences (local, global, local|global or none)");
        op.get<BarrierAttrs>().fences |= take().text == "local" ? fence_local : fence_global;
      } while (accept_punct('|'));
      break;
    case OpKind::condition: case OpKind::if_:
      uses.push_back(use());
      check_type(uses[0], Type::i1);
      break;
    case OpKind::for_: {
      result_token = expect(Tok::value, "the loop's induction variable, such as %5");
      op.result = value_id(result_token);
      expect_punct('=');
      uses.push_back(use());
      expect_word("to");
      uses.push_back(use());
      expect_word("step");
      uses.push_back(use());
      op.type = annotated_type();
      if (!is_integer(op.type))
        fail_at(type_token, fmt::format("expected an integer loop type, got {}", type_name(op.type)));
      for (const Use& u : uses) check_type(u, op.type);
      unroll(op);
      break;
    }
    case OpKind::while_: unroll(op); break;
    case OpKind::print:
    case OpKind::assert_:
      if (op.kind == OpKind::assert_) {
        uses.push_back(use());
        check_type(uses[0], Type::i1);
        expect_punct(',');
      }
      op.get<PrintAttrs>().format = string("a quoted format such as \"x = {}\\n\"");
      while (accept_punct(',')) uses.push_back(use());
      break;
    case OpKind::wavebarrier: case OpKind::break_: case OpKind::continue_: case OpKind::return_: break;
  }
  for (const Use& u : uses) op.operands.push_back(u.id);
}

}  // namespace

Kernel parse(std::string_view text, std::string_view source_name, ParseCheck check) {
  Parser p(text, source_name, check);
  Kernel k = p.kernel();
  p.expect_end();
  return k;
}

std::vector<Kernel> parse_all(std::string_view text, std::string_view source_name, ParseCheck check) {
  Parser p(text, source_name, check);
  std::vector<Kernel> out;
  do out.push_back(p.kernel());
  while (!p.at_end());
  return out;
}

}  // namespace rocjit::ir
