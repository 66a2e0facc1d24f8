#pragma once

#include <chrono>
#include <cstdint>
#include <iobench/params.hpp>
#include <iobench/result.hpp>
#include <iobench/workload.hpp>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace iobench::plugins::disk {

/// latency_target=pP:DURATION: the response-time percentile `percentile` (0 < p <= 100) of an
/// open-loop phase must stay at or under `target_ns`.
struct LatencyTarget {
  double percentile = 99;
  std::uint64_t target_ns = 0;
  std::string text;  ///< as given, e.g. "p99:2ms"
};

/// curve= and latency_target= (with latency_precision, latency_confirm): after the main phase,
/// run closed loop as fast as possible, open-loop phases whose rate comes from its IOPS.
struct CurveConfig {
  /// Percentages of the closed-loop IOPS, one open-loop phase each, in the order given.
  std::vector<std::uint32_t> percents;
  std::optional<LatencyTarget> latency_target;
  /// The search stops once the rates bracketing the knee are this close, in % of the closed-loop
  /// IOPS.
  double precision_percent = 1;
  /// Extra runs at each probed rate: a rate passes only if every run of it passes.
  std::uint32_t confirm = 1;
  /// The search's upper end, in % of the closed-loop IOPS: above 100 where the closed-loop
  /// figure may fall short of the knee (a phase that ends waiting out a throttle's time slice).
  std::uint32_t search_max_percent = 100;
  /// latency_target_mode=depth (fio's latency_target): search the queue depth in [1, max_depth]
  /// of closed-loop phases instead of the open-loop rate.
  bool by_depth = false;
  std::uint32_t max_depth = 1;  ///< iodepth
  /// latency_window (fio's): each probe phase's time limit (0: the step's).
  std::chrono::nanoseconds window{0};
  /// latency_ramp: each open-loop phase (curve point, rate probe) first stays idle for half of
  /// this, then runs its open loop unjudged for the other half (the phase's warm-up), before
  /// its measured part. 0: neither; the step's --warmup applies as to the main phase.
  std::chrono::nanoseconds ramp{std::chrono::milliseconds(500)};

  [[nodiscard]] bool active() const noexcept { return !percents.empty() || latency_target; }
  /// Bisection steps: halvings of (0, search_max_percent] until the bracket is at most
  /// precision_percent wide.
  [[nodiscard]] std::uint32_t search_steps() const noexcept;
  /// Phases the latency search runs at most: search_steps() (by depth:
  /// DepthSearch::steps(max_depth)) x (1 + confirm); 0 without latency_target.
  [[nodiscard]] std::size_t probe_phases() const noexcept;
};

/// The params: curve, latency_target, latency_precision, latency_confirm, latency_search_max,
/// latency_target_mode, latency_window, latency_ramp.
[[nodiscard]] std::vector<ParamSpec> curve_param_specs();

/// "10,50,100" -> {10, 50, 100}: whole percentages 1..1000, comma-separated. Throws ConfigError
/// naming curve=, the value and the form.
[[nodiscard]] std::vector<std::uint32_t> parse_curve(std::string_view text);

/// "p99:2ms", "p99.9:500us", "p50:1s" -> LatencyTarget. Throws ConfigError naming
/// latency_target=, the value and the form.
[[nodiscard]] LatencyTarget parse_latency_target(std::string_view text);

/// Reads the params above (and iodepth, the depth search's maximum). Throws ConfigError as the
/// parsers do, and for a depth search with curve, latency_precision, latency_search_max,
/// latency_ramp or iodepth=1.
[[nodiscard]] CurveConfig curve_from_params(const Params& params);

/// What one open-loop (or the closed-loop) phase achieved: the reads' IOPS over the phase's wall
/// time and their response times (ns, from each op's intended issue time when paced).
struct CurvePoint {
  double iops = 0;
  double mean_ns = 0;
  std::uint64_t p50_ns = 0;
  std::uint64_t p99_ns = 0;
  std::uint64_t max_ns = 0;
  std::uint64_t target_percentile_ns = 0;  ///< the latency target's percentile (0 without one)
  /// The phase's measured wall time (ns).
  std::uint64_t measured_ns = 0;
  /// Open loop: how much the lateness grew over the measured time (ns; LatenessTrend's slope x
  /// measured_ns, the largest of the workers'); 0 where not measured.
  double growth_ns = 0;
};

/// The judgement of one run of a latency-search probe at `rate_iops`: it passes only if
/// all three hold.
struct ProbeVerdict {
  bool completed = false;   ///< it completed >= kMinCompletedShare of the reads due
  bool percentile = false;  ///< its percentile stayed at or under the target
  bool steady = false;      ///< its lateness grew by at most latency_precision % of its time
  /// The share of the reads due over the measured time (rate x time) a probe must complete.
  static constexpr double kMinCompletedShare = 0.95;
  [[nodiscard]] bool pass() const noexcept { return completed && percentile && steady; }
};

/// Judges a probe run at `rate_iops` (aggregate) that measured `point`, against `target_ns`
/// (the latency target's time) and `precision_percent` (latency_precision): (a) point.iops
/// >= kMinCompletedShare x rate_iops (the reads due over the measured time, completed);
/// (b) point.target_percentile_ns <= target_ns; (c) point.growth_ns <= precision_percent % of
/// point.measured_ns: above a ceiling C an open loop at R falls behind by (R - C) / R of the
/// elapsed time, however short the probe is for its percentile to notice. Pure.
[[nodiscard]] ProbeVerdict judge_probe(double rate_iops, const CurvePoint& point,
                                       std::uint64_t target_ns, double precision_percent) noexcept;

