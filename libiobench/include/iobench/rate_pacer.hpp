#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace iobench {

class WorkerContext;

/// How an open-loop worker's ops arrive.
enum class Arrivals {
  kUniform,  ///< evenly spaced: op k is due at start + k / rate
  kPoisson,  ///< a Poisson process: exponentially distributed gaps with the same mean
};
/// "uniform", "poisson".
[[nodiscard]] const char* to_string(Arrivals arrivals) noexcept;
/// Parses "uniform" or "poisson". Throws ConfigError naming `param` and `text`.
[[nodiscard]] Arrivals parse_arrivals(std::string_view text, std::string_view param);

/// A per-worker rate: ops per second or bytes per second (one of them, > 0).
struct RateLimit {
  double ops_per_s = 0;
  double bytes_per_s = 0;
  Arrivals arrivals = Arrivals::kUniform;
  /// True if a rate is set.
  [[nodiscard]] bool active() const noexcept { return ops_per_s > 0 || bytes_per_s > 0; }
};

/// The schedule of an open-loop worker: when each op is due, whatever the storage does. A late
/// op does not move the ops after it (unlike a closed loop that waits for each completion), so
/// the latency measured from the intended issue time shows a stall to every op it delays
/// (no coordinated omission). Per worker; no allocation; not thread-safe.
class RatePacer {
 public:
  /// REQUIRES: limit.active(). `seed` drives the Poisson gaps (reported with the worker).
  RatePacer(const RateLimit& limit, std::uint64_t seed) noexcept;
  /// Begins the schedule: the first op is due at `start_ns` (CLOCK_MONOTONIC).
  void start(std::uint64_t start_ns) noexcept;
  /// The intended issue time (ns, CLOCK_MONOTONIC) of the next op, which moves `bytes` bytes,
  /// and advances the schedule past it.
  [[nodiscard]] std::uint64_t next(std::uint64_t bytes) noexcept;
  /// Ops due at or before `now_ns` that next() has not handed out yet (the backlog left when a
  /// worker stops behind schedule). For a bytes-per-second rate, `bytes_per_op` sizes them.
  [[nodiscard]] std::uint64_t due_by(std::uint64_t now_ns,
                                     std::uint64_t bytes_per_op) const noexcept;
  /// When the op after the last one next() handed out would be due (ns, CLOCK_MONOTONIC): the
  /// end of that last op's interval. N ops from start() span [start, next_due_ns()), N / rate
  /// seconds on average.
  [[nodiscard]] std::uint64_t next_due_ns() const noexcept {
    return static_cast<std::uint64_t>(next_ns_);
  }

  /// Pacing by the bytes already moved, as dbench -R paces its clients (dbench 4.0 child.c):
  /// advances the schedule by the time `bytes` (moved since the previous call) take at the rate
  /// and returns when the next op is due (ns, CLOCK_MONOTONIC). Paired with rebase().
  [[nodiscard]] std::uint64_t advance(std::uint64_t bytes) noexcept;
  /// Moves the schedule to `issued_ns` if that is later: the ops after a late one are then due
  /// relative to when it really started, so lateness is forgiven, not caught up (dbench -R's
  /// closed loop; the open loop of next() never does this).
  void rebase(std::uint64_t issued_ns) noexcept;

 private:
  [[nodiscard]] double gap_ns(std::uint64_t bytes) noexcept;

  RateLimit limit_;
  std::uint64_t rng_;
  double next_ns_ = 0;
};

/// Sleeps until `deadline_ns` (CLOCK_MONOTONIC) with a timer slack of 1 us, in slices of at most
/// 50 ms so that ctx.keep_going() is polled (a stop or the end of the phase ends the wait).
/// Returns false if the worker must stop.
[[nodiscard]] bool sleep_until(WorkerContext& ctx, std::uint64_t deadline_ns) noexcept;

/// An open-loop worker that ran out of ops (its last op, or its op limit) waits until
/// `deadline_ns` (RatePacer::next_due_ns(): the end of its last op's interval), so that N ops at
/// R per second span N / R seconds and the rate reported over the worker's window is R, not the
/// R x N / (N - 1) of a window ending at the last op's issue. Returns at once once
/// WorkerContext::phase_ended() (time limit, stop, another worker failed); 50 ms slices as
/// sleep_until().
void wait_out_interval(WorkerContext& ctx, std::uint64_t deadline_ns) noexcept;

}  // namespace iobench
