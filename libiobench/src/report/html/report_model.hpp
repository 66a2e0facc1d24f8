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

/// A phase's explanation (issue 29), or null when it has none: {findings: [{name, evidence}],
/// devices: [{name, read_bytes, write_bytes, util_percent, avg_queue_size, r_await_ms,
/// w_await_ms}] (the phase's diskstats deltas), device_series: null | {devices, throughput:
/// chart [time, application MiB/s, per device read and write MiB/s], util: chart [time, per
/// device util %, then per device queue size]} (rows as time_series_charts', x the point's
/// start in s, devices' rates over their sampled_ns), latency_layers: null | {unavailable: null
/// | reason, calls: [{call, rows: [{split: "mean" | "p50" | "p99", calls, latency_us, layers:
/// {fs_kernel, queue, device, off_cpu} in % of the latency}]}]} from the raw phase's
/// "explain_bpf" (`raw`: the phase's JSON, or null).
[[nodiscard]] Json explain_model(const PhaseResult& phase, const nlohmann::json* raw);

/// A SNIA PTS step's charts (workload `pts`, from its pts.* attributes), or null for any other
/// step: the tracked rounds with the steady-state window, its mean, bands and best-fit line; the
/// matrix per R/W mix and block size (IOPS, MB/s or latency in ms); WSAT's IOPS per round and
/// per GB written; DIRTH's IOPS against mean response time per thread count and the selected
/// points' response-time histograms (pts_model.cpp has the shape).
[[nodiscard]] Json pts_model(const StepResult& step);

/// A phase's steady-state outcome (steady_state=) as the same rounds chart: the judged window's
/// samples (x: the sample's number), its mean, slope and the criterion's band; null without one.
[[nodiscard]] Json steady_state_model(const PhaseResult& phase);

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
