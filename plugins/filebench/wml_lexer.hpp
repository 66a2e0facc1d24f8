#pragma once

/// Tokens of filebench's Workload Model Language: words (keywords, names, numbers with k/m/g
/// suffixes, paths, cvar parameters such as `mean:131072`), `$variables`, quoted strings and the
/// punctuation `= , { } ( ) ;`. `#` starts a comment to the end of the line; newlines are blanks.

#include <string>
#include <string_view>
#include <vector>

#include "plugins/filebench/wml_model.hpp"

namespace iobench::plugins::filebench {

enum class TokenKind { kWord, kVariable, kString, kPunct, kEnd };

struct Token {
  TokenKind kind = TokenKind::kEnd;
  std::string text;  ///< kVariable: without '$'; kString: without quotes; kPunct: the character
  WmlPosition where;
};

/// Splits `text` into tokens ending with one kEnd. Throws ConfigError "FILE:LINE:COL: ..." for
/// a character outside the language (with the fix) or an unterminated string.
[[nodiscard]] std::vector<Token> lex_wml(std::string_view text, std::string_view file_name);

}  // namespace iobench::plugins::filebench
