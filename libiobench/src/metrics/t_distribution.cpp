// Student's t distribution (CDF and quantile) and Welch's unequal-variance t-test, for telling a
// change from run-to-run noise (`iobench compare`).
#include <cmath>
#include <iobench/statistics.hpp>
#include <limits>

namespace iobench {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Continued fraction of the regularized incomplete beta function I_x(a, b), evaluated with the
// modified Lentz method (Numerical Recipes, 3rd ed., 6.4 "betacf"); converges fast for
// x < (a + 1) / (a + b + 2).
double beta_continued_fraction(double a, double b, double x) {
  constexpr double kTiny = 1e-300;
  constexpr double kEpsilon = 1e-15;
  const double qab = a + b;
  const double qap = a + 1.0;
  const double qam = a - 1.0;
  double c = 1.0;
  double d = 1.0 - qab * x / qap;
  if (std::fabs(d) < kTiny) d = kTiny;
  d = 1.0 / d;
  double h = d;
  for (int m = 1; m <= 10'000; ++m) {
    const double m2 = 2.0 * m;
    double aa = m * (b - m) * x / ((qam + m2) * (a + m2));
    d = 1.0 + aa * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1.0 + aa / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1.0 / d;
    h *= d * c;
    aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
    d = 1.0 + aa * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1.0 + aa / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1.0 / d;
    const double delta = d * c;
    h *= delta;
    if (std::fabs(delta - 1.0) < kEpsilon) break;
  }
  return h;
}

// I_x(a, b), 0 <= x <= 1.
double regularized_incomplete_beta(double a, double b, double x) {
  if (x <= 0.0) return 0.0;
  if (x >= 1.0) return 1.0;
  const double log_front =
      std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x);
  const double front = std::exp(log_front);
  // The symmetry I_x(a, b) = 1 - I_{1-x}(b, a) keeps the fraction in its fast region.
  if (x < (a + 1.0) / (a + b + 2.0)) return front * beta_continued_fraction(a, b, x) / a;
  return 1.0 - front * beta_continued_fraction(b, a, 1.0 - x) / b;
}

}  // namespace

double student_t_cdf(double t, double degrees_of_freedom) noexcept {
  if (std::isnan(t) || !(degrees_of_freedom > 0)) return kNaN;
  if (std::isinf(t)) return t > 0 ? 1.0 : 0.0;
  // P(|T| > |t|) = I_{df / (df + t^2)}(df / 2, 1 / 2).
  const double x = degrees_of_freedom / (degrees_of_freedom + t * t);
  const double tail = 0.5 * regularized_incomplete_beta(degrees_of_freedom / 2.0, 0.5, x);
  return t > 0 ? 1.0 - tail : tail;
}

double student_t_quantile(double p, double degrees_of_freedom) noexcept {
  if (!(p > 0 && p < 1) || !(degrees_of_freedom > 0)) return kNaN;
  if (p == 0.5) return 0.0;
  // The distribution is symmetric: find the upper quantile of the smaller tail and mirror it.
  const double upper = p > 0.5 ? p : 1.0 - p;
  double low = 0.0;
  double high = 1.0;
  while (student_t_cdf(high, degrees_of_freedom) < upper && high < 1e300) high *= 2.0;
  // Bisection: the CDF is monotonic, so this cannot fail to converge; 200 halvings reach the
  // resolution of a double for any bracket found above.
  for (int i = 0; i < 200 && high - low > 1e-15 * high; ++i) {
    const double mid = low + (high - low) / 2.0;
    if (student_t_cdf(mid, degrees_of_freedom) < upper) {
      low = mid;
    } else {
      high = mid;
    }
  }
  const double q = low + (high - low) / 2.0;
  return p > 0.5 ? q : -q;
}

WelchTest welch_t_test(const SampleStats& a, const SampleStats& b, double confidence) noexcept {
  WelchTest test;
  if (a.count < 2 || b.count < 2 || !(confidence > 0 && confidence < 1)) return test;
  test.valid = true;
  const double na = static_cast<double>(a.count);
  const double nb = static_cast<double>(b.count);
  const double va = a.stddev * a.stddev / na;  // squared standard error of each mean
  const double vb = b.stddev * b.stddev / nb;
  const double difference = b.mean - a.mean;
  if (va + vb == 0.0) {
    // No spread on either side: any difference at all is beyond noise.
    test.degrees_of_freedom = na + nb - 2.0;
    test.t =
        difference == 0 ? 0.0 : std::copysign(std::numeric_limits<double>::infinity(), difference);
    test.p_value = difference == 0 ? 1.0 : 0.0;
  } else {
    test.t = difference / std::sqrt(va + vb);
    // Welch-Satterthwaite.
    test.degrees_of_freedom = (va + vb) * (va + vb) / (va * va / (na - 1.0) + vb * vb / (nb - 1.0));
    test.p_value = 2.0 * student_t_cdf(-std::fabs(test.t), test.degrees_of_freedom);
  }
  test.t_critical = student_t_quantile(1.0 - (1.0 - confidence) / 2.0, test.degrees_of_freedom);
  test.significant = test.p_value < 1.0 - confidence;
  return test;
}

}  // namespace iobench