/// The reads of `phase` (op "read") as a CurvePoint; `percentile` fills target_percentile_ns.
[[nodiscard]] CurvePoint measure_point(const PhaseResult& phase, double percentile);

/// The bisection over the open-loop rate (aggregate IOPS of the step's workers) for the highest
/// rate whose percentile meets the target: starts at (0, max x search_max_percent / 100], probes
/// the middle, each probe
/// run 1 + confirm times; a probe passes if every run passes, raising the lower bound, else it
/// lowers the upper one. A fixed number of runs (CurveConfig::probe_phases()), so the phases are
/// known before the run.
class LatencySearch {
 public:
  LatencySearch() = default;
  explicit LatencySearch(const CurveConfig& config) noexcept;
  /// Starts over in (0, `max_iops` x search_max_percent / 100].
  void start(double max_iops) noexcept;
  /// The rate (aggregate IOPS) the next run probes.
  [[nodiscard]] double rate() const noexcept { return (low_ + high_) / 2; }
  /// Records the outcome of a run at rate().
  void record(bool pass) noexcept;
  /// The highest rate that passed every run (0: none did).
  [[nodiscard]] double result() const noexcept { return low_; }
  /// The lowest rate that failed (the search's upper bound).
  [[nodiscard]] double upper() const noexcept { return high_; }

 private:
  double low_ = 0;
  double high_ = 0;
  std::uint32_t runs_per_probe_ = 1;
  double search_max_ = 1;  ///< search_max_percent / 100
  std::uint32_t runs_ = 0;
  bool failed_ = false;
};

/// latency_target_mode=depth: fio's latency_target search for the highest queue depth whose
/// latency percentile meets the target, each probe a closed-loop phase (fio's latency_window)
/// at one depth run 1 + confirm times, passing if every run does. fio ramps from depth 1 by
/// doubling, then bisects, for as many windows as it takes; this bisects (0, max_depth + 1)
/// at once, so the runs are bounded by steps() before the run. Once the bracket has closed
/// (the highest passing depth next to the lowest failing one, or max_depth passing), done() is
/// true and the remaining probe phases are skipped.
class DepthSearch {
 public:
  /// Probes the search takes at most: ceil(log2(max_depth + 1)).
  [[nodiscard]] static std::uint32_t steps(std::uint32_t max_depth) noexcept;
  /// Starts over in [1, max_depth].
  void start(std::uint32_t max_depth, std::uint32_t runs_per_probe) noexcept;
  /// The depth the next run probes (the middle of the bracket).
  [[nodiscard]] std::uint32_t depth() const noexcept { return (low_ + high_) / 2; }
  /// Records the outcome of a run at depth() and its read IOPS.
  void record(bool pass, double iops) noexcept;
  [[nodiscard]] bool done() const noexcept { return high_ - low_ <= 1; }
  /// The read IOPS of result() (the lowest of its runs; 0: none passed).
  [[nodiscard]] double result_iops() const noexcept { return result_iops_; }
  /// The highest depth that passed every run (0: none did).
  [[nodiscard]] std::uint32_t result() const noexcept { return low_; }
  /// The lowest depth that failed (max_depth + 1: none did).
  [[nodiscard]] std::uint32_t upper() const noexcept { return high_; }

 private:
  std::uint32_t low_ = 0;
  std::uint32_t high_ = 2;
  std::uint32_t runs_per_probe_ = 1;
  std::uint32_t runs_ = 0;
  bool failed_ = false;
  double probe_iops_ = 0;  ///< the lowest IOPS of the current probe's runs so far
  double result_iops_ = 0;
};

/// latency_target_mode=depth, after probe run `run` (from 1) of at most `runs`, which measured
/// `point`: records it (set_depth_probe) and in `search`; once the search is done or this was
/// the last run, sets latency_search.result_depth, .result_iops and .upper_depth, and skips
/// the probe phases left.
void after_depth_probe(PrepareContext& ctx, DepthSearch& search, std::size_t run, std::size_t runs,
                       const CurvePoint& point, std::uint64_t target_ns);

/// Attributes of a depth probe run (`latency_search.probe.N.depth`, `.iops`, `.percentile_ns`,
/// `.result`) on the step result.
void set_depth_probe(PrepareContext& ctx, std::size_t run, std::uint32_t depth,
                     const CurvePoint& point, bool pass);

/// Attributes of a curve point (`curve.PCT%.target_iops`, `.iops`, `.mean_ns`, `.p50_ns`,
/// `.p99_ns`, `.max_ns`, `.growth_ns`) or a probe run, on the step result.
void set_curve_point(PrepareContext& ctx, std::uint32_t percent, double target_iops,
                     const CurvePoint& point);
/// A probe's attributes: `latency_search.probe.N.rate_iops`, `.iops`, `.percentile_ns`,
/// `.growth_ns`, `.result` ("pass" or "fail") and, for a failed run, `.failed`: what failed,
/// comma-separated among "completions", "percentile" and "growth".
void set_probe(PrepareContext& ctx, std::size_t run, double rate_iops, const CurvePoint& point,
               const ProbeVerdict& verdict);

/// The text report's "curve" and "latency search" tables, from the attributes above (nothing
/// without curve= or latency_target=).
void format_curve_text(const StepResult& step, std::ostream& out);

}  // namespace iobench::plugins::disk
