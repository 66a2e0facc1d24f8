#pragma once

/// Result documents: the JSON the JSON reporter writes, as data, and its reader (the exact
/// inverse of the writer), so that tools can load saved results and `iobench run --again` can
/// repeat a run.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <iobench/error.hpp>
#include <iobench/result.hpp>
#include <iobench/suite.hpp>
#include <iobench/version.hpp>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace iobench {

/// The schema string written into every result document ("schema"). Set once, for the whole
/// project, by IOBENCH_RESULT_SCHEMA in the top-level CMakeLists.txt.
inline constexpr std::string_view kResultSchema = IOBENCH_RESULT_SCHEMA;
/// The first schema: no invocation, seeds as JSON numbers, no latency sums or buckets. Still read.
inline constexpr std::string_view kResultSchemaV1 = "iobench-result/1";
/// kResultSchemaV1 plus the invocation, step options, seeds as decimal strings and exact
/// latency state. Still read.
inline constexpr std::string_view kResultSchemaV2 = "iobench-result/2";
/// The shape this build writes: kResultSchemaV2 plus each phase's "explain" (issue 29: storage
/// chains, kernel and device deltas, findings). Read whatever kResultSchema says.
inline constexpr std::string_view kResultSchemaV3 = "iobench-result/3";

/// How a run was asked for: the command line and what it named, recorded so that the run can be
/// understood and repeated. Durations in ns; 0 means "not given".
struct Invocation {
  std::vector<std::string> argv;  ///< the command line, argv[0] included
  std::string working_directory;  ///< where relative paths in argv are relative to
  /// What the positional argument named: "builtin:NAME", a suite file as given, or a workload.
  std::string suite_source;
  /// The suite's JSON text (a file's or a built-in's); empty for a single workload.
  std::string suite_text;
  std::vector<std::string> targets;           ///< -d, as given
  std::map<std::string, std::string> params;  ///< key=value, as given
  std::string engine;                         ///< --engine, empty: not given
  std::uint64_t time_limit_ns = 0;            ///< --time
  std::uint64_t warmup_ns = 0;                ///< --warmup
  std::uint64_t ops_limit = 0;                ///< --ops
  bool drop_caches = false;                   ///< --drop-caches
  std::uint64_t seed = 0;                     ///< --seed
  std::string repeated_from;                  ///< --again FILE, empty: not a repeat
};

/// Where a step result sits in its suite (the "suite_step", "sweep_point" and "repetition" keys
/// of a suite document's steps).
struct StepPlacement {
  std::string suite_step;                  ///< the suite step's name
  std::optional<std::string> sweep_point;  ///< the sweep value, nullopt without a sweep
  std::size_t repetition = 1;              ///< 1-based
};

/// The top-level "suite" object of a suite document.
struct SuiteRecord {
  std::string name;
  std::string source;
  bool complete = false;
  std::size_t planned_runs = 0;
  std::vector<StepSummary> summary;  ///< "steps": statistics per suite step, as written
};

/// Where a document read from a classic tool's output came from (read_result_file): the
/// format, the tool's version where the source names it, and what of the source was not mapped
/// onto phases and metrics (one line each, e.g. "line 12: tiotest's Total latency row (pools
/// every phase) not mapped"). JSON key "source" (absent for iobench's own results).
struct ResultSource {
  std::string format;        ///< as --from names it: "bonnie-csv", "fio-json", ...
  std::string tool_version;  ///< e.g. "1.97" (bonnie++), "fio-3.33"; empty: not in the source
  std::vector<std::string> not_mapped;
};

/// A whole result document.
struct ResultDocument {
  std::string schema;  ///< as read; the writer always writes kResultSchema
  RunResult run;       ///< run.environment.iobench_version is the document's iobench_version
  std::optional<Invocation> invocation;
  std::vector<StepPlacement> placements;  ///< empty, or one per run.steps entry
  std::optional<SuiteRecord> suite;
  std::optional<ResultSource> source;  ///< set for a classic tool's result (read_result_file)
};

/// The document of a suite run: the run, each step's placement from `plan` (plan.runs[i] made
/// run.steps[i]), the suite summary, and `invocation` if given.
[[nodiscard]] ResultDocument result_document(const SuitePlan& plan, const SuiteRunResult& result,
                                             std::optional<Invocation> invocation = std::nullopt);

/// The document as JSON text, `indent` spaces per level (negative: one line). Keys and their
/// order are fixed (see README "Results"); units are in key names (_ns, _bytes, _per_s,
/// _percent); seeds are decimal strings (exact beyond 2^53, where jq and JavaScript round
/// numbers); strings that are not valid UTF-8 get U+FFFD for the bad bytes.
[[nodiscard]] std::string to_json(const ResultDocument& document, int indent = 2);

/// A result document that cannot be read: `what()` is "POINTER: message", the JSON pointer
/// (RFC 6901) of the bad field, or "byte N: ..." for text that is not JSON.
class ResultFormatError : public ConfigError {
 public:
  ResultFormatError(std::string pointer, const std::string& message);
  /// The JSON pointer of the bad field ("" for the whole document).
  [[nodiscard]] const std::string& pointer() const noexcept { return pointer_; }

 private:
  std::string pointer_;
};

/// Reads a result document: the current shape and the older "iobench-result/1" (seeds as
/// numbers, no invocation or step options, latency as summary figures only). A pure function of
/// the text: no file access, no environment.
///
/// It is the inverse of to_json: to_json(parse_result_json(to_json(doc))) == to_json(doc), byte
/// for byte. Latency histograms are restored exactly where the document has their buckets
/// (merged op kinds of a phase); elsewhere (workers; every histogram of a schema-1 document) a
/// histogram is rebuilt that has the document's exact count, min, max, mean, stddev and
/// percentiles p50..p99.99 (other percentiles then lie between those). Derived figures (bytes
/// and ops of a phase or worker) must agree with the op kinds they sum. Unknown keys are
/// ignored (later additive fields).
///
/// Throws ResultFormatError naming the JSON pointer of the first bad field: not JSON, an
/// unknown schema, a missing key, a wrong type, a negative or fractional integer, an unknown
/// status, figures that contradict each other.
[[nodiscard]] ResultDocument parse_result_json(std::string_view text);

/// Reads and parses a result file; ConfigError naming the path if it cannot be read, else what
/// parse_result_json throws, with the path in front.
[[nodiscard]] ResultDocument load_result_file(const std::filesystem::path& path);

/// What `iobench run --again` changes of a saved run.
struct RepeatOptions {
  /// Replace every step's targets when not empty (else the targets the document names).
  std::vector<std::filesystem::path> targets;
};

/// The plan that repeats the run `document` records: the same steps, in order, with the same
/// workloads, given params (as resolved then: "2*ram" stays the size it was), targets, engine,
/// time limit, warm-up, op limit, drop-caches and seeds (so every worker's seed is the same),
/// grouped into the same suite steps, sweep points and repetitions. The plan is not yet
/// validated (Runner::validate does that). Throws ConfigError when the document cannot be
/// repeated: it has no invocation record (written before schema 2), or was written by a newer
/// iobench than this one (IOBENCH_VERSION), or its steps do not match its suite record.
[[nodiscard]] SuitePlan repeat_plan(const ResultDocument& document,
                                    const RepeatOptions& options = {});

}  // namespace iobench
