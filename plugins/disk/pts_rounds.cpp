#include "plugins/disk/pts_rounds.hpp"

#include <algorithm>
#include <iobench/metrics.hpp>
#include <span>

namespace iobench::plugins::disk {

PtsRounds::PtsRounds(std::size_t cells, std::size_t tracked, PtsTracking tracking)
    : cells_(cells), tracked_(tracked), tracking_(tracking) {}

double PtsRounds::tracked_value(const PtsCellRound& round, PtsTracking tracking) {
  switch (tracking) {
    case PtsTracking::kIops:
      return round.iops;
    case PtsTracking::kThroughput:
      return round.throughput_bytes_per_s;
    case PtsTracking::kMeanLatency:
      return round.all.latency.mean();
  }
  return round.iops;
}

void PtsRounds::record(std::size_t cell, const PhaseResult& phase) {
  PtsCellRound round{.iops = ops_per_s(phase.total_ops(), phase.wall_ns),
                     .throughput_bytes_per_s = phase.throughput_bytes_per_s(),
                     .all = phase.all_ops()};
  std::vector<PtsCellRound>& rounds = cells_.at(cell);
  rounds.resize(rounds_);  // a cell that did not run in an earlier round keeps empty figures
  rounds.push_back(std::move(round));
}

bool PtsRounds::end_round() {
  for (std::vector<PtsCellRound>& rounds : cells_) rounds.resize(rounds_ + 1);
  series_.push_back(tracked_value(cells_[tracked_][rounds_], tracking_));
  ++rounds_;
  if (steady_ || rounds_ < kPtsWindowRounds) return steady_;
  const SteadyStateCriterion pts{.rule = SteadyStateRule::kPts};
  figures_ = judge_window(pts, std::span<const double>(series_).last(kPtsWindowRounds));
  window_last_ = rounds_;
  steady_ = figures_->steady;
  return steady_;
}

std::optional<std::size_t> PtsRounds::window_first_round() const noexcept {
  if (window_last_ == 0) return std::nullopt;
  return window_last_ - kPtsWindowRounds + 1;
}

std::size_t PtsRounds::window_last_round() const noexcept { return window_last_; }

std::pair<std::size_t, std::size_t> PtsRounds::window_rounds() const {
  const std::size_t last = window_last_ != 0 ? window_last_ : rounds_;
  const std::size_t first = window_last_ != 0 ? *window_first_round() : 1;
  return {first, last};
}

OpResult PtsRounds::window_ops(std::size_t cell) const {
  const auto [first, last] = window_rounds();
  OpResult merged;
  for (std::size_t round = first; round <= last; ++round) merged.merge(round_of(cell, round).all);
  return merged;
}

PtsCellWindow PtsRounds::window_of(std::size_t cell) const {
  const auto [first, last] = window_rounds();
  PtsCellWindow out;
  if (last < first) return out;
  for (std::size_t round = first; round <= last; ++round) {
    const PtsCellRound& r = round_of(cell, round);
    out.iops += r.iops;
    out.throughput_bytes_per_s += r.throughput_bytes_per_s;
  }
  const auto count = static_cast<double>(last - first + 1);
  out.iops /= count;
  out.throughput_bytes_per_s /= count;
  const OpResult merged = window_ops(cell);
  out.mean_latency_ns = merged.latency.mean();
  out.p99_latency_ns = merged.latency.percentile(99.0);
  out.max_latency_ns = merged.latency.max();
  out.ops = merged.ops;
  out.bytes = merged.bytes;
  return out;
}

}  // namespace iobench::plugins::disk
