#pragma once

#include <filesystem>
#include <iobench/result.hpp>
#include <iosfwd>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace iobench {

class Registry;

/// Formats finished results; never computes statistics beyond rates from the result's own
/// numbers. Reporters get whole step results as each step ends, then the whole run.
class Reporter {
 public:
  virtual ~Reporter() = default;
  /// Once, before the first step.
  virtual void on_run_start(const Environment& /*env*/) {}
  /// After each step (also a failed or interrupted one).
  virtual void on_step_end(const StepResult& step) = 0;
  /// Once, at the end (also after an interruption, with the partial results).
  virtual void on_run_end(const RunResult& /*run*/) {}
};

/// Fans every call out to several reporters, in order.
class ReporterSet final : public Reporter {
 public:
  void add(std::unique_ptr<Reporter> reporter) { reporters_.push_back(std::move(reporter)); }
  void on_run_start(const Environment& env) override;
  void on_step_end(const StepResult& step) override;
  void on_run_end(const RunResult& run) override;

 private:
  std::vector<std::unique_ptr<Reporter>> reporters_;
};

/// Gives a finished run (from Runner::run, or read back from a JSON result) to `reporter` as a
/// run does: on_run_start(run.environment), on_step_end() for each step in order, on_run_end().
/// E.g. `report_run(run, *make_text_reporter(std::cout, registry))` prints it as `iobench run`
/// does, each family's step in its classic form. Exceptions from the reporter propagate.
void report_run(const RunResult& run, Reporter& reporter);

/// Human-readable text. Uses the workload's registered "text" formatter when it has one (bonnie++
/// table, tiotest tables, dbench op table, the disk test's "Completed ..." lines), otherwise a
/// generic per-phase table (MiB and MiB/s, MiB = 2^20 bytes; IOPS; latency mean/p50/p99/p99.9/max
/// in us). The header's "units" line states iobench's convention; family tables state theirs.
[[nodiscard]] std::unique_ptr<Reporter> make_text_reporter(std::ostream& out,
                                                           const Registry& registry);
/// The text reporter's generic section of one step (what it prints for a workload without a
/// "text" formatter: status, params, attributes, warnings, one table per phase), for a family
/// formatter that prints iobench's tables beside its tool's own (mdtest's SUMMARY tables).
void write_generic_step_text(const StepResult& step, std::ostream& out);
/// One JSON document per run at on_run_end (to_json; schema kResultSchema, see README for keys).
[[nodiscard]] std::unique_ptr<Reporter> make_json_reporter(std::ostream& out);
/// Generic CSV, one schema for every family: a header line, then for each step and phase one row
/// per worker and op kind plus merged rows (worker "all"): step,workload,phase,worker,target,op,
/// ops,bytes,elapsed_ns,throughput_bytes_per_s,iops,lat_mean_ns,lat_p50_ns,lat_p99_ns,
/// lat_p99_9_ns,lat_max_ns,cpu_user_ns,cpu_system_ns,status (bytes, ns, per second: no MB),
/// then the phase's device figures (PhaseResult::explanation) on its merged rows only:
/// dev_read_bytes,dev_write_bytes (its file systems' devices), dev_util_percent,dev_r_await_ms,
/// dev_w_await_ms (of the busiest of them), read_amplification,write_amplification; empty on
/// worker rows, for a phase without a block device, and for a ratio not derived.
[[nodiscard]] std::unique_ptr<Reporter> make_csv_reporter(std::ostream& out,
                                                          const Registry& registry);
/// One family's own CSV, for the steps of `workload` only (others are skipped): its "csv_header"
/// formatter once before the first row (if it registered one: tiotest and tiobench do; bonnie++'s
/// lines are headerless by design, as bon_csv2html reads them), then its "csv" formatter per
/// step. Writes nothing when `workload` has no "csv" formatter.
[[nodiscard]] std::unique_ptr<Reporter> make_family_csv_reporter(std::ostream& out,
                                                                 const Registry& registry,
                                                                 std::string workload);
/// Where a family's CSV goes beside the generic CSV file `output`: ".<workload>" before the
/// extension ("r.csv" -> "r.bonnie.csv"; "r" -> "r.bonnie.csv"; "dir/r.txt" -> "dir/r.bonnie.txt").
[[nodiscard]] std::filesystem::path family_csv_path(const std::filesystem::path& output,
                                                    std::string_view workload);

/// The JSON document the JSON reporter writes, as text (for tools and tests).
[[nodiscard]] std::string to_json(const RunResult& run, int indent = 2);

}  // namespace iobench
