// Parses .rjir text (the form ir::print writes) back into kernels, with line:column diagnostics.
#include "rocjit/compiler/parser.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <unordered_map>

#include "rocjit/compiler/error.hpp"
#include "rocjit/compiler/verifier.hpp"

namespace rocjit::ir {
namespace {

// Kernel::values is indexed by value id, so ids are bounded to keep a typo from allocating
// gigabytes.
constexpr uint64_t max_value_id = 1u << 24;

enum class Tok { word, value, global, slot, number, string, punct, newline, eof };

struct Token {
  Tok kind = Tok::eof;
  std::string_view text;  // as written; strings keep their quotes
  uint32_t line = 1, column = 1;
};

std::string describe(const Token& t) {
  if (t.kind == Tok::eof) return "end of file";
  if (t.kind == Tok::newline) return "end of line";
  if (t.kind == Tok::string) return std::string(t.text);
  return fmt::format("'{}'", t.text);
}

[[noreturn]] void fail(std::string_view source, uint32_t line, uint32_t column, const std::string& what) {
  throw CompileError(fmt::format("{}:{}:{}: {}", source, line, column, what));
}

bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_word_char(char c) { return is_alpha(c) || is_digit(c) || c == '.'; }
bool is_name_char(char c) { return is_word_char(c) || c == '-'; }

// Splits text into tokens; consecutive line ends (with blank and comment lines) become one.
class Lexer {
 public:
  Lexer(std::string_view text, std::string_view source) : text_(text), source_(source) {}

  Token next() {
    skip_blanks();
    Token t;
    t.line = line_;
    t.column = column_;
    if (pos_ >= text_.size()) return t;
    const size_t start = pos_;
    const char c = text_[pos_];
    auto finish = [&](Tok kind) {
      t.kind = kind;
      t.text = text_.substr(start, pos_ - start);
      return t;
    };
    if (c == '\n') {
      while (pos_ < text_.size() && text_[pos_] == '\n') {
        advance();
        skip_blanks();
      }
      t.kind = Tok::newline;
      t.text = "\n";
      return t;
    }
    if (c == '%') {
      advance();
      if (pos_ >= text_.size() || !is_digit(text_[pos_])) error(t, "expected a value id such as %1 after '%'");
      while (pos_ < text_.size() && is_digit(text_[pos_])) advance();
      return finish(Tok::value);
    }
    if (c == '@' || c == '$') {
      advance();
      while (pos_ < text_.size() && is_name_char(text_[pos_])) advance();
      if (pos_ == start + 1) error(t, fmt::format("expected a name after '{}'", c));
      return finish(c == '@' ? Tok::global : Tok::slot);
    }
    if (c == '-' && pos_ + 1 < text_.size() && is_alpha(text_[pos_ + 1])) {  // -inf, -nan
      advance();
      while (pos_ < text_.size() && is_word_char(text_[pos_])) advance();
      return finish(Tok::word);
    }
    if (is_digit(c) || c == '-') {
      advance();
      if (c == '-' && (pos_ >= text_.size() || !is_digit(text_[pos_]))) error(t, "expected a number after '-'");
      while (pos_ < text_.size() && is_digit(text_[pos_])) advance();
      if (pos_ < text_.size() && text_[pos_] == '.') {
        advance();
        while (pos_ < text_.size() && is_digit(text_[pos_])) advance();
      }
      if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
        advance();
        if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) advance();
        if (pos_ >= text_.size() || !is_digit(text_[pos_])) error(t, "expected digits in the exponent of a number");
        while (pos_ < text_.size() && is_digit(text_[pos_])) advance();
      }
      return finish(Tok::number);
    }
    if (is_alpha(c)) {
      while (pos_ < text_.size() && is_word_char(text_[pos_])) advance();
      return finish(Tok::word);
    }
    if (c == '"') {
      advance();
      while (pos_ < text_.size() && text_[pos_] != '"' && text_[pos_] != '\n') {
        if (text_[pos_] == '\\' && pos_ + 1 < text_.size() && text_[pos_ + 1] != '\n') advance();
        advance();
      }
      if (pos_ >= text_.size() || text_[pos_] != '"')
        error(t, fmt::format("expected '\"' to end the string, got {}",
                             pos_ >= text_.size() ? "end of file" : "end of line"));
      advance();
      return finish(Tok::string);
    }
    if (std::string_view("(){}[]<>,:=|").find(c) != std::string_view::npos) {
      advance();
      return finish(Tok::punct);
    }
    error(t, fmt::format("unexpected character '{}'", c));
  }

