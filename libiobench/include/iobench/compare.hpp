#pragma once

/// Side-by-side comparison of result documents (`iobench compare`): two kernels, filesystems,
/// mount options or devices, aligned by step, sweep point, phase and metric, with the change
/// against the first document (the baseline), each change marked better or worse by the
/// metric's direction and, where both sides have repetitions, significant or within noise
/// (Welch's t-test at 95 %). Environment differences and the parts that only some documents have
/// are listed, never dropped. Computing (compare_results) and printing (write_comparison_*,
/// comparison_to_json) are separate, so a tool can do either.

#include <cstddef>
#include <cstdint>
#include <iobench/result.hpp>
#include <iobench/result_json.hpp>
#include <iobench/statistics.hpp>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace iobench {

/// A metric of one phase that `compare` aligns. All op kinds of the phase merged.
enum class CompareMetric : std::uint8_t {
  kThroughput,   ///< phase bytes / wall time, bytes/s (printed MiB/s)
  kIops,         ///< phase ops / wall time, ops/s
  kLatencyMean,  ///< exact mean latency, ns (printed us)
  kLatencyP50,   ///< nearest-rank percentiles of the merged histogram, ns (printed us)
  kLatencyP99,
  kLatencyP99_9,
  kLatencyMax,  ///< exact maximum, ns (printed us)
  kCpu,         ///< process user + system CPU over wall time, % of one CPU
};

/// Which way a metric improves.
enum class Better : std::uint8_t { kHigher, kLower };

/// The fixed facts of a CompareMetric.
struct CompareMetricInfo {
  CompareMetric metric;
  std::string_view name;  ///< as --metrics takes it: throughput, iops, lat_mean, lat_p50, ...
  std::string_view unit;  ///< of the values in a Comparison: "bytes/s", "ops/s", "ns", "%"
  Better better;
  std::string_view title;  ///< for people, e.g. "p99 latency"
};

/// Every metric, in report order: throughput, iops, lat_mean, lat_p50, lat_p99, lat_p99_9,
/// lat_max, cpu.
[[nodiscard]] std::span<const CompareMetricInfo> compare_metrics() noexcept;
/// The facts of `metric`.
[[nodiscard]] const CompareMetricInfo& compare_metric_info(CompareMetric metric) noexcept;
/// The metric named `name` (CompareMetricInfo::name). Throws ConfigError naming `name` and the
/// valid names.
[[nodiscard]] CompareMetric parse_compare_metric(std::string_view name);

/// `metric` of `phase`, in CompareMetricInfo::unit; 0 when the phase's wall time is 0. IOPS and
/// latency count the op kinds that move data (reads, writes) when the phase has any, so a write
/// phase's closing fsync is not averaged into its write latency; a metadata phase (creates,
/// stats) counts all its ops. Throughput is every byte over the wall time.
[[nodiscard]] double phase_metric(const PhaseResult& phase, CompareMetric metric);

/// Why an input that has a phase has no value of a metric for it (a classic tool's result).
enum class Unavailable : std::uint8_t {
  kNotReported,  ///< the source does not give this figure (e.g. bonnie++ 1.0x has no latency)
  kTooFast,      ///< bonnie++ printed "+++++" / "+++": the test took under 0.5 s
};
/// "not reported", "too fast to measure (+++++)".
[[nodiscard]] const char* to_string(Unavailable why) noexcept;

/// `metric` of `phase` as compare takes it: phase_metric for iobench's own phases; for a phase
/// read from a classic tool's output (PhaseResult::reported) the figure the tool printed, in
/// CompareMetricInfo::unit, or nullopt where it printed none (`*why` then says why, when given).
[[nodiscard]] std::optional<double> phase_metric_value(const PhaseResult& phase,
                                                       CompareMetric metric,
                                                       Unavailable* why = nullptr);

