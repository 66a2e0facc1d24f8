// IO500's score on recorded phase figures, its result lines, and one [INVALID] case per rule.

#include "plugins/io500/score.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <iobench/error.hpp>
#include <sstream>
#include <string>
#include <vector>

using namespace iobench::plugins::io500;

namespace {

// A full run's figures: ior phases 2, 8, 4, 1 GiB/s (product 64, geometric mean 2^1.5); mdtest
// and find 10, 1000, 100, 100, 10, 1000, 100, 100 kIOPS (product 10^16, geometric mean 100).
// Every write phase ran longer than 300 s.
std::vector<PhaseFigure> recorded() {
  return {{"ior-easy-write", 2.0, 301.5, "", ""},
          {"mdtest-easy-write", 10.0, 305.25, "", ""},
          {"ior-hard-write", 8.0, 300.0, "", ""},
          {"mdtest-hard-write", 1000.0, 330.0, "", ""},
          {"find", 100.0, 12.5, "", ""},
          {"ior-easy-read", 4.0, 150.0, "", ""},
          {"mdtest-easy-stat", 100.0, 40.0, "", ""},
          {"ior-hard-read", 1.0, 99.999, "", ""},
          {"mdtest-hard-stat", 10.0, 60.0, "", ""},
          {"mdtest-easy-delete", 1000.0, 20.0, "", ""},
          {"mdtest-hard-read", 100.0, 30.0, "", ""},
          {"mdtest-hard-delete", 100.0, 10.0, "", ""}};
}

std::string lines(const Io500Score& s) {
  std::ostringstream out;
  write_result_lines(s, out);
  return out.str();
}

PhaseFigure& phase(std::vector<PhaseFigure>& figures, const std::string& name) {
  for (PhaseFigure& f : figures)
    if (f.name == name) return f;
  FAIL("no phase " << name);
  return figures.front();
}

}  // namespace

TEST_CASE("io500 score of recorded phase figures equals the hand-computed value") {
  const Io500Score s = compute_score(recorded(), ValidityRules{});
  // bandwidth = 64^(1/4) = 2^1.5; metadata = (10^16)^(1/8) = 100; total = sqrt(2^1.5 x 100).
  CHECK(s.bandwidth_gib_s == Approx(std::pow(2.0, 1.5)).epsilon(1e-12));
  CHECK(s.metadata_kiops == Approx(100.0).epsilon(1e-12));
  CHECK(s.total == Approx(10.0 * std::pow(2.0, 0.75)).epsilon(1e-12));
  CHECK(s.valid());
  const std::string text = lines(s);
  CHECK(text.find("[RESULT]       ior-easy-write        2.000000 GiB/s : time 301.500 seconds\n") ==
        0);
  CHECK(
      text.find("\n[RESULT]    mdtest-easy-write       10.000000 kIOPS : time 305.250 seconds\n") !=
      std::string::npos);
  CHECK(
      text.find("\n[RESULT]                 find      100.000000 kIOPS : time 12.500 seconds\n") !=
      std::string::npos);
  CHECK(
      text.find("\n[RESULT]        ior-hard-read        1.000000 GiB/s : time 99.999 seconds\n") !=
      std::string::npos);
  const std::string score_line =
      "[SCORE ] Bandwidth 2.828427 GiB/s : IOPS 100.000000 kiops : TOTAL 16.817928\n";
  CHECK(text.size() > score_line.size());
  CHECK(text.substr(text.size() - score_line.size()) == score_line);
  CHECK(text.find("INVALID") == std::string::npos);
}

TEST_CASE("io500 unit conversions are GiB/s of bytes and kIOPS of items") {
  CHECK(gib_per_s(3ULL << 30, 2.0) == 1.5);
  CHECK(kiops(4500, 1.5) == 3.0);
  CHECK(gib_per_s(1 << 20, 0.0) == 0.0);
  CHECK(kiops(10, 0.0) == 0.0);
  CHECK(is_bandwidth_phase("ior-hard-read"));
  CHECK_FALSE(is_bandwidth_phase("find"));
  CHECK(is_timed_write_phase("mdtest-hard-write"));
  CHECK_FALSE(is_timed_write_phase("mdtest-hard-read"));
  CHECK_FALSE(is_timed_write_phase("find"));
}