 private:
  [[noreturn]] void error(const Token& at, const std::string& what) const {
    fail(source_, at.line, at.column, what);
  }

  void advance() {
    if (text_[pos_] == '\n') {
      ++line_;
      column_ = 1;
    } else {
      ++column_;
    }
    ++pos_;
  }

  // Spaces, tabs, carriage returns and `//` comments; never the line end itself.
  void skip_blanks() {
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (c == ' ' || c == '\t' || c == '\r') {
        advance();
      } else if (c == '/' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '/') {
        while (pos_ < text_.size() && text_[pos_] != '\n') advance();
      } else {
        break;
      }
    }
  }

  std::string_view text_;
  std::string_view source_;
  size_t pos_ = 0;
  uint32_t line_ = 1, column_ = 1;
};

// Spellings of every op, built from the IR's own name functions so the two cannot drift apart.
struct OpSpelling {
  OpKind kind;
  uint8_t sub = 0;
};

const std::unordered_map<std::string, OpSpelling>& op_spellings() {
  static const auto table = [] {
    std::unordered_map<std::string, OpSpelling> t;
    for (int i = 0; i <= static_cast<int>(BinaryOp::shr); ++i)
      t[std::string(binary_op_name(BinaryOp(i)))] = {OpKind::binary, uint8_t(i)};
    for (int i = 0; i <= static_cast<int>(UnaryOp::abs); ++i)
      t[std::string(unary_op_name(UnaryOp(i)))] = {OpKind::unary, uint8_t(i)};
    for (int i = 0; i <= static_cast<int>(ComparePred::ge); ++i)
      t["cmp." + std::string(compare_pred_name(ComparePred(i)))] = {OpKind::compare, uint8_t(i)};
    for (int i = 0; i <= static_cast<int>(MathFn::fmax); ++i)
      t["math." + std::string(math_fn_name(MathFn(i)))] = {OpKind::math, uint8_t(i)};
    for (int i = 0; i <= static_cast<int>(WorkItem::global_size); ++i)
      t[std::string(workitem_name(WorkItem(i)))] = {OpKind::workitem, uint8_t(i)};
    for (int i = 0; i <= static_cast<int>(AtomicOp::compare_exchange); ++i)
      t["atomic." + std::string(atomic_op_name(AtomicOp(i)))] = {OpKind::atomic, uint8_t(i)};
    for (OpKind k : {OpKind::constant, OpKind::select, OpKind::cast, OpKind::shape, OpKind::load, OpKind::store,
                     OpKind::var_load, OpKind::var_store, OpKind::barrier, OpKind::wavebarrier, OpKind::if_,
                     OpKind::for_, OpKind::while_, OpKind::condition, OpKind::break_})
      t[std::string(op_kind_name(k))] = {k, 0};
    return t;
  }();
  return table;
}

// "cmp.eq, cmp.ne, ..." for the family an unknown spelling claims to belong to.
std::string family_members(std::string_view prefix) {
  std::vector<std::string> names;
  for (const auto& [name, spelling] : op_spellings())
    if (name.starts_with(prefix)) names.push_back(name);
  std::sort(names.begin(), names.end());
  return fmt::format("{}", fmt::join(names, ", "));
}

bool produces_value(OpKind k) {
  switch (k) {
    case OpKind::store: case OpKind::var_store: case OpKind::barrier: case OpKind::wavebarrier:
    case OpKind::if_: case OpKind::for_: case OpKind::while_: case OpKind::condition: case OpKind::break_:
      return false;
    default:
      return true;
  }
}

struct Use {
  ValueId id = 0;
  Type type = Type::none;
  Token token;
};