/// The phase that `name` is one run of, where a workload repeats its own phases: bonnie's
/// "seq_create#2" (repetitions=N, bonnie++ -x) is run 2 of "seq_create", tiobench's
/// "Write size=64M bs=4096 threads=1 run=2" (repetitions=N) of "Write size=64M bs=4096
/// threads=1"; any other name is its own. compare pools the runs of one phase as its samples
/// (n = repetitions), as it pools a suite's repeated steps.
[[nodiscard]] std::string pooled_phase_name(std::string_view name);

/// One document to compare and what to call it (typically the file name as given).
struct CompareInput {
  std::string label;
  ResultDocument document;
};

/// What to compare.
struct CompareOptions {
  std::vector<CompareMetric> metrics;  ///< empty: all of compare_metrics(), in that order
  std::vector<std::string> phases;     ///< phase names; empty: every phase
};

/// An environment field whose value is not the same in every input.
struct EnvironmentDifference {
  /// What differs: "kernel", "cpu_model", "memory_bytes", "target 0 mount_options", or for a
  /// step "step NAME: param KEY", "step NAME: engine", ...
  std::string field;
  std::vector<std::string> values;  ///< one per input; "(none)" where an input has no value
};

/// Which way a value moved against the baseline, by the metric's direction.
enum class ChangeDirection : std::uint8_t { kBetter, kWorse, kUnchanged };
/// "better", "worse", "unchanged".
[[nodiscard]] const char* to_string(ChangeDirection direction) noexcept;

/// Whether a change can be told from run-to-run noise.
enum class Noise : std::uint8_t {
  kSignificant,  ///< Welch's t-test at 95 %: the means differ
  kWithinNoise,  ///< Welch's t-test at 95 %: no evidence the means differ
  kNoEstimate,   ///< a side has a single run (n = 1): no noise estimate, nothing is guessed
};
/// "significant", "within noise", "n=1: no noise estimate".
[[nodiscard]] const char* to_string(Noise noise) noexcept;

/// One input's values of one metric: one per repetition whose phase ended ok.
struct MetricValues {
  std::vector<double> values;  ///< in run order; empty: the input lacks this phase or figure
  SampleStats stats;           ///< of `values`
  /// Set when the input has the phase but no value of this metric (a classic tool's result
  /// without the figure): shown as not available, never as 0.
  std::optional<Unavailable> unavailable;
};

/// One input's change against the baseline for one metric.
struct MetricChange {
  /// (mean - baseline mean) / baseline mean x 100; nullopt when the baseline mean is 0.
  std::optional<double> change_percent;
  /// The change in the worse direction, %: -change for higher-is-better metrics, +change for
  /// lower-is-better ones (positive: a regression); nullopt with change_percent.
  std::optional<double> worse_percent;
  ChangeDirection direction = ChangeDirection::kUnchanged;
  Noise noise = Noise::kNoEstimate;
  WelchTest welch;  ///< valid when both sides have n >= 2
};

/// One metric of one aligned phase across the inputs.
struct MetricRow {
  CompareMetric metric = CompareMetric::kThroughput;
  std::vector<MetricValues> inputs;  ///< one per input, inputs[0] the baseline
  /// One per input after the baseline: changes[i] is inputs[i + 1] against inputs[0]; nullopt
  /// where that input lacks the phase, or it or the baseline lacks the figure.
  std::vector<std::optional<MetricChange>> changes;
};

/// One input's explanation of a phase (PhaseResult::explanation, explain.hpp) as compare shows
/// it: the figures of its first ok result that carries one.
struct ExplainSummary {
  /// Per target "FS on DEVICE > DEVICE ..." (the file system's device first, down the chain),
  /// or the target's no_block_device reason ("tmpfs: no block device: page cache only"); targets
  /// joined by "; ".
  std::string storage;
  std::uint64_t device_read_bytes = 0;            ///< of the file systems' devices, bytes
  std::uint64_t device_write_bytes = 0;           ///< of the file systems' devices, bytes
  std::optional<double> page_cache_read_percent;  ///< nullopt: not derived
  std::optional<double> read_amplification;       ///< device / application read bytes
  std::optional<double> write_amplification;      ///< device / application write bytes
  /// The highest utilisation (%) of a file system's device (first of a chain) with a valid
  /// delta, and that device's name; nullopt without one.
  std::optional<double> util_percent;
  std::string util_device;
  std::vector<std::string> findings;  ///< Finding::name, each once, in the phase's order
  std::size_t results = 1;            ///< the input's ok results of the phase (repetitions)
};

