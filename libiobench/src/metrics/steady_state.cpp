#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iobench/error.hpp>
#include <iobench/format.hpp>
#include <iobench/steady_state.hpp>
#include <iobench/units.hpp>
#include <string>

namespace iobench {
namespace {

constexpr std::string_view kForms =
    "iops:LIMIT, iops_slope:LIMIT, bw:LIMIT, bw_slope:LIMIT, lat:LIMIT, lat_slope:LIMIT (LIMIT "
    "a number, or a percentage of the window mean as 10%), pts, pts:iops, pts:bw or pts:lat";

[[noreturn]] void refuse(std::string_view field, std::string_view text, std::string_view why) {
  throw ConfigError(fmt::format("{}: '{}' {}; use one of {}", field, text, why, kForms));
}

struct Named {
  std::string_view name;
  SteadyStateMetric metric;
};
constexpr Named kMetrics[] = {{"iops", SteadyStateMetric::kIops},
                              {"bw", SteadyStateMetric::kThroughput},
                              {"lat", SteadyStateMetric::kLatency}};

std::string_view metric_name(SteadyStateMetric metric) {
  for (const Named& named : kMetrics)
    if (named.metric == metric) return named.name;
  return "iops";
}

std::optional<SteadyStateMetric> metric_of(std::string_view name) {
  for (const Named& named : kMetrics)
    if (named.name == name) return named.metric;
  return std::nullopt;
}

double mean_of(std::span<const double> window) {
  double sum = 0;
  for (double y : window) sum += y;
  return sum / static_cast<double>(window.size());
}

// Least squares slope of y over x = 0, 1, ..., n - 1 (per sample); 0 for one sample.
double slope_of(std::span<const double> window, double mean) {
  const double n = static_cast<double>(window.size());
  const double x_mean = (n - 1) / 2;
  double sxy = 0;
  double sxx = 0;
  for (std::size_t i = 0; i < window.size(); ++i) {
    const double dx = static_cast<double>(i) - x_mean;
    sxy += dx * (window[i] - mean);
    sxx += dx * dx;
  }
  return sxx == 0 ? 0 : sxy / sxx;
}

std::string format_figure(double value) { return fmt::format("{:.6g}", value); }

}  // namespace

SteadyStateCriterion parse_steady_state_criterion(std::string_view text, std::string_view field) {
  SteadyStateCriterion criterion;
  const std::size_t colon = text.find(':');
  const std::string_view name = text.substr(0, colon);
  const std::string_view rest = colon == std::string_view::npos ? "" : text.substr(colon + 1);
  if (name == "pts") {
    criterion.rule = SteadyStateRule::kPts;
    if (colon == std::string_view::npos) return criterion;
    const auto metric = metric_of(rest);
    if (!metric) refuse(field, text, "names no PTS metric after 'pts:'");
    criterion.metric = *metric;
    return criterion;
  }
  const bool slope = name.ends_with("_slope");
  const auto metric = metric_of(slope ? name.substr(0, name.size() - 6) : name);
  if (!metric) refuse(field, text, "is not a steady-state criterion");
  criterion.rule = slope ? SteadyStateRule::kSlope : SteadyStateRule::kDeviation;
  criterion.metric = *metric;
  if (rest.empty()) refuse(field, text, "has no limit after the criterion");
  criterion.limit_percent = rest.ends_with('%');
  const std::string_view number = criterion.limit_percent ? rest.substr(0, rest.size() - 1) : rest;
  try {
    criterion.limit = parse_double(number, field);
  } catch (const ConfigError&) {
    refuse(field, text, "has a limit that is not a number");
  }
  if (!(criterion.limit > 0)) refuse(field, text, "has a limit that is not above 0");
  return criterion;
}

std::string to_string(const SteadyStateCriterion& criterion) {
  const std::string_view metric = metric_name(criterion.metric);
  if (criterion.rule == SteadyStateRule::kPts) return fmt::format("pts:{}", metric);
  return fmt::format("{}{}:{}{}", metric, criterion.rule == SteadyStateRule::kSlope ? "_slope" : "",
                     format_figure(criterion.limit), criterion.limit_percent ? "%" : "");
}

std::size_t SteadyStateConfig::window_samples() const noexcept {
  if (criterion.rule == SteadyStateRule::kPts) return kPtsWindowRounds;
  if (interval.count() <= 0) return 0;
  return static_cast<std::size_t>(window / interval);
}

std::size_t SteadyStateConfig::max_samples() const noexcept {
  return criterion.rule == SteadyStateRule::kPts ? kPtsMaxRounds : 0;
}

void validate(const SteadyStateConfig& config, std::string_view field) {
  if (config.interval.count() <= 0) {
    throw ConfigError(
        fmt::format("{}: ss_interval must be above 0; give e.g. ss_interval=1s", field));
  }
  if (config.ramp.count() < 0) {
    throw ConfigError(
        fmt::format("{}: ss_ramp must not be negative; give e.g. ss_ramp=10s", field));
  }
  if (config.criterion.rule == SteadyStateRule::kPts) return;
  const std::size_t least = config.criterion.rule == SteadyStateRule::kSlope ? 2 : 1;
  if (config.window % config.interval != std::chrono::nanoseconds(0) ||
      config.window_samples() < least) {
    throw ConfigError(fmt::format(
        "{}: ss_dur={} is not {} of ss_interval={}; give an ss_dur that is {} ss_interval", field,
        format_duration(static_cast<std::uint64_t>(config.window.count())),
        least == 2 ? "a multiple (at least 2x)" : "a multiple",
        format_duration(static_cast<std::uint64_t>(config.interval.count())),
        least == 2 ? "2 or more times" : "a whole number of times"));
  }
}

SteadyStateFigures judge_window(const SteadyStateCriterion& criterion,
                                std::span<const double> window) {
  SteadyStateFigures figures;
  if (window.empty()) return figures;
  figures.window_mean = mean_of(window);
  figures.slope = slope_of(window, figures.window_mean);
  const auto [low, high] = std::minmax_element(window.begin(), window.end());
  figures.max_deviation = std::max(*high - figures.window_mean, figures.window_mean - *low);
  const double mean = figures.window_mean;
  const auto percent = [mean](double value) { return mean > 0 ? 100.0 * value / mean : INFINITY; };
  if (criterion.rule == SteadyStateRule::kPts) {
    figures.data_excursion_percent = percent(*high - *low);
    // The best-fit line over the window runs from x = 0 to x = n - 1.
    figures.fit_excursion_percent =
        percent(std::fabs(figures.slope) * static_cast<double>(window.size() - 1));
    figures.criterion_value = figures.data_excursion_percent;
    figures.limit = kPtsDataExcursionPercent;
    figures.steady = figures.data_excursion_percent <= kPtsDataExcursionPercent &&
                     figures.fit_excursion_percent <= kPtsFitExcursionPercent;
    return figures;
  }
  const double raw =
      criterion.rule == SteadyStateRule::kSlope ? std::fabs(figures.slope) : figures.max_deviation;
  figures.criterion_value = criterion.limit_percent ? percent(raw) : raw;
  figures.limit = criterion.limit;
  figures.steady = figures.criterion_value < criterion.limit;  // fio compares strictly
  return figures;
}

SteadyStateDetector::SteadyStateDetector(const SteadyStateConfig& config)
    : config_(config), capacity_(std::max<std::size_t>(1, config.window_samples())) {
  ring_.reserve(capacity_);
}

bool SteadyStateDetector::done() const noexcept {
  return steady_ || (config_.max_samples() != 0 && samples_ >= config_.max_samples());
}

bool SteadyStateDetector::add(double sample) {
  if (done()) return steady_;
  ++samples_;
  if (series_.size() == std::max(kSteadyStateSeriesMax, capacity_)) {  // the window stays a tail
    series_.pop_front();
    ++series_dropped_;
  }
  series_.push_back(sample);
  if (ring_.size() < capacity_) {
    ring_.push_back(sample);
  } else {
    ring_[next_] = sample;
  }
  next_ = (next_ + 1) % capacity_;
  if (ring_.size() == capacity_) {
    const std::vector<double> ordered = window();
    figures_ = judge_window(config_.criterion, ordered);
    steady_ = figures_->steady;
  }
  return steady_;
}

std::vector<double> SteadyStateDetector::window() const {
  if (ring_.size() < capacity_) return ring_;
  std::vector<double> ordered;
  ordered.reserve(capacity_);
  for (std::size_t i = 0; i < capacity_; ++i) ordered.push_back(ring_[(next_ + i) % capacity_]);
  return ordered;
}

std::vector<double> SteadyStateDetector::series() const { return {series_.begin(), series_.end()}; }

std::string describe(const SteadyStateResult& result) {
  const bool pts = result.config.criterion.rule == SteadyStateRule::kPts;
  const std::string_view unit = pts ? "rounds" : "intervals";
  const std::string criterion = to_string(result.config.criterion);
  if (!result.figures) {
    return fmt::format("steady: no ({}: {} of {} {} sampled, the window never filled)", criterion,
                       result.samples, result.config.window_samples(), unit);
  }
  const SteadyStateFigures& f = *result.figures;
  std::string figures;
  if (pts) {
    figures = fmt::format(
        "data excursion {:.2f} % <= {:g} %: {}, best-fit excursion {:.2f} % <= {:g} %: {}, window "
        "mean {}",
        f.data_excursion_percent, kPtsDataExcursionPercent,
        f.data_excursion_percent <= kPtsDataExcursionPercent ? "yes" : "no",
        f.fit_excursion_percent, kPtsFitExcursionPercent,
        f.fit_excursion_percent <= kPtsFitExcursionPercent ? "yes" : "no",
        format_figure(f.window_mean));
  } else {
    const bool percent = result.config.criterion.limit_percent;
    figures = fmt::format(
        "{} {}{} {} {}{}, window mean {}",
        result.config.criterion.rule == SteadyStateRule::kSlope ? "slope" : "max deviation",
        format_figure(f.criterion_value), percent ? " %" : "",
        f.steady ? "<" : ">=", format_figure(f.limit), percent ? " %" : "",
        format_figure(f.window_mean));
  }
  return fmt::format("steady: {} after {} {} ({}: {})", result.steady ? "yes" : "no",
                     result.samples, unit, criterion, figures);
}

}  // namespace iobench