TEST_CASE("io500 INVALID when a write phase ran less than the stonewall time") {
  std::vector<PhaseFigure> figures = recorded();
  phase(figures, "mdtest-hard-write").seconds = 4.2;
  const Io500Score list = compute_score(figures, ValidityRules{});
  REQUIRE(list.invalid_reasons.size() == 1);
  CHECK(list.invalid_reasons[0] ==
        "mdtest-hard-write: it ran 4.200 s, less than the required stonewall time of 300 s");
  const std::string text = lines(list);
  CHECK(
      text.find(
          "[RESULT]    mdtest-hard-write     1000.000000 kIOPS : time 4.200 seconds [INVALID]\n") !=
      std::string::npos);
  CHECK(text.find("TOTAL 16.817928 [INVALID]\n[INVALID] mdtest-hard-write: it ran 4.200 s") !=
        std::string::npos);
  // The score itself is unchanged: validity never alters the figures.
  CHECK(list.total == Approx(10.0 * std::pow(2.0, 0.75)).epsilon(1e-12));

  // A local test's stonewall param: 4.2 s is enough for 4 s, not for 5 s; reads never count.
  for (PhaseFigure& f : figures) f.seconds = 4.2;
  // (a stonewall other than 300 s is itself a reason, the last one, as IO500's invalid run).
  const Io500Score four = compute_score(figures, ValidityRules{4.0, false});
  REQUIRE(four.invalid_reasons.size() == 1);
  CHECK(four.invalid_reasons[0] == "stonewall: 4 s; the list requires stonewall=300s");
  const Io500Score five = compute_score(figures, ValidityRules{5.0, false});
  CHECK(five.invalid_reasons.size() == 5);
  CHECK(five.invalid_reasons[0] ==
        "ior-easy-write: it ran 4.200 s, less than the required stonewall time of 5 s");
  CHECK(five.invalid_reasons[4] == "stonewall: 5 s; the list requires stonewall=300s");
}

TEST_CASE("io500 INVALID when the stonewall time is not 300 s though every phase is valid") {
  // Every write phase ran 400 s, longer than either stonewall: only the rule marks the run.
  std::vector<PhaseFigure> figures = recorded();
  for (PhaseFigure& f : figures) f.seconds = 400.0;
  CHECK(compute_score(figures, ValidityRules{300.0, false}).valid());
  const Io500Score s = compute_score(figures, ValidityRules{5.0, false});
  REQUIRE(s.invalid_reasons.size() == 1);
  CHECK(s.invalid_reasons[0] == "stonewall: 5 s; the list requires stonewall=300s");
  const std::string text = lines(s);
  CHECK(text.find("TOTAL 16.817928 [INVALID]\n[INVALID] stonewall: 5 s; the list requires "
                  "stonewall=300s\n") != std::string::npos);
  CHECK(text.find("seconds [INVALID]") == std::string::npos);  // no phase is marked
  const Io500Score longer = compute_score(figures, ValidityRules{360.0, false});
  REQUIRE(longer.invalid_reasons.size() == 1);
  CHECK(longer.invalid_reasons[0] == "stonewall: 360 s; the list requires stonewall=300s");
}

TEST_CASE("io500 INVALID when a phase failed") {
  std::vector<PhaseFigure> figures = recorded();
  phase(figures, "ior-hard-read").failure = "pread ior-hard/file: Input/output error";
  const Io500Score s = compute_score(figures, ValidityRules{});
  REQUIRE(s.invalid_reasons.size() == 1);
  CHECK(s.invalid_reasons[0] ==
        "ior-hard-read: the phase failed: pread ior-hard/file: Input/output error");
  CHECK(lines(s).find("time 99.999 seconds [INVALID]\n") != std::string::npos);
  CHECK_FALSE(s.valid());
}

TEST_CASE("io500 INVALID when a phase scored 0, which is left out of its group's mean") {
  std::vector<PhaseFigure> figures = recorded();
  phase(figures, "ior-easy-read").score = 0;  // the ior group is now 2 x 8 x 1 = 16, mean 16^(1/3)
  const Io500Score s = compute_score(figures, ValidityRules{});
  REQUIRE(s.invalid_reasons.size() == 1);
  CHECK(s.invalid_reasons[0] == "ior-easy-read: its score is 0.000000, not above 0");
  CHECK(s.bandwidth_gib_s == Approx(std::cbrt(16.0)).epsilon(1e-12));
}

