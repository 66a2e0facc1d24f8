#include "plugins/io500/io500_report.hpp"

#include <fmt/format.h>

#include <iobench/reporter.hpp>
#include <optional>
#include <ostream>
#include <string_view>
#include <variant>

#include "plugins/io500/find.hpp"

namespace iobench::plugins::io500 {
namespace {

double number_attr(const StepResult& step, std::string_view key, double fallback) {
  const AttributeValue* v = step.attribute(key);
  if (v == nullptr) return fallback;
  if (const auto* d = std::get_if<double>(v)) return *d;
  if (const auto* i = std::get_if<std::int64_t>(v)) return static_cast<double>(*i);
  return fallback;
}

std::uint64_t counter(const PhaseResult& p, std::size_t i) {
  return i < p.counters.size() ? p.counters[i] : 0;
}

// The counter named `name` summed over the phase's workers; nullopt when the phase has none.
std::optional<std::uint64_t> named_counter(const PhaseResult& p, std::string_view name) {
  for (std::size_t i = 0; i < p.counter_names.size() && i < p.counters.size(); ++i)
    if (p.counter_names[i] == name) return p.counters[i];
  return std::nullopt;
}

const char* status_text(Status s) {
  switch (s) {
    case Status::kFailed:
      return "failed";
    case Status::kInterrupted:
      return "interrupted";
    case Status::kSkipped:
      return "skipped";
    default:
      return "did not complete";
  }
}

}  // namespace

std::vector<PhaseFigure> phase_figures(const StepResult& step) {
  std::vector<PhaseFigure> figures;
  for (const PhaseResult& p : step.phases) {
    const double seconds = static_cast<double>(p.wall_ns) / 1e9;
    PhaseFigure f;
    if (p.name == "find" || p.name == kExtendedPhaseOrder[0]) {
      f = find_figure(FindCount{counter(p, 0), counter(p, 1)}, seconds, p.name);
    } else {
      f.name = p.name;
      f.seconds = seconds;
      const OpResult none{};
      const OpResult& op = p.ops.empty() ? none : p.ops.front();
      f.score = is_bandwidth_phase(p.name) ? gib_per_s(op.bytes, seconds) : kiops(op.ops, seconds);
    }
    // ior -R / mdtest -X: data that is not what its write phase wrote makes the phase not valid
    // (IO500 marks ior's errors so; iobench treats mdtest's alike).
    if (const auto bad = named_counter(p, "mismatches"); bad && *bad > 0) {
      f.invalid = fmt::format(
          "{} {} read did not hold the data pattern the write phase wrote (mismatches = {})", *bad,
          p.name == "mdtest-hard-read" ? (*bad == 1 ? "file" : "files")
                                       : (*bad == 1 ? "transfer" : "transfers"),
          *bad);
    }
    if (p.status != Status::kOk) {
      f.failure = p.message.empty() ? std::string(status_text(p.status))
                                    : fmt::format("{}: {}", status_text(p.status), p.message);
    }
    figures.push_back(std::move(f));
  }
  return figures;
}

ValidityRules validity_rules(const StepResult& step) {
  ValidityRules rules;
  rules.stonewall_seconds = number_attr(step, "stonewall_s", 300.0);
  rules.quick = number_attr(step, "quick", 0.0) != 0.0;
  return rules;
}

void write_stonewall_lines(const StepResult& step, std::ostream& out) {
  for (const std::string_view phase : {kPhaseOrder[0], kPhaseOrder[2]}) {
    const AttributeValue* v = step.attribute(fmt::format("stonewall.{}", phase));
    if (const auto* text = v == nullptr ? nullptr : std::get_if<std::string>(v))
      out << phase << ": " << *text << '\n';
  }
}

void format_io500_text(const StepResult& step, std::ostream& out) {
  write_generic_step_text(step, out);
  out << '\n';
  write_stonewall_lines(step, out);
  const AttributeValue* cache_proof = step.attribute("cache_proof");
  if (const auto* text = cache_proof == nullptr ? nullptr : std::get_if<std::string>(cache_proof))
    out << "cache_proof: " << *text << '\n';
  // The extended phases stay out of the score and are printed in their own section after it.
  std::vector<PhaseFigure> scored;
  std::vector<PhaseFigure> extended;
  for (PhaseFigure& f : phase_figures(step))
    (is_extended_phase(f.name) ? extended : scored).push_back(std::move(f));
  const ValidityRules rules = validity_rules(step);
  write_result_lines(compute_score(scored, rules), out);
  if (!extended.empty()) write_extended_lines(scored, extended, rules, out);
}

}  // namespace iobench::plugins::io500
