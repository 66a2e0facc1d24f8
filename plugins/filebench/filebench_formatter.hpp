#pragma once

#include <iobench/result.hpp>
#include <iosfwd>

namespace iobench::plugins::filebench {

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
void format_filebench_text(const StepResult& step, std::ostream& out);

}  // namespace iobench::plugins::filebench
