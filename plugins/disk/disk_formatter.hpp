#pragma once

#include <cstdint>
#include <iobench/result.hpp>
#include <iosfwd>
#include <string>

namespace iobench::plugins::disk {

/// Prints a disk step in the seeds' form (test_disk_performance, as in the 2002 ext2 large-file
/// report):
///   Completed writing 98304 mbytes across 8 devices using 98304 blocks of 1048576 in 579.935968
///   seconds (169.51 Mbytes/sec), 44717usec mean
///   #0 (/mnt/a/bigfile) 12GB in 571.327206s using 12k writes of 1M (21.51MB/sec), 40876usec
/// then latency percentiles, CPU and a units legend (mbytes, MB and GB there are binary: MiB, GiB).
void format_disk_text(const StepResult& step, std::ostream& out);

/// Binary count as the seeds print it: 12288 -> "12k", 3145728 -> "3m", else the number.
[[nodiscard]] std::string format_count(std::uint64_t count);
/// Binary size as the seeds print it: 12 GiB -> "12GB", 1 MiB -> "1M" (short form for block sizes
/// when `short_units`), rounding to the nearest unit with one decimal when not whole.
[[nodiscard]] std::string format_size(std::uint64_t bytes, bool short_units);

}  // namespace iobench::plugins::disk
