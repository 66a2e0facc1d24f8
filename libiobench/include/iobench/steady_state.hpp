#pragma once

/// Steady-state detection: when has a phase's IOPS, throughput or latency stopped changing?
/// Two rule sets, as their sources define them:
/// - fio's `ss=` (HOWTO "Steady state"): a rolling window of ss_dur / ss_interval samples taken
///   every ss_interval after ss_ramp; `iops`, `bw`, `lat`: every sample within the limit of the
///   window mean (max |y - mean| < limit); `iops_slope`, `bw_slope`, `lat_slope`: the least
///   squares slope (per sample, x = 0, 1, ...) in absolute value < limit. A limit with '%' is a
///   percentage of the window mean. Strict '<', as fio compares.
/// - SNIA PTS 2.0 steady state: rounds of a fixed length; the last 5 rounds are the window; steady
///   when the data excursion (max - min) <= 20 % of the window mean and the best-fit line's
///   excursion over the window (|slope| x 4 rounds) <= 10 % of it; at most 25 rounds.

#include <chrono>
#include <cstddef>
#include <deque>
#include <iobench/params.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace iobench {

/// What a sample measures.
enum class SteadyStateMetric {
  kIops,        ///< ops per second over the sample
  kThroughput,  ///< bytes per second over the sample (fio's `bw`)
  kLatency,     ///< mean op latency over the sample, ns (fio's `lat`)
};

/// How a window is judged.
enum class SteadyStateRule {
  kDeviation,  ///< fio `iops`/`bw`/`lat`: max |sample - mean| < limit
  kSlope,      ///< fio `*_slope`: |least squares slope per sample| < limit
  kPts,        ///< SNIA PTS 2.0: data excursion <= 20 %, best-fit excursion <= 10 % of the mean
};

/// A parsed criterion: "iops:10%", "bw_slope:0.5%", "lat:200" (fio), "pts", "pts:bw" (PTS).
struct SteadyStateCriterion {
  SteadyStateRule rule = SteadyStateRule::kDeviation;
  SteadyStateMetric metric = SteadyStateMetric::kIops;
  /// fio rules: the limit, a percentage of the window mean when `limit_percent`, else in the
  /// metric's unit (IOPS, bytes/s, ns; for slopes per sample). PTS: unused (its limits are fixed).
  double limit = 0;
  bool limit_percent = true;
};

/// PTS 2.0's fixed figures.
inline constexpr std::size_t kPtsWindowRounds = 5;
inline constexpr std::size_t kPtsMaxRounds = 25;
inline constexpr double kPtsDataExcursionPercent = 20.0;
inline constexpr double kPtsFitExcursionPercent = 10.0;

/// Parses a criterion. Throws ConfigError naming `field`, the value and the accepted forms for
/// an unknown criterion, a missing, negative, zero or non-numeric limit, or a limit after "pts".
[[nodiscard]] SteadyStateCriterion parse_steady_state_criterion(std::string_view text,
                                                                std::string_view field);
/// The criterion as parse_steady_state_criterion() reads it ("iops:10%", "bw_slope:2000",
/// "pts:bw").
[[nodiscard]] std::string to_string(const SteadyStateCriterion& criterion);

/// A whole steady-state setting: the criterion and its timing.
struct SteadyStateConfig {
  SteadyStateCriterion criterion{};
  /// fio's ss_dur: the rolling window's length (a multiple of `interval`). PTS: unused (the
  /// window is kPtsWindowRounds rounds).
  std::chrono::nanoseconds window{std::chrono::seconds(30)};
  /// fio's ss_ramp: run this long after the measurement starts before the first sample.
  std::chrono::nanoseconds ramp{0};
  /// fio's ss_interval: one sample per interval; PTS: the round length.
  std::chrono::nanoseconds interval{std::chrono::seconds(1)};

  /// Samples per window: window / interval (fio), kPtsWindowRounds (PTS).
  [[nodiscard]] std::size_t window_samples() const noexcept;
  /// Samples after which a detector gives up: kPtsMaxRounds for PTS, none (0) for fio's rules
  /// (the phase's own limit ends it).
  [[nodiscard]] std::size_t max_samples() const noexcept;
};

/// Checks a config: interval > 0; for fio's rules a window that is a whole number (at least 2
/// for slopes, 1 otherwise) of intervals. Throws ConfigError naming `field` (e.g. "disk:
/// ss_dur"), the values and the fix.
void validate(const SteadyStateConfig& config, std::string_view field);

/// The figures of one judged window.
struct SteadyStateFigures {
  bool steady = false;
  double window_mean = 0;    ///< mean of the window's samples (metric unit)
  double slope = 0;          ///< least squares slope per sample (metric unit per sample)
  double max_deviation = 0;  ///< max |sample - mean| (metric unit)
  /// fio rules: what is compared with the limit: max_deviation or |slope|, in % of the mean
  /// when the limit is, else in the metric unit. PTS: the data excursion in % of the mean.
  double criterion_value = 0;
  double limit = 0;  ///< what criterion_value was compared with (PTS: 20)
  /// PTS: (max - min) and the best-fit line's excursion over the window, % of the mean.
  double data_excursion_percent = 0;
  double fit_excursion_percent = 0;
};

