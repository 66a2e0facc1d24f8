#pragma once

#include <cstddef>
#include <iobench/result.hpp>
#include <iosfwd>

namespace iobench::plugins::filebench {

/// Buckets of filebench's latency histogram (its OSPROF_BUCKET_NUMBER): powers of two of ns.
inline constexpr std::size_t kLathistBuckets = 64;

/// Prints a finished filebench step as filebench 1.5 ends a run, from the result's numbers:
///
///   Per-Operation Breakdown
///   <flowop name, 20 wide> <N>ops <ops/s>ops/s <MB/s>mb/s <mean ms>ms/op [<min>ms - <max>ms]
///   ...                                         (one line per flowop name, in definition order)
///   IO Summary: <N> ops <ops/s> ops/s <rd>/<wr> rd/wr <MB/s>mb/s <mean ms>ms/op
///
/// MB is 2^20 bytes (filebench's MB_FLOAT); rates divide by the phase's wall time. The IO Summary
/// counts every flowop but delay; rd/wr are the ops/s of the read flowops (read,
/// readwholefile) and of the write flowops (write, writewholefile, appendfile, appendfilerand),
/// as the step attributes filebench.read_flowops / write_flowops name them. Its ms/op is what
/// filebench 1.5-alpha3's stats.c prints there: the summed latency of every counted flowop
/// (opens, closes, stats and deletes included) over the number of reads and writes, not a mean
/// over all its ops. A warning line follows for each step warning.
///
/// `enable lathist` (step attribute filebench.lathist = 1): each flowop line ends, after a tab,
/// in `[ c0 c1 ... c63 ]`, filebench's latency histogram: c_i counts the ops whose latency d in
/// nanoseconds has 2^(i-1) <= d < 2^i (c0: d = 0; c63 takes everything from 2^62 on).
///
/// `psrun` (attribute filebench.psrun_period_s = P): before the breakdown, per period of P
/// seconds, what filebench's stats_snap prints at each period's end, from the phase's time series
/// split by flowop (SeriesPoint::op_points, PhaseSpec::per_op_series): its measured points
/// (warm-up ones left out) grouped by their start counted from the first measured point's start:
///
///   Period <k> (<seconds covered> s):
///   Per-Operation Breakdown
///   <flowop name, 20 wide> <N>ops <ops/s>ops/s <MB/s>mb/s <mean ms>ms/op
///   ...                                         (one line per flowop name, in definition order)
///   IO Summary: ... (as above)
///
/// covering the run from its start to the end of period k, or with `psrun -P`
/// (filebench.psrun_reset = 1) period k alone, as filebench's stats_clear after each snapshot.
/// Rates divide by the seconds covered (the points' summed durations); a flowop's ms/op is its
/// latency sum over its latency samples. The flowop lines have no `[min - max]`: the series keeps
/// no per-op extremes per interval, so they are left out rather than taken from the whole run.
/// A series without the split (a result written before it existed) gives one line per period,
/// over every flowop's ops:
///
///   Period <k> (<seconds covered> s): <N> ops <ops/s> ops/s <MB/s>mb/s <mean ms>ms/op
///
/// A period in which no point of the series starts is printed as
/// `Period <k>: not measured (...)`, never with numbers. Where the series' interval is longer
/// than P (a large --interval, or a long run's merged points), one `Periods: ...` line says so
/// and each period covers the fewest whole periods holding an interval. Without a measured
/// point there is one line, `Periods: none (...)`.
void format_filebench_text(const StepResult& step, std::ostream& out);

}  // namespace iobench::plugins::filebench
