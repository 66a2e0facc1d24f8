#pragma once

// Data preparation of the HTML report: everything the page shows, as one JSON model (the page
// template, page_template.cpp, embeds it; report.js renders it). Chart data is laid out as
// dygraphs takes it: {labels: [x, series...], rows: [[x, y...]]}, one row per point of the result.

#include <iobench/html_report.hpp>
#include <iobench/latency_histogram.hpp>
#include <iobench/result.hpp>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <string_view>

namespace iobench::detail::html {

using Json = nlohmann::ordered_json;

/// The whole page's data: {title, runs: [run], comparison: null | {...}} (see report_model.cpp).
/// Throws ResultFormatError (pointer prefixed with the input's label) for a bad "time_series".
[[nodiscard]] Json report_model(std::span<const ReportInput> inputs);

/// The cumulative latency curve of `latency`: one row [upper bound of the bucket in us, % of ops
/// at or below it] per non-empty histogram bucket, ascending. Empty for an empty histogram.
[[nodiscard]] Json latency_cdf(const CompactLatencyHistogram& latency);

/// The charts of one phase's "time_series" (the agreed shape, TIME_SERIES_SHAPE in the schema
/// doc): {interval_ns, merged_intervals, points, warmup: [[start_s, end_s]...], throughput: chart,
/// iops: chart}; a chart has labels [time, total, worker 0.., p99] and one row per point (x: the
/// point's start in s; throughput in MiB/s, IOPS in ops/s, p99 in us; null where a point has no
/// ops). `pointer` names `series` in messages. Throws ResultFormatError for a missing or
/// wrongly typed field.
[[nodiscard]] Json time_series_charts(const nlohmann::json& series, const std::string& pointer);

/// bonnie++ tables of a run's bonnie steps, from their CSV lines (write_bonnie_csv), laid out as
/// bon_csv2html does: [{title, groups: [{title, span}], columns: [title], rows: [{cells: [{text,
/// kind: "text" | "value" | "too_fast" | "empty", shade: null | 0..1 (1 best in its column)}]}]}].
/// A "+++++" or "+++" field is kind "too_fast", text "too fast to measure", never a number.
[[nodiscard]] Json bonnie_tables(std::span<const StepResult* const> steps);

/// One bonnie step's CSV (write_bonnie_csv's text) and the step's name.
struct BonnieCsv {
  std::string step;
  std::string csv;
};
/// bonnie_tables from CSV text: lines of 50 fields (1.98) or 48 (1.97); header lines
/// ("format_version,...") and shorter lines are skipped.
[[nodiscard]] Json bonnie_tables_from_csv(std::span<const BonnieCsv> csv_texts);

/// `json` as text that is safe inside a <script> element: '<', '>' and '&' as \u003c, \u003e,
/// \u0026 (they only occur inside strings), U+2028 and U+2029 escaped, invalid UTF-8 replaced.
[[nodiscard]] std::string script_json(const Json& json);

}  // namespace iobench::detail::html
