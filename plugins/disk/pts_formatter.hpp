#pragma once

#include <iobench/result.hpp>
#include <iosfwd>

namespace iobench::plugins::disk {

/// Prints a `pts` step as PTS 2.0's report tables, from its pts.* attributes (PtsWorkload):
/// the validity line ("PTS-valid" or "not PTS-valid: REASON; ..."), the test conditions
/// (device, model, firmware, capacity, purge, preconditioning, threads/queue depth/OIO, I/O),
/// the tracked cell's rounds with the steady-state window marked, the window's mean, data
/// excursion and best-fit excursion against their limits and "steady: yes after N rounds" or
/// "steady: no", then the matrix over the window: rows block sizes, columns R/W mixes, of IOPS
/// (iops), MB/s (throughput: 10^6 bytes/s, as PTS reports) or mean, p99 and max latency in ms
/// (latency). Warnings last.
void format_pts_text(const StepResult& step, std::ostream& out);

}  // namespace iobench::plugins::disk