/// Two findings of one topic that say different things, one in each input: e.g. the reads came
/// from the device in one and from the page cache in the other.
struct FindingContrast {
  std::string topic;             ///< "reads" or "writes"
  std::string input_finding;     ///< the other input's finding name, e.g. "device_reads"
  std::string baseline_finding;  ///< the baseline's, e.g. "page_cache_reads"
  /// Naming both sides: "#1's reads came from the device (device_reads), #0's from the page
  /// cache (page_cache_reads)".
  std::string sentence;
};

/// How one input's findings differ from the baseline's (#0) in one phase.
struct FindingsDifference {
  std::size_t input = 0;  ///< >= 1
  std::vector<FindingContrast> contrasts;
  std::vector<std::string> only_input;     ///< names only the input has (not in a contrast)
  std::vector<std::string> only_baseline;  ///< names only the baseline has (not in a contrast)
  std::vector<std::string> both;           ///< names both have
};

/// The explanations of one phase side by side: present when the baseline and at least one other
/// input carry `explain` (result schema 3); absent for older results.
struct ExplainComparison {
  std::vector<std::optional<ExplainSummary>> inputs;  ///< one per input; nullopt: none
  /// One per input after the baseline that carries `explain`, in input order.
  std::vector<FindingsDifference> differences;
};

/// Whether the counter `name` (PhaseResult::counter_names) counts failures, so that any value
/// above 0 means the run went wrong: the data checks' "mismatches" (mdtest, io500) and
/// "corrupt_blocks" (tiotest), dbench's "mismatch.OP", "missing_handle", "short_read.OP",
/// "short_write.OP" and every name ending in "_errors" ("deltree_errors", "xattr_errors").
/// Other counters ("done", find's "matched", ...) count work, not failures.
[[nodiscard]] bool counter_counts_failures(std::string_view name) noexcept;

/// Whether the counter `name` is a duration, not a count: a name ending in "_ns" (mdtest's and
/// io500's "stonewall_ns", the time to the stonewall in ns). Timing, not work: compare shows it
/// as a per-result mean and never lists it merely for differing.
[[nodiscard]] bool counter_is_duration(std::string_view name) noexcept;

/// One input's values of one counter of a phase (PhaseResult::counters).
struct CounterValues {
  /// The counter in each ok result of the phase that has it, in run order (one per ok result:
  /// per repetition, and per iteration where mdtest's iterations are pooled); empty where the
  /// input lacks the phase or its results lack the counter.
  std::vector<std::uint64_t> values;
  std::uint64_t total = 0;  ///< sum of `values`
  bool measured = false;    ///< the input has ok results of the phase (with or without the counter)
  /// A failure counter (counter_counts_failures) in each failed result (Status::kFailed) of the
  /// phase that has it, in run order; empty for other counters. A data check that finds errors
  /// fails its phase (tiotest's corrupt_blocks, mdtest's verify_read mismatches), so its count is
  /// in no ok result: it is not in `values`, `total` or mean(), but CounterRow::worse counts it.
  std::vector<std::uint64_t> failed_values{};

  /// The per-result mean: `total` over the number of `values` (0 without values). Inputs with
  /// different numbers of results (repetitions, pooled iterations) are compared by this.
  [[nodiscard]] double mean() const noexcept {
    return values.empty() ? 0.0 : static_cast<double>(total) / static_cast<double>(values.size());
  }
  /// The sum of `failed_values`.
  [[nodiscard]] std::uint64_t failed_total() const noexcept {
    std::uint64_t sum = 0;
    for (const std::uint64_t value : failed_values) sum += value;
    return sum;
  }
  /// The per-result mean of `failed_values` (0 without them).
  [[nodiscard]] double failed_mean() const noexcept {
    return failed_values.empty()
               ? 0.0
               : static_cast<double>(failed_total()) / static_cast<double>(failed_values.size());
  }
  /// The per-result mean over the ok and the failed results that have the counter (`total` plus
  /// failed_total() over the number of `values` and `failed_values`; 0 without either): the
  /// figure CounterRow::worse and the CSV's direction compare, the one `--fail-if-worse` reads.
  /// Equal to mean() where no failed result counts the counter (work counters, durations).
  [[nodiscard]] double gate_mean() const noexcept {
    const std::size_t count = values.size() + failed_values.size();
    return count == 0 ? 0.0
                      : static_cast<double>(total + failed_total()) / static_cast<double>(count);
  }
};

