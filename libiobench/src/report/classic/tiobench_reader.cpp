// tiobench.pl's report (bonnie_tiobench.md B.6) into a document: one step per identifier
// ("tiobench", or "tiobench IDENTIFIER" when the report has several), one phase per section
// and row, named as iobench's tiobench names its phases without the run number ("Read
// size=32M bs=4096 threads=1": a row sums every --numruns run). Units: MB/s x 2^20 = bytes/s
// (tiotest's MB, B.4); latencies ms x 10^6 = ns; CPU % as printed.
#include <fmt/format.h>

#include <array>
#include <iobench/printable.hpp>
#include <map>

#include "report/classic/classic_reader.hpp"

namespace iobench::detail::classic {

namespace {

constexpr std::array<std::pair<std::string_view, std::string_view>, 4> kSections{{
    {"Sequential Reads", "Read"},
    {"Random Reads", "Random Read"},
    {"Sequential Writes", "Write"},
    {"Random Writes", "Random Write"},
}};

}  // namespace

ResultDocument read_tiobench(std::string_view text, std::string_view source) {
  ResultDocument document = classic_document(ResultFormat::kTiobench);
  const std::vector<Line> lines = lines_of(text);
  std::string_view section;  // the phase label of the current section
  bool in_rows = false;
  std::map<std::string, std::size_t> step_of;  // identifier -> step index
  for (const Line& line : lines) {
    const std::string_view t = trimmed(line.text);
    bool title = false;
    for (const auto& [name, label] : kSections) {
      if (t.starts_with(name)) {
        section = label;
        in_rows = false;
        title = true;
      }
    }
    if (title) continue;
    if (section.empty()) continue;
    if (t.starts_with("----")) {
      in_rows = true;
      continue;
    }
    if (!in_rows) continue;
    if (t.empty() || t.starts_with("====")) {
      in_rows = false;
      continue;
    }
    const std::vector<std::string_view> tokens = tokens_of(t);
    if (tokens.size() < 11) {
      fail(source, line.number,
           fmt::format("expected a tiobench.pl row: identifier, file size, block size, threads, "
                       "rate, CPU%, avg and max latency, two Lat% and CPU eff; got '{}'",
                       printable(t)));
    }
    const std::size_t base = tokens.size() - 10;
    std::string identifier(tokens[0]);
    for (std::size_t k = 1; k < base; ++k) identifier += fmt::format(" {}", tokens[k]);
    const auto number = [&](std::size_t k, std::string_view what) {
      std::string_view token = tokens[base + k];
      if (k == 4 && token.ends_with('%')) token.remove_suffix(1);
      const auto value = number_of(token);
      if (!value) {
        fail(source, line.number,
             fmt::format("tiobench.pl {}: expected a number, got '{}'", what, printable(token)));
      }
      return *value;
    };
    const double size = number(0, "File Size"), block = number(1, "Blk Size"),
                 threads = number(2, "Num Thr");
    const double rate = number(3, "Rate"), cpu = number(4, "CPU%");
    const double avg = number(5, "Avg Latency"), max = number(6, "Maximum Latency");
    auto [it, inserted] = step_of.emplace(identifier, document.run.steps.size());
    if (inserted) {
      StepResult& step = add_step(document, "tiobench", "tiobench");
      step.params["identifier"] = identifier;
    }
    StepResult& step = document.run.steps[it->second];
    PhaseResult& phase =
        add_phase(step, fmt::format("{} size={}M bs={} threads={}", section, size, block, threads));
    ReportedFigures& f = figures(phase);
    f.throughput_bytes_per_s = figure(rate * 1024.0 * 1024.0);
    f.cpu_percent = figure(cpu);
    f.latency_mean_ns = figure(avg * 1e6);
    f.latency_max_ns = figure(max * 1e6);
  }
  if (document.run.steps.empty()) {
    fail(source, lines.empty() ? 1 : lines.back().number,
         "expected a tiobench.pl report (\"Sequential Reads\" ... and their rows), found none");
  }
  if (document.run.steps.size() > 1) {
    for (StepResult& step : document.run.steps) step.name += " " + step.params["identifier"];
  }
  not_mapped(document, 0,
             "Lat% >2s, Lat% >10s and CPU Eff columns not mapped; with --numruns > 1 "
             "tiobench.pl prints latencies summed over the runs, read here as printed");
  return document;
}

}  // namespace iobench::detail::classic
