#include "plugins/dbench/loadfile_tokenizer.hpp"

#include <algorithm>

namespace iobench::plugins::dbench {

std::span<const Token> LineTokenizer::split(std::string_view line, LoadfileFormat format) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  tokens_.clear();
  // The rewritten line is never longer than the raw one, so one buffer of its size holds every
  // token; the views stay valid because the buffer is not resized while they are built.
  if (buffer_.size() < line.size()) buffer_.resize(std::max(line.size(), 2 * buffer_.size()));
  char* const base = buffer_.data();
  char* out = base;

  const bool nbench = format != LoadfileFormat::kDbench2;
  bool quoted = false;
  const char* token_start = nullptr;
  std::uint32_t token_column = 0;
  char previous = '\0';  // previous raw character after the `\` -> `/` rewrite

  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i] == '\\' ? '/' : line[i];
    const char before = previous;
    previous = c;
    // dbench rewrites " /" to " " over the whole line before splitting it.
    if (nbench && c == '/' && before == ' ') continue;
    if (c == ' ' && !quoted) {
      if (token_start != nullptr) {
        tokens_.push_back(
            {std::string_view(token_start, static_cast<std::size_t>(out - token_start)),
             token_column});
        token_start = nullptr;
      }
      continue;
    }
    if (token_start == nullptr) {
      token_start = out;
      token_column = static_cast<std::uint32_t>(i + 1);
    }
    if (nbench && c == '"') {
      quoted = !quoted;
      continue;
    }
    *out++ = c;
  }
  if (token_start != nullptr) {
    tokens_.push_back(
        {std::string_view(token_start, static_cast<std::size_t>(out - token_start)), token_column});
  }
  return tokens_;
}

}  // namespace iobench::plugins::dbench
