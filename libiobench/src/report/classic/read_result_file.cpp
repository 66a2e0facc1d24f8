// read_result_file and its parts (classic_results.hpp): format names, detection, dispatch.
#include <fmt/format.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iobench/classic_results.hpp>
#include <iobench/file_util.hpp>
#include <iobench/printable.hpp>
#include <sstream>

#include "report/classic/classic_reader.hpp"

namespace iobench {

namespace {

constexpr std::array<ResultFormat, 8> kFormats{
    ResultFormat::kIobenchJson, ResultFormat::kBonnieCsv, ResultFormat::kBonnieText,
    ResultFormat::kTiotest,     ResultFormat::kTiobench,  ResultFormat::kDbench,
    ResultFormat::kFioJson,     ResultFormat::kSeedLines};

bool contains(std::string_view text, std::string_view what) {
  return text.find(what) != std::string_view::npos;
}

// A line of bonnie++ CSV: a 1.9x format version first, or the 27 fields of 1.0x.
bool bonnie_csv_line(std::string_view line) {
  if (line.starts_with("1.96,") || line.starts_with("1.97,") || line.starts_with("1.98,")) {
    return true;
  }
  return std::count(line.begin(), line.end(), ',') == 26;
}

}  // namespace

std::string_view to_string(ResultFormat format) noexcept {
  switch (format) {
    case ResultFormat::kAuto:
      return "auto";
    case ResultFormat::kIobenchJson:
      return "iobench-json";
    case ResultFormat::kBonnieCsv:
      return "bonnie-csv";
    case ResultFormat::kBonnieText:
      return "bonnie-text";
    case ResultFormat::kTiotest:
      return "tiotest";
    case ResultFormat::kTiobench:
      return "tiobench";
    case ResultFormat::kDbench:
      return "dbench";
    case ResultFormat::kFioJson:
      return "fio-json";
    case ResultFormat::kSeedLines:
      return "seed-lines";
  }
  return "auto";
}

std::span<const ResultFormat> result_formats() noexcept { return kFormats; }

ResultFormat parse_result_format(std::string_view name) {
  if (name == "auto") return ResultFormat::kAuto;
  std::vector<std::string_view> names{"auto"};
  for (const ResultFormat format : kFormats) {
    if (to_string(format) == name) return format;
    names.push_back(to_string(format));
  }
  throw ConfigError(fmt::format("unknown result format '{}'; formats: {}", printable(name),
                                fmt::join(names, ", ")));
}

ResultFormat detect_result_format(std::string_view text, std::string_view source_name) {
  std::size_t first = 0;
  while (first < text.size() && std::isspace(static_cast<unsigned char>(text[first]))) ++first;
  if (contains(text, "\"fio version\"")) return ResultFormat::kFioJson;
  if (first < text.size() && text[first] == '{') return ResultFormat::kIobenchJson;
  if (contains(text, "Completed writing") || contains(text, "Completed reading")) {
    return ResultFormat::kSeedLines;
  }
  if (contains(text, "Tiotest results for")) return ResultFormat::kTiotest;
  if (contains(text, "Identifier") && contains(text, "(CPU%)")) return ResultFormat::kTiobench;
  if (contains(text, "Throughput ") && contains(text, " MB/sec")) return ResultFormat::kDbench;
  if (contains(text, "Sequential Output") || contains(text, "Sequential Create")) {
    return ResultFormat::kBonnieText;
  }
  bool csv = false;
  bool terse = false;
  for (const detail::classic::Line& line : detail::classic::lines_of(text)) {
    if (line.text.starts_with("write:") || line.text.starts_with("rwrite:") ||
        line.text.starts_with("rread:")) {
      terse = true;
    }
    if (bonnie_csv_line(line.text)) csv = true;
  }
  if (terse) return ResultFormat::kTiotest;
  if (csv) return ResultFormat::kBonnieCsv;
  throw ConfigError(fmt::format(
      "{}:1: expected a result this iobench reads (iobench JSON, bonnie++ CSV or table, tiotest, "
      "tiobench.pl, dbench, fio JSON or 'Completed ...' lines), recognised none; name the format "
      "with --from",
      printable(source_name)));
}

ResultDocument parse_result_text(std::string_view text, ResultFormat format,
                                 std::string_view source_name) {
  namespace c = detail::classic;
  if (format == ResultFormat::kAuto) format = detect_result_format(text, source_name);
  switch (format) {
    case ResultFormat::kIobenchJson:
      try {
        return parse_result_json(text);
      } catch (const ResultFormatError& e) {
        throw ConfigError(fmt::format("{}: {}", printable(source_name), e.what()));
      }
    case ResultFormat::kBonnieCsv:
      return c::read_bonnie_csv(text, source_name);
    case ResultFormat::kBonnieText:
      return c::read_bonnie_text(text, source_name);
    case ResultFormat::kTiotest:
      return c::read_tiotest(text, source_name);
    case ResultFormat::kTiobench:
      return c::read_tiobench(text, source_name);
    case ResultFormat::kDbench:
      return c::read_dbench(text, source_name);
    case ResultFormat::kFioJson:
      return c::read_fio_json(text, source_name);
    case ResultFormat::kSeedLines:
      return c::read_seed_lines(text, source_name);
    case ResultFormat::kAuto:
      break;
  }
  throw ConfigError("unreachable result format");
}

ResultDocument read_result_file(const std::filesystem::path& path, ResultFormat format) {
  return parse_result_text(read_input_file(path, "result file"), format, path.string());
}

}  // namespace iobench
