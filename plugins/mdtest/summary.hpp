#pragma once

#include <cstdint>
#include <iobench/result.hpp>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace iobench::plugins::mdtest {

/// One line of an mdtest SUMMARY table: a phase's figure over the iterations.
struct SummaryRow {
  std::string operation;  ///< mdtest's phase name, "File creation"
  double max = 0;
  double min = 0;
  double mean = 0;
  double stddev = 0;  ///< sample standard deviation (n - 1); 0 with one iteration, as mdtest
};

/// An mdtest SUMMARY table: "rate" (ops/s per phase) or "time" (the phase's seconds: mdtest 4's
/// header says "in ms/op" over figures that are the phases' durations in seconds).
struct SummaryTable {
  std::uint32_t iterations = 1;
  std::vector<SummaryRow> rows;
  /// The row of `operation`, or nullptr.
  [[nodiscard]] const SummaryRow* row(std::string_view operation) const noexcept;
};

/// mdtest's SUMMARY rate table of an mdtest step: per iteration a phase's rate is its items over
/// its wall time (PhaseResult::wall_ns: its first op's start to its last op's end over all
/// workers and ranks, as the workers time it, WorkerContext::time_phase_by_ops()), the tree
/// phases' the tree's directory count over it
/// (mdtest's rank-0 figure); rows in mdtest's order, directory rows unless files_only, file rows
/// unless dirs_only, then the two tree rows; a phase that did not run counts 0, as in mdtest.
[[nodiscard]] SummaryTable summary_rates(const StepResult& step);
/// The SUMMARY time table: each phase's wall time (as summary_rates()) in seconds.
[[nodiscard]] SummaryTable summary_times(const StepResult& step);
/// Writes `table` as mdtest 4 prints it ("SUMMARY rate (in ops/sec): (of N iterations)", the
/// header lines, one "%-18s" row per phase with four "%14.3f" figures; tree rows "%-22s").
void write_summary(const SummaryTable& table, bool time, std::ostream& out);

/// The SUMMARY tables found in mdtest's text output (or iobench's mdtest text).
struct ParsedSummary {
  std::optional<SummaryTable> rate;
  std::optional<SummaryTable> time;
};
/// Reads the "SUMMARY rate" and "SUMMARY time" tables out of `text`; other lines are ignored.
/// Throws ConfigError naming the line for a table row that does not read as
/// a name and four numbers.
[[nodiscard]] ParsedSummary parse_summary(std::string_view text);

/// The registered "text" formatter: iobench's own step section (per-phase tables), then the line
/// "<tasks> tasks, <items> <kind>" and mdtest's SUMMARY rate and SUMMARY time tables, then, when
/// a verify_read phase counted mismatches, a line saying how many files differed.
void format_mdtest_text(const StepResult& step, std::ostream& out);

}  // namespace iobench::plugins::mdtest
