// The .rjir lexer (see lexer.h).
#include "ir/lexer.h"

#include <fmt/format.h>

#include "rocjit/compiler/error.hpp"

namespace rocjit::ir::lexer {
namespace {

bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_word_char(char c) { return is_alpha(c) || is_digit(c) || c == '.'; }
bool is_name_char(char c) { return is_word_char(c) || c == '-'; }

// A character as a message shows it: itself if printable, else its byte value.
std::string show(char c) {
  const auto u = static_cast<unsigned char>(c);
  return u >= 0x20 && u < 0x7f ? fmt::format("'{}'", c) : fmt::format("byte 0x{:02x}", u);
}

}  // namespace

std::string describe(const Token& t) {
  if (t.kind == Tok::eof) return "end of file";
  if (t.kind == Tok::newline) return "end of line";
  if (t.kind == Tok::string) return std::string(t.text);
  return fmt::format("'{}'", t.text);
}

[[noreturn]] void fail(std::string_view source, uint32_t line, uint32_t column, const std::string& what) {
  throw CompileError(fmt::format("{}:{}:{}: {}", source, line, column, what));
}

Token Lexer::next() {
  skip_blanks();
  Token t{Tok::eof, {}, line_, column_};
  if (pos_ >= text_.size()) return t;
  const size_t start = pos_;
  const char c = peek();
  auto finish = [&](Tok kind) {
    t.kind = kind;
    t.text = text_.substr(start, pos_ - start);
    return t;
  };
  if (c == '\n') {
    while (peek() == '\n') {
      advance();
      skip_blanks();
    }
    return finish(Tok::newline);
  }
  if (c == '%') {
    advance();
    if (!is_digit(peek())) error(t, "expected a value id such as %1 after '%'");
    skip_while(is_digit);
    return finish(Tok::value);
  }
  if (c == '@' || c == '$') {
    advance();
    skip_while(is_name_char);
    if (pos_ == start + 1) error(t, fmt::format("expected a name after '{}'", c));
    return finish(c == '@' ? Tok::global : Tok::slot);
  }
  if (is_alpha(c) || (c == '-' && is_alpha(peek(1)))) {  // words, and -inf, -nan
    advance();
    skip_while(is_word_char);
    return finish(Tok::word);
  }
  if (is_digit(c) || c == '-') {
    advance();
    if (c == '-' && !is_digit(peek())) error(t, "expected a number after '-'");
    skip_while(is_digit);
    if (peek() == '.') {
      advance();
      skip_while(is_digit);
    }
    if (peek() == 'e' || peek() == 'E') {
      advance();
      if (peek() == '+' || peek() == '-') advance();
      if (!is_digit(peek())) error(t, "expected digits in the exponent of a number");
      skip_while(is_digit);
    }
    return finish(Tok::number);
  }
  if (c == '"') {
    advance();
    while (pos_ < text_.size() && peek() != '"' && peek() != '\n') {
      if (peek() == '\\' && peek(1) != '\n') advance();
      if (pos_ < text_.size()) advance();
    }
    if (peek() != '"')
      error(t, fmt::format("expected '\"' to end the string, got {}", pos_ >= text_.size() ? "end of file" : "end of line"));
    advance();
    return finish(Tok::string);
  }
  if (std::string_view("(){}[]<>,:=|").find(c) == std::string_view::npos)
    error(t, fmt::format("unexpected character {}", show(c)));
  advance();
  return finish(Tok::punct);
}

void Lexer::error(const Token& at, const std::string& what) const { fail(source_, at.line, at.column, what); }

void Lexer::skip_while(bool (*pred)(char)) {
  while (pos_ < text_.size() && pred(text_[pos_])) advance();
}

void Lexer::advance() {
  column_ = text_[pos_] == '\n' ? 1 : column_ + 1;
  line_ += text_[pos_++] == '\n';
}

// Spaces, tabs, carriage returns and `//` comments; never the line end itself.
void Lexer::skip_blanks() {
  skip_while([](char c) { return c == ' ' || c == '\t' || c == '\r'; });
  if (peek() == '/' && peek(1) == '/') skip_while([](char c) { return c != '\n'; });
}

}  // namespace rocjit::ir::lexer
