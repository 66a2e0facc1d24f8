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

// iobench's own document, read by parse_result_json; its errors get the source's name.
ResultDocument read_iobench_json(std::string_view text, std::string_view source_name) {
  try {
    return parse_result_json(text);
  } catch (const ResultFormatError& e) {
    throw ConfigError(fmt::format("{}: {}", printable(source_name), e.what()));
  }
}

// A format --from names and the reader of its text (`source`: the name errors start with).
struct ResultReader {
  ResultFormat format;
  std::string_view name;
  ResultDocument (*read)(std::string_view text, std::string_view source);
};

// The registration: one line a format, in the order of the enum (--from's list, completions).
// A new format: a reader file beside these, its ResultFormat value, and a line here
// (docs/adding-an-output-format.md); detect_result_format recognises it where it can.
constexpr std::array kReaders{
    ResultReader{ResultFormat::kIobenchJson, "iobench-json", read_iobench_json},
    ResultReader{ResultFormat::kBonnieCsv, "bonnie-csv", detail::classic::read_bonnie_csv},
    ResultReader{ResultFormat::kBonnieText, "bonnie-text", detail::classic::read_bonnie_text},
    ResultReader{ResultFormat::kTiotest, "tiotest", detail::classic::read_tiotest},
    ResultReader{ResultFormat::kTiobench, "tiobench", detail::classic::read_tiobench},
    ResultReader{ResultFormat::kDbench, "dbench", detail::classic::read_dbench},
    ResultReader{ResultFormat::kFioJson, "fio-json", detail::classic::read_fio_json},
    ResultReader{ResultFormat::kSeedLines, "seed-lines", detail::classic::read_seed_lines},
    ResultReader{ResultFormat::kMdtest, "mdtest", detail::classic::read_mdtest},
    ResultReader{ResultFormat::kFilebench, "filebench", detail::classic::read_filebench},
};

constexpr std::array<ResultFormat, kReaders.size()> kFormats = [] {
  std::array<ResultFormat, kReaders.size()> formats{};
  for (std::size_t i = 0; i < kReaders.size(); ++i) formats[i] = kReaders[i].format;
  return formats;
}();

const ResultReader* reader_of(ResultFormat format) noexcept {
  for (const ResultReader& reader : kReaders) {
    if (reader.format == format) return &reader;
  }
  return nullptr;
}

}  // namespace

std::string_view to_string(ResultFormat format) noexcept {
  const ResultReader* reader = reader_of(format);
  return reader != nullptr ? reader->name : "auto";
}

std::span<const ResultFormat> result_formats() noexcept { return kFormats; }

ResultFormat parse_result_format(std::string_view name) {
  if (name == "auto") return ResultFormat::kAuto;
  std::vector<std::string_view> names{"auto"};
  for (const ResultReader& reader : kReaders) {
    if (reader.name == name) return reader.format;
    names.push_back(reader.name);
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
  if (contains(text, "SUMMARY rate") && contains(text, "Operation")) return ResultFormat::kMdtest;
  if (contains(text, "IO Summary:") && contains(text, "Per-Operation Breakdown")) {
    return ResultFormat::kFilebench;
  }
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
      "tiobench.pl, dbench, fio JSON, mdtest, filebench or 'Completed ...' lines), recognised "
      "none; name the "
      "format "
      "with --from",
      printable(source_name)));
}

ResultDocument parse_result_text(std::string_view text, ResultFormat format,
                                 std::string_view source_name) {
  if (format == ResultFormat::kAuto) format = detect_result_format(text, source_name);
  if (const ResultReader* reader = reader_of(format)) return reader->read(text, source_name);
  throw ConfigError(
      fmt::format("result format #{} has no reader registered", static_cast<int>(format)));
}

ResultDocument read_result_file(const std::filesystem::path& path, ResultFormat format) {
  return parse_result_text(read_input_file(path, "result file"), format, path.string());
}

}  // namespace iobench