class Parser {
 public:
  Parser(std::string_view text, std::string_view source) : lexer_(text, source), source_(source) {
    tok_ = lexer_.next();
  }

  bool at_end() {
    skip_newlines();
    return tok_.kind == Tok::eof;
  }

  void expect_end() {
    if (!at_end()) expected("end of file");
  }

  Kernel kernel() {
    skip_newlines();
    Kernel k;
    kernel_ = &k;
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
    if (auto loc = location()) k.loc = *loc;
    expect_punct('{');
    expect_newline();
    declarations();
    region(k.body);
    expect_punct('}');
    expect_newline();

    ValueId highest = 0;
    for (const auto& [id, state] : values_) highest = std::max(highest, id);
    k.values.assign(highest + 1, ValueInfo{});
    for (const auto& [id, state] : values_) k.values[id].type = state.type;
    k.index_definitions();
    try {
      verify(k);
    } catch (const CompileError& e) {
      fail(source_, head.line, head.column, e.what());
    }
    kernel_ = nullptr;
    return k;
  }

 private:
  struct ValueState {
    Type type;
    bool live;
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
  bool accept_punct(char c) {
    if (!at_punct(c)) return false;
    take();
    return true;
  }
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
    if (tok_.kind == Tok::newline) take();
    else if (tok_.kind != Tok::eof) expected("end of line");
  }
  void skip_newlines() {
    while (tok_.kind == Tok::newline) take();
  }

  // --- literals ----------------------------------------------------------------------------
  uint64_t unsigned_number(std::string_view what, uint64_t limit) {
    uint64_t v = 0;
    const Token t = tok_;
    auto [end, ec] = std::from_chars(t.text.data(), t.text.data() + t.text.size(), v);
    if (t.kind != Tok::number || ec != std::errc() || end != t.text.data() + t.text.size() || v > limit)
      expected(fmt::format("{} (an integer from 0 to {})", what, limit));
    take();
    return v;
  }

  Type type() {
    if (tok_.kind == Tok::word)
      for (Type t : {Type::i1, Type::i32, Type::i64, Type::u32, Type::u64, Type::f32, Type::f64})
        if (tok_.text == type_name(t)) {
          take();
          return t;
        }
    expected("a type (i1, i32, i64, u32, u64, f32 or f64)");
  }

  // A constant's literal, read once its type is known.
  void literal(const Token& t, Type ty, Op& op) {
    if (is_float(ty)) {
      if (t.text == "nan" || t.text == "-nan") op.float_value = std::numeric_limits<double>::quiet_NaN();
      else if (t.text == "inf") op.float_value = std::numeric_limits<double>::infinity();
      else if (t.text == "-inf") op.float_value = -std::numeric_limits<double>::infinity();
      else {
        auto [end, ec] = std::from_chars(t.text.data(), t.text.data() + t.text.size(), op.float_value);
        if (t.kind != Tok::number || ec != std::errc() || end != t.text.data() + t.text.size())
          fail_at(t, fmt::format("expected a {} literal (such as 1.0, 1e-05, inf or nan), got {}", type_name(ty),
                                 describe(t)));
      }
      return;
    }
    auto [end, ec] = std::from_chars(t.text.data(), t.text.data() + t.text.size(), op.int_value);
    if (t.kind != Tok::number || ec != std::errc() || end != t.text.data() + t.text.size())
      fail_at(t, fmt::format("expected an integer literal for {}, got {}", type_name(ty), describe(t)));
  }

  std::string unquote(const Token& t) {
    std::string out;
    for (size_t i = 1; i + 1 < t.text.size(); ++i) {
      if (t.text[i] == '\\') ++i;
      out += t.text[i];
    }
    return out;
  }

