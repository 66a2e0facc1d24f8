#pragma once

#include <iobench/result.hpp>
#include <iosfwd>
#include <memory>
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

/// Human-readable text. Uses the workload's registered "text" formatter when it has one (bonnie++
/// table, tiotest tables, dbench op table, the disk test's "Completed ..." lines), otherwise a
/// generic per-phase table (MB/s with MB = 10^6 bytes, IOPS, latency mean/p50/p99/p99.9/max).
[[nodiscard]] std::unique_ptr<Reporter> make_text_reporter(std::ostream& out,
                                                           const Registry& registry);
/// One JSON document per run at on_run_end, schema "iobench-result/1" (see README for keys).
[[nodiscard]] std::unique_ptr<Reporter> make_json_reporter(std::ostream& out);
/// CSV: the workload's "csv" formatter if registered (bonnie++ 1.98 CSV), else one row per worker
/// and op kind plus a merged row ("all"), with a header line first.
[[nodiscard]] std::unique_ptr<Reporter> make_csv_reporter(std::ostream& out,
                                                          const Registry& registry);

/// The JSON document the JSON reporter writes, as text (for tools and tests).
[[nodiscard]] std::string to_json(const RunResult& run, int indent = 2);

}  // namespace iobench
