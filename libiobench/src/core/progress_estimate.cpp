#include "core/progress_estimate.hpp"

#include <algorithm>
#include <optional>

namespace iobench::detail {
namespace {

// What is left of a run `ran_ns` long that did `fraction` of its work, at the same rate.
std::optional<std::uint64_t> extrapolate(double fraction, std::uint64_t ran_ns) {
  if (fraction <= 0 || ran_ns == 0) return std::nullopt;
  if (fraction >= 1) return 0;
  return static_cast<std::uint64_t>(static_cast<double>(ran_ns) * (1 - fraction) / fraction);
}

double ratio(std::uint64_t done, std::uint64_t total) {
  return std::min(1.0, static_cast<double>(done) / static_cast<double>(total));
}

}  // namespace

void fill_progress(const GroupProgress& g, ProgressSnapshot& out) {
  out.state = g.state;
  out.warming_up = g.state == ProgressState::kWarmUp;
  out.bytes = g.bytes;
  out.ops = g.ops;
  out.planned_ops = g.planned_ops;
  out.planned_bytes = g.planned_bytes;
  const auto since = [&](std::uint64_t start) { return g.now_ns > start ? g.now_ns - start : 0; };
  const bool released = g.released_ns != 0;
  const bool measuring = g.measure_start_ns != 0;
  out.elapsed_ns = g.state == ProgressState::kSetUp || !released    ? since(g.set_up_start_ns)
                   : measuring && g.state != ProgressState::kWarmUp ? since(g.measure_start_ns)
                                                                    : since(g.released_ns);

  // The group's fraction done: the furthest of its limits (whichever ends it first); what is
  // left: the nearest.
  std::optional<double> fraction;
  std::optional<std::uint64_t> left;
  const auto offer = [&](double f, std::optional<std::uint64_t> l) {
    fraction = std::max(fraction.value_or(0.0), f);
    if (l) left = std::min(left.value_or(UINT64_MAX), *l);
  };
  const std::uint64_t ran_ns = released ? since(g.released_ns) : 0;
  if (g.state == ProgressState::kCleanUp) {
    offer(1.0, 0);
  } else {
    if (g.time_limit_ns > 0) {
      const std::uint64_t total = g.warmup_ns + g.time_limit_ns;
      const std::uint64_t done =
          std::min(total, measuring ? g.warmup_ns + since(g.measure_start_ns) : ran_ns);
      offer(ratio(done, total), total - done);
    }
    if (g.ops_limit > 0 && measuring) {
      const double f =
          ratio(g.ops - std::min(g.ops, g.ops_at_measure_start), g.ops_limit * g.count);
      offer(f, extrapolate(f, since(g.measure_start_ns)));
    }
    if (g.planned_ops > 0 || g.planned_bytes > 0) {
      const double f =
          g.planned_ops > 0 ? ratio(g.ops, g.planned_ops) : ratio(g.bytes, g.planned_bytes);
      offer(f, extrapolate(f, ran_ns));
    }
  }
  out.done_fraction.reset();
  out.phase_left_ns.reset();
  if (!fraction || g.workers == 0 || g.count == 0) return;
  // A serial phase runs its groups one after another, each like this one.
  const std::size_t groups_after = (g.workers - std::min(g.workers, g.first + g.count)) / g.count;
  out.done_fraction = (static_cast<double>(g.first) + static_cast<double>(g.count) * *fraction) /
                      static_cast<double>(g.workers);
  if (left) {
    const std::uint64_t group_ns =
        g.time_limit_ns > 0 ? g.warmup_ns + g.time_limit_ns : ran_ns + *left;
    out.phase_left_ns = *left + groups_after * group_ns;
  }
}

}  // namespace iobench::detail
