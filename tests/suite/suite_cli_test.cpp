#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "tests/support/test_support.hpp"

using iobench::test::run_cli;
using iobench::test::TempDir;

namespace {

// Tiny sizes for every family, as workload-qualified overrides.
std::vector<std::string> tiny() {
  return {"disk.size=1m",          "disk.iterations=1",
          "bonnie.size=8m",        "bonnie.files=0",
          "bonnie.ram=0",          "tiotest.size=256k",
          "tiotest.random_ops=16", "dbench.time_limit=1s",
          "dbench.warmup=0s",      "dbench.loadfile=" + iobench::test::tiny_loadfile_path()};
}

// Runs `suite` with the tiny overrides (those its steps declare) on `dir`; returns the JSON.
nlohmann::json run_tiny(const std::string& suite, const TempDir& dir,
                        const std::vector<std::string>& extra) {
  const auto json_path = dir.path().parent_path() / (dir.path().filename().string() + ".json");
  std::vector<std::string> args{"run",      suite,  "-d", dir.path().string(), "-q",
                                "--format", "json", "-o", json_path.string(),  "--seed",
                                "5"};
  args.insert(args.end(), extra.begin(), extra.end());
  const auto result = run_cli(args);
  INFO(suite << "\n" << result.err << result.out);
  REQUIRE(result.exit_code == 0);
  CHECK(result.err.empty());  // -q: no progress or status lines
  auto doc = nlohmann::json::parse(iobench::test::read_file(json_path));
  std::filesystem::remove(json_path);
  CHECK(doc.at("suite").at("complete") == true);
  CHECK(dir.entries().empty());
  return doc;
}

}  // namespace

TEST_CASE("list shows the built-in suites", "[suite]") {
  const auto list = run_cli({"list"});
  REQUIRE(list.exit_code == 0);
  for (const char* name :
       {"quick", "bonnie", "tiobench", "dbench", "seed-reports", "io500", "io500-quick", "pts-iops",
        "pts-throughput", "pts-latency", "pts-wsat", "pts-dirth"}) {
    CHECK_THAT(list.out, Catch::Contains(std::string("  ") + name + " "));
  }
}

TEST_CASE("validate reports every suite error with its pointer and writes nothing", "[suite]") {
  TempDir dir("cli-suite");
  const auto file = dir.path() / "bad.json";
  {
    std::ofstream(file) << R"({"steps": [{"workload": "disk", "params": {"bz": "4k"}},
                                        {"workload": "disk", "repeat": 0}]})";
  }
  const auto result = run_cli({"validate", file.string(), "-d", dir.path().string()});
  CHECK(result.exit_code == 2);
  CHECK_THAT(result.err, Catch::Contains("bad.json: /steps/1/repeat:"));
  const auto run = run_cli({"run", file.string(), "-d", dir.path().string()});
  CHECK(run.exit_code == 2);
  CHECK(dir.entries() == std::vector<std::string>{"bad.json"});
  { std::ofstream(file) << R"({"steps": [{"workload": "disk", "params": {"bz": "4k"}}]})"; }
  const auto second = run_cli({"validate", file.string(), "-d", dir.path().string()});
  CHECK(second.exit_code == 2);
  CHECK_THAT(second.err, Catch::Contains("bad.json: /steps/0/params/bz: ") &&
                             Catch::Contains("did you mean 'bs'"));
  const auto ok = run_cli({"validate", "quick", "-d", dir.path().string(),
                           "dbench.loadfile=" + iobench::test::tiny_loadfile_path()});
  CHECK(ok.exit_code == 0);
  CHECK_THAT(ok.out, Catch::Contains("ok: suite 'quick'"));
}

TEST_CASE("the quick suite runs every family at tiny sizes", "[suite]") {
  TempDir dir("quick");
  const auto doc = run_tiny("quick", dir, tiny());
  std::set<std::string> workloads;
  for (const auto& step : doc.at("steps")) {
    CHECK(step.at("status") == "ok");
    workloads.insert(step.at("workload").get<std::string>());
  }
  CHECK(workloads == std::set<std::string>{"disk", "bonnie", "tiotest", "dbench"});
}

TEST_CASE("the tiobench and dbench suites run at tiny sizes", "[suite]") {
  TempDir dir("sweeps");
  // suite:NAME reaches the built-in suites named like a workload.
  const auto tio = run_tiny("suite:tiobench", dir, {"threads=1,2", "sizes=1m", "random_ops=16"});
  REQUIRE(tio.at("steps").size() == 1);
  CHECK(tio.at("steps").at(0).at("workload") == "tiobench");
  CHECK(tio.at("steps").at(0).at("phases").size() == 8);  // 2 thread counts x 4 phases
  const auto db = run_tiny(
      "suite:dbench", dir,
      {"time_limit=1s", "warmup=0s", "procs=1", "loadfile=" + iobench::test::tiny_loadfile_path()});
  CHECK(db.at("steps").size() == 1);
}

