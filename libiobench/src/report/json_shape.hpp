#pragma once

// Pieces the JSON writer (json_reporter.cpp), the reader (json_reader.cpp) and the suite document
// (suite_report.cpp) share.

#include <array>
#include <iobench/latency_histogram.hpp>
#include <iobench/result_json.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>

namespace iobench::detail::json {

/// Decimal text of an unsigned integer of up to 128 bits (seeds, latency sums).
[[nodiscard]] std::string decimal_text(LatencyHistogram::Uint128 value);
/// The inverse of decimal_text: digits only, no sign, no leading zero (except "0"), no overflow.
[[nodiscard]] std::optional<LatencyHistogram::Uint128> parse_decimal(std::string_view text);

/// The result document of `run` with the optional parts (nullptr / empty: left out), without
/// copying the run.
[[nodiscard]] std::string write_document(const RunResult& run, const Invocation* invocation,
                                         std::span<const StepPlacement> placements,
                                         const SuiteRecord* suite, const ResultSource* source,
                                         int indent);

/// The ReportedFigures fields with their JSON keys ("throughput_bytes_per_s", "iops",
/// "latency_mean_ns", "latency_p50_ns", "latency_p99_ns", "latency_p99_9_ns", "latency_max_ns",
/// "cpu_percent"), in that order: one list for the writer and the reader.
template <typename Figures>
[[nodiscard]] auto reported_fields(Figures& f) {
  using Slot = decltype(&f.iops);
  return std::array<std::pair<std::string_view, Slot>, 8>{{
      {"throughput_bytes_per_s", &f.throughput_bytes_per_s},
      {"iops", &f.iops},
      {"latency_mean_ns", &f.latency_mean_ns},
      {"latency_p50_ns", &f.latency_p50_ns},
      {"latency_p99_ns", &f.latency_p99_ns},
      {"latency_p99_9_ns", &f.latency_p99_9_ns},
      {"latency_max_ns", &f.latency_max_ns},
      {"cpu_percent", &f.cpu_percent},
  }};
}

}  // namespace iobench::detail::json
