#pragma once

/// Seeded random draws for the filebench interpreter: uniform integers and doubles from
/// SplitMix64, and gamma variates (Marsaglia & Tsang 2000, with Stuart's boost for shape < 1),
/// so the same seed gives the same fileset and op sequence on every build and platform.

#include <cstdint>

namespace iobench::plugins::filebench {

/// A small reproducible generator (SplitMix64 state).
class Rng {
 public:
  explicit Rng(std::uint64_t seed) noexcept : state_(seed) {}
  /// Next 64 random bits.
  std::uint64_t next() noexcept;
  /// Uniform in [0, bound); 0 when bound is 0.
  std::uint64_t below(std::uint64_t bound) noexcept;
  /// Uniform in (0, 1).
  double unit() noexcept;
  /// Standard normal (Box-Muller).
  double normal() noexcept;
  /// Gamma variate with shape `shape` (> 0) and scale `scale` (> 0): mean shape x scale,
  /// variance shape x scale^2. filebench's cvar-gamma(mean, gamma) is gamma(gamma, mean/gamma).
  double gamma(double shape, double scale) noexcept;

 private:
  std::uint64_t state_;
};

}  // namespace iobench::plugins::filebench
