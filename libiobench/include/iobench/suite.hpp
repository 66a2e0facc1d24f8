#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <iobench/reporter.hpp>
#include <iobench/runner.hpp>
#include <iobench/statistics.hpp>
#include <iosfwd>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace iobench {

class Registry;

/// A sweep: the step runs once per value of one integer param (threads, clients, bs, ...).
struct SweepSpec {
  std::string param{};
  std::vector<std::string> values{};  ///< as written (integers, or sizes such as "64k"), distinct
};

/// One named step of a suite file, before suite defaults are applied.
struct SuiteStep {
  std::string name{};  ///< unique in the suite; defaults to the workload name (+ index)
  std::string workload{};
  std::map<std::string, std::string> params{};   ///< this step's own params (text)
  std::vector<std::filesystem::path> targets{};  ///< empty: the suite's (or the command line's)
  unsigned repeat = 1;                           ///< runs of each point, 1..1000
  std::optional<SweepSpec> sweep{};
  std::string engine{};                    ///< empty: "psync"
  std::chrono::nanoseconds time_limit{0};  ///< "time"
  std::chrono::nanoseconds warmup{0};      ///< "warmup"
  std::chrono::nanoseconds interval{0};    ///< "interval" (time series), 0: the default 1 s
  std::uint64_t ops_limit = 0;             ///< "ops"
  std::optional<bool> drop_caches{};       ///< unset: the suite's
  std::uint64_t seed = 0;
};

/// A parsed, syntactically valid suite (see parse_suite for the file format).
struct Suite {
  std::string name{};  ///< "name", else the file name without ".json"
  std::string description{};
  std::string source{};                          ///< file name (or "builtin:NAME") used in messages
  std::string text{};                            ///< the JSON text parsed (recorded in results)
  std::vector<std::filesystem::path> targets{};  ///< default targets of every step
  std::map<std::string, std::string> params{};  ///< defaults for steps whose workload declares them
  bool drop_caches = false;                     ///< sync + drop caches before each measured phase
  std::chrono::nanoseconds pause{0};            ///< idle time between steps
  std::vector<SuiteStep> steps{};
};

/// Parses a suite file (JSON, `//` and `/* */` comments allowed). Pure: no file access.
///
/// Keys: top level {name, description, targets: [dir], params: {key: value}, drop_caches: bool,
/// pause: "2s", steps: [STEP]}; STEP = {name, workload (required), params: {key: value},
/// targets: [dir], repeat: 1..1000, sweep: {param, values: [int | "64k"]}, engine, time: "30s",
/// warmup: "5s", ops: "100k", drop_caches: bool, seed: int or "decimal text"}. Param values may be
/// strings, numbers or booleans. Throws ConfigError listing every problem found, one per line, each
/// as "SOURCE: /json/pointer: message" (unknown keys with a did-you-mean, wrong types, bad
/// durations and sizes, missing workload, empty steps, duplicate step names, bad or repeated sweep
/// values, a swept param also set in params), or "SOURCE: line L column C: ..." for a syntax error.
[[nodiscard]] Suite parse_suite(std::string_view text, std::string_view source);

/// Reads and parses a suite file; ConfigError if it cannot be read (naming the path).
[[nodiscard]] Suite load_suite_file(const std::filesystem::path& path);

/// A suite compiled into iobench (its JSON text goes through parse_suite like a file).
struct BuiltinSuite {
  std::string_view name;
  std::string_view summary;
  std::string_view json;
};
/// quick, bonnie, tiobench, dbench, seed-reports.
[[nodiscard]] std::span<const BuiltinSuite> builtin_suites() noexcept;
/// The built-in suite `name` parsed, or nullopt if there is none of that name.
[[nodiscard]] std::optional<Suite> builtin_suite(std::string_view name);

/// One runner step of a planned suite: a suite step at one sweep point, one repetition.
struct PlannedRun {
  Step step;                   ///< name is "STEP" or "STEP [param=value]" (+ " #rep" if repeated)
  std::size_t suite_step = 0;  ///< index in Suite::steps
  std::size_t point = 0;       ///< index of the sweep value (0 without a sweep)
  std::size_t repetition = 0;  ///< 0-based
};

/// A suite expanded into runner steps, in run order (points outer, repetitions inner).
struct SuitePlan {
  Suite suite;
  std::vector<PlannedRun> runs;
};

/// What the command line adds to a suite.
struct SuiteOverrides {
  /// Replaces every step's targets (and the suite's) when not empty.
  std::vector<std::filesystem::path> targets{};
  /// Used for steps without targets when neither the step nor the suite nor `targets` has any.
  std::filesystem::path default_target{};
  /// key=value applied to every step whose workload declares `key` (replacing a sweep of it);
  /// "workload.key=value" only to that workload's steps (ignored if the suite has none).
  /// ConfigError if no step declares the key.
  std::map<std::string, std::string> params{};
  /// --engine; empty: keep the steps'. Else it replaces each step's engine and, where the
  /// workload declares an "engine" param (disk, tiotest), the step's value of it too.
  std::string engine{};
  std::chrono::nanoseconds time_limit{0};  ///< 0: keep
  std::chrono::nanoseconds warmup{0};      ///< 0: keep
  std::chrono::nanoseconds interval{0};    ///< --interval; 0: keep the steps'
  std::uint64_t ops_limit = 0;             ///< 0: keep
  bool drop_caches = false;                ///< true: drop caches before every step
  std::uint64_t seed = 0;                  ///< 0: keep
};

