// Student's t CDF and quantile against closed forms, printed table values and Boost.Math (used
// here only, as an independent reference); Welch's test against R's t.test.
#include <boost/math/distributions/students_t.hpp>
#include <catch2/catch.hpp>
#include <cmath>
#include <iobench/statistics.hpp>
#include <numbers>
#include <vector>

using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;

namespace {

iobench::SampleStats stats_of(const std::vector<double>& values) {
  return iobench::summarize_sample(values);
}

}  // namespace

TEST_CASE("t CDF equals the closed forms of 1 and 2 degrees of freedom", "[compare][t]") {
  for (const double t : {-50.0, -3.0, -1.0, -0.25, 0.0, 0.4, 1.0, 2.5, 12.706, 1e3}) {
    INFO("t = " << t);
    // df 1 is the Cauchy distribution; df 2 has F(t) = 1/2 + t / (2 sqrt(2 + t^2)).
    CHECK_THAT(iobench::student_t_cdf(t, 1),
               WithinAbs(0.5 + std::atan(t) / std::numbers::pi, 1e-13));
    CHECK_THAT(iobench::student_t_cdf(t, 2),
               WithinAbs(0.5 + t / (2 * std::sqrt(2 + t * t)), 1e-13));
  }
  CHECK(iobench::student_t_cdf(INFINITY, 3) == 1.0);
  CHECK(iobench::student_t_cdf(-INFINITY, 3) == 0.0);
  CHECK(std::isnan(iobench::student_t_cdf(1.0, 0)));
  CHECK(std::isnan(iobench::student_t_cdf(NAN, 4)));
}

TEST_CASE("t quantiles equal the table values", "[compare][t]") {
  // Two-sided 95 % (p = 0.975), to the digits statistics tables print.
  CHECK_THAT(iobench::student_t_quantile(0.975, 1), WithinAbs(12.7062047, 5e-7));
  CHECK_THAT(iobench::student_t_quantile(0.975, 2), WithinAbs(4.3026527, 5e-7));
  CHECK_THAT(iobench::student_t_quantile(0.975, 5), WithinAbs(2.5705818, 5e-7));
  CHECK_THAT(iobench::student_t_quantile(0.975, 10), WithinAbs(2.2281389, 5e-7));
  CHECK_THAT(iobench::student_t_quantile(0.975, 30), WithinAbs(2.0422725, 5e-7));
  CHECK_THAT(iobench::student_t_quantile(0.975, 120), WithinAbs(1.9799304, 5e-7));
  CHECK_THAT(iobench::student_t_quantile(0.975, 1e9), WithinAbs(1.9599640, 5e-7));  // normal
  CHECK_THAT(iobench::student_t_quantile(0.995, 10), WithinAbs(3.1692727, 5e-7));
  CHECK_THAT(iobench::student_t_quantile(0.95, 4), WithinAbs(2.1318468, 5e-7));
  CHECK_THAT(iobench::student_t_quantile(0.025, 10), WithinAbs(-2.2281389, 5e-7));
  CHECK(iobench::student_t_quantile(0.5, 7) == 0.0);
  // The 3-decimal table the suite statistics use, for every df it lists.
  for (std::size_t df = 1; df <= 30; ++df) {
    INFO("df = " << df);
    CHECK_THAT(iobench::student_t_quantile(0.975, static_cast<double>(df)),
               WithinAbs(iobench::student_t_975(df), 5.0001e-4));
  }
  CHECK(std::isnan(iobench::student_t_quantile(0.0, 3)));
  CHECK(std::isnan(iobench::student_t_quantile(1.0, 3)));
  CHECK(std::isnan(iobench::student_t_quantile(0.9, -1)));
}

TEST_CASE("t CDF and quantile agree with Boost.Math at fractional df", "[compare][t]") {
  for (const double df : {1.3, 2.0, 3.7, 8.25, 17.776, 24.96, 99.5, 1000.0}) {
    const boost::math::students_t reference(df);
    for (const double p : {0.001, 0.025, 0.1, 0.6, 0.9, 0.975, 0.995, 0.9995}) {
      INFO("df = " << df << ", p = " << p);
      const double t = boost::math::quantile(reference, p);
      CHECK_THAT(iobench::student_t_quantile(p, df), WithinRel(t, 1e-9));
      CHECK_THAT(iobench::student_t_cdf(t, df), WithinAbs(p, 1e-12));
    }
  }
}

TEST_CASE("Welch's test gives R's t.test figures for the sleep data", "[compare][welch]") {
  // R: t.test(extra ~ group, data = sleep): t = -1.8608, df = 17.776, p-value = 0.07939.
  const std::vector<double> group1{0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0};
  const std::vector<double> group2{1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4};
  const iobench::WelchTest test = iobench::welch_t_test(stats_of(group2), stats_of(group1));
  REQUIRE(test.valid);
  CHECK_THAT(test.t, WithinAbs(-1.8608, 5e-5));
  CHECK_THAT(test.degrees_of_freedom, WithinAbs(17.776, 5e-4));
  CHECK_THAT(test.p_value, WithinAbs(0.07939, 5e-6));
  CHECK_THAT(
      test.t_critical,
      WithinAbs(boost::math::quantile(boost::math::students_t(test.degrees_of_freedom), 0.975),
                1e-9));
  CHECK_FALSE(test.significant);  // p > 0.05
  // Swapping the sides flips t only.
  const iobench::WelchTest swapped = iobench::welch_t_test(stats_of(group1), stats_of(group2));
  CHECK_THAT(swapped.t, WithinAbs(1.8608, 5e-5));
  CHECK(swapped.p_value == test.p_value);
  // At 90 % the same difference is significant (p = 0.079 < 0.10).
  CHECK(iobench::welch_t_test(stats_of(group2), stats_of(group1), 0.90).significant);
}

TEST_CASE("Welch's test of samples without spread, and of single runs", "[compare][welch]") {
  const iobench::WelchTest equal = iobench::welch_t_test(stats_of({5, 5, 5}), stats_of({5, 5}));
  CHECK(equal.valid);
  CHECK(equal.t == 0.0);
  CHECK(equal.p_value == 1.0);
  CHECK(equal.degrees_of_freedom == 3.0);
  CHECK_FALSE(equal.significant);
  const iobench::WelchTest apart = iobench::welch_t_test(stats_of({5, 5, 5}), stats_of({6, 6}));
  CHECK(std::isinf(apart.t));
  CHECK(apart.t > 0);
  CHECK(apart.p_value == 0.0);
  CHECK(apart.significant);
  // One side without spread: df is the other side's n - 1.
  const iobench::WelchTest one_sided =
      iobench::welch_t_test(stats_of({5, 5, 5}), stats_of({4, 6, 5, 7}));
  CHECK_THAT(one_sided.degrees_of_freedom, WithinAbs(3.0, 1e-12));
  CHECK_FALSE(iobench::welch_t_test(stats_of({5}), stats_of({4, 6})).valid);
  CHECK_FALSE(iobench::welch_t_test(stats_of({4, 6}), stats_of({})).valid);
}
