#pragma once

// Pieces the JSON writer (json_reporter.cpp), the reader (json_reader.cpp) and the suite document
// (suite_report.cpp) share.

#include <iobench/latency_histogram.hpp>
#include <iobench/result_json.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace iobench::detail::json {

/// Decimal text of an unsigned integer of up to 128 bits (seeds, latency sums).
[[nodiscard]] std::string decimal_text(LatencyHistogram::Uint128 value);
/// The inverse of decimal_text: digits only, no sign, no leading zero (except "0"), no overflow.
[[nodiscard]] std::optional<LatencyHistogram::Uint128> parse_decimal(std::string_view text);

/// The result document of `run` with the optional parts (nullptr / empty: left out), without
/// copying the run.
[[nodiscard]] std::string write_document(const RunResult& run, const Invocation* invocation,
                                         std::span<const StepPlacement> placements,
                                         const SuiteRecord* suite, int indent);

}  // namespace iobench::detail::json
