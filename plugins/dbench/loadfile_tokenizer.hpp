#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "plugins/dbench/loadfile_program.hpp"

namespace iobench::plugins::dbench {

/// One token of a loadfile line: its text after dbench's rewriting, and where it started.
struct Token {
  std::string_view text;
  std::uint32_t column = 0;  ///< 1-based column of the token's first character in the raw line
};

/// Splits loadfile lines into tokens as dbench 4.00 does, keeping the raw columns for messages.
///
/// NBench (dbench 3/4) rules: every `\` becomes `/`; a `/` right after a space is dropped (so a
/// quoted "\clients\x" gives /clients/x, and an unquoted \clients loses its slash, as in dbench);
/// tokens are separated by spaces only (a tab is part of a token); `"` toggles quoting and is
/// removed, so quoted tokens may contain spaces. dbench 2 rules: every `\` becomes `/`, tokens are
/// separated by spaces, and `"` is an ordinary character (it is a wildcard in FIND_FIRST
/// patterns). A trailing '\r' is ignored in both.
///
/// Not thread-safe; reuse one tokenizer for every line of a file (no allocation once warm).
class LineTokenizer {
 public:
  /// Tokens of `line` (without its '\n'). The views stay valid until the next call.
  [[nodiscard]] std::span<const Token> split(std::string_view line, LoadfileFormat format);

 private:
  std::string buffer_;
  std::vector<Token> tokens_;
};

}  // namespace iobench::plugins::dbench
