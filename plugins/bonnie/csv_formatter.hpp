#pragma once

#include <iobench/result.hpp>
#include <iosfwd>
#include <string>

#include "plugins/bonnie/report_model.hpp"

namespace iobench::plugins::bonnie {

/// Fields in one CSV line: format 1.98 (bonnie++ 1.98 to 2.00a) and 1.97.
inline constexpr std::size_t kCsvFields198 = 50;
inline constexpr std::size_t kCsvFields197 = 48;

/// The header line (no newline) naming every field of the format. For 1.98 it has the 50 names
/// (bonnie++ 2.00a prints the stale 48-name 1.97 header, which lacks columns 7 and 8: here they
/// are "seek_count" and "seek_proc_count"; column 19 stays "seeks", the rate).
[[nodiscard]] std::string csv_header(ReportFormat format);

/// One CSV line (no newline) for `row`. 1.98: format_version "1.98", bonnie_version "2.00a",
/// name, concurrency, seed, file size ("512M", "2G"), io chunk ("4k"; empty when 8 KiB), seek
/// count, seekers, 6 x (rate, CPU), num files (K), max ("link"/"symlink"/bytes; empty when 0),
/// min (empty when 0), num dirs (empty when 1), file chunk (empty when 8 KiB), 6 x (rate, CPU),
/// 12 latencies. I/O or file fields are all empty when those tests did not run.
/// NOTE: bonnie++ 2.00a never writes the io chunk, writes num_dirs one column late (in the file
/// chunk's column) and never writes the file chunk; bon_csv2txt and bon_csv2html read these
/// columns as documented, so they are written here in their own columns.
/// 1.97: the same without seek count and seekers (48 fields), "1.97,1.97" first.
[[nodiscard]] std::string csv_line(const ReportHeader& header, const ReportRow& row);

/// Writes the report's lines: the header line first when there are several repetitions (as
/// bonnie++ -x N with N > 1 does), then one line per row.
void format_csv(const Report& report, std::ostream& out);

/// The registered "csv" formatter: build_report(step) then format_csv.
void format_csv_step(const StepResult& step, std::ostream& out);

}  // namespace iobench::plugins::bonnie
