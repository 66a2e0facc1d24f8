#include <algorithm>
#include <iobench/lateness_trend.hpp>

namespace iobench {

void LatenessTrend::restart(std::uint64_t origin_ns) noexcept {
  windows_ = {};
  origin_ns_ = origin_ns;
  width_ns_ = kWindowNs;
}

void LatenessTrend::merge_until(std::uint64_t elapsed_ns) noexcept {
  while (elapsed_ns / width_ns_ >= kMaxWindows) {
    for (std::size_t i = 0; i < kMaxWindows / 2; ++i) {
      const Window& a = windows_[2 * i];
      const Window& b = windows_[2 * i + 1];
      Window merged = a.count == 0 || (b.count != 0 && b.max_ns > a.max_ns) ? b : a;
      merged.count = a.count + b.count;
      windows_[i] = merged;
    }
    for (std::size_t i = kMaxWindows / 2; i < kMaxWindows; ++i) windows_[i] = Window{};
    width_ns_ *= 2;
  }
}

std::size_t LatenessTrend::windows() const noexcept {
  return static_cast<std::size_t>(std::count_if(windows_.begin(), windows_.end(),
                                                [](const Window& w) { return w.count != 0; }));
}

double LatenessTrend::slope() const noexcept {
  // Every pair of windows holding ops: at most 16 x 15 / 2 = 120 slopes, on the stack.
  std::array<double, kMaxWindows*(kMaxWindows - 1) / 2> slopes{};
  std::size_t n = 0;
  for (std::size_t i = 0; i < kMaxWindows; ++i) {
    const Window& a = windows_[i];
    if (a.count == 0) continue;
    for (std::size_t j = i + 1; j < kMaxWindows; ++j) {
      const Window& b = windows_[j];
      if (b.count == 0 || b.at_ns == a.at_ns) continue;
      slopes[n++] = (static_cast<double>(b.max_ns) - static_cast<double>(a.max_ns)) /
                    (static_cast<double>(b.at_ns) - static_cast<double>(a.at_ns));
    }
  }
  if (n == 0) return 0;
  const auto middle = slopes.begin() + static_cast<std::ptrdiff_t>(n / 2);
  std::nth_element(slopes.begin(), middle, slopes.begin() + static_cast<std::ptrdiff_t>(n));
  if (n % 2 == 1) return *middle;
  const double upper = *middle;
  const double lower = *std::max_element(slopes.begin(), middle);
  return (lower + upper) / 2;
}

}  // namespace iobench
