#include "plugins/filebench/wml_lexer.hpp"

#include <fmt/format.h>

#include <iobench/error.hpp>

namespace iobench::plugins::filebench {

namespace {

bool word_char(char c) {
  const auto u = static_cast<unsigned char>(c);
  return (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || (u >= '0' && u <= '9') || c == '_' ||
         c == '.' || c == '/' || c == '-' || c == ':' || c == '+';
}

bool punct_char(char c) {
  return c == '=' || c == ',' || c == '{' || c == '}' || c == '(' || c == ')' || c == ';';
}

}  // namespace

std::vector<Token> lex_wml(std::string_view text, std::string_view file_name) {
  std::vector<Token> out;
  WmlPosition pos;
  std::size_t i = 0;
  const auto advance = [&](std::size_t n) {
    for (std::size_t k = 0; k < n && i < text.size(); ++k, ++i) {
      if (text[i] == '\n') {
        ++pos.line;
        pos.column = 1;
      } else {
        ++pos.column;
      }
    }
  };
  const auto fail = [&](WmlPosition at, const std::string& message) {
    throw ConfigError(fmt::format("{}:{}:{}: {}", file_name, at.line, at.column, message));
  };
  while (i < text.size()) {
    const char c = text[i];
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
      advance(1);
    } else if (c == '#') {
      while (i < text.size() && text[i] != '\n') advance(1);
    } else if (c == '"') {
      const WmlPosition start = pos;
      advance(1);
      std::string value;
      while (i < text.size() && text[i] != '"' && text[i] != '\n') {
        const auto u = static_cast<unsigned char>(text[i]);
        if (u < 0x20 || u == 0x7f)  // NUL, tab, ESC...: names become paths and report text
          fail(pos, fmt::format("control byte 0x{:02x} in a string; write printable text", u));
        value.push_back(text[i]);
        advance(1);
      }
      if (i >= text.size() || text[i] != '"')
        fail(start, "unterminated string; close it with '\"' on the same line");
      advance(1);
      out.push_back(Token{TokenKind::kString, std::move(value), start});
    } else if (c == '$') {
      const WmlPosition start = pos;
      advance(1);
      std::string name;
      while (i < text.size() && word_char(text[i]) && text[i] != '/' && text[i] != ':') {
        name.push_back(text[i]);
        advance(1);
      }
      if (name.empty()) fail(start, "'$' without a variable name; write $name");
      out.push_back(Token{TokenKind::kVariable, std::move(name), start});
    } else if (punct_char(c)) {
      out.push_back(Token{TokenKind::kPunct, std::string(1, c), pos});
      advance(1);
    } else if (word_char(c)) {
      const WmlPosition start = pos;
      std::string word;
      while (i < text.size() && word_char(text[i])) {
        word.push_back(text[i]);
        advance(1);
      }
      out.push_back(Token{TokenKind::kWord, std::move(word), start});
    } else {
      const auto u = static_cast<unsigned char>(c);
      fail(pos, u >= 0x20 && u < 0x7f
                    ? fmt::format("unexpected character '{}'; the language has words, $variables, "
                                  "\"strings\", = , {{ }} ( ) ; and # comments",
                                  c)
                    : fmt::format("unexpected byte 0x{:02x}; a .f file is plain ASCII text", u));
    }
  }
  out.push_back(Token{TokenKind::kEnd, "", pos});
  return out;
}

}  // namespace iobench::plugins::filebench
