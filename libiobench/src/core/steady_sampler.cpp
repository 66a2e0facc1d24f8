#include "core/steady_sampler.hpp"

#include <atomic>

#include "util/next_tick.hpp"

namespace iobench::detail {

SteadySampler::SteadySampler(const SteadyStateConfig& config, const PhaseMemory& memory,
                             std::size_t first, std::size_t count)
    : detector_(config),
      memory_(memory),
      first_(first),
      count_(count),
      interval_ns_(static_cast<std::uint64_t>(config.interval.count())) {}

void SteadySampler::begin(std::uint64_t now_ns) noexcept {
  next_ns_ = now_ns + static_cast<std::uint64_t>(detector_.config().ramp.count());
}

std::uint64_t SteadySampler::next_ns() const noexcept {
  return detector_.done() ? UINT64_MAX : next_ns_;
}

SteadySampler::Reading SteadySampler::read(std::uint64_t now_ns) const noexcept {
  Reading reading{.ns = now_ns};
  for (std::size_t i = first_; i < first_ + count_; ++i) {
    const WorkerSlot& slot = *memory_.slot(i);
    reading.ops += slot.live_ops.load(std::memory_order_relaxed);
    reading.bytes += slot.live_bytes.load(std::memory_order_relaxed);
  }
  return reading;
}

bool SteadySampler::sample(std::uint64_t now_ns) {
  if (detector_.done() || now_ns < next_ns_) return detector_.done();
  // One reading however late the runner woke; the grid stays (a late sample is longer, and its
  // rate is over the time that really passed).
  next_ns_ = detail::next_tick_after(next_ns_, now_ns, interval_ns_);
  const Reading now = read(now_ns);
  if (last_ && now.ns > last_->ns) {
    const double seconds = static_cast<double>(now.ns - last_->ns) / 1e9;
    const double value = detector_.config().criterion.metric == SteadyStateMetric::kThroughput
                             ? static_cast<double>(now.bytes - last_->bytes) / seconds
                             : static_cast<double>(now.ops - last_->ops) / seconds;
    detector_.add(value);
  }
  last_ = now;
  return detector_.done();
}

SteadyStateResult SteadySampler::result() const {
  return {.config = detector_.config(),
          .steady = detector_.steady(),
          .samples = detector_.samples(),
          .figures = detector_.figures(),
          .window = detector_.window(),
          .series = detector_.series(),
          .series_dropped = detector_.series_dropped()};
}

}  // namespace iobench::detail