  // loc("file":line:column)
  std::optional<SourceLoc> location() {
    if (!at_word("loc")) return std::nullopt;
    take();
    expect_punct('(');
    SourceLoc loc;
    loc.file = unquote(expect(Tok::string, "a quoted file name"));
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
    std::from_chars(t.text.data() + 1, t.text.data() + t.text.size(), id);
    if (id == 0 || id > max_value_id || t.text.size() > 12)
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
    if (tok_.kind != Tok::value) expected("a value such as %1");
    Token t = take();
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

  void declare(std::unordered_map<std::string, Declared>& names, const Token& t, std::string_view what, uint32_t id) {
    auto [it, fresh] = names.try_emplace(std::string(t.text), Declared{id, t.line, t.column});
    if (!fresh)
      fail_at(t, fmt::format("duplicate {} name '{}': it is already declared at {}:{}", what, t.text,
                             it->second.line, it->second.column));
  }

  const Memory& memory(Op& op) {
    if (tok_.kind != Tok::global) expected("an array such as @x");
    Token t = take();
    auto it = memories_.find(std::string(t.text));
    if (it == memories_.end()) fail_at(t, fmt::format("unknown array '{}'", t.text));
    op.ref = it->second.id;
    return kernel_->memories[op.ref];
  }

  const Slot& slot(Op& op) {
    if (tok_.kind != Tok::slot) expected("a variable such as $v0");
    Token t = take();
    auto it = slots_.find(std::string(t.text));
    if (it == slots_.end()) fail_at(t, fmt::format("unknown variable '{}'", t.text));
    op.ref = it->second.id;
    return kernel_->slots[op.ref];
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

  void element_type(const Token& at, Type ty, const Memory& m) const {
    if (ty != m.element)
      fail_at(at, fmt::format("expected {} (the element type of @{}), got {}", type_name(m.element), m.name,
                              type_name(ty)));
  }

  // --- kernel header -----------------------------------------------------------------------
  void parameter() {
    Kernel& k = *kernel_;
    Param p;
    if (tok_.kind == Tok::global) {
      Token name = take();
      expect_punct(':');
      expect_word("array");
      expect_punct('<');
      Memory m;
      m.name = std::string(name.text.substr(1));
      m.element = type();
      expect_punct(',');
      m.rank = static_cast<unsigned>(unsigned_number("a rank", 3));
      if (m.rank == 0) fail_at(name, fmt::format("expected a rank of 1, 2 or 3 for {}, got 0", name.text));
      expect_punct(',');
      if (at_word("C")) m.layout = Layout::C;
      else if (at_word("F")) m.layout = Layout::F;
      else if (at_word("strided")) m.layout = Layout::strided;
      else expected("a layout (C, F or strided)");
      take();
      expect_punct('>');
      m.param_index = static_cast<int>(k.params.size());
      declare(memories_, name, "array", static_cast<uint32_t>(k.memories.size()));
      declare(param_names_, Token{Tok::word, name.text.substr(1), name.line, name.column}, "parameter", 0);
      p.kind = Param::Kind::array;
      p.name = m.name;
      p.type = m.element;
      p.memory = static_cast<MemoryId>(k.memories.size());
      k.memories.push_back(std::move(m));
    } else if (tok_.kind == Tok::value) {
      Token id = take();
      Token name = expect(Tok::word, "a parameter name");
      expect_punct(':');
      p.kind = Param::Kind::scalar;
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
      if (keyword.text == "var") {
        Token name = expect(Tok::slot, "a variable name such as $v0");
        expect_punct(':');
        Slot s;
        s.name = std::string(name.text.substr(1));
        s.type = type();
        if (auto loc = location()) s.loc = *loc;
        declare(slots_, name, "variable", static_cast<uint32_t>(k.slots.size()));
        k.slots.push_back(std::move(s));
      } else {
        Memory m;
        m.space = keyword.text == "shared" ? MemorySpace::shared : MemorySpace::local;
        Token name = expect(Tok::global, "an array name such as @tile");
        m.name = std::string(name.text.substr(1));
        expect_punct(':');
        m.element = type();
        expect_punct('[');
        do {
          m.shape.push_back(static_cast<int64_t>(unsigned_number("an extent", INT32_MAX)));
        } while (accept_punct(','));
        expect_punct(']');
        m.rank = static_cast<unsigned>(m.shape.size());
        if (auto loc = location()) m.loc = *loc;
        declare(memories_, name, "array", static_cast<uint32_t>(k.memories.size()));
        k.memories.push_back(std::move(m));
      }
      expect_newline();
    }
  }

  // --- ops -----------------------------------------------------------------------------------
  void region(Region& r) {
    const size_t mark = live_.size();
    while (!at_punct('}')) {
      if (tok_.kind == Tok::eof) expected("'}'");
      operation(r);
    }
    close_scope(mark);
  }

  void close_scope(size_t mark) {
    for (size_t i = mark; i < live_.size(); ++i) values_.at(live_[i]).live = false;
    live_.resize(mark);
  }

  void operation(Region& r);
  void body(Op& op, size_t region_index) {
    expect_punct('{');
    expect_newline();
    region(op.regions[region_index]);
    expect_punct('}');
  }

  Lexer lexer_;
  std::string_view source_;
  Token tok_;
  Kernel* kernel_ = nullptr;
  std::unordered_map<ValueId, ValueState> values_;
  std::vector<ValueId> live_;  // values defined in the open regions, innermost last
  std::unordered_map<std::string, Declared> memories_, slots_, param_names_;
};

void Parser::operation(Region& r) {
  Token result_token;
  const bool has_result = tok_.kind == Tok::value;
  if (has_result) {
    result_token = take();
    expect_punct('=');
  }
  if (tok_.kind != Tok::word) expected("an operation such as 'add' or 'load'");
  const Token name = take();
  const auto found = op_spellings().find(std::string(name.text));
  if (found == op_spellings().end()) {
    if (name.text == "shared" || name.text == "local" || name.text == "var")
      fail_at(name, fmt::format("'{}' declarations must come before the kernel's first op", name.text));
    for (std::string_view family : {"cmp.", "math.", "atomic."})
      if (name.text.starts_with(family))
        fail_at(name, fmt::format("unknown op '{}'; expected one of {}", name.text, family_members(family)));
    fail_at(name, fmt::format("unknown op '{}'; expected an operation such as const, add, cmp.lt, math.sqrt, cast, "
                              "select, global_id, shape, load, store, atomic.add, var.load, var.store, barrier, "
                              "wavebarrier, if, for, while, condition or break",
                              name.text));
  }
  auto op = std::make_unique<Op>();
  op->kind = found->second.kind;
  op->sub = found->second.sub;
  if (produces_value(op->kind) && !has_result && op->kind != OpKind::atomic)
    fail_at(name, fmt::format("expected a result ('%N = ') before '{}', which produces a value", name.text));
  if (!produces_value(op->kind) && has_result)
    fail_at(result_token, fmt::format("expected an operation after '{} =' that produces a value, got '{}'",
                                      result_token.text, name.text));

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
  auto slot_type = [&](const Slot& s, Type t) {
    if (t != s.type)
      fail_at(type_token, fmt::format("expected {} (the type of ${}), got {}", type_name(s.type), s.name,
                                      type_name(t)));
  };

  switch (op->kind) {
    case OpKind::constant: {
      const Token lit = tok_;
      if (lit.kind != Tok::number && lit.kind != Tok::word) expected("a literal such as 1, 1.0 or nan");
      take();
      op->type = annotated_type();
      literal(lit, op->type, *op);
      break;
    }
    case OpKind::binary: case OpKind::unary: case OpKind::compare: case OpKind::select: case OpKind::math: {
      operand_list();
      op->type = annotated_type();
      const OpKind k = op->kind;
      arity(k == OpKind::unary ? 1 : k == OpKind::select ? 3 : k == OpKind::math ? math_fn_arity(op->math_fn()) : 2);
      for (size_t i = 0; i < uses.size(); ++i)
        check_type(uses[i], k == OpKind::select && i == 0 ? Type::i1 : op->type);
      if (k == OpKind::compare) op->type = Type::i1;
      break;
    }
    case OpKind::cast: {
      uses.push_back(use());
      check_type(uses[0], annotated_type());
      expect_word("to");
      op->type = type();
      break;
    }
    case OpKind::workitem:
      op->dim = static_cast<uint8_t>(unsigned_number("a dimension", 2));
      op->type = annotated_type();
      break;
    case OpKind::shape: {
      const Memory& m = memory(*op);
      expect_punct(',');
      const Token dim = tok_;
      op->dim = static_cast<uint8_t>(unsigned_number("a dimension", 2));
      if (op->dim >= m.rank)
        fail_at(dim, fmt::format("expected a dimension below {} (the rank of @{}), got {}", m.rank, m.name, op->dim));
      op->type = annotated_type();
      break;
    }
    case OpKind::load: {
      const Memory& m = memory(*op);
      indices(*op, m);
      op->type = annotated_type();
      element_type(type_token, op->type, m);
      break;
    }
    case OpKind::store: {
      const Memory& m = memory(*op);
      indices(*op, m);
      expect_punct(',');
      uses.push_back(use());
      const Type t = annotated_type();
      element_type(type_token, t, m);
      check_type(uses[0], t);
      break;
    }
    case OpKind::atomic: {
      const Memory& m = memory(*op);
      indices(*op, m);
      expect_punct(',');
      operand_list();
      op->type = annotated_type();
      element_type(type_token, op->type, m);
      arity(op->atomic_op() == AtomicOp::compare_exchange ? 2 : 1);
      for (const Use& u : uses) check_type(u, op->type);
      break;
    }
    case OpKind::var_load: {
      const Slot& s = slot(*op);
      op->type = annotated_type();
      slot_type(s, op->type);
      break;
    }
    case OpKind::var_store: {
      const Slot& s = slot(*op);
      expect_punct(',');
      uses.push_back(use());
      const Type t = annotated_type();
      slot_type(s, t);
      check_type(uses[0], t);
      break;
    }
    case OpKind::barrier:
      if (at_word("none")) {
        take();
        break;
      }
      do {
        if (at_word("local")) op->sub |= fence_local;
        else if (at_word("global")) op->sub |= fence_global;
        else expected("barrier fences (local, global, local|global or none)");
        take();
      } while (accept_punct('|'));
      break;
    case OpKind::condition: case OpKind::if_:
      uses.push_back(use());
      check_type(uses[0], Type::i1);
      break;
    case OpKind::for_: {
      result_token = expect(Tok::value, "the loop's induction variable, such as %5");
      op->result = value_id(result_token);
      expect_punct('=');
      uses.push_back(use());
      expect_word("to");
      uses.push_back(use());
      expect_word("step");
      uses.push_back(use());
      op->type = annotated_type();
      if (!is_integer(op->type))
        fail_at(type_token, fmt::format("expected an integer loop type, got {}", type_name(op->type)));
      for (const Use& u : uses) check_type(u, op->type);
      break;
    }
    case OpKind::wavebarrier: case OpKind::break_: case OpKind::while_:
      break;
  }
  for (const Use& u : uses) op->operands.push_back(u.id);
  if (auto loc = location()) op->loc = *loc;

  if (op->kind == OpKind::if_) {
    op->regions.resize(2);
    body(*op, 0);
    if (at_word("else")) {
      take();
      body(*op, 1);
    }
  } else if (op->kind == OpKind::for_) {
    op->regions.resize(1);
    const size_t mark = live_.size();
    define(result_token, op->result, op->type);  // visible in the body only
    body(*op, 0);
    close_scope(mark);
  } else if (op->kind == OpKind::while_) {
    op->regions.resize(2);
    body(*op, 0);
    expect_word("do");
    body(*op, 1);
  } else if (has_result) {
    op->result = value_id(result_token);
    define(result_token, op->result, op->type);
  }
  expect_newline();
  r.ops.push_back(std::move(op));
}

}  // namespace

Kernel parse(std::string_view text, std::string_view source_name) {
  Parser p(text, source_name);
  Kernel k = p.kernel();
  p.expect_end();
  return k;
}

std::vector<Kernel> parse_all(std::string_view text, std::string_view source_name) {
  Parser p(text, source_name);
  std::vector<Kernel> out;
  do out.push_back(p.kernel());
  while (!p.at_end());
  return out;
}

}  // namespace rocjit::ir
