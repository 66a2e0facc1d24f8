#include "history_command.hpp"

#include <fmt/format.h>

#include <charconv>
#include <iobench/error.hpp>
#include <iobench/printable.hpp>
#include <iobench/result_history.hpp>
#include <iobench/result_json.hpp>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

#include "output_file.hpp"

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

// "Linux 6.1.0-28-amd64 #1 SMP ..." -> "6.1.0-28-amd64": the part a reader compares.
std::string kernel_release(const std::string& kernel) {
  std::istringstream words(kernel);
  std::string system;
  std::string release;
  words >> system >> release;
  return release.empty() ? kernel : release;
}

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + '"';
}

void write_text(const std::vector<HistoryRun>& runs, std::ostream& out) {
  out << fmt::format("{:>5}  {:<20}  {:<16}  {:<24}  {:<8}  {:<20}  {}\n", "run", "stored (UTC)",
                     "host", "kernel", "fs", "workloads", "status");
  for (const HistoryRun& r : runs) {
    out << fmt::format("{:>5}  {:<20}  {:<16}  {:<24}  {:<8}  {:<20}  {}\n",
                       fmt::format("#{}", r.id), printable(r.stored_at), printable(r.hostname),
                       printable(kernel_release(r.kernel)), printable(r.fs_type),
                       printable(r.suite.empty() || r.suite == r.workloads
                                     ? r.workloads
                                     : fmt::format("{} ({})", r.suite, r.workloads)),
                       printable(r.status));
  }
  out << fmt::format("{} run(s)\n", runs.size());
}

void write_json(const std::vector<HistoryRun>& runs, std::ostream& out) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const HistoryRun& r : runs) {
    list.push_back({{"id", r.id},
                    {"stored_at", r.stored_at},
                    {"started_at", r.started_at},
                    {"hostname", r.hostname},
                    {"kernel", r.kernel},
                    {"fs_type", r.fs_type},
                    {"target", r.target},
                    {"suite", r.suite},
                    {"workloads", r.workloads},
                    {"status", r.status},
                    {"iobench_version", r.iobench_version}});
  }
  out << list.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
}

void write_csv(const std::vector<HistoryRun>& runs, std::ostream& out) {
  out << "id,stored_at,started_at,hostname,kernel,fs_type,target,suite,workloads,status,"
         "iobench_version\n";
  for (const HistoryRun& r : runs) {
    out << r.id;
    for (const std::string* field :
         {&r.stored_at, &r.started_at, &r.hostname, &r.kernel, &r.fs_type, &r.target, &r.suite,
          &r.workloads, &r.status, &r.iobench_version}) {
      out << ',' << csv_field(*field);
    }
    out << '\n';
  }
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
  if (options.format == "json") {
    write_json(runs, std::cout);
  } else if (options.format == "csv") {
    write_csv(runs, std::cout);
  } else {
    write_text(runs, std::cout);
  }
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
