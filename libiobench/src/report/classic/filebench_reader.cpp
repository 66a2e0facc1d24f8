// filebench's final output (1.5-alpha3's stats.c; also iobench's filebench text, which prints
// the same lines) into a document: one step "filebench" (workload filebench) with its phase
// "run", as iobench's filebench workload names them, per "IO Summary:" line. Log lines may
// carry filebench's "SECONDS: " prefix.
//
// Compared like with like: an iobench phase's IOPS and mean latency are those of the ops that
// move data (compare_metric_value.cpp), so the phase's IOPS are the summary's reads + writes
// per second ("R/W rd/wr"), and its mean latency the count-weighted mean of the breakdown rows
// that moved data (mb/s above 0), their max the largest of theirs. Throughput is the summary's
// mb/s, which filebench computes in MiB (MB_FLOAT = 2^20 bytes). The summary's ops/s (every
// counted flowop: opens, stats, deletes too) and its ms/op (their summed latency over reads and
// writes) are listed as not mapped.
#include <fmt/format.h>

#include <algorithm>
#include <iobench/printable.hpp>

#include "report/classic/classic_reader.hpp"

namespace iobench::detail::classic {

namespace {

constexpr double kMiB = 1024.0 * 1024.0;

struct FlowopRow {
  double ops = 0;
  double mib_per_s = 0;
  double mean_ms = 0;
  double max_ms = 0;
};

// filebench's "12.345: " log prefix, if any.
std::string_view without_timestamp(std::string_view text) {
  const std::size_t colon = text.find(": ");
  if (colon != std::string_view::npos && number_of(text.substr(0, colon))) {
    return trimmed(text.substr(colon + 2));
  }
  return text;
}

// A number followed by `unit` in one token ("67045ops", "0.1ms/op", "[0.00ms"), or nullopt.
std::optional<double> with_unit(std::string_view token, std::string_view unit) {
  if (token.starts_with('[')) token.remove_prefix(1);
  if (token.ends_with(']')) token.remove_suffix(1);
  if (!token.ends_with(unit)) return std::nullopt;
  return number_of(token.substr(0, token.size() - unit.size()));
}

// "NAME 67045ops 13399ops/s 0.0mb/s 0.0ms/op [0.00ms - 6.95ms]" (a histogram may follow).
std::optional<FlowopRow> flowop_row(const std::vector<std::string_view>& t) {
  if (t.size() < 8) return std::nullopt;
  const auto ops = with_unit(t[1], "ops");
  const auto rate = with_unit(t[2], "ops/s");
  const auto mib = with_unit(t[3], "mb/s");
  const auto mean = with_unit(t[4], "ms/op");
  const auto min = with_unit(t[5], "ms");
  const auto max = with_unit(t[7], "ms");
  if (!ops || !rate || !mib || !mean || !min || t[6] != "-" || !max) return std::nullopt;
  return FlowopRow{.ops = *ops, .mib_per_s = *mib, .mean_ms = *mean, .max_ms = *max};
}

[[noreturn]] void bad_line(std::string_view source, const Line& line, std::string_view expected) {
  fail(source, line.number, fmt::format("expected {}, got '{}'", expected, printable(line.text)));
}

}  // namespace

ResultDocument read_filebench(std::string_view text, std::string_view source) {
  ResultDocument document = classic_document(ResultFormat::kFilebench);
  std::vector<FlowopRow> rows;
  bool in_breakdown = false;
  // iobench's psrun text heads each period's snapshot with "Period K (S s):" (a breakdown whose
  // rows have no [min - max], and its IO Summary); the whole run's breakdown follows the periods
  // unheaded, and is the one read.
  bool in_period = false;
  for (const Line& line : lines_of(text)) {
    const std::string_view body = without_timestamp(line.text);
    const std::vector<std::string_view> tokens = tokens_of(body);
    if (tokens.empty()) continue;
    if (body.starts_with("Filebench Version ") && tokens.size() >= 3) {
      document.source->tool_version = std::string(tokens[2]);
      continue;
    }
    if (body.starts_with("Period ") && body.ends_with(":")) {
      in_period = true;
      continue;
    }
    if (body == "Per-Operation Breakdown") {
      in_breakdown = true;
      rows.clear();
      continue;
    }
    if (in_period && body.starts_with("IO Summary:")) {
      in_period = false;
      in_breakdown = false;
      continue;
    }
    if (body.starts_with("IO Summary:")) {
      // "IO Summary: 737467 ops 147381.773 ops/s 13399/26799 rd/wr 3481.4mb/s 0.1ms/op"
      const std::string_view expected = "'IO Summary: N ops R ops/s RD/WR rd/wr M mb/s L ms/op'";
      if (!in_breakdown) bad_line(source, line, "a Per-Operation Breakdown before the IO Summary");
      if (tokens.size() < 10 || tokens[3] != "ops" || tokens[5] != "ops/s" ||
          tokens[7] != "rd/wr") {
        bad_line(source, line, expected);
      }
      const std::size_t slash = tokens[6].find('/');
      const auto rd = number_of(tokens[6].substr(0, slash));
      const auto wr =
          slash == std::string_view::npos ? std::nullopt : number_of(tokens[6].substr(slash + 1));
      // %5.1lfmb/s may leave a blank before the unit: "3481.4mb/s" or "  0.0mb/s" both parse.
      const auto mib = with_unit(tokens[8], "mb/s");
      if (!number_of(tokens[2]) || !number_of(tokens[4]) || !rd || !wr || !mib) {
        bad_line(source, line, expected);
      }
      StepResult& step = add_step(document, "filebench", "filebench");
      PhaseResult& phase = add_phase(step, "run");
      ReportedFigures& f = figures(phase);
      f.iops = figure(*rd + *wr);
      f.throughput_bytes_per_s = figure(*mib * kMiB);
      double ops = 0;
      double latency_ms = 0;
      double max_ms = 0;
      for (const FlowopRow& row : rows) {
        if (row.mib_per_s <= 0) continue;
        ops += row.ops;
        latency_ms += row.ops * row.mean_ms;
        max_ms = std::max(max_ms, row.max_ms);
      }
      if (ops > 0) {
        f.latency_mean_ns = figure(latency_ms / ops * 1e6);
        f.latency_max_ns = figure(max_ms * 1e6);
      }
      not_mapped(document, line.number,
                 "IO Summary's ops/s (every counted flowop) and ms/op (their latency over reads "
                 "and writes) not mapped: IOPS are reads + writes, latency the data flowops' "
                 "mean, as iobench counts its own phases");
      in_breakdown = false;
      continue;
    }
    if (!in_breakdown || in_period) continue;
    const auto row = flowop_row(tokens);
    if (!row) {
      bad_line(source, line,
               "a Per-Operation Breakdown row 'NAME Nops Rops/s Mmb/s Lms/op [MINms - MAXms]'");
    }
    rows.push_back(*row);
  }
  if (document.run.steps.empty()) {
    fail(source, 1, "expected filebench's 'IO Summary:' line, found none");
  }
  place_repetitions(document);
  return document;
}

}  // namespace iobench::detail::classic
