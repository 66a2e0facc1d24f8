#pragma once

#include <array>
#include <cstdint>
#include <iobench/result.hpp>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "plugins/tiotest/tiobench_sweep.hpp"

namespace iobench::plugins::tiotest {

/// CPU % below which the CPU efficiency is not defined: it rounds to 0.00 at the CSV's precision.
inline constexpr double kMinCpuPercentForEfficiency = 0.005;

/// One phase kind of one sweep point, summed over its repetitions.
struct SweepCell {
  std::uint64_t runs = 0;  ///< repetitions that reported this phase and ended ok
  /// The worst status of its repetitions: a cell with one that did not end ok (failed,
  /// interrupted, skipped) prints its status word instead of figures, which would read as
  /// measured; the figures below sum the ok repetitions only.
  Status status = Status::kOk;
  std::uint64_t bytes = 0;    ///< summed
  std::uint64_t wall_ns = 0;  ///< summed
  /// Summed over runs of (usr + sys CPU of the run's workers) / threads, ns: tiobench.pl sums
  /// tiotest's per-thread terse usr and sys seconds.
  double cpu_ns_per_thread = 0;
  std::uint64_t ops = 0;
  std::uint64_t latency_sum_ns = 0;
  std::uint64_t latency_max_ns = 0;
  std::uint64_t ops_over_2s = 0;
  std::uint64_t ops_over_10s = 0;

  /// MB/s from summed bytes over summed time (MB = 2^20 bytes), as tiobench.pl computes it.
  [[nodiscard]] double rate_mb_per_s() const noexcept;
  /// 100 x summed CPU / summed time (tiobench.pl).
  [[nodiscard]] double cpu_percent() const noexcept;
  /// rate / (cpu% / 100 + 0.00001) (tiobench.pl), or nullopt when the CPU % is below
  /// kMinCpuPercentForEfficiency (it prints as 0.00): tiobench.pl then prints rate x 100000, a
  /// figure that is all epsilon; iobench prints "-" (text) or an empty field (CSV).
  [[nodiscard]] std::optional<double> cpu_efficiency() const noexcept;
  /// Mean over all ops of all repetitions (tiobench.pl prints the SUM of per-run means instead,
  /// which grows with --numruns; iobench averages).
  [[nodiscard]] double mean_latency_ms() const noexcept;
  /// Largest latency of any repetition (tiobench.pl sums the maxima).
  [[nodiscard]] double max_latency_ms() const noexcept;
  /// Percent of all ops over 2 s / 10 s (tiobench.pl sums the per-run percents).
  [[nodiscard]] double percent_over_2s() const noexcept;
  [[nodiscard]] double percent_over_10s() const noexcept;
};

/// A sweep point with its four cells, indexed by index_of(PhaseKind).
struct SweepRow {
  SweepPoint point;
  std::array<SweepCell, 4> cells;
  std::array<bool, 4> present{};
};

/// Groups the step's sweep phases (names from sweep_suffix) by point, in first-seen order (which
/// is tiobench.pl's size, block, threads order), summing repetitions.
[[nodiscard]] std::vector<SweepRow> aggregate_sweep(const StepResult& step);

/// One row of a tiobench.pl section, formatted with its Perl format
/// `@<<<...(28) @||||| @||||| @>>  @########.## @>>>>% @####.### @#######.##  @#.##### @#.#####
/// @######` (a number too wide for its field prints as '#'s, as Perl does). Unlike Perl, the
/// file size, block size and thread count are never cut to their field (Perl shows 8388608 as
/// 838860): a wider one is printed whole and moves the rest of the row right. A CPU efficiency
/// that is not defined (SweepCell::cpu_efficiency) prints as "-". A cell whose status is not ok
/// prints the status word ("failed, no figures") after the thread count.
[[nodiscard]] std::string tiobench_row(const std::string& identifier, const SweepPoint& point,
                                       const SweepCell& cell);

/// tiobench.pl's report: the "Unit information" block, then the sections Sequential Reads,
/// Random Reads, Sequential Writes, Random Writes, each titled, '='-underlined, with the
/// three-line header and one row per sweep point. The identifier is the `identifier` param, or
/// the `identifier` attribute (uname -r) when the param is empty. Phases that did not end ok are
/// listed after the report, then the warnings.
void format_tiobench_text(const StepResult& step, std::ostream& out);

/// The CSV header line (registered as the "csv_header" formatter, written once per file):
/// step,identifier,size_mib,block_bytes,threads,test,runs,rate_mib_per_s,cpu_pct,avg_latency_ms,
/// max_latency_ms,pct_over_2s,pct_over_10s,cpu_eff.
void format_tiobench_csv_header(const StepResult& step, std::ostream& out);

/// CSV rows under format_tiobench_csv_header: one per sweep point and phase kind. Text fields
/// (step name, identifier) are quoted per RFC 4180 where needed; cpu_eff is empty where it is
/// not defined.
void format_tiobench_csv(const StepResult& step, std::ostream& out);

}  // namespace iobench::plugins::tiotest
