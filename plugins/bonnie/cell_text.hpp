#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "plugins/bonnie/phases.hpp"
#include "plugins/bonnie/report_model.hpp"

namespace iobench::plugins::bonnie {

/// bonnie++'s compact size: `value` in the first unit of `units`, divided by 1024 while it stays
/// whole and a larger unit exists; a space unit prints nothing. print_size(2048, "MG") = "2G",
/// print_size(1536, "MG") = "1536M", print_size(4096, " km") = "4k",
/// print_size(1048576, " km") = "1m", print_size(512, " km") = "512".
[[nodiscard]] std::string print_size(std::uint64_t value, std::string_view units);

/// bonnie++'s latency text: "" for 0, "<n>us" below 100 ms, "<n>ms" from 100 ms to 100 s,
/// "<n>s" above (each truncated).
[[nodiscard]] std::string format_latency(std::uint64_t latency_ns);

/// The text table's rate cell (6 characters, leading space): "      " not run, " +++++" too
/// fast; else, for putc .. get_block, bonnie++ 2.00's k/m/g form ("%4dk" below 10000 KiB/s,
/// "%4.1fm" below 100 MiB/s, "%4dm" below 1000 MiB/s, else "%4.1fg"), or with `legacy` 1.97's
/// "%5d" KiB/s; for seeks "%5.0f" from 1000/s, else "%5.1f"; for the file tests "%5d" files/s.
[[nodiscard]] std::string text_rate(PhaseId id, const Cell& cell, bool legacy);
/// The text table's CPU cell (4 characters): "    ", " +++" or " %3d".
[[nodiscard]] std::string text_cpu(const Cell& cell);

/// CSV rate field (no comma): "" / "+++++" / integer KiB/s or files/s / seeks "%.0f" from 1000,
/// else "%.1f".
[[nodiscard]] std::string csv_rate(PhaseId id, const Cell& cell);
/// CSV CPU field: "" / "+++" / integer.
[[nodiscard]] std::string csv_cpu(const Cell& cell);

/// The "Name:Size" cell (19 characters unless the size text is longer than 18): the name cut or
/// padded to 18 - size length characters, a space, the size text; the size text alone if it is
/// longer than 18 characters.
[[nodiscard]] std::string name_size_cell(std::string_view name, std::string_view size_text);

}  // namespace iobench::plugins::bonnie
