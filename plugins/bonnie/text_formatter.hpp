#pragma once

#include <iobench/result.hpp>
#include <iosfwd>
#include <string>
#include <string_view>

#include "plugins/bonnie/report_model.hpp"

namespace iobench::plugins::bonnie {

/// The "Name:Size etc" size text of bonnie++ 2.00: "size[:chunk[:concurrency[:seeks[:seekers]]]]"
/// with each field empty when it has bonnie++'s default and trailing ':' removed
/// ("512M", "16M:4k", "2G:1m::100", "16M:::400:3").
/// NOTE: bonnie++ 2.00a drops a one-digit non-default seeker count (and its ':') by an
/// off-by-one; this prints it.
[[nodiscard]] std::string io_size_text(const ReportHeader& header);
/// The 1.97 size text: "<n>G" for whole GiB else "<n>M", then ":<chunk>" ("4k", "512") when the
/// chunk is not 8 KiB.
[[nodiscard]] std::string legacy_io_size_text(const ReportHeader& header);
/// The file-test cell text: "num[:max:min|:link|:symlink][/dirs]" ("16", "1:4096:1024/3",
/// "1:link").
[[nodiscard]] std::string file_spec_text(const ReportHeader& header);

/// Writes bonnie++'s text table for `report`: the I/O block (3 header lines, then per row the
/// figures and a "Latency" line) when I/O phases ran, the file-test block likewise when file
/// phases ran, otherwise an empty line after the I/O block; all exactly as bonnie++ 2.00a
/// prints them (or 1.97 with ReportFormat::kV197). Several rows (copies, repetitions) share one
/// header, as bon_csv2txt prints them; file rows then carry the name like bon_csv2txt's.
/// NOTE: bonnie++ 2.00a prints the file tests' rates with printf("%5d") of a double, which
/// prints whatever is in an integer register (in practice the number of files); this prints the
/// rate, as 1.97 and bon_csv2txt do.
void format_text(const Report& report, std::ostream& out);

/// The line after the table that states its units, which are bonnie++'s and binary.
inline constexpr std::string_view kUnitsNote =
    "Units as bonnie++ prints them: k, m, g (K, M, G) = 2^10, 2^20, 2^30 bytes (per second in "
    "the rate columns); file tests in files per second; latency in us, ms or s.\n";

/// The registered "text" formatter: build_report(step), format_text, kUnitsNote, then the step's
/// warnings. Phases that failed or were interrupted print as not run (the text reporter adds the
/// step's status line).
void format_text_step(const StepResult& step, std::ostream& out);

}  // namespace iobench::plugins::bonnie