TEST_CASE("io500 INVALID when the phase's own figure is not valid") {
  std::vector<PhaseFigure> figures = recorded();
  phase(figures, "find").invalid = "find matched none of the 12 entries it examined";
  const Io500Score s = compute_score(figures, ValidityRules{});
  REQUIRE(s.invalid_reasons.size() == 1);
  CHECK(s.invalid_reasons[0] == "find: find matched none of the 12 entries it examined");
}

TEST_CASE("io500 INVALID when a list phase did not run") {
  std::vector<PhaseFigure> figures = recorded();
  figures.pop_back();
  const Io500Score s = compute_score(figures, ValidityRules{});
  REQUIRE(s.invalid_reasons.size() == 1);
  CHECK(s.invalid_reasons[0] == "mdtest-hard-delete: the phase did not run");
  CHECK(lines(s).find("[SCORE ] Bandwidth 2.828427 GiB/s") != std::string::npos);
}

TEST_CASE("io500-quick is never valid for the list even when every phase is") {
  const Io500Score s = compute_score(recorded(), ValidityRules{300.0, true});
  REQUIRE(s.invalid_reasons.size() == 1);
  CHECK(s.invalid_reasons[0] ==
        "io500-quick: small sizes and short stonewalls, never valid for the list");
  const std::string text = lines(s);
  CHECK(text.find("TOTAL 16.817928 [INVALID]\n") != std::string::npos);
  CHECK(text.find("seconds [INVALID]") == std::string::npos);  // no phase is marked
}

TEST_CASE("io500 a group with no phase above 0 scores 0 and so does the total") {
  std::vector<PhaseFigure> figures = recorded();
  for (PhaseFigure& f : figures)
    if (is_bandwidth_phase(f.name)) f.score = 0;
  const Io500Score s = compute_score(figures, ValidityRules{});
  CHECK(s.bandwidth_gib_s == 0.0);
  CHECK(s.metadata_kiops == Approx(100.0).epsilon(1e-12));
  CHECK(s.total == 0.0);
  CHECK(s.invalid_reasons.size() == 4);
}

TEST_CASE("io500 a negative or NaN stonewall time is refused") {
  CHECK_THROWS_AS(compute_score(recorded(), ValidityRules{-1.0, false}), iobench::ConfigError);
  CHECK_THROWS_WITH(compute_score(recorded(), ValidityRules{std::nan(""), false}),
                    Catch::Contains("give a number of seconds >= 0"));
}

TEST_CASE("io500 score of a published run's phase figures reproduces its SCORE line") {
  // The twelve [RESULT] figures of a public IO500 run report (80 ranks on BeeGFS, every write
  // phase past 300 s) and the line IO500 printed for them:
  // [SCORE ] Bandwidth 4.444457 GiB/s : IOPS 37.951332 kiops : TOTAL 12.987419
  const std::vector<PhaseFigure> published = {{"ior-easy-write", 23.687935, 739.905},
                                              {"mdtest-easy-write", 38.139993, 670.869},
                                              {"ior-hard-write", 0.568578, 812.956},
                                              {"mdtest-hard-write", 7.396336, 308.282},
                                              {"find", 719.930943, 38.576},
                                              {"ior-easy-read", 21.943803, 798.094},
                                              {"mdtest-easy-stat", 64.363341, 397.489},
                                              {"ior-hard-read", 1.320218, 350.188},
                                              {"mdtest-hard-stat", 48.614078, 47.791},
                                              {"mdtest-easy-delete", 42.882619, 620.362},
                                              {"mdtest-hard-read", 23.889776, 96.101},
                                              {"mdtest-hard-delete", 6.610496, 349.272}};
  const Io500Score s = compute_score(published, ValidityRules{});
  CHECK(s.valid());
  const std::string text = lines(s);
  CHECK(
      text.find("\n[SCORE ] Bandwidth 4.444457 GiB/s : IOPS 37.951332 kiops : TOTAL 12.987419\n") !=
      std::string::npos);
  CHECK(text.find("[RESULT]       ior-hard-write        0.568578 GiB/s : time 812.956 seconds\n") !=
        std::string::npos);
}
