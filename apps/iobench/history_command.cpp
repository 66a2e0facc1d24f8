#include "history_command.hpp"

#include <fmt/format.h>

#include <charconv>
#include <iobench/error.hpp>
#include <iobench/printable.hpp>
#include <iobench/result_history.hpp>
#include <iobench/result_json.hpp>
#include <iostream>
#include <sstream>
#include <vector>

#include "output_file.hpp"
#include "output_formats.hpp"

namespace iobench::cli {
namespace {

HistoryFilter filter_of(const CliOptions& options) {
  HistoryFilter filter;
  for (const auto& [key, value] : options.params) {
    if (key == "workload") filter.workload = value;
    if (key == "host") filter.host = value;
    if (key == "fs") filter.fs_type = value;
    if (key == "kernel") filter.kernel = value;
    if (key == "last") {
      std::size_t n = 0;
      const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
      if (ec != std::errc() || end != value.data() + value.size() || n == 0) {
        throw ConfigError(fmt::format(
            "history: last='{}' is not a count of runs; give a whole number >= 1, e.g. last=10",
            printable(value)));
      }
      filter.limit = n;
    }
  }
  return filter;
}

ReportInput input_of(const std::string& label, std::string json_text) {
  return ReportInput{
      .label = label, .document = parse_result_json(json_text), .json_text = std::move(json_text)};
}

}  // namespace

int run_history(const CliOptions& options) {
  const HistoryFilter filter = filter_of(options);
  if (!options.html_path.empty()) OutputFile::check(options.html_path);
  const ResultHistory history = ResultHistory::open(options.history_file, false);
  const std::vector<HistoryRun> runs = history.runs(filter);
  std::string page;
  if (!options.html_path.empty()) {
    if (runs.empty()) {
      throw ConfigError(fmt::format("history: no run of {} matches the filters: no report written",
                                    printable(options.history_file)));
    }
    std::vector<ReportInput> inputs;
    for (const HistoryRun& r : runs) {
      inputs.push_back(input_of(fmt::format("run {}, {} {}", r.id, r.stored_at, r.hostname),
                                history.document(r.id)));
    }
    std::ostringstream html;
    write_html_report(inputs, html);
    page = std::move(html).str();
  }
  find_output_format(options.format, FormatCommand::kHistory).history(runs, std::cout);
  std::cout.flush();
  if (!options.html_path.empty()) OutputFile(options.html_path).commit(page);
  return 0;
}

std::optional<ReportInput> history_input(const std::string& spec) {
  std::filesystem::path path;
  std::int64_t id = 0;
  if (!parse_history_reference(spec, path, id)) return std::nullopt;
  const ResultHistory history = ResultHistory::open(path, false);
  return input_of(spec, history.document(id));
}

}  // namespace iobench::cli
