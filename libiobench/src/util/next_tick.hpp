#pragma once
// The next tick of a fixed grid of times, for the runner's periodic work (progress reports,
// steady-state samples, ticks between suite runs).

namespace iobench::detail {

/// The first tick of the grid `next + k * period` (k >= 0) that lies after `now`: `next` itself
/// if it does. `Time` is ns as an unsigned integer or a std::chrono time point, `Period` its
/// difference type; period > 0. Computed, not stepped: a loop adding `period` until it passed
/// `now` ran (now - next) / period times, billions for a 1 ns progress interval behind by
/// seconds (a test's run took minutes so).
template <class Time, class Period>
[[nodiscard]] constexpr Time next_tick_after(Time next, Time now, Period period) {
  if (now < next) return next;
  return next + (((now - next) / period) + 1) * period;
}

}  // namespace iobench::detail
