#pragma once

#include <iobench/result.hpp>
#include <iosfwd>

namespace iobench::plugins::dbench {

/// Prints a finished dbench step as dbench 4.00 does (dbench.md §3.4), from the result's numbers:
///
///   Running for <T> seconds with load '<loadfile>' and minimum warmup <W> secs
///   <blank>
///    Operation      Count    AvgLat    MaxLat
///    ----------------------------------------
///    <op>         <count> <avg ms>  <max ms>     (rows with a count, in dbench's order)
///   <blank>
///   Throughput <MB/s> MB/sec[ (sync open)][ (sync dirs)]  <n> clients  <p> procs
///       max_latency=<ms> ms  (whole execute period: <MB/s> MB/sec over <s> s)
///   (the Throughput line is one line, wrapped here)
///
/// MB is 10^6 bytes. The first Throughput figure is dbench's: the bytes completed by the last
/// whole-second tick of the execute period divided by its seconds (0 for periods up to 1 s; a run
/// that ended early divides by the whole seconds it ran, and then also counts its last fraction
/// of a second); the
/// figure in parentheses divides all bytes of the execute period by its measured wall time.
/// The op tables (and the first percentile table) show what dbench times, the service time of
/// each call: in a paced phase (PhaseResult::latency_parts_kind.service) its latency part, else
/// the ops' latency. max_latency is the largest latency of any operation (from the intended
/// start when paced). Then: latency percentiles per operation; when paced, the ops' latency from
/// the intended start (PhaseResult::ops);
/// counted status mismatches; with per_client_results, a line and a table per client (per
/// process when clients_per_process > 1, since a process records its clients together).
void format_dbench_text(const StepResult& step, std::ostream& out);

}  // namespace iobench::plugins::dbench