/// Applies suite defaults and `overrides`, checks workload names and that suite-level params and
/// sweep params are declared, expands sweeps and repetitions, then validates every distinct
/// runner step with Runner::validate (params against their specs, targets exist and are
/// writable, free space; with options.keep_files, free space for all runs together). Throws
/// ConfigError with every problem found, one per line, each prefixed "SOURCE: /steps/N..." naming
/// the step (and the sweep value). A stop request during validation (Runner::validate) leaves
/// runs unchecked without an error: check it before running the plan (run_suite does, and each
/// run is validated again when it runs).
[[nodiscard]] SuitePlan plan_suite(const Suite& suite, const Registry& registry,
                                   const SuiteOverrides& overrides, const RunOptions& options);

/// Progress of a suite run, passed to SuiteRunOptions::on_progress.
struct SuiteProgress {
  ProgressSnapshot phase;      ///< step_index/step_count are the suite's runs
  std::size_t repetition = 0;  ///< 0-based
  std::size_t repeat = 1;
  std::uint64_t suite_elapsed_ns = 0;
  /// Estimated time to the end of the suite. With runs finished: what the current run has left
  /// (the longer of the mean run so far minus its elapsed time and ProgressSnapshot::step_left_ns,
  /// else phase_left_ns) plus the mean run and the suite's pause for each run after it. Before
  /// the first run ended: step_left_ns if the current run is the last one, else nullopt. In a
  /// pause (state kPause): what is left of it plus the runs after it as above.
  std::optional<std::uint64_t> eta_ns;
};

/// How run_suite behaves: the runner's options (its on_progress is ignored) plus suite progress.
struct SuiteRunOptions {
  RunOptions run{};
  std::function<void(const SuiteProgress&)> on_progress{};
};

/// The repetition statistics of one sweep point of a suite step.
struct PointSummary {
  std::string point;                          ///< sweep value, empty without a sweep
  std::vector<std::size_t> result_indices;    ///< into RunResult::steps, in repetition order
  std::vector<PhaseRepetitions> repetitions;  ///< empty unless the step has repeat > 1
};

/// Summary of one suite step over its points and repetitions.
struct StepSummary {
  std::string name;
  std::string workload;
  unsigned repeat = 1;
  std::optional<SweepSpec> sweep;
  std::vector<PointSummary> points;  ///< one per sweep value (one without a sweep)
  std::vector<SweepRow> sweep_rows;  ///< empty without a sweep
};

/// A finished (or interrupted) suite run.
struct SuiteRunResult {
  RunResult run;
  std::string suite_name;
  std::string source;
  bool complete = false;  ///< every planned run ran and none was interrupted
  std::size_t planned_runs = 0;
  std::vector<StepSummary> summary;
};

/// Runs a plan: each run through Runner (so each step's files are created and removed as
/// usual), pausing Suite::pause between runs, stopping after an interrupted run. The reporter
/// sees one on_run_start, every step, and one on_run_end with the merged RunResult. Statistics
/// are computed from the results (summarize_suite). Never throws for I/O failures.
[[nodiscard]] SuiteRunResult run_suite(const SuitePlan& plan, const Registry& registry,
                                       const SuiteRunOptions& options, Reporter& reporter);

/// Groups `run`'s step results by suite step and point (by position: run.steps[i] is
/// plan.runs[i]) and computes repetition statistics and sweep rows.
[[nodiscard]] std::vector<StepSummary> summarize_suite(const SuitePlan& plan, const RunResult& run);

struct Invocation;

/// The suite run as one JSON document (to_json of result_document(plan, result, invocation),
/// without copying the results): the result document plus, on each step, "suite_step",
/// "sweep_point" and "repetition", the "invocation" if given, and a top-level "suite" object:
/// {name, source, complete, planned_runs, completed_runs, steps: [{name, workload, repeat,
/// sweep: {param, values} | null, points: [{point, result_indices, repetitions: [{phase,
/// metrics: {METRIC: {values, count, mean, stddev, min, max, cv_percent, ci95_low, ci95_high,
/// high_variation}}}]}], sweep_table: [{phase, point, samples, workers, throughput_bytes_per_s,
/// ops_per_s, per_worker_bytes_per_s, max_latency_ns, p99_latency_ns, cpu_percent, fairness,
/// peak}]}]}.
[[nodiscard]] std::string suite_to_json(const SuitePlan& plan, const SuiteRunResult& result,
                                        int indent = 2, const Invocation* invocation = nullptr);

/// Text of the suite's statistics: per repeated step and point a table (metric, mean, stddev,
/// min, max, CV %, 95 % CI) with a warning line per metric whose CV exceeds 10 %, and per swept
/// step the AIM-style table (peak marked with '*'). Throughput in MiB/s (2^20 bytes). Writes
/// nothing for a suite without repetitions or sweeps.
void write_suite_summary_text(const SuiteRunResult& result, std::ostream& out);

}  // namespace iobench
