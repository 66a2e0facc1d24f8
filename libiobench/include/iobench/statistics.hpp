#pragma once

#include <cstddef>
#include <iobench/result.hpp>
#include <span>
#include <string>
#include <vector>

namespace iobench {

/// Two-sided 97.5 % quantile of Student's t distribution with `degrees_of_freedom` (the factor of
/// a 95 % confidence interval of a mean). Table values (3 decimals, as printed in statistics
/// texts) for df 1..30, 40, 60 and 120; between them and beyond 120 (towards the normal quantile
/// 1.960 as df -> infinity) linear interpolation in 1/df, the usual table rule. df 0 returns 0.
[[nodiscard]] double student_t_975(std::size_t degrees_of_freedom) noexcept;

/// Summary of a sample of repeated measurements of one metric.
struct SampleStats {
  std::size_t count = 0;
  double mean = 0;
  double stddev = 0;  ///< sample standard deviation (n - 1 in the denominator); 0 if count < 2
  double min = 0;
  double max = 0;
  double cv_percent = 0;        ///< stddev / mean * 100; 0 if mean is 0
  double ci95_half = 0;         ///< t(0.975, n - 1) * stddev / sqrt(n); 0 if count < 2
  double ci95_low = 0;          ///< mean - ci95_half
  double ci95_high = 0;         ///< mean + ci95_half
  bool high_variation = false;  ///< cv_percent > kHighVariationCvPercent
};

/// CV above which a repeated metric is flagged as unstable (10 %).
inline constexpr double kHighVariationCvPercent = 10.0;

/// Mean, sample stddev (two-pass, numerically stable), min, max, CV and the 95 % confidence
/// interval of the mean with Student's t. An empty sample gives all zeros.
[[nodiscard]] SampleStats summarize_sample(std::span<const double> values) noexcept;

/// Cumulative distribution function P(T <= t) of Student's t distribution with
/// `degrees_of_freedom` (> 0, need not be whole, as Welch's test gives), from the regularized
/// incomplete beta function (continued fraction, Numerical Recipes 6.4); accurate to about 1e-12.
/// NaN for a NaN `t` or `degrees_of_freedom` <= 0.
[[nodiscard]] double student_t_cdf(double t, double degrees_of_freedom) noexcept;

/// The quantile (inverse CDF) of Student's t distribution: the t with P(T <= t) = `p`, for `p` in
/// (0, 1) and `degrees_of_freedom` > 0 (fractional allowed); found by bisection of
/// student_t_cdf to the resolution of a double. student_t_quantile(0.975, 10) = 2.228139 (the
/// table value 2.228). NaN outside those ranges.
[[nodiscard]] double student_t_quantile(double p, double degrees_of_freedom) noexcept;

/// Outcome of Welch's unequal-variance t-test of two means.
struct WelchTest {
  bool valid = false;  ///< both samples have count >= 2 (else no noise estimate: all else 0)
  /// (mean_b - mean_a) / sqrt(s_a^2 / n_a + s_b^2 / n_b); +-infinity when neither sample varies
  /// but the means differ.
  double t = 0;
  double degrees_of_freedom = 0;  ///< Welch-Satterthwaite; n_a + n_b - 2 if neither varies
  double p_value = 0;             ///< two-sided
  double t_critical = 0;          ///< two-sided critical |t| at the confidence level
  bool significant = false;       ///< p_value < 1 - confidence
};

/// Welch's t-test (unequal variances) of whether the means of `a` and `b` differ, two-sided, at
/// `confidence` (0.95: a 5 % chance of calling noise a change). Uses count, mean and stddev
/// (sample, n - 1) only, so summaries do. As R's t.test(x, y) computes it: the sleep data give
/// t = -1.8608, df = 17.776, p = 0.07939. Not `valid` if either count < 2 or `confidence` is
/// outside (0, 1).
[[nodiscard]] WelchTest welch_t_test(const SampleStats& a, const SampleStats& b,
                                     double confidence = 0.95) noexcept;

/// Jain's fairness index (sum x)^2 / (n * sum x^2) of non-negative shares `x` (e.g. per-worker
/// throughput): 1 when all are equal, 1/n when one worker gets everything. 1 for an empty or
/// all-zero input (nothing was shared unfairly).
[[nodiscard]] double jain_fairness(std::span<const double> values) noexcept;

/// One metric of one phase over the repetitions of a step.
struct MetricSamples {
  std::string metric;          ///< e.g. "throughput_bytes_per_s", "latency_p99_ns"
  std::vector<double> values;  ///< one per repetition, in run order
  SampleStats stats;
};

/// The repeated metrics of one phase (matched by name across repetitions).
struct PhaseRepetitions {
  std::string phase;
  std::vector<MetricSamples> metrics;
};

/// Per phase, the metrics of `repetitions` (results of the same step run several times):
/// throughput_bytes_per_s and ops_per_s (phase bytes/ops over wall time), latency_mean_ns and
/// latency_p99_ns (all op kinds merged), each summarised with summarize_sample. Phases are taken
/// in the order of the first result; a repetition lacking a phase (interrupted, failed) adds no
/// value for it. Results whose status is not kOk are left out.
[[nodiscard]] std::vector<PhaseRepetitions> repetition_statistics(
    std::span<const StepResult* const> repetitions);

/// One point of a sweep, one phase: the AIM multiuser-style columns. With several repetitions of
/// the point, every column is the mean over the repetitions.
struct SweepRow {
  std::string phase;
  std::string point;        ///< the swept param's value as given, e.g. "4" or "64k"
  std::size_t samples = 0;  ///< repetitions averaged (0: the point has no ok result)
  std::size_t workers = 0;
  double throughput_bytes_per_s = 0;  ///< phase bytes / wall time
  double ops_per_s = 0;
  double per_worker_bytes_per_s = 0;  ///< throughput / workers
  double max_latency_ns = 0;          ///< exact maximum over all op kinds
  double p99_latency_ns = 0;          ///< all op kinds merged, histogram nearest rank
  double cpu_percent = 0;             ///< process user+sys CPU over wall time (100 = one CPU)
  double fairness = 1;  ///< Jain's index over the workers' throughput (ops/s if no bytes)
  bool peak = false;    ///< the point of highest throughput of this phase (ops/s if no bytes)
};

/// Sweep rows of one phase-major table: for each phase (in first-seen order) one row per point,
/// in the order of `points`. `points[i]` names the i-th point and `results[i]` lists its
/// repetitions' results. Exactly one row per phase is marked `peak` (the first maximum).
[[nodiscard]] std::vector<SweepRow> sweep_rows(
    std::span<const std::string> points, std::span<const std::vector<const StepResult*>> results);

}  // namespace iobench