/// One counter of an aligned phase, listed where it tells the inputs apart. Only the inputs whose
/// phase has counters at all are looked at (one whose phase has none, a classic tool's output,
/// says nothing about any counter); among them a counter is listed where:
/// - only some of them have it (presence), whatever its kind;
/// - it counts failures (counter_counts_failures) and is above 0 in one of them;
/// - it counts work (neither failures nor a duration) and its per-result mean
///   (CounterValues::mean) differs from that of the first input with the counter, while the two
///   did the same number of ops per ok result (PhaseResult::total_ops over the results): a phase
///   that ran to a time limit or a stonewall does a different number of ops, and its work
///   counters (io500's done/at_stonewall, mdtest's items_at_stonewall, dbench's lines, disk's
///   ops_bs_*, ...) follow them, a difference compare already reports as IOPS.
/// A duration (counter_is_duration) is never listed merely for differing.
struct CounterRow {
  std::string name;                   ///< as the workload names it, e.g. "mismatches"
  bool failure = false;               ///< counter_counts_failures(name)
  bool duration = false;              ///< counter_is_duration(name): shown as per-result mean
  std::vector<CounterValues> inputs;  ///< one per input, inputs[0] the baseline
  /// For a failure counter: the inputs (>= 1, ascending) that have it with a per-result mean
  /// above the baseline's, taken as 0 where the baseline's phase does not count it; the means
  /// here are over the ok and the failed results that have the counter
  /// (CounterValues::gate_mean; with equal numbers of results, the totals). Any data error
  /// more than the baseline had is worse, whatever its size: `--fail-if-worse` fails on each
  /// (counter_regressions). Empty for work counters and durations, which have no worse side.
  std::vector<std::size_t> worse{};
};

/// One phase of one step (and sweep point) found in the baseline and in at least one other input.
struct PhaseComparison {
  std::string step;  ///< the suite step's name (its "suite_step"), else the step's name
  std::string workload;
  std::optional<std::string> sweep_point;
  std::string phase;
  std::vector<MetricRow> metrics;  ///< in the order of CompareOptions::metrics; throughput left
                                   ///< out when no input moved any bytes (metadata phases)
  /// Which figure a metric is where inputs could mean different ones, e.g. for dbench's execute
  /// phase whether throughput is dbench's headline figure (when an input is dbench's own output)
  /// or the whole execute period (iobench's results only).
  std::vector<std::string> notes;
  /// What the kernel and the devices did in each input (issue 29), shown before the metrics.
  std::optional<ExplainComparison> explain{};
  /// The phase's counters that tell the inputs apart (CounterRow), in the order the inputs name
  /// them (the baseline's first); empty when every counter is alike and none counts a failure.
  std::vector<CounterRow> counters{};
};

/// A step (sweep point) or phase that not every input has: compared where the baseline and
/// another input have it, listed here for the inputs that lack it.
struct UnmatchedPart {
  std::string step;
  std::string workload;
  std::optional<std::string> sweep_point;
  std::string phase;                 ///< empty: the whole step (sweep point)
  std::vector<std::size_t> present;  ///< indices of the inputs that have it
  std::vector<std::size_t> missing;  ///< indices of the inputs that lack it
};

