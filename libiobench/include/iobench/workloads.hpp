#pragma once

/// The built-in workload families, part of libiobench (iobench::iobench, pkg-config `iobench`):
/// register them on a Registry to run them from C++ exactly as `iobench run` does, and print
/// their results as the original tools print them.

#include <iobench/registry.hpp>
#include <iobench/result.hpp>
#include <iosfwd>

namespace iobench {

/// Registers the built-in workloads with their "text" and "csv" formatters:
/// - `disk`: the seeds' multi-target large-file test (test_disk_performance, 2002 ext2 reports);
/// - `bonnie`: bonnie++ 1.96-2.00a's twelve tests;
/// - `tiotest` and `tiobench`: tiotest 0.3x and tiobench.pl's sweep over it;
/// - `dbench`: dbench 4's NBench loadfile replay.
/// Their params (names, types, units, defaults) are what `iobench list` prints. Call it once per
/// registry; engines come from register_builtins(). Throws PluginError if one of the names is
/// already registered.
void register_builtin_workloads(PluginRegistrar& registrar);

/// A registry with the built-in engines (register_builtins) and the built-in workloads
/// (register_builtin_workloads): what `iobench` starts from before loading `--plugin` files.
[[nodiscard]] Registry make_builtin_registry();

// The family formatters: the functions the text and CSV reporters call for these workloads,
// for a finished step of that workload (from Runner::run, or read back from a JSON result).
// Each throws ConfigError naming the step and its workload if `step.workload` is another one.
// They print what the step holds, compute no statistics, and print failed or interrupted phases
// as not run, followed by the step's warnings.

/// The seeds' lines: "Completed writing 512 mbytes across 2 devices using 512 blocks of 1048576
/// in 2.711203 seconds (188.85 Mbytes/sec), 5110usec mean", one "#i (path) ..." line per
/// target, latency percentiles, fsync and CPU lines. "mbytes", "Mbytes/sec", "MB" and "GB" there
/// are binary (MiB, GiB), as in the original.
void write_disk_report(const StepResult& step, std::ostream& out);

/// bonnie++ 2.00a's text table (1.97's with report_format=1.97): the I/O block (K/sec and %CP
/// per test, Latency line) and the file-test block (files/s), several copies or repetitions
/// under one header as bon_csv2txt prints them.
void write_bonnie_table(const StepResult& step, std::ostream& out);
/// bonnie++'s CSV (format 1.98 of bonnie++ 1.98-2.00a, or 1.97): one line per copy and
/// repetition, with a header line first when there are several repetitions (bonnie++ -x); read
/// by bon_csv2html and bon_csv2txt.
void write_bonnie_csv(const StepResult& step, std::ostream& out);

/// tiotest's result table and latency table, iobench's percentile table in the same style (or
/// tiotest's terse lines with terse=true), and a line stating the units: MB = 2^20 bytes, as
/// tiotest prints them.
void write_tiotest_tables(const StepResult& step, std::ostream& out);
/// tiotest's figures as CSV: a header line, then one row per phase and a "Total" row.
void write_tiotest_csv(const StepResult& step, std::ostream& out);

/// tiobench.pl's report: the "Unit information" block, then the Sequential Reads, Random Reads,
/// Sequential Writes and Random Writes sections with one row per sweep point (size, block size,
/// threads), formatted with tiobench.pl's Perl formats.
void write_tiobench_tables(const StepResult& step, std::ostream& out);
/// tiobench's figures as CSV: a header line, then one row per sweep point and test.
void write_tiobench_csv(const StepResult& step, std::ostream& out);

/// dbench 4.00's final output: the "Operation Count AvgLat MaxLat" table (ms) and the
/// "Throughput N MB/sec  C clients  P procs  max_latency=L ms" line, MB = 10^6 bytes, as dbench
/// computes it from its whole-second ticks; then per-operation latency percentiles.
void write_dbench_table(const StepResult& step, std::ostream& out);

}  // namespace iobench