TEST_CASE("the bonnie and seed-reports suites run at tiny sizes", "[suite]") {
  TempDir dir("builtins");
  const auto bonnie = run_tiny("suite:bonnie", dir, {"size=8m", "files=0", "ram=0"});
  CHECK(bonnie.at("steps").at(0).at("workload") == "bonnie");
  const auto seeds = run_tiny("seed-reports", dir, {"size=1m", "iterations=1"});
  CHECK(seeds.at("steps").size() == 5);
}

TEST_CASE("the example suites validate and run at tiny sizes", "[suite]") {
  TempDir dir("examples");
  for (const auto& entry : std::filesystem::directory_iterator(IOBENCH_EXAMPLE_SUITES_DIR)) {
    if (entry.path().extension() != ".json") continue;
    INFO(entry.path());
    const auto doc = run_tiny(entry.path().string(), dir, tiny());
    CHECK_FALSE(doc.at("steps").empty());
  }
}

TEST_CASE("a machine-relative size resolves per run and results show the bytes", "[suite]") {
  TempDir a("sized-a");
  TempDir b("sized-b");
  const auto json_path = a.path().parent_path() / (a.path().filename().string() + ".json");
  const auto result =
      run_cli({"run", "disk", "-d", a.path().string(), "-d", b.path().string(), "-q", "--format",
               "json", "-o", json_path.string(), "size=1m*targets", "bs=64k"});
  REQUIRE(result.exit_code == 0);
  CHECK(result.err.empty());
  const auto doc = nlohmann::json::parse(iobench::test::read_file(json_path));
  std::filesystem::remove(json_path);
  const auto& step = doc.at("steps").at(0);
  CHECK(step.at("params").at("size") == "2MiB");
  CHECK(step.at("phases").at(0).at("ops_by_kind").at("write").at("bytes") == 2 * 2 * 1048576);
  CHECK(a.entries().empty());
  CHECK(b.entries().empty());
  const auto plan = run_cli({"validate", "disk", "-d", a.path().string(), "-d", b.path().string(),
                             "size=1m*targets", "bs=64k"});
  CHECK(plan.exit_code == 0);
  CHECK(
      plan.out ==
      "ok: 1 step(s) valid\n"
      "  run 1/1 'disk': disk, 2 target(s), needs up to 2.00 MiB of free space per target; bs=64k "
      "size=2MiB\n");
  const auto bad = run_cli({"run", "disk", "-d", a.path().string(), "size=ram/0"});
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.err, Catch::Contains("size='ram/0' divides by zero"));
}

TEST_CASE("the command line time and warmup reach the time_limit and warmup of dbench", "[suite]") {
  TempDir dir("dbench-time");
  const std::string loadfile = "loadfile=" + iobench::test::tiny_loadfile_path();
  // The workload alone: the command line's --time becomes dbench's time_limit.
  const auto alone = run_cli({"validate", "dbench", "-d", dir.path().string(), loadfile, "--time",
                              "7s", "--warmup", "1s"});
  REQUIRE(alone.exit_code == 0);
  CHECK_THAT(alone.out, Catch::Contains("time_limit=7s") && Catch::Contains("warmup=1s"));
  // A suite that sets them (the dbench sweep: 60 s, 5 s): the command line wins.
  const auto sweep = run_cli({"validate", "suite:dbench", "-d", dir.path().string(), loadfile,
                              "--time", "7s", "--warmup", "1s"});
  REQUIRE(sweep.exit_code == 0);
  CHECK_THAT(sweep.out, Catch::Contains("procs=8 time_limit=7s warmup=1s"));
  CHECK_THAT(sweep.out, !Catch::Contains("60s"));
  // A run is as long as that, and says so as dbench does.
  const auto run = run_cli({"run", "dbench", "-d", dir.path().string(), loadfile, "procs=1",
                            "--time", "1s", "--warmup", "0s", "-q"});
  REQUIRE(run.exit_code == 0);
  CHECK_THAT(run.out, Catch::Contains("Running for 1 seconds with load"));
  CHECK(dir.entries().empty());
}

TEST_CASE("run --engine beats a suite step's engine param as --time its time_limit", "[suite]") {
  TempDir dir("suite-engine");
  TempDir files("suite-engine-files");
  const auto suite = files.path() / "engine.json";
  std::ofstream(suite)
      << R"({"name":"s","steps":[{"workload":"disk","params":{"engine":"pvsync2","blocks":"4"}}]})";
  const auto own = run_cli({"validate", suite.string(), "-d", dir.path().string()});
  REQUIRE(own.exit_code == 0);
  CHECK_THAT(own.out, Catch::Contains("blocks=4 engine=pvsync2\n"));
  // The step's pvsync2 ran while the results named --engine's psync.
  const auto given =
      run_cli({"validate", suite.string(), "-d", dir.path().string(), "--engine", "psync"});
  REQUIRE(given.exit_code == 0);
  CHECK_THAT(given.out, Catch::Contains("blocks=4 engine=psync\n"));
  CHECK(dir.entries().empty());
}
