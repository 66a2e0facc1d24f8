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
/// (latency); DIRTH: the TC x QD table (IOPS, mean, p99 and max response time in ms; rows TC,
/// then QD, ascending), the max-IOPS and minimum-response-time points and their response-time
/// histograms (power-of-two bins in us, ops and % of the ops). Warnings last.
void format_pts_text(const StepResult& step, std::ostream& out);

}  // namespace iobench::plugins::disk