/// A result that gave no values because it did not end ok (failed, interrupted, skipped, no
/// measurement): left out of the statistics, and said so.
struct LeftOutResult {
  std::size_t input = 0;
  std::string step;
  std::optional<std::string> sweep_point;
  std::size_t repetition = 1;
  std::string phase;  ///< empty: the whole step
  Status status = Status::kOk;
  std::string message;
  /// For a phase (`phase` not empty): this phase result ended failed (Status::kFailed) in an
  /// input after the baseline while the baseline has ok results of the same phase, and the phase
  /// is compared (CompareOptions::phases selects it). A data check that finds errors (tiotest's
  /// corrupt_blocks, mdtest's verify_read mismatches) fails its phase, so no metric or counter
  /// row shows it.
  /// For a whole step (`phase` empty): this step ended failed in an input after the baseline
  /// while a repetition of the baseline's same step (and sweep point) ended ok with a phase
  /// CompareOptions::phases selects (any phase where it is empty), and no failed phase result
  /// of the step is gated as a phase (one the options select where the baseline has ok results
  /// of it): it failed before any phase ran (its set-up; the result then has no phases), in a
  /// phase it keeps no result of, in its clean-up, or in a selected phase the baseline has no
  /// ok result of. A step whose failed phases the options all leave out is not marked.
  /// `--fail-if-worse` fails on each such result (failed_phases); a step or phase that failed in
  /// the baseline too (no ok repetition there) does not.
  bool baseline_ok = false;
};

/// A metric an input has no value of in phases it has (MetricValues::unavailable), listed once
/// per input, metric and reason.
struct NotAvailable {
  std::size_t input = 0;
  CompareMetric metric = CompareMetric::kThroughput;
  Unavailable why = Unavailable::kNotReported;
  std::vector<std::string> phases;  ///< "STEP: PHASE" (with " point P" after STEP in a sweep)
};

/// What of a classic input could not be mapped onto phases and metrics
/// (ResultSource::not_mapped), with the input it belongs to.
struct NotMapped {
  std::size_t input = 0;
  std::string format;  ///< ResultSource::format
  std::string what;
};

/// The whole comparison.
struct Comparison {
  std::vector<std::string> labels;     ///< one per input, labels[0] the baseline
  std::vector<CompareMetric> metrics;  ///< the metrics compared
  std::vector<EnvironmentDifference> environment;
  std::vector<PhaseComparison> phases;  ///< in the baseline's order
  std::vector<UnmatchedPart> unmatched;
  std::vector<LeftOutResult> left_out;
  std::vector<NotAvailable> not_available;
  std::vector<NotMapped> not_mapped;
};

/// Compares `inputs` (at least two) against inputs[0]. Step results are grouped into repetitions
/// by their suite placement (suite step and sweep point; a document without placements has one
/// repetition per step, a repeated step name counting as "NAME (2)", ...) and aligned by step
/// name, workload, sweep point and phase name (pooled_phase_name: a workload's own repetitions
/// are samples of one phase). A fio input's jobs are aligned as the disk steps of other inputs
/// that do the same I/O (rw, bs, iodepth, ioengine, direct; README "Comparing with bonnie++,
/// ..."); beside dbench's own output, iobench's dbench throughput is dbench's headline figure
/// (PhaseComparison::notes says which). Environment differences: hostname, kernel, arch,
/// cpu_model, cpu_count, memory_bytes, iobench_version, each target's path, fs_type,
/// mount_point, mount_options, device and size_bytes (by index), "source" (the format a classic
/// input was read from, with its tool version; "iobench-json" for iobench's own), and per
/// aligned step its params (compared as the workload's ParamSpec reads them: sizes in bytes,
/// defaults filled for iobench's own results, dbench 4's clients as clients_per_process),
/// engine, time limit, warm-up, op limit, drop-caches and targets; a field is listed only where
/// two inputs state different values (an input that does not state it, such as a classic
/// tool's result, shows "(none)" beside them). The start time and free space, which always
/// differ, are not listed.
/// Throws ConfigError for fewer than two inputs or a `phases` name that no input has.
[[nodiscard]] Comparison compare_results(std::span<const CompareInput> inputs,
                                         const CompareOptions& options = {});

