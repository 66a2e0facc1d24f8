// tiotest's output (bonnie_tiobench.md B.5) into a document: one step "tiotest" per result
// table or per set of terse lines (several: repetitions), phases named as iobench's tiotest
// names them ("Write", "Random Write", "Read", "Random Read"). Units: tiotest's MB are 2^20
// bytes (B.4), so MB/s x 2^20 = bytes/s; latencies in ms x 10^6 = ns; CPU % = Usr + Sys.
// Rows wrapped by mail are joined until they have their 6 '|'.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <iobench/printable.hpp>

#include "report/classic/classic_reader.hpp"

namespace iobench::detail::classic {

namespace {

constexpr double kMiB = 1024.0 * 1024.0;
constexpr double kNsPerMs = 1e6;

constexpr std::array<std::string_view, 4> kLabels{"Random Write", "Random Read", "Write", "Read"};
// Terse keys (tiotest -T) and the phase each names.
constexpr std::array<std::pair<std::string_view, std::string_view>, 4> kTerse{
    {{"write", "Write"}, {"rwrite", "Random Write"}, {"read", "Read"}, {"rread", "Random Read"}}};

// The phase label an item cell starts with ("Random Write    4 MBs" -> "Random Write").
std::string_view label_of(std::string_view item) {
  for (const std::string_view label : kLabels) {
    if (item.starts_with(label) && (item.size() == label.size() || item[label.size()] == ' ')) {
      return label;
    }
  }
  return {};
}

std::vector<std::string_view> cells_of(std::string_view row) {
  std::vector<std::string_view> cells;
  std::size_t start = row.find('|');
  while (start != std::string_view::npos) {
    const std::size_t next = row.find('|', start + 1);
    if (next == std::string_view::npos) break;
    cells.push_back(trimmed(row.substr(start + 1, next - start - 1)));
    start = next;
  }
  return cells;
}

// A number followed by `unit` ("189.1 s", "47.599 MB/s", "0.8 %", "0.077 ms").
double value_with_unit(std::string_view cell, std::string_view unit, std::string_view source,
                       std::size_t line, std::string_view what) {
  const auto tokens = tokens_of(cell);
  const std::optional<double> value =
      tokens.size() == 2 && tokens[1] == unit ? number_of(tokens[0]) : std::nullopt;
  if (!value) {
    fail(source, line,
         fmt::format("tiotest {}: expected a number and '{}', got '{}'", what, unit,
                     printable(cell)));
  }
  return *value;
}

PhaseResult* find_phase(StepResult& step, std::string_view name) {
  for (PhaseResult& phase : step.phases) {
    if (phase.name == name) return &phase;
  }
  return nullptr;
}

// A table row with its wrapped continuation lines joined: `i` moves past them.
std::string joined_row(const std::vector<Line>& lines, std::size_t& i) {
  std::string row(lines[i].text);
  while (std::count(row.begin(), row.end(), '|') < 6 && i + 1 < lines.size() &&
         !lines[i + 1].text.empty() && lines[i + 1].text.front() != ',' &&
         lines[i + 1].text.front() != '`' && !lines[i + 1].text.starts_with("Tiotest")) {
    ++i;
    row += ' ';
    row += lines[i].text;
  }
  return row;
}

void read_terse(ResultDocument& document, const std::vector<Line>& lines, std::string_view source) {
  StepResult* step = nullptr;
  for (const Line& line : lines) {
    const std::size_t colon = line.text.find(':');
    if (colon == std::string_view::npos) continue;
    const std::string_view key = line.text.substr(0, colon);
    const auto it = std::find_if(kTerse.begin(), kTerse.end(),
                                 [&](const auto& entry) { return entry.first == key; });
    if (key == "total") {
      not_mapped(document, line.number,
                 "terse total line (pools every phase's latency) not mapped");
      step = nullptr;
      continue;
    }
    if (it == kTerse.end()) continue;
    if (step == nullptr) {
      not_mapped(document, line.number, "terse lines' % of ops over 2 s and over 10 s not mapped");
    }
    std::vector<double> values;
    std::string_view rest = line.text.substr(colon + 1);
    while (true) {
      const std::size_t comma = rest.find(',');
      const auto value = number_of(trimmed(rest.substr(0, comma)));
      if (!value) break;
      values.push_back(*value);
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
    if (values.size() != 8) {
      fail(source, line.number,
           fmt::format("tiotest terse '{}:' line: expected 8 numbers "
                       "(MB,real_s,usr_s,sys_s,avg_ms,max_ms,pct>2s,pct>10s), got '{}'",
                       key, printable(line.text.substr(colon + 1))));
    }
    if (step == nullptr || find_phase(*step, it->second) != nullptr) {
      step = &add_step(document, "tiotest", "tiotest");
    }
    const double mb = values[0], real_s = values[1];
    if (mb == 0 && real_s == 0) {
      not_mapped(document, line.number,
                 fmt::format("terse '{}:' line is all zeros (phase not run): no phase", key));
      continue;
    }
    PhaseResult& phase = add_phase(*step, std::string(it->second));
    phase.wall_ns = ns_of_seconds(real_s);
    ReportedFigures& f = figures(phase);
    if (real_s > 0) {
      // Terse usr/sys are the threads' CPU seconds over the thread count: over the wall time
      // that is the table's Usr + Sys CPU %.
      f.throughput_bytes_per_s = figure(mb * kMiB / real_s);
      f.cpu_percent = figure((values[2] + values[3]) / real_s * 100.0);
    }
    f.latency_mean_ns = figure(values[4] * kNsPerMs);
    f.latency_max_ns = figure(values[5] * kNsPerMs);
  }
}

}  // namespace

ResultDocument read_tiotest(std::string_view text, std::string_view source) {
  ResultDocument document = classic_document(ResultFormat::kTiotest);
  const std::vector<Line> lines = lines_of(text);
  StepResult* step = nullptr;
  bool latency_table = false;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string_view t = lines[i].text;
    if (t.starts_with("Tiotest results for")) {
      step = &add_step(document, "tiotest", "tiotest");
      latency_table = false;
      const auto tokens = tokens_of(t);
      if (tokens.size() > 3) step->params["threads"] = std::string(tokens[3]);
      continue;
    }
    if (t.starts_with("Tiotest latency results")) {
      latency_table = true;
      not_mapped(document, lines[i].number,
                 "latency table's '% >2 sec' and '% >10 sec' columns not mapped");
      continue;
    }
    if (step == nullptr || !t.starts_with("|") || t.starts_with("|-")) continue;  // rules
    const std::size_t first = i;
    const std::string row = joined_row(lines, i);
    const std::vector<std::string_view> cells = cells_of(row);
    if (cells.empty() || cells[0] == "Item") continue;
    if (cells[0] == "Total") {
      not_mapped(document, lines[first].number, "latency Total row (pools every phase) not mapped");
      continue;
    }
    const std::string_view label = label_of(cells[0]);
    if (label.empty() || cells.size() != 5) {
      fail(source, lines[first].number,
           fmt::format("expected a tiotest row '| Write|Random Write|Read|Random Read ... |' "
                       "with 5 cells, got '{}'",
                       printable(row)));
    }
    const std::size_t n = lines[first].number;
    if (!latency_table) {
      PhaseResult& phase = add_phase(*step, std::string(label));
      phase.wall_ns = ns_of_seconds(value_with_unit(cells[1], "s", source, n, "Time"));
      ReportedFigures& f = figures(phase);
      f.throughput_bytes_per_s =
          figure(value_with_unit(cells[2], "MB/s", source, n, "Rate") * kMiB);
      f.cpu_percent = figure(value_with_unit(cells[3], "%", source, n, "Usr CPU") +
                             value_with_unit(cells[4], "%", source, n, "Sys CPU"));
      continue;
    }
    PhaseResult* phase = find_phase(*step, label);
    if (phase == nullptr) {
      fail(source, n,
           fmt::format("tiotest latency row '{}' has no row in the results table above",
                       printable(label)));
    }
    ReportedFigures& f = figures(*phase);
    f.latency_mean_ns =
        figure(value_with_unit(cells[1], "ms", source, n, "Average latency") * kNsPerMs);
    f.latency_max_ns =
        figure(value_with_unit(cells[2], "ms", source, n, "Maximum latency") * kNsPerMs);
  }
  if (document.run.steps.empty()) read_terse(document, lines, source);
  if (document.run.steps.empty()) {
    fail(source, lines.empty() ? 1 : lines.back().number,
         "expected tiotest output: a \"Tiotest results for N concurrent io threads:\" table or "
         "terse \"write:...\" lines, found neither");
  }
  for (const StepResult& s : document.run.steps) {
    if (s.phases.empty())
      fail(source, 1, "expected tiotest rows after its table header, found none");
  }
  place_repetitions(document);
  return document;
}

}  // namespace iobench::detail::classic
