#include "plugins/tiotest/phase_figures.hpp"

#include <cmath>

namespace iobench::plugins::tiotest {

namespace {

constexpr double kBytesPerMegabyte = 1024.0 * 1024.0;
constexpr double kNsPerSecond = 1e9;
constexpr double kNsPerMs = 1e6;

double tiotest_cpu_percent(std::uint64_t cpu_ns, std::uint64_t wall_ns,
                           std::size_t threads) noexcept {
  if (wall_ns == 0 || threads == 0) return 0;
  const double hundredths =
      std::floor(10000.0 * static_cast<double>(cpu_ns) / static_cast<double>(wall_ns));
  return hundredths / (100.0 * static_cast<double>(threads));
}

}  // namespace

double percent_of(std::uint64_t part, std::uint64_t whole) noexcept {
  return whole == 0 ? 0.0 : 100.0 * static_cast<double>(part) / static_cast<double>(whole);
}

double PhaseFigures::megabytes() const noexcept {
  return static_cast<double>(ops.bytes) / kBytesPerMegabyte;
}

double PhaseFigures::wall_seconds() const noexcept {
  return static_cast<double>(wall_ns) / kNsPerSecond;
}

double PhaseFigures::rate_mb_per_s() const noexcept {
  return wall_ns == 0 ? 0.0 : megabytes() / wall_seconds();
}

double PhaseFigures::user_cpu_percent() const noexcept {
  return tiotest_cpu_percent(cpu.user_ns, wall_ns, threads);
}

double PhaseFigures::system_cpu_percent() const noexcept {
  return tiotest_cpu_percent(cpu.system_ns, wall_ns, threads);
}

double PhaseFigures::mean_latency_ms() const noexcept {
  if (ops.latency.count() == 0) return 0;
  return static_cast<double>(ops.latency.sum()) / static_cast<double>(ops.latency.count()) /
         kNsPerMs;
}

double PhaseFigures::max_latency_ms() const noexcept {
  return static_cast<double>(ops.latency.max()) / kNsPerMs;
}

double PhaseFigures::percent_over_2s() const noexcept {
  return percent_of(ops.ops_over_2s, ops.ops);
}

double PhaseFigures::percent_over_10s() const noexcept {
  return percent_of(ops.ops_over_10s, ops.ops);
}

std::optional<PhaseKind> kind_from_phase_name(std::string_view name) noexcept {
  for (const PhaseKind kind : kAllPhaseKinds) {
    const std::string_view label = phase_label(kind);
    if (name.substr(0, label.size()) != label) continue;
    if (name.size() == label.size() || name[label.size()] == ' ') return kind;
  }
  return std::nullopt;
}

std::optional<PhaseFigures> figures_of(const PhaseResult& phase, std::size_t threads) {
  const std::optional<PhaseKind> kind = kind_from_phase_name(phase.name);
  if (!kind) return std::nullopt;
  PhaseFigures figures;
  figures.kind = *kind;
  figures.threads = threads;
  figures.wall_ns = phase.wall_ns;
  figures.cpu = phase.workers_cpu;
  figures.system_busy_percent = phase.system_busy_percent;
  for (const OpResult& op : phase.ops) figures.ops.merge(op);
  figures.status = phase.status;
  return figures;
}

OpResult pooled_ops(std::span<const PhaseFigures> phases) {
  OpResult total;
  for (const PhaseFigures& phase : phases) {
    if (phase.measured()) total.merge(phase.ops);
  }
  return total;
}

}  // namespace iobench::plugins::tiotest