/// A metric change beyond a threshold (`iobench compare --fail-if-worse PCT`).
struct Regression {
  std::size_t phase = 0;   ///< index into Comparison::phases
  std::size_t metric = 0;  ///< index into PhaseComparison::metrics
  std::size_t input = 0;   ///< the input (>= 1) that regressed
  double worse_percent = 0;
};

/// Every change whose worse_percent exceeds `threshold_percent` and whose noise is not
/// kWithinNoise (so where both sides have n >= 2 the change must be significant; with n = 1 the
/// change alone counts). Counters are not metrics: see counter_regressions.
[[nodiscard]] std::vector<Regression> regressions(const Comparison& comparison,
                                                  double threshold_percent);

/// A failure counter higher in an input than in the baseline (CounterRow::worse), which fails
/// `iobench compare --fail-if-worse PCT` whatever PCT.
struct CounterRegression {
  std::size_t phase = 0;    ///< index into Comparison::phases
  std::size_t counter = 0;  ///< index into PhaseComparison::counters
  std::size_t input = 0;    ///< the input (>= 1) whose count is higher
};

/// Every failure counter of every compared phase whose per-result mean in an input is above the
/// baseline's (0 where the baseline's phase does not count it): one entry per CounterRow::worse
/// element, in phase, counter and input order. Work counters and durations never appear here.
[[nodiscard]] std::vector<CounterRegression> counter_regressions(const Comparison& comparison);

/// Indices into Comparison::left_out of the phase results that ended failed in an input after
/// the baseline where the baseline's same phase ended ok, and of the steps that failed outside
/// their phases (e.g. in their set-up, with no phase result) where the baseline's same step
/// ended ok (LeftOutResult::baseline_ok; `phase` empty for a step), in left_out's order: each
/// fails `iobench compare --fail-if-worse PCT` whatever PCT.
[[nodiscard]] std::vector<std::size_t> failed_phases(const Comparison& comparison);

/// The comparison for people: the inputs, environment differences first, then per step, point and
/// phase (first, where the inputs carry `explain`, the findings that differ from the baseline's,
/// said as a sentence naming both sides, those only one side or both have, and the explanations'
/// figures side by side) a table of metric, direction, each input's mean (+- sample stddev and n
/// with repetitions, "+- n/a (n=1)" for a single run beside them, "n/a" or "+++++" where an input
/// lacks the figure), change % and mark, and below it the phase's CounterRows (counter; each
/// input's total, a duration's per-result mean instead, with several results followed by "(n=N: a,
/// b, ...)", "n/a" where the input has the phase but not the counter, "-" where it lacks the phase,
/// then "failed: a, b" for a failure counted in failed results (CounterValues::failed_values); and
/// what it counts: "failures", "work" or "ns (mean)", a failure count higher than the baseline's
/// followed by ", worse in #N" (CounterRow::worse)); then the unmatched parts, left-out results
/// ("#N step S, repetition R, phase P: failed (message)", a whole step without ", phase P",
/// followed by "; the baseline's ended ok" where LeftOutResult::baseline_ok), figures not available
/// and what was not mapped. Throughput in MiB/s (2^20 bytes), latency in us, CPU in % of one CPU.
void write_comparison_text(const Comparison& comparison, std::ostream& out);

/// The same as Markdown (for a mailing list or a pull request): headings, pipe tables (the
/// counters a table of their own below the metrics).
void write_comparison_markdown(const Comparison& comparison, std::ostream& out);

