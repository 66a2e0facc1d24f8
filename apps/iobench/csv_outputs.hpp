#pragma once

#include <filesystem>
#include <iobench/registry.hpp>
#include <iobench/reporter.hpp>
#include <iobench/suite.hpp>
#include <iosfwd>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace iobench::cli {

/// Where `--format csv` goes: one schema per file or stream, never a mix.
/// - With -o FILE: FILE holds the generic rows of every step (one header); each workload of the
///   plan that has a CSV of its own also gets FILE.<workload>.csv (family_csv_path): bonnie++'s
///   headerless lines for bon_csv2html, tiotest's and tiobench's tables with one header each.
/// - On stdout: a plan of one workload with its own CSV prints that CSV (`iobench run bonnie -f
///   csv | bon_csv2html` works as with bonnie++); any other plan prints the generic rows.
class CsvOutputs {
 public:
  /// `output` empty: stdout (`stdout_stream`). Adds the reporters to `reporters`.
  CsvOutputs(const SuitePlan& plan, const Registry& registry, const std::string& output,
             std::ostream& stdout_stream, std::ostream& generic_file, ReporterSet& reporters);

  /// The family files (beside -o) to open before the run and write after it, in a fixed order.
  [[nodiscard]] std::vector<std::filesystem::path> family_paths() const;
  /// Workloads whose own CSV is not written because the output is stdout with several workloads.
  [[nodiscard]] const std::vector<std::string>& left_out() const noexcept { return left_out_; }
  /// What each family file holds once the run has ended, in the order of family_paths().
  [[nodiscard]] std::vector<std::string> family_texts() const;

 private:
  std::map<std::filesystem::path, std::ostringstream> family_text_;
  std::vector<std::string> left_out_;
};

/// `--time-series-csv FILE`: every phase's time series (PhaseResult::time_series) as CSV, a
/// header line then per point one row per worker and a row of all workers (worker "all", as in
/// the generic CSV and the text table):
/// step,suite_step,sweep_point,repetition,phase,point,start_ns,duration_ns,warmup,worker,bytes,
/// ops,errors,throughput_bytes_per_s,iops,lat_mean_ns,lat_max_ns,lat_p50_ns,lat_p99_ns,
/// lat_p99_9_ns, then per block device of the run's series (SeriesPoint::devices, issue 29; each
/// once, in order of first appearance) dev_<name>_read_bytes, dev_<name>_write_bytes,
/// dev_<name>_util_percent, dev_<name>_aqu_sz, dev_<name>_r_await_ms, dev_<name>_w_await_ms:
/// the device's /proc/diskstats deltas over the point (iostat's figures over its sampled_ns),
/// on "all" rows only, empty on worker rows and where the point has no such device (tmpfs, a
/// phase on another device, a series merged across ranks). Without block devices the header ends
/// at lat_p99_9_ns. Rates have 3 decimals, lat_mean_ns 1, util 2, aqu-sz and awaits 3, every
/// other number is an integer (never an exponent). `run.steps[i]` is `plan.runs[i]` (as
/// run_suite() makes them).
void write_time_series_csv(const SuitePlan& plan, const RunResult& run, std::ostream& out);

/// The distinct workloads of `plan`, in first-run order, that registered a "csv" formatter.
[[nodiscard]] std::vector<std::string> family_csv_workloads(const SuitePlan& plan,
                                                            const Registry& registry);

}  // namespace iobench::cli
