#pragma once

// What the PTS tests check of a pts step's JSON: every cell measured every round, bytes = ops x
// block size, the matrix the mean of the window rounds, and the steady-state window recomputed
// from the tracked cell's rounds by PTS's rule.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "plugins/disk/pts_config.hpp"
#include "tests/support/test_support.hpp"

namespace iobench::pts_test {

using Json = nlohmann::json;
using iobench::plugins::disk::pts_block_size_text;

inline double attribute(const Json& step, const std::string& key) {
  INFO(key);
  REQUIRE(step.at("attributes").contains(key));
  return step.at("attributes").at(key).get<double>();
}

inline std::string text_attribute(const Json& step, const std::string& key) {
  INFO(key);
  REQUIRE(step.at("attributes").contains(key));
  return step.at("attributes").at(key).get<std::string>();
}

inline const Json& phase_named(const Json& step, const std::string& name) {
  for (const Json& phase : step.at("phases")) {
    if (phase.at("name") == name) return phase;
  }
  FAIL("no phase " << name);
  throw std::logic_error("unreachable");
}

// PTS's window figures recomputed: data excursion and best-fit excursion in % of the mean.
struct Window {
  double mean = 0;
  double data_excursion = 0;
  double fit_excursion = 0;
  double slope = 0;
};

inline Window judge(const std::vector<double>& values) {
  Window w;
  const auto n = static_cast<double>(values.size());
  double sum_xy = 0;
  double sum_x = 0;
  double sum_xx = 0;
  for (std::size_t i = 0; i < values.size(); ++i) {
    const auto x = static_cast<double>(i);
    w.mean += values[i] / n;
    sum_x += x;
    sum_xx += x * x;
  }
  for (std::size_t i = 0; i < values.size(); ++i) sum_xy += static_cast<double>(i) * values[i];
  w.slope = (sum_xy - sum_x * w.mean) / (sum_xx - sum_x * sum_x / n);
  const auto [low, high] = std::minmax_element(values.begin(), values.end());
  w.data_excursion = (*high - *low) / w.mean * 100;
  w.fit_excursion = std::fabs(w.slope) * (n - 1) / w.mean * 100;
  return w;
}

// Runs `args` with JSON into a file of `dir`; the parsed document.
inline Json run_json(const test::TempDir& dir, std::vector<std::string> args, std::string* text) {
  const std::string json_path =
      (dir.path().parent_path() / (dir.path().filename().string() + ".json")).string();
  // A json run with -o prints the text report on stdout beside the file.
  args.insert(args.end(), {"-f", "json", "-o", json_path});
  const test::CliResult run = test::run_cli(args);
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  Json doc;
  std::ifstream(json_path) >> doc;
  std::filesystem::remove(json_path);
  if (text != nullptr) *text = run.out;
  return doc;
}

// Checks one pts step: every cell measured every round, bytes = ops x block size, the matrix the
// mean of the window rounds, the window figures PTS's rule of the tracked rounds.
inline void check_step(const Json& step, const std::vector<std::string>& mixes,
                       const std::vector<std::uint64_t>& sizes, const std::string& access,
                       const std::string& tracked_mix, std::uint64_t tracked_size,
                       const std::string& tracked_key) {
  REQUIRE(step.at("status") == "ok");
  const auto rounds = static_cast<std::size_t>(attribute(step, "pts.rounds"));
  REQUIRE(rounds >= 5);
  REQUIRE(step.at("phases").size() == rounds * mixes.size() * sizes.size());
  const auto first = static_cast<std::size_t>(attribute(step, "pts.window.first_round"));
  const auto last = static_cast<std::size_t>(attribute(step, "pts.window.last_round"));
  CHECK(last == rounds);
  CHECK(first == last - 4);
  for (const std::string& mix : mixes) {
    for (const std::uint64_t size : sizes) {
      double iops = 0;
      std::uint64_t bytes = 0;
      for (std::size_t round = 1; round <= rounds; ++round) {
        const Json& phase = phase_named(
            step, fmt::format("round {} {} {} {}", round, access, pts_block_size_text(size), mix));
        INFO(phase.at("name"));
        CHECK(phase.at("status") == "ok");
        const auto ops = phase.at("ops").get<std::uint64_t>();
        CHECK(ops > 0);
        CHECK(phase.at("bytes").get<std::uint64_t>() == ops * size);
        const auto& kinds = phase.at("ops_by_kind");
        const std::uint64_t reads = kinds.at("read").at("ops").get<std::uint64_t>();
        const std::uint64_t writes = kinds.at("write").at("ops").get<std::uint64_t>();
        CHECK(reads + writes == ops);
        if (mix == "100/0") {
          CHECK(writes == 0);
        }
        if (mix == "0/100") {
          CHECK(reads == 0);
        }
        if (round >= first) {
          iops += phase.at("ops_per_s").get<double>() / 5;
          bytes += phase.at("bytes").get<std::uint64_t>();
        }
      }
      const std::string key = fmt::format("pts.cell.{}.{}", mix, size);
      CHECK(attribute(step, key + ".iops") == Approx(iops).epsilon(1e-9));
      CHECK(attribute(step, key + ".bytes") == static_cast<double>(bytes));
    }
  }
  // The tracked series: each round's figure is its phase's, and the window is PTS's judgement.
  std::vector<double> series;
  for (std::size_t round = 1; round <= rounds; ++round) {
    const Json& phase =
        phase_named(step, fmt::format("round {} {} {} {}", round, access,
                                      pts_block_size_text(tracked_size), tracked_mix));
    double value = 0;
    if (tracked_key == "mean_ns") {
      const Json& kinds = phase.at("ops_by_kind");
      value = kinds.at("write").at("latency_ns").at("mean").get<double>();
    } else {
      value = phase.at(tracked_key).get<double>();
    }
    CHECK(attribute(step, fmt::format("pts.round.{}.tracked", round)) ==
          Approx(value).epsilon(1e-9));
    series.push_back(value);
  }
  const Window w = judge(std::vector<double>(series.end() - 5, series.end()));
  CHECK(attribute(step, "pts.window.mean") == Approx(w.mean).epsilon(1e-9));
  CHECK(attribute(step, "pts.window.data_excursion_percent") ==
        Approx(w.data_excursion).epsilon(1e-9));
  CHECK(attribute(step, "pts.window.fit_excursion_percent") ==
        Approx(w.fit_excursion).margin(1e-9));
  CHECK(attribute(step, "pts.window.data_excursion_limit_percent") == 20);
  CHECK(attribute(step, "pts.window.fit_excursion_limit_percent") == 10);
  const bool steady = w.data_excursion <= 20 && w.fit_excursion <= 10;
  CHECK(text_attribute(step, "pts.steady") == (steady ? "yes" : "no"));
  // Not steady within the rounds allowed: every round ran; steady: the step ended there.
  if (!steady) {
    CHECK(rounds == static_cast<std::size_t>(attribute(step, "pts.max_rounds")));
  }
}

// Checks the workload-dependent preconditioning of a pts step against PTS's rule applied anew to
// its recorded rounds: the step ran until the first round whose last 5 rounds were steady (or
// all max_rounds without one), and its attributes and `text` state that round and window.
inline void check_wdpc(const Json& step, const std::string& text) {
  REQUIRE(text_attribute(step, "pts.wdpc") == "yes");
  const auto rounds = static_cast<std::size_t>(attribute(step, "pts.rounds"));
  const auto max_rounds = static_cast<std::size_t>(attribute(step, "pts.max_rounds"));
  std::vector<double> series;
  for (std::size_t round = 1; round <= rounds; ++round) {
    series.push_back(attribute(step, fmt::format("pts.round.{}.tracked", round)));
  }
  std::size_t decided = 0;  // the round the detector should have stopped at; 0: none
  for (std::size_t last = 5; last <= rounds && decided == 0; ++last) {
    const Window w =
        judge(std::vector<double>(series.begin() + static_cast<std::ptrdiff_t>(last - 5),
                                  series.begin() + static_cast<std::ptrdiff_t>(last)));
    if (w.data_excursion <= 20 && w.fit_excursion <= 10) decided = last;
  }
  INFO("tracked series " << fmt::format("{}", fmt::join(series, ", ")));
  CHECK(attribute(step, "pts.wdpc.rounds") == static_cast<double>(rounds));
  const std::string wdpc = text_attribute(step, "pts.condition.wdpc");
  if (decided != 0) {
    CHECK(rounds == decided);
    CHECK(attribute(step, "pts.wdpc.steady_round") == static_cast<double>(decided));
    CHECK(wdpc == fmt::format("{} rounds, steady state reached in round {} (window rounds {}-{})",
                              rounds, decided, decided - 4, decided));
  } else {
    CHECK(rounds == max_rounds);
    CHECK_FALSE(step.at("attributes").contains("pts.wdpc.steady_round"));
    CHECK(wdpc == fmt::format("{} rounds, steady state not reached (last window rounds {}-{})",
                              rounds, rounds - 4, rounds));
  }
  CHECK_THAT(text, Catch::Contains("  workload-dependent preconditioning: " + wdpc + "\n"));
}

}  // namespace iobench::pts_test
