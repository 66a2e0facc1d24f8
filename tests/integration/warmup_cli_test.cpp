#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/support/test_support.hpp"

using iobench::test::run_cli;
using iobench::test::TempDir;

TEST_CASE("a run that ends inside its warm-up says it measured nothing and exits 3",
          "[integration][warmup]") {
  TempDir dir("warmup-cli");
  TempDir files("warmup-cli-files");
  const auto loadfile = files.path() / "load.txt";
  std::ofstream(loadfile) << iobench::test::kTinyLoadfile;
  const std::string d = dir.path().string();
  struct Case {
    std::vector<std::string> args;
    std::string text;  // what the family's text says about the phase
  };
  const std::vector<Case> cases{
      // A short write with a long warm-up.
      {{"run", "disk", "-d", d, "size=1m", "--warmup", "5s"}, "Measured nothing writing: ended "},
      // A loadfile run once, inside dbench's default warm-up (time_limit / 5 = 2 s).
      {{"run", "dbench", "-d", d, "loadfile=" + loadfile.string(), "run_once=true",
        "time_limit=10s"},
       "step dbench (dbench): NO_MEASUREMENT: phase 'execute': ended "},
  };
  for (const Case& c : cases) {
    const auto json_path = files.path() / "r.json";
    std::vector<std::string> args = c.args;
    args.insert(args.end(), {"--format", "json", "-o", json_path.string(), "-q"});
    const auto result = run_cli(args);
    INFO(result.out << result.err);
    CHECK(result.exit_code == 3);
    CHECK_THAT(result.out, Catch::Contains(c.text));
    CHECK_THAT(result.out, Catch::Contains("warm-up, so it has no measured ops"));
    CHECK_THAT(result.out, Catch::Contains("run NO_MEASUREMENT: a phase ended inside its warm-up"));
    const auto doc = nlohmann::json::parse(iobench::test::read_file(json_path));
    CHECK(doc.at("status") == "no_measurement");
    const auto& step = doc.at("steps").at(0);
    CHECK(step.at("status") == "no_measurement");
    const auto& phase = step.at("phases").at(0);
    CHECK(phase.at("status") == "no_measurement");
    CHECK_THAT(phase.at("message").get<std::string>(), Catch::Contains("warm-up"));
    CHECK(phase.at("ops") == 0);
    CHECK(phase.at("bytes") == 0);
    CHECK(phase.at("wall_ns") == 0);
    CHECK(dir.entries().empty());
  }
}
