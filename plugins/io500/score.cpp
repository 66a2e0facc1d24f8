#include "plugins/io500/score.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iobench/error.hpp>
#include <ostream>

namespace iobench::plugins::io500 {

bool is_bandwidth_phase(std::string_view name) noexcept { return name.starts_with("ior-"); }

bool is_extended_phase(std::string_view name) noexcept {
  return std::find(std::begin(kExtendedPhaseOrder), std::end(kExtendedPhaseOrder), name) !=
         std::end(kExtendedPhaseOrder);
}

bool is_timed_write_phase(std::string_view name) noexcept {
  return name == "ior-easy-write" || name == "ior-hard-write" || name == "mdtest-easy-write" ||
         name == "mdtest-hard-write";
}

double gib_per_s(std::uint64_t bytes, double seconds) noexcept {
  if (!(seconds > 0)) return 0;
  return static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0) / seconds;
}

double kiops(std::uint64_t items, double seconds) noexcept {
  if (!(seconds > 0)) return 0;
  return static_cast<double>(items) / 1000.0 / seconds;
}

namespace {

// The geometric mean over the group's phases scoring above 0: IO500 leaves a phase of score 0
// out of the product (and marks it invalid) rather than zeroing the group.
double geometric_mean(const std::vector<PhaseFigure>& phases, bool bandwidth) {
  double log_sum = 0;
  int count = 0;
  for (const PhaseFigure& p : phases) {
    if (is_bandwidth_phase(p.name) != bandwidth || !(p.score > 0) || !std::isfinite(p.score))
      continue;
    log_sum += std::log(p.score);
    ++count;
  }
  return count == 0 ? 0.0 : std::exp(log_sum / count);
}

std::vector<std::string> phase_reasons(const PhaseFigure& p, const ValidityRules& rules) {
  std::vector<std::string> reasons;
  if (!p.failure.empty()) reasons.push_back(fmt::format("the phase failed: {}", p.failure));
  if (!(p.score > 0) || !std::isfinite(p.score))
    reasons.push_back(fmt::format("its score is {:f}, not above 0", p.score));
  if (!p.invalid.empty()) reasons.push_back(p.invalid);
  if (is_timed_write_phase(p.name) && p.seconds < rules.stonewall_seconds)
    reasons.push_back(
        fmt::format("it ran {:.3f} s, less than the required stonewall time of {:g} s", p.seconds,
                    rules.stonewall_seconds));
  return reasons;
}

}  // namespace

Io500Score compute_score(const std::vector<PhaseFigure>& phases, const ValidityRules& rules) {
  if (!(rules.stonewall_seconds >= 0) || !std::isfinite(rules.stonewall_seconds))
    throw ConfigError(fmt::format(
        "io500 stonewall time {} s is not valid; give a number of seconds >= 0 (300 on the list)",
        rules.stonewall_seconds));
  Io500Score score;
  score.bandwidth_gib_s = geometric_mean(phases, true);
  score.metadata_kiops = geometric_mean(phases, false);
  score.total = std::sqrt(score.bandwidth_gib_s * score.metadata_kiops);
  for (const PhaseFigure& p : phases) {
    PhaseVerdict verdict{p, phase_reasons(p, rules)};
    for (const std::string& r : verdict.invalid_reasons)
      score.invalid_reasons.push_back(fmt::format("{}: {}", p.name, r));
    score.phases.push_back(std::move(verdict));
  }
  for (std::string_view name : kPhaseOrder) {
    const bool present = std::any_of(phases.begin(), phases.end(),
                                     [name](const PhaseFigure& p) { return p.name == name; });
    if (!present) score.invalid_reasons.push_back(fmt::format("{}: the phase did not run", name));
  }
  // IO500 marks any run whose stonewall-time is not the list's 300 s as invalid, however long
  // its phases ran (its "this is an invalid run" check).
  if (rules.stonewall_seconds != kListStonewallSeconds)
    score.invalid_reasons.push_back(fmt::format(
        "stonewall: {:g} s; the list requires stonewall=300s", rules.stonewall_seconds));
  if (rules.quick)
    score.invalid_reasons.push_back(
        "io500-quick: small sizes and short stonewalls, never valid for the list");
  return score;
}

namespace {

constexpr std::string_view kInvalid = " [INVALID]";

void write_phase_line(std::string_view tag, const PhaseFigure& p, bool valid, std::ostream& out) {
  out << fmt::format("{} {:>20} {:>15f} {} : time {:.3f} seconds{}\n", tag, p.name, p.score,
                     is_bandwidth_phase(p.name) ? "GiB/s" : "kIOPS", p.seconds,
                     valid ? "" : kInvalid);
}

}  // namespace

void write_result_lines(const Io500Score& score, std::ostream& out) {
  for (const PhaseVerdict& v : score.phases)
    write_phase_line("[RESULT]", v.figure, v.invalid_reasons.empty(), out);
  out << fmt::format("[SCORE ] Bandwidth {:f} GiB/s : IOPS {:f} kiops : TOTAL {:f}{}\n",
                     score.bandwidth_gib_s, score.metadata_kiops, score.total,
                     score.valid() ? "" : kInvalid);
  for (const std::string& reason : score.invalid_reasons) out << "[INVALID] " << reason << '\n';
}

void write_extended_lines(const std::vector<PhaseFigure>& scored,
                          const std::vector<PhaseFigure>& extended, const ValidityRules& rules,
                          std::ostream& out) {
  // IO500's calc_score(extended=1): the scored phases and the optional ones of a score group.
  std::vector<PhaseFigure> with_find = scored;
  bool valid = true;
  out << "\nExtended phases (IO500 --mode=extended), not in the score:\n";
  for (const PhaseFigure& p : extended) {
    const bool in_group = p.name == kExtendedPhaseOrder[0];
    const bool phase_valid = phase_reasons(p, rules).empty();
    valid = valid && phase_valid;
    write_phase_line(in_group ? "[RESULT]" : "[      ]", p, phase_valid, out);
    if (in_group) with_find.push_back(p);
  }
  const Io500Score x = compute_score(with_find, rules);
  out << fmt::format("[SCOREX] Bandwidth {:f} GiB/s : IOPS {:f} kiops : TOTAL {:f}{}\n",
                     x.bandwidth_gib_s, x.metadata_kiops, x.total,
                     x.valid() && valid ? "" : kInvalid);
}

}  // namespace iobench::plugins::io500
