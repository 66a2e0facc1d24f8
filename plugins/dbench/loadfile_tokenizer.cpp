#include "plugins/dbench/loadfile_tokenizer.hpp"

namespace iobench::plugins::dbench {

std::span<const Token> LineTokenizer::split(std::string_view line, LoadfileFormat format) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  tokens_.clear();
  buffer_.clear();
  // Tokens are views into buffer_: it must not reallocate while they are built. The rewritten
  // line is never longer than the raw one.
  if (buffer_.capacity() < line.size()) buffer_.reserve(line.size());

  const bool nbench = format != LoadfileFormat::kDbench2;
  bool quoted = false;
  bool in_token = false;
  std::size_t token_start = 0;
  std::uint32_t token_column = 0;
  char previous = '\0';  // previous raw character after the `\` -> `/` rewrite

  const auto end_token = [&] {
    tokens_.push_back({std::string_view(buffer_.data() + token_start, buffer_.size() - token_start),
                       token_column});
    in_token = false;
  };
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i] == '\\' ? '/' : line[i];
    const char before = previous;
    previous = c;
    // dbench rewrites " /" to " " over the whole line before splitting it.
    if (nbench && c == '/' && before == ' ') continue;
    if (c == ' ' && !quoted) {
      if (in_token) end_token();
      continue;
    }
    if (!in_token) {
      in_token = true;
      token_start = buffer_.size();
      token_column = static_cast<std::uint32_t>(i + 1);
    }
    if (nbench && c == '"') {
      quoted = !quoted;
      continue;
    }
    buffer_.push_back(c);
  }
  if (in_token) end_token();
  return tokens_;
}

}  // namespace iobench::plugins::dbench
