// dbench's final output (dbench.md 3.4, 3.6) into a document: one step "dbench" with its phase
// "execute" (as iobench's dbench names it) per "Throughput" line. dbench's MB are 10^6 bytes
// (dbench.md 3.4: "MB is 10^6 bytes"), so MB/sec x 10^6 = bytes/s. dbench 4's op table gives
// count, mean and max latency per op (ms x 10^6 = ns); the phase's latency is that of ReadX and
// WriteX, the ops that move data, as compare counts an iobench phase's (count-weighted mean,
// largest max). Several lines: a sweep over procs (point = the procs figure) when their procs
// differ, repetitions where they are the same.
#include <fmt/format.h>

#include <algorithm>
#include <iobench/printable.hpp>
#include <map>
#include <set>

#include "report/classic/classic_reader.hpp"

namespace iobench::detail::classic {

namespace {

struct OpRow {
  std::string name;
  double count = 0;
  double avg_ms = 0;
  double max_ms = 0;
};

// The number before `word` in `tokens` ("2 procs" -> 2).
std::optional<std::string_view> before(const std::vector<std::string_view>& tokens,
                                       std::string_view word) {
  for (std::size_t k = 1; k < tokens.size(); ++k) {
    if (tokens[k] == word && number_of(tokens[k - 1])) return tokens[k - 1];
  }
  return std::nullopt;
}

}  // namespace

ResultDocument read_dbench(std::string_view text, std::string_view source) {
  ResultDocument document = classic_document(ResultFormat::kDbench);
  const std::vector<Line> lines = lines_of(text);
  std::vector<OpRow> table;
  bool in_table = false;
  std::vector<std::string> procs;  // per step
  for (const Line& line : lines) {
    const std::vector<std::string_view> tokens = tokens_of(line.text);
    if (tokens.empty()) {
      in_table = false;
      continue;
    }
    if (tokens[0] == "dbench" && tokens.size() > 2 && tokens[1] == "version") {
      document.source->tool_version = std::string(tokens[2]);
      continue;
    }
    if (tokens[0] == "Operation" && tokens.size() == 4 && tokens[1] == "Count") {
      table.clear();
      in_table = true;
      continue;
    }
    if (in_table) {
      if (tokens[0].starts_with("---")) continue;
      const auto count = tokens.size() == 4 ? number_of(tokens[1]) : std::nullopt;
      const auto avg = tokens.size() == 4 ? number_of(tokens[2]) : std::nullopt;
      const auto max = tokens.size() == 4 ? number_of(tokens[3]) : std::nullopt;
      if (!count || !avg || !max) {
        fail(source, line.number,
             fmt::format("expected a dbench op-table row 'NAME COUNT AVGLAT MAXLAT', got '{}'",
                         printable(line.text)));
      }
      table.push_back(OpRow{std::string(tokens[0]), *count, *avg, *max});
      continue;
    }
    if (tokens[0] != "Throughput") continue;
    const auto rate =
        tokens.size() > 2 && tokens[2] == "MB/sec" ? number_of(tokens[1]) : std::nullopt;
    const auto procs_text = before(tokens, "procs");
    if (!rate || !procs_text) {
      fail(source, line.number,
           fmt::format("expected dbench's 'Throughput N MB/sec ... N procs', got '{}'",
                       printable(line.text)));
    }
    StepResult& step = add_step(document, "dbench", "dbench");
    step.params["procs"] = std::string(*procs_text);
    procs.emplace_back(*procs_text);
    if (const auto clients = before(tokens, "clients"))
      step.params["clients"] = std::string(*clients);
    if (line.text.find("(sync open)") != std::string_view::npos) step.params["sync_open"] = "true";
    if (line.text.find("(sync dirs)") != std::string_view::npos) step.params["sync_dirs"] = "true";
    PhaseResult& phase = add_phase(step, "execute");
    ReportedFigures& f = figures(phase);
    f.throughput_bytes_per_s = figure(*rate * 1e6);
    if (line.text.find("(NB=") != std::string_view::npos) {
      not_mapped(document, line.number, "NetBench-scaled NB and MBit/sec figures not mapped");
    }
    if (line.text.find("max_latency=") != std::string_view::npos) {
      not_mapped(document, line.number,
                 "max_latency (over every op kind) not mapped: the phase's latency is ReadX's "
                 "and WriteX's, from the op table");
    }
    double count = 0, weighted = 0, max = 0;
    for (const OpRow& row : table) {
      if (row.name != "ReadX" && row.name != "WriteX") continue;
      count += row.count;
      weighted += row.count * row.avg_ms;
      max = std::max(max, row.max_ms);
    }
    if (count > 0) {
      f.latency_mean_ns = figure(weighted / count * 1e6);
      f.latency_max_ns = figure(max * 1e6);
    }
    if (!table.empty()) {
      not_mapped(document, line.number,
                 "op-table rows other than ReadX and WriteX (their counts and latencies) not "
                 "mapped");
    }
    table.clear();
  }
  if (document.run.steps.empty()) {
    fail(source, lines.empty() ? 1 : lines.back().number,
         "expected dbench's final 'Throughput N MB/sec ... N procs' line, found none");
  }
  if (document.run.steps.size() > 1) {
    const bool sweep = std::set<std::string>(procs.begin(), procs.end()).size() > 1;
    std::map<std::string, std::size_t> repetition;
    for (const std::string& p : procs) {
      document.placements.push_back(
          StepPlacement{.suite_step = "dbench",
                        .sweep_point = sweep ? std::optional<std::string>(p) : std::nullopt,
                        .repetition = ++repetition[sweep ? p : std::string()]});
    }
  }
  return document;
}

}  // namespace iobench::detail::classic
