#include <fmt/format.h>

#include <algorithm>
#include <iobench/printable.hpp>
#include <vector>

namespace iobench {
namespace {

// Length of the UTF-8 sequence starting at text[i] if it is valid, 0 otherwise.
std::size_t utf8_length(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char c = byte(i);
  std::size_t length = 0;
  std::uint32_t min = 0;
  if (c >= 0xC2 && c <= 0xDF) {
    length = 2;
    min = 0x80;
  } else if (c >= 0xE0 && c <= 0xEF) {
    length = 3;
    min = 0x800;
  } else if (c >= 0xF0 && c <= 0xF4) {
    length = 4;
    min = 0x10000;
  } else {
    return 0;
  }
  if (i + length > text.size()) return 0;
  std::uint32_t code = c & (0x7F >> length);
  for (std::size_t k = 1; k < length; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
    code = (code << 6) | (byte(i + k) & 0x3F);
  }
  if (code < min || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return 0;
  if (code >= 0x80 && code <= 0x9F) return 0;  // C1 controls: escaped like invalid bytes
  return length;
}

// Appends the shown form of the character at text[i]; returns how many bytes of text it took.
std::size_t append_shown(std::string_view text, std::size_t i, bool keep_newlines,
                         std::string& out) {
  const auto c = static_cast<unsigned char>(text[i]);
  if (c >= 0x20 && c < 0x7F) {
    out += static_cast<char>(c);
    return 1;
  }
  if (c >= 0x80) {
    if (const std::size_t n = utf8_length(text, i); n > 0) {
      out.append(text.substr(i, n));
      return n;
    }
  }
  switch (c) {
    case '\n':
      out += keep_newlines ? "\n" : "\\n";
      break;
    case '\t':
      out += "\\t";
      break;
    case '\r':
      out += "\\r";
      break;
    default:
      out += fmt::format("\\x{:02x}", c);
  }
  return 1;
}

std::string shown(std::string_view text, bool keep_newlines) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) i += append_shown(text, i, keep_newlines, out);
  return out;
}

}  // namespace

std::string printable(std::string_view text, std::size_t max_bytes) {
  max_bytes = std::max<std::size_t>(max_bytes, 32);
  std::string whole = shown(text, false);
  if (whole.size() <= max_bytes) return whole;

  // Cut in the middle, at character boundaries: the start and the end, each within half of
  // what is left once the marker is in.
  const std::string marker_for_size = fmt::format("[... {} bytes ...]", text.size());
  const std::size_t budget = max_bytes - std::min(max_bytes, marker_for_size.size());
  std::string head;
  std::size_t head_end = 0;  // bytes of text shown at the start
  for (std::string piece; head_end < text.size(); piece.clear()) {
    const std::size_t n = append_shown(text, head_end, false, piece);
    if (head.size() + piece.size() > budget / 2) break;
    head += piece;
    head_end += n;
  }
  // Character starts from the end: walk the text once, remember where each character starts.
  std::vector<std::size_t> starts;
  for (std::size_t i = head_end; i < text.size();) {
    starts.push_back(i);
    std::string ignored;
    i += append_shown(text, i, false, ignored);
  }
  std::string tail;
  std::size_t tail_start = text.size();
  for (auto it = starts.rbegin(); it != starts.rend(); ++it) {
    std::string piece;
    append_shown(text, *it, false, piece);
    if (head.size() + tail.size() + piece.size() > budget) break;
    tail.insert(0, piece);
    tail_start = *it;
  }
  return head + fmt::format("[... {} bytes ...]", tail_start - head_end) + tail;
}

std::string printable_message(std::string_view text) { return shown(text, true); }

}  // namespace iobench
