// Tokens of the textual IR (.rjir) for the parser: words, %values, @globals, $slots, numbers,
// strings, punctuation and line ends, each with its line:column.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace rocjit::ir::lexer {

enum class Tok { word, value, global, slot, number, string, punct, newline, eof };

struct Token {
  Tok kind = Tok::eof;
  std::string_view text;  // as written; strings keep their quotes
  uint32_t line = 1, column = 1;
};

// "end of file", "end of line", the string with its quotes, or the text in single quotes.
std::string describe(const Token& t);

// Throws CompileError("source:line:column: what").
[[noreturn]] void fail(std::string_view source, uint32_t line, uint32_t column, const std::string& what);

// Splits text into tokens; consecutive line ends (with blank and comment lines) become one.
// `//` starts a comment that runs to the end of the line.
class Lexer {
 public:
  Lexer(std::string_view text, std::string_view source) : text_(text), source_(source) {}
  // The next token; throws CompileError at a character no token starts with.
  Token next();

 private:
  [[noreturn]] void error(const Token& at, const std::string& what) const;
  char peek(size_t ahead = 0) const { return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0'; }
  void skip_while(bool (*pred)(char));
  void advance();
  void skip_blanks();

  std::string_view text_;
  std::string_view source_;
  size_t pos_ = 0;
  uint32_t line_ = 1, column_ = 1;
};

}  // namespace rocjit::ir::lexer
