#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>

#include "plugins/disk/block_order.hpp"

namespace iobench::plugins::disk {

/// A uniform double in (0, 1] from 53 random bits.
[[nodiscard]] inline double unit_interval(std::uint64_t& state) noexcept {
  return (static_cast<double>(splitmix64(state) >> 11) + 1.0) * 0x1.0p-53;
}

/// Zipf-distributed ranks in [0, n): rank k (0-based) with probability proportional to
/// 1 / (k+1)^theta, exactly, for any theta > 0, in O(1) time and memory per draw. Rejection-
/// inversion sampling (W. Hörmann and G. Derflinger, "Rejection-inversion to generate variates
/// from monotone discrete distributions", ACM TOMACS 6(3), 1996): invert the integral H of the
/// continuous hat x^-theta over [k - 1/2, k + 1/2] and accept most draws at once. fio's zipf
/// (Gray et al.'s approximation, with its zeta sum capped at 10^7 terms) is close to this for
/// large n; this one has no cap and no approximation.
class ZipfRanks {
 public:
  /// REQUIRES: n >= 1, theta > 0.
  ZipfRanks(std::uint64_t n, double theta, std::uint64_t seed) noexcept
      : n_(static_cast<double>(n)), theta_(theta), state_(seed) {
    h_x1_ = big_h(1.5) - 1.0;
    h_n_ = big_h(n_ + 0.5);
    s_ = 2.0 - big_h_inverse(big_h(2.5) - h(2.0));
  }

  /// The next rank, in [0, n).
  [[nodiscard]] std::uint64_t next() noexcept {
    while (true) {
      const double u = h_n_ + unit_interval(state_) * (h_x1_ - h_n_);
      const double x = big_h_inverse(u);
      double k = std::floor(x + 0.5);
      if (k < 1) k = 1;
      if (k > n_) k = n_;
      if (k - x <= s_ || u >= big_h(k + 0.5) - h(k)) return static_cast<std::uint64_t>(k) - 1;
    }
  }

 private:
  // h(x) = x^-theta; H(x) = integral of h from 1 to x, written with log1p/expm1 helpers so that
  // theta = 1 (where H is log x) and theta near 1 stay accurate.
  [[nodiscard]] double h(double x) const noexcept { return std::exp(-theta_ * std::log(x)); }
  [[nodiscard]] double big_h(double x) const noexcept {
    const double log_x = std::log(x);
    return helper2((1.0 - theta_) * log_x) * log_x;
  }
  [[nodiscard]] double big_h_inverse(double x) const noexcept {
    double t = x * (1.0 - theta_);
    if (t < -1.0) t = -1.0;  // rounding at the edge of the domain
    return std::exp(helper1(t) * x);
  }
  // log1p(x) / x, and 1 at x = 0.
  [[nodiscard]] static double helper1(double x) noexcept {
    return std::abs(x) > 1e-8 ? std::log1p(x) / x : 1.0 - x * (0.5 - x / 3.0);
  }
  // expm1(x) / x, and 1 at x = 0.
  [[nodiscard]] static double helper2(double x) noexcept {
    return std::abs(x) > 1e-8 ? std::expm1(x) / x : 1.0 + x * 0.5 * (1.0 + x / 3.0);
  }

  double n_;
  double theta_;
  std::uint64_t state_;
  double h_x1_ = 0;
  double h_n_ = 0;
  double s_ = 0;
};

/// Pareto-distributed ranks in [0, n) as fio defines "pareto:h": a fraction h of the ranks (the
/// lowest) receives a fraction 1 - h of the draws (h = 0.2: the 80/20 rule), by rank =
/// floor(n * u^(ln h / ln(1 - h))) for u uniform in (0, 1].
class ParetoRanks {
 public:
  /// REQUIRES: n >= 1, 0 < h < 1.
  ParetoRanks(std::uint64_t n, double h, std::uint64_t seed) noexcept
      : n_(n), power_(std::log(h) / std::log(1.0 - h)), state_(seed) {}

  /// The next rank, in [0, n).
  [[nodiscard]] std::uint64_t next() noexcept {
    const double x = static_cast<double>(n_) * std::pow(unit_interval(state_), power_);
    const auto k = static_cast<std::uint64_t>(x);
    return k < n_ ? k : n_ - 1;
  }

 private:
  std::uint64_t n_;
  double power_;
  std::uint64_t state_;
};

/// How a random disk phase picks its blocks (the `random_order` param).
struct BlockDistribution {
  enum class Kind { kPermutation, kUniform, kZipf, kPareto };
  Kind kind = Kind::kPermutation;
  double parameter = 0;  ///< zipf: theta; pareto: h

  /// "permutation", "uniform", "zipf:1.2", "pareto:0.2".
  [[nodiscard]] std::string to_string() const;
  /// Parses the forms to_string() writes. Throws ConfigError naming `param`, the text and the
  /// valid forms (zipf needs theta > 0; pareto needs 0 < h < 1).
  [[nodiscard]] static BlockDistribution parse(std::string_view text, std::string_view param);
};

/// The blocks of one pass of a phase, in the phase's order: sequential, a permutation (every
/// block once), or `count` draws from a distribution over [0, blocks). Skewed distributions are
/// spread over the file: rank r maps to block permutation(r), so the hot blocks are not simply
/// the first ones (fio hashes its ranks for the same reason). O(1) memory; next() is inline.
class BlockOrder {
 public:
  /// REQUIRES: blocks >= 1. `sequential` ignores `distribution`.
  BlockOrder(bool sequential, const BlockDistribution& distribution, std::uint64_t blocks,
             std::uint64_t seed) noexcept
      : kind_(sequential ? Kind::kSequential : static_cast<Kind>(distribution.kind)),
        permutation_(blocks, seed ^ 0x5bd1e995ULL),
        uniform_(blocks, seed),
        zipf_(blocks,
              distribution.kind == BlockDistribution::Kind::kZipf ? distribution.parameter : 1.0,
              seed),
        pareto_(
            blocks,
            distribution.kind == BlockDistribution::Kind::kPareto ? distribution.parameter : 0.5,
            seed) {}

  /// The block of the i-th op of the pass (i < blocks; the random kinds ignore i). The plain
  /// orders (sequential, permutation, uniform) are computed inline where it is called (the
  /// I/O loop: a call out of a shared library costs a PLT jump per op); the skewed ones, which
  /// take a logarithm and a power per draw anyway, are called.
  [[nodiscard, gnu::always_inline]] std::uint64_t block(std::uint64_t i) noexcept {
    switch (kind_) {
      case Kind::kSequential:
        return i;
      case Kind::kPermutation:
        return permutation_.at(i);
      case Kind::kUniform:
        return uniform_.next();
      case Kind::kZipf:
      case Kind::kPareto:
        return skewed_block();
    }
    return i;
  }

 private:
  [[gnu::noinline]] std::uint64_t skewed_block() noexcept {
    return permutation_.at(kind_ == Kind::kZipf ? zipf_.next() : pareto_.next());
  }

  // The first four values mirror BlockDistribution::Kind, so the constructor can cast.
  enum class Kind { kPermutation, kUniform, kZipf, kPareto, kSequential };

  Kind kind_;
  BlockPermutation permutation_;
  UniformBlocks uniform_;
  ZipfRanks zipf_;
  ParetoRanks pareto_;
};

}  // namespace iobench::plugins::disk
