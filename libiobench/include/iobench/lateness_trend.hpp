#pragma once

/// LatenessTrend: how fast an open-loop worker falls behind its schedule. Above a target's
/// ceiling an open loop's ops wait in a backlog that grows by (rate - ceiling) / rate of the
/// elapsed time; below it the wait stays bounded. The trend keeps, per window of time, the
/// largest lateness seen (how late an op completed past its scheduled issue time, the open
/// loop's response time) and fits a Theil-Sen slope through those maxima (the median of the
/// slopes between every pair of windows), so a few isolated stalls make no trend. Memory is
/// bounded: windows start kWindowNs wide and, once more than kMaxWindows would be needed,
/// neighbouring pairs are merged (their larger maximum kept) and the width doubles.
/// Per worker; no allocation; not thread-safe (one writer, read after the worker ended).

#include <array>
#include <cstddef>
#include <cstdint>

namespace iobench {

class LatenessTrend {
 public:
  /// The first windows' width (ns).
  static constexpr std::uint64_t kWindowNs = 50'000'000;
  /// Windows kept at most; beyond, pairs are merged.
  static constexpr std::size_t kMaxWindows = 16;

  /// Records an op that completed at `now_ns` (CLOCK_MONOTONIC) `lateness_ns` after its
  /// scheduled issue time, in a recording that began at `origin_ns` (windows count from there).
  /// An origin other than the previous call's starts the trend over (a warm-up ended and the
  /// measurement began); a sample before the origin is ignored.
  void record(std::uint64_t origin_ns, std::uint64_t now_ns, std::uint64_t lateness_ns) noexcept {
    if (origin_ns != origin_ns_) restart(origin_ns);
    if (now_ns < origin_ns) return;
    std::uint64_t index = (now_ns - origin_ns) / width_ns_;
    if (index >= kMaxWindows) [[unlikely]] {
      merge_until(now_ns - origin_ns);
      index = (now_ns - origin_ns) / width_ns_;
    }
    Window& w = windows_[index];
    if (w.count == 0 || lateness_ns > w.max_ns) {
      w.max_ns = lateness_ns;
      w.at_ns = now_ns - origin_ns;
    }
    ++w.count;
  }

  /// Forgets everything; windows count from `origin_ns` again.
  void restart(std::uint64_t origin_ns) noexcept;

  /// The Theil-Sen slope of the windows' largest lateness over the time each was seen: ns of
  /// lateness gained per ns elapsed (0.02: 2 % of the elapsed time), negative when it shrinks;
  /// 0 with fewer than 2 windows holding an op.
  [[nodiscard]] double slope() const noexcept;

  /// The current windows' width (ns): kWindowNs doubled once per merge.
  [[nodiscard]] std::uint64_t window_ns() const noexcept { return width_ns_; }
  /// Windows holding at least one op.
  [[nodiscard]] std::size_t windows() const noexcept;

 private:
  struct Window {
    std::uint64_t max_ns = 0;  ///< the largest lateness in the window
    std::uint64_t at_ns = 0;   ///< when it was seen, from the origin
    std::uint64_t count = 0;   ///< ops recorded in the window
  };
  // Merges neighbouring windows until `elapsed_ns` falls in the last one kept.
  void merge_until(std::uint64_t elapsed_ns) noexcept;

  std::array<Window, kMaxWindows> windows_{};
  std::uint64_t origin_ns_ = 0;
  std::uint64_t width_ns_ = kWindowNs;
};

}  // namespace iobench
