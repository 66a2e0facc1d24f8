#include "plugins/filebench/gamma.hpp"

#include <cmath>
#include <iobench/random_mix.hpp>
#include <numbers>

namespace iobench::plugins::filebench {

std::uint64_t Rng::next() noexcept { return splitmix64(state_); }

std::uint64_t Rng::below(std::uint64_t bound) noexcept {
  if (bound == 0) return 0;
  // Multiply-shift (Lemire): bias below 2^-64 x bound, irrelevant at fileset scale.
  __extension__ typedef unsigned __int128 Uint128;
  return static_cast<std::uint64_t>((static_cast<Uint128>(next()) * bound) >> 64);
}

double Rng::unit() noexcept {
  // 53 random bits, shifted by half a step so that neither 0 nor 1 is drawn.
  return (static_cast<double>(next() >> 11) + 0.5) * 0x1.0p-53;
}

double Rng::normal() noexcept {
  return std::sqrt(-2.0 * std::log(unit())) * std::cos(2.0 * std::numbers::pi * unit());
}

double Rng::gamma(double shape, double scale) noexcept {
  if (shape < 1.0) {
    // Gamma(a) = Gamma(a + 1) x U^(1/a).
    return gamma(shape + 1.0, scale) * std::pow(unit(), 1.0 / shape);
  }
  const double d = shape - 1.0 / 3.0;
  const double c = 1.0 / std::sqrt(9.0 * d);
  for (;;) {
    double x = 0;
    double v = 0;
    do {
      x = normal();
      v = 1.0 + c * x;
    } while (v <= 0);
    v = v * v * v;
    const double u = unit();
    if (u < 1.0 - 0.0331 * x * x * x * x) return d * v * scale;
    if (std::log(u) < 0.5 * x * x + d * (1.0 - v + std::log(v))) return d * v * scale;
  }
}

}  // namespace iobench::plugins::filebench
