#pragma once

#include <cstddef>
#include <iobench/result.hpp>
#include <iosfwd>
#include <span>

#include "plugins/tiotest/phase_figures.hpp"

namespace iobench::plugins::tiotest {

/// tiotest's result table ("Tiotest results for N concurrent io threads:"), one row per phase in
/// `phases` (tiotest prints rows only for phases that ran). A phase that did not end ok
/// (PhaseFigures::measured) gets a row with its label and status word instead of figures; this
/// holds for every table and the CSV (empty fields), and the terse line reads `key:status`. Cells
/// use tiotest's printf formats (MB %.0f, time %6.1f s, rate %7.3f MB/s, CPU %5.1f %); when a value
/// is wider than tiotest's field (rates of 1000 MB/s and more, CPU above 999.9 %), the whole column
/// and its borders widen so the table stays aligned, where tiotest shifts the row. MB = 2^20 bytes.
void write_result_table(std::ostream& out, std::span<const PhaseFigures> phases,
                        std::size_t threads);

/// tiotest's latency table ("Tiotest latency results:"): average and maximum latency (ms,
/// %12.3f), percent of ops over 2 s and 10 s (%8.5f, %9.5f), and the Total row pooling every op
/// of every phase; followed by a blank line. Columns widen like write_result_table's.
void write_latency_table(std::ostream& out, std::span<const PhaseFigures> phases);

/// iobench's addition in the same style: latency percentiles p50, p90, p99, p99.9, p99.99 in ms
/// (nearest rank on the merged histogram, <= 0.4 % relative error) and the system-wide CPU busy
/// percent (all CPUs, /proc/stat) beside each phase; the Total row pools every op. Followed by a
/// blank line.
void write_percentile_table(std::ostream& out, std::span<const PhaseFigures> phases);

/// tiotest's terse output (-T): always five lines, zeros for phases that did not run:
/// `write:MB,real_s,usr_s,sys_s,avg_ms,max_ms,pct>2s,pct>10s` (usr/sys summed over threads and
/// divided by the thread count, as tiotest 0.4), likewise `rwrite:`, `read:`, `rread:`, then
/// `total:avg_ms,max_ms,pct>2s,pct>10s`; every number `%.5f`.
void write_terse(std::ostream& out, std::span<const PhaseFigures> phases, std::size_t threads);

/// The step's text report: per the step's params, the terse lines (`terse=true`), or the result
/// table, the latency table (unless `latency_table=false`) and the percentile table (unless
/// `percentiles=false`) and a line stating the units (the text reporter's header speaks of
/// MB = 10^6 bytes; tiotest's MB are 2^20 bytes); then a line for each phase that did not end ok
/// and each warning.
void format_tiotest_text(const StepResult& step, std::ostream& out);

/// The CSV header line (registered as the "csv_header" formatter, written once per file):
/// step,item,mib,real_s,usr_cpu_pct,sys_cpu_pct,rate_mib_per_s,avg_latency_ms,
/// max_latency_ms,pct_over_2s,pct_over_10s,p50_ms,p90_ms,p99_ms,p99_9_ms,p99_99_ms,
/// system_busy_pct. mib: MiB = 2^20 bytes (tiotest's MB).
void format_tiotest_csv_header(const StepResult& step, std::ostream& out);

/// CSV rows under format_tiotest_csv_header: one per phase and a "Total" row per step, with
/// tiotest's figures and the percentiles; the step name (quoted per RFC 4180 where needed)
/// tells the steps of one file apart.
void format_tiotest_csv(const StepResult& step, std::ostream& out);

/// The figures of every tiotest phase of `step`, in result order.
[[nodiscard]] std::vector<PhaseFigures> tiotest_figures(const StepResult& step,
                                                        std::size_t threads);

}  // namespace iobench::plugins::tiotest