/// One CSV row (RFC 4180) per phase, metric and input after the baseline, in the metrics' own
/// units (bytes/s, ops/s, ns, %): step, workload, sweep_point, phase, metric, unit, better,
/// baseline, input, base_n, base_mean, base_stddev, n, mean, stddev, change_percent, direction,
/// noise, welch_t, welch_df, p_value, base_not_available, not_available. An input lacking the
/// phase gets an empty n onwards; a mean is empty without a value and a stddev with fewer than
/// two (n = 1 has no sample stddev); where the baseline or the input has the phase but not the
/// figure, base_not_available / not_available say why ("too fast to measure (+++++)", "not
/// reported"). Then kind ("metric"), base_total and total (empty for a metric).
/// After a phase's metric rows, its CounterRows in the same columns, one row per counter and
/// input after the baseline: metric the counter's name, unit "count" ("ns" for a duration),
/// better "lower" for a failure count and empty for the others (no better side), base_n / n the
/// results that have the counter, base_mean / mean and base_stddev / stddev per result (as
/// above), change_percent of the means (empty where the baseline's mean is 0), direction only
/// for a failure count, from the per-result means the gate compares (CounterValues::gate_mean,
/// over the ok and the failed results that have the counter): "worse" where CounterRow::worse
/// has the input, "better" below the baseline's, else "unchanged"; noise and the Welch columns
/// empty (no test), base_not_available / not_available "not counted" where the input has the
/// phase but not the counter, kind "failure", "work" or "duration", and base_total / total each
/// side's total. n, mean, stddev, change_percent and the totals are over the ok results; a
/// failure counted in failed results (CounterValues::failed_values) shows only in the direction,
/// also in the row of an input without ok results of the phase (its other cells from n on
/// empty); the JSON has its figures.
/// Compatibility: the counter rows and the last three columns are new; a reader that expects
/// metric rows only must keep the rows whose kind is "metric" (an empty kind in older files,
/// which lack the column); the other columns keep their positions.
void write_comparison_csv(const Comparison& comparison, std::ostream& out);

/// The comparison as JSON: {inputs: [label], metrics: [{name, unit, better}], environment:
/// [{field, values}], phases: [{step, workload, sweep_point, phase, metrics: [{metric, unit,
/// better, inputs: [{n, mean, stddev, values}], changes: [null | {change_percent, direction,
/// noise, welch: null | {t, df, p_value, t_critical}}]}]}], unmatched: [{step, workload,
/// sweep_point, phase, present, missing}], left_out: [{input, step, sweep_point, repetition,
/// phase, status, message, baseline_ok}]}, and only when not empty: not_available: [{input, metric,
/// reason, phases}], not_mapped: [{input, format, what}]; an input without a figure has
/// "unavailable": reason in its metric entry and a null mean (never 0); stddev is null below n = 2.
/// Units as in `metrics`; an infinite t is null. A phase whose inputs carry `explain` has
/// "explain": {inputs: [null | {storage, device_read_bytes, device_write_bytes,
/// page_cache_read_percent, read_amplification, write_amplification, util_percent, util_device,
/// findings, results}], differences: [{input, baseline, contrasts: [{topic, input_finding,
/// baseline_finding, sentence}], only_input, only_baseline, both}]}. A phase with CounterRows has
/// "counters":
/// [{name, failure, duration, inputs: [null | {n, total, mean, values, failed: null | {n, total,
/// mean, values}, gate_mean}], worse: [input]}] (null: the input has no ok result of the phase
/// and no failed one that counts the counter; n, total, mean and values over the ok results, as
/// the CSV has them: n the number of values, one per ok result that has the counter, total and
/// mean null where none has it; failed: the same over the failed results that have a failure
/// counter (CounterValues::failed_values), null where none has it and always for work counters
/// and durations; gate_mean: for a failure counter the per-result mean over the ok and the
/// failed results (CounterValues::gate_mean), the figure `worse` compares against the
/// baseline's (0 where the baseline does not count it), null for other counters and where the
/// input's results lack the counter; worse: CounterRow::worse, the inputs whose failure count is
/// above the baseline's, which fail `--fail-if-worse`). Compatibility: inputs[i] used to be null
/// for an input without ok results of the phase; it is now an object with n 0 and the failed
/// figures where its failed results have the counter. Those figures of an input whose results
/// of the phase all failed appear only where the phase is compared (the baseline and another
/// input have ok results of it); otherwise no counter row shows them, and the gate fails through
/// the failed phase (failed_phases), named with its message. The JSON carries no gate verdict:
/// the CLI applies the gate (regressions, counter_regressions, failed_phases) and names each
/// reason on stderr.
[[nodiscard]] std::string comparison_to_json(const Comparison& comparison, int indent = 2);

}  // namespace iobench
