#pragma once

#include <string>

#include "live_view.hpp"

namespace iobench::cli {

/// --live-csv's first line: the columns, units in their names.
[[nodiscard]] std::string live_csv_header();

/// The lines of one refresh: a row per worker, then the total row, each ending in '\n'. Plain
/// decimals (rates with 3 decimals, latencies in us with 3); an unknown figure is an empty
/// field; step and phase names are quoted as CSV requires where they hold a comma, a quote or a
/// line break.
[[nodiscard]] std::string live_csv_lines(const LiveFrame& frame);

}  // namespace iobench::cli