/// Judges one full window (oldest first) by `criterion`. A window whose mean is 0 is not steady
/// under a percentage limit (fio divides by it; here nothing can be within a % of nothing).
[[nodiscard]] SteadyStateFigures judge_window(const SteadyStateCriterion& criterion,
                                              std::span<const double> window);

/// How many of a phase's samples a detector (and so its result) keeps: the most recent ones;
/// older ones are counted (SteadyStateResult::series_dropped). 10000 samples are 2 h 46 min at
/// fio's default 1 s interval, 80 KB of memory and ~200 KB of JSON.
inline constexpr std::size_t kSteadyStateSeriesMax = 10000;

/// Feeds samples one at a time and says when the rolling window is steady. Keeps the window
/// and the series of every sample taken (the last kSteadyStateSeriesMax of them, or as many as
/// the window holds where it is longer, so that the window is always the series' tail).
class SteadyStateDetector {
 public:
  /// `config` must have passed validate().
  explicit SteadyStateDetector(const SteadyStateConfig& config);

  /// Adds the next sample; returns steady(). Once steady (or past max_samples()), further
  /// samples are ignored, so the figures stay those of the deciding window.
  bool add(double sample);
  [[nodiscard]] bool steady() const noexcept { return steady_; }
  /// True once the detector stopped looking: steady, or max_samples() reached without it.
  [[nodiscard]] bool done() const noexcept;
  /// Samples taken (those ignored after done() not counted).
  [[nodiscard]] std::size_t samples() const noexcept { return samples_; }
  /// The last judged window's figures; nullopt before the window first filled.
  [[nodiscard]] const std::optional<SteadyStateFigures>& figures() const noexcept {
    return figures_;
  }
  /// The current window's samples, oldest first (fewer than window_samples() until full).
  [[nodiscard]] std::vector<double> window() const;
  /// Every sample taken, oldest first, but the oldest series_dropped() of them: at most
  /// kSteadyStateSeriesMax values, the window its tail.
  [[nodiscard]] std::vector<double> series() const;
  /// Samples taken that series() no longer holds (samples() - series().size()).
  [[nodiscard]] std::size_t series_dropped() const noexcept { return series_dropped_; }
  [[nodiscard]] const SteadyStateConfig& config() const noexcept { return config_; }

 private:
  SteadyStateConfig config_;
  std::size_t capacity_;
  std::vector<double> ring_;
  std::size_t next_ = 0;
  std::size_t samples_ = 0;
  bool steady_ = false;
  std::optional<SteadyStateFigures> figures_;
  std::deque<double> series_;
  std::size_t series_dropped_ = 0;
};

/// A phase's steady-state outcome (PhaseResult::steady_state).
struct SteadyStateResult {
  SteadyStateConfig config{};
  bool steady = false;
  std::size_t samples = 0;                      ///< intervals (PTS: rounds) sampled after the ramp
  std::optional<SteadyStateFigures> figures{};  ///< of the deciding or last window
  std::vector<double> window{};                 ///< that window's samples, oldest first
  /// Every sample taken, oldest first, but the oldest `series_dropped` (at most
  /// kSteadyStateSeriesMax values): `window` is its tail. JSON "series" and "series_dropped";
  /// a result file written before them reads with both empty (0).
  std::vector<double> series{};
  std::size_t series_dropped = 0;  ///< samples taken before `series`' first
};

/// The params a workload declares to offer steady state on its timed phases: `steady_state`
/// (a criterion, unset: off), `ss_dur` (30s), `ss_ramp` (0s), `ss_interval` (1s). Suite-level
/// "params" and `-p` then set them for every step whose workload declares them.
[[nodiscard]] std::vector<ParamSpec> steady_state_param_specs();

/// The config the params of steady_state_param_specs() give; nullopt when `steady_state` is
/// unset. Throws ConfigError prefixed "`workload`: steady_state" / "`workload`: ss_dur" (a bad
/// criterion, a window that is not a whole number of intervals), and for the `lat` criteria,
/// which a phase does not sample (its samples are read from the workers' live op and byte
/// counters; the detector judges latency series given to it).
[[nodiscard]] std::optional<SteadyStateConfig> steady_state_from_params(const Params& params,
                                                                        std::string_view workload);

/// One line: "steady: yes after 12 intervals (iops:10%: max deviation 3.10 % < 10 % of mean
/// 2001.3)" or "steady: no after 30 intervals (...)" / "steady: no (3 of 5 intervals sampled)".
[[nodiscard]] std::string describe(const SteadyStateResult& result);

}  // namespace iobench
