#include "plugins/dbench/loadfile_tokenizer.hpp"

#include <algorithm>
#include <array>

namespace iobench::plugins::dbench {

namespace {

/// The characters split() treats specially: ' ', '"', '/' and '\\'.
constexpr std::array<bool, 256> kSpecial = [] {
  std::array<bool, 256> table{};
  for (const unsigned char c : {' ', '"', '/', '\\'}) table[c] = true;
  return table;
}();

bool is_special(char c) noexcept { return kSpecial[static_cast<unsigned char>(c)]; }

}  // namespace

std::span<const Token> LineTokenizer::split(std::string_view line, LoadfileFormat format) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  const std::size_t size = line.size();
  // The rewritten line is never longer than the raw one, so one buffer of its size holds every
  // token; the views stay valid because the buffer is not resized while they are built. A token
  // takes at least one character and a separator (or two quotes), so size / 2 + 1 slots hold
  // them all: no capacity check per token (this loop is most of the time a parse takes).
  if (buffer_.size() < size) buffer_.resize(std::max(size, 2 * buffer_.size()));
  if (tokens_.size() < size / 2 + 1) tokens_.resize(std::max(size / 2 + 1, 2 * tokens_.size()));
  char* const base = buffer_.data();
  char* out = base;
  Token* const tokens = tokens_.data();
  std::size_t count = 0;

  const char* const in = line.data();
  const bool nbench = format != LoadfileFormat::kDbench2;
  bool quoted = false;
  const char* token_start = nullptr;
  std::uint32_t token_column = 0;
  char previous = '\0';  // previous raw character after the `\` -> `/` rewrite

  for (std::size_t i = 0; i < size; ++i) {
    if (!is_special(in[i])) {  // a run of ordinary characters: copied without the checks below
      if (token_start == nullptr) {
        token_start = out;
        token_column = static_cast<std::uint32_t>(i + 1);
      }
      do {
        *out++ = in[i++];
      } while (i < size && !is_special(in[i]));
      previous = in[--i];
      continue;
    }
    const char c = in[i] == '\\' ? '/' : in[i];
    const char before = previous;
    previous = c;
    if (c == ' ') {
      if (!quoted) {
        if (token_start != nullptr) {
          tokens[count++] = {
              std::string_view(token_start, static_cast<std::size_t>(out - token_start)),
              token_column};
          token_start = nullptr;
        }
        continue;
      }
    } else if (c == '/') {
      // dbench rewrites " /" to " " over the whole line before splitting it.
      if (nbench && before == ' ') continue;
    }
    if (token_start == nullptr) {
      token_start = out;
      token_column = static_cast<std::uint32_t>(i + 1);
    }
    if (c == '"' && nbench) {
      quoted = !quoted;
      continue;
    }
    *out++ = c;
  }
  if (token_start != nullptr) {
    tokens[count++] = {std::string_view(token_start, static_cast<std::size_t>(out - token_start)),
                       token_column};
  }
  return {tokens, count};
}

}  // namespace iobench::plugins::dbench
