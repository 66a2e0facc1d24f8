#include "plugins/dbench/loadfile_parser.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <iobench/error.hpp>
#include <limits>
#include <optional>
#include <span>
#include <unordered_map>

#include "plugins/dbench/loadfile_parser_impl.hpp"
#include "plugins/dbench/loadfile_reader.hpp"
#include "plugins/dbench/loadfile_tokenizer.hpp"
#include "plugins/dbench/loadfile_values.hpp"

namespace iobench::plugins::dbench {

namespace detail {

void LoadfileParser::error(std::uint32_t line, std::uint32_t column, std::string_view token,
                           std::string_view problem, std::string_view expected) {
  ++error_count_;
  if (errors_.size() < options_.max_errors) {
    errors_.push_back(fmt::format("{}:{}:{}: {} '{}'; expected {}", options_.file_name, line,
                                  column, problem, token, expected));
  }
}

std::optional<LoadfileFormat> LoadfileParser::detect_format(std::string_view text, bool complete,
                                                            std::size_t& from) {
  if (options_.format != LoadfileFormat::kAuto) return options_.format;
  std::size_t pos = from;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) {
      if (!complete) {  // the line may go on in the next chunk: resume there
        from = pos;
        return std::nullopt;
      }
      end = text.size();
    }
    const std::string_view raw = text.substr(pos, end - pos);
    const auto tokens = tokenizer_.split(raw, LoadfileFormat::kNbench);
    pos = end + 1;
    // A first token may be empty (`""`): test it with starts_with, never by indexing.
    if (tokens.empty() || tokens[0].text.starts_with('#')) continue;
    const bool directive =
        std::any_of(kDirectives.begin(), kDirectives.end(),
                    [&](const Directive& d) { return d.keyword == tokens[0].text; });
    if (directive) continue;
    // NBench lines have a leading timestamp, quoted paths or NT_STATUS_ names; dbench 2 lines
    // have none of these and never end in a status.
    if (!tokens[0].text.empty() && tokens[0].text[0] >= '0' && tokens[0].text[0] <= '9') {
      return LoadfileFormat::kNbench;
    }
    if (raw.find('"') != std::string_view::npos) return LoadfileFormat::kNbench;
    const bool named_status = std::any_of(tokens.begin(), tokens.end(), [](const Token& t) {
      return t.text.substr(0, 10) == "NT_STATUS_";
    });
    return named_status || (tokens.size() >= 2 && looks_like_status(tokens.back().text))
               ? LoadfileFormat::kNbench
               : LoadfileFormat::kDbench2;
  }
  from = pos;
  if (!complete) return std::nullopt;
  return LoadfileFormat::kNbench;
}

std::size_t LoadfileParser::parse_lines(std::string_view text, bool complete) {
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) {
      if (!complete) break;  // the rest comes with the next chunk
      end = text.size();
    }
    ++line_;
    parse_line(text.substr(pos, end - pos), line_);
    pos = end + 1;
  }
  return std::min(pos, text.size());
}

void LoadfileParser::parse_text(std::string_view text) {
  std::size_t from = 0;
  out_.format = *detect_format(text, true, from);
  format_ = out_.format;
  (void)parse_lines(text, true);
  finish();
}

void LoadfileParser::feed(std::string& buffer, bool more) {
  if (refused_) {
    buffer.clear();
    return;
  }
  if (!format_) {
    format_ = detect_format(buffer, !more, detect_from_);
    if (!format_) return;
    out_.format = *format_;
  }
  try {
    buffer.erase(0, parse_lines(buffer, !more));
  } catch (const ConfigError& e) {
    refused_ = e;
    buffer.clear();
  }
}

std::size_t LoadfileParser::needed_from() const noexcept {
  std::size_t from = out_.code.size();
  for (const std::uint32_t open : open_loops_) {
    if (open != kNoId) from = std::min<std::size_t>(from, open);
  }
  if (repeat_line_ != 0 && !out_.code.empty()) from = std::min(from, out_.code.size() - 1);
  return from;
}

void LoadfileParser::finish() {
  if (refused_) throw *refused_;
  out_.stats.text_lines = line_;
  for (const std::uint32_t open : open_loops_) {
    if (open == kNoId) continue;  // its LOOP line was already reported
    const Instruction loop = out_.code[open];
    error(loop.line, 1, "LOOP", "LOOP without ENDLOOP", "an ENDLOOP line before the end of file");
  }
  if (repeat_line_ != 0) {
    error(repeat_line_, 1, "REPEAT", "REPEAT at the end of the file",
          "an operation line after REPEAT");
  }
  check_templates();
  if (operations_ == 0 && error_count_ == 0) {
    error(line_ == 0 ? 1 : line_, 1, "", "no operations in the loadfile",
          "at least one operation line (e.g. NTCreateX or ReadX)");
  }
  if (error_count_ > 0) {
    std::string message;
    if (error_count_ == 1) {
      message = errors_.front();
    } else {
      message = fmt::format("{} errors in loadfile {}{}:", error_count_, options_.file_name,
                            error_count_ > errors_.size()
                                ? fmt::format(" (first {} shown)", errors_.size())
                                : std::string());
      for (const auto& e : errors_) message += "\n  " + e;
    }
    throw ConfigError(message);
  }
  finish_stats();
  out_.code.shrink_to_fit();
}

}  // namespace detail

Loadfile parse_loadfile(std::string_view text, const ParseOptions& options) {
  Loadfile out;
  detail::LoadfileParser(out, options).parse_text(text);
  return out;
}

Loadfile parse_loadfile_file(const std::filesystem::path& path, std::size_t max_bytes,
                             const ParseOptions& options, bool keep_code) {
  // Chunk by chunk: only the unparsed tail of the text (less than a line) is kept between
  // chunks, and without keep_code only the instructions an open LOOP or REPEAT still needs.
  constexpr std::size_t kChunk = 64 * 1024;
  LoadfileTextReader reader(path, max_bytes);
  Loadfile out;
  out.source = reader.identity();
  detail::LoadfileParser parser(out, options);
  std::string buffer;
  buffer.reserve(2 * kChunk);
  for (bool more = true; more;) {
    if (options.stop_requested && options.stop_requested()) {
      throw InterruptedError(
          fmt::format("the parse of {} was interrupted by a stop request", options.file_name));
    }
    const std::size_t old_size = buffer.size();
    more = reader.read(buffer, kChunk);
    // Nothing to do until a line ends: a long line is scanned once, not once per chunk.
    if (more && buffer.find('\n', old_size) == std::string::npos) continue;
    parser.feed(buffer, more);
    if (!keep_code) out.code.drop_before(parser.needed_from());
  }
  parser.finish();
  return out;
}

}  // namespace iobench::plugins::dbench