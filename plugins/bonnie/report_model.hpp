#pragma once

#include <array>
#include <cstdint>
#include <iobench/result.hpp>
#include <string>
#include <vector>

#include "plugins/bonnie/phases.hpp"
#include "plugins/bonnie/report_header.hpp"

namespace iobench::plugins::bonnie {

/// bonnie++'s MinTime: a test that took less than this prints "+++++" / "+++" instead of its
/// figures, which would be too inaccurate.
inline constexpr std::uint64_t kMinTimeNs = 500'000'000;

/// One phase's figures in one report row, as bonnie++ prints them.
struct Cell {
  enum class State {
    kNotRun,   ///< blank cells (test off, not selected, failed or interrupted)
    kTooFast,  ///< ran for less than kMinTimeNs: "+++++" / "+++"
    kValue,
  };
  State state = State::kNotRun;
  /// KiB/s for putc .. get_block, seeks/s for seeks, files/s for the file tests.
  double rate = 0;
  /// int(CPU seconds / elapsed seconds x 100), truncated like bonnie++ (may exceed 100).
  int cpu_percent = 0;
  /// Largest per-operation latency (bonnie++'s latency row); 0 when not run.
  std::uint64_t latency_ns = 0;
};

/// One line of the report: one copy in one repetition, or the sum over the copies.
struct ReportRow {
  std::string name;  ///< the machine name; "<machine>.<copy>" per copy when copies > 1
  std::uint32_t repetition = 1;
  bool is_sum = false;
  std::array<Cell, kPhaseCount> cells{};
};

/// Everything the text and CSV formatters print.
struct Report {
  ReportHeader header;
  /// Per repetition: one row per copy, then (copies > 1) the sum row.
  std::vector<ReportRow> rows;
};

/// Builds the report of a finished bonnie step. Per copy and phase:
/// - elapsed = the longest elapsed time of the copy's workers (for seeks, its seekers: bonnie++'s
///   last stop - first start);
/// - rate = KiB moved / elapsed (putc .. get_block; rewrite counts each chunk once, like bonnie++),
///   seeks / elapsed, files / elapsed;
/// - CPU % = the copy's workers' own CPU time (user + system) / elapsed. Each seeker counts only
///   its own thread or process; bonnie++ adds every seeker's whole-process time, over-counting by
///   up to the number of seekers;
/// - latency = the largest single-operation latency of the copy's workers.
/// The sum row (copies > 1) adds the copies' rates and CPU % (what users of bonnie++ -y add up
/// by hand) and keeps the largest latency; it is "+++++" if any copy is, blank if any is.
[[nodiscard]] Report build_report(const StepResult& step);

/// The cell of one copy: `workers` of `phase` (already restricted to the copy).
[[nodiscard]] Cell make_cell(PhaseId id, std::span<const WorkerResult> workers);
/// The sum of several copies' cells of one phase.
[[nodiscard]] Cell sum_cells(std::span<const Cell> cells);

}  // namespace iobench::plugins::bonnie
