#include <catch2/catch.hpp>
#include <iobench/error.hpp>
#include <iobench/suite.hpp>
#include <string>

#include "tests/support/test_support.hpp"

using iobench::test::TempDir;

namespace {

iobench::SuitePlan plan(const std::string& text, const std::filesystem::path& dir,
                        std::map<std::string, std::string> params = {}) {
  static const iobench::Registry registry = iobench::test::make_full_registry();
  iobench::SuiteOverrides overrides;
  overrides.default_target = dir;
  overrides.params = std::move(params);
  return iobench::plan_suite(iobench::parse_suite(text, "p.json"), registry, overrides, {});
}

std::string plan_error(const std::string& text, const std::filesystem::path& dir,
                       std::map<std::string, std::string> params = {}) {
  try {
    (void)plan(text, dir, std::move(params));
  } catch (const iobench::ConfigError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("a plan expands sweep points and repetitions in order", "[suite]") {
  TempDir dir("plan");
  const auto p = plan(R"({"params": {"size": "64k"}, "steps": [
      {"name": "s", "workload": "disk", "repeat": 2,
       "sweep": {"param": "bs", "values": ["4k", "8k", "16k"]}},
      {"name": "one", "workload": "disk", "params": {"size": "32k", "bs": "4k"}, "time": "1s"}]})",
                      dir.path());
  REQUIRE(p.runs.size() == 7);
  CHECK(p.runs[0].step.name == "s [bs=4k] #1/2");
  CHECK(p.runs[1].step.name == "s [bs=4k] #2/2");
  CHECK(p.runs[2].step.name == "s [bs=8k] #1/2");
  CHECK(p.runs[5].step.params.at("bs") == "16k");
  CHECK(p.runs[5].step.params.at("size") == "64k");  // the suite default
  CHECK(p.runs[5].point == 2);
  CHECK(p.runs[5].repetition == 1);
  CHECK(p.runs[6].step.name == "one");
  CHECK(p.runs[6].step.params.at("size") == "32k");  // the step's own wins
  CHECK(p.runs[6].step.time_limit == std::chrono::seconds(1));
  CHECK(p.runs[6].step.targets == std::vector{dir.path()});
  CHECK(p.runs[6].suite_step == 1);
}

TEST_CASE("command line params override steps that declare them and replace a sweep", "[suite]") {
  TempDir dir("plan");
  const std::string text = R"({"steps": [
      {"name": "s", "workload": "disk", "params": {"size": "64k"},
       "sweep": {"param": "bs", "values": ["4k", "8k"]}},
      {"name": "t", "workload": "tiotest", "params": {"threads": 2, "size": "64k"}}]})";
  const auto p = plan(text, dir.path(), {{"bs", "16k"}, {"tiotest.threads", "1"}});
  REQUIRE(p.runs.size() == 2);
  CHECK(p.runs[0].step.params.at("bs") == "16k");
  CHECK(p.runs[0].step.name == "s");
  CHECK(p.runs[1].step.params.at("threads") == "1");
  CHECK_FALSE(p.suite.steps[0].sweep.has_value());
  CHECK_THAT(plan_error(text, dir.path(), {{"nosuch", "1"}}),
             Catch::Contains("p.json: parameter 'nosuch' from the command line is not a param of "
                             "any step's workload"));
}

TEST_CASE("plan errors carry JSON pointers and are all reported at once", "[suite]") {
  TempDir dir("plan");
  const std::string missing = (dir.path() / "missing").string();
  const std::string error = plan_error(R"({"params": {"nosuch": "1"}, "steps": [
      {"workload": "dsk"},
      {"workload": "disk", "params": {"bs": "4kk"}},
      {"workload": "disk", "sweep": {"param": "bz", "values": [1]}},
      {"workload": "disk", "sweep": {"param": "operation", "values": [1]}},
      {"workload": "disk", "params": {"size": "64k"}, "sweep": {"param": "bs", "values": ["4k", "1m"]}},
      {"workload": "disk", "targets": [")" +
                                           missing + R"("]},
      {"workload": "disk", "params": {"size": "64t"}}]})",
                                       dir.path());
  INFO(error);
  CHECK_THAT(error, Catch::Contains("p.json: /steps/0/workload: ") &&
                        Catch::Contains("did you mean 'disk'"));
  CHECK_THAT(error, Catch::Contains("p.json: /steps/1/params/bs: "));
  CHECK_THAT(error, Catch::Contains("p.json: /steps/2/sweep/param: workload 'disk' has no param "
                                    "'bz'; did you mean 'bs'?"));
  CHECK_THAT(error, Catch::Contains("p.json: /steps/3/sweep/param: param 'operation' of workload "
                                    "'disk' is not an integer param"));
  CHECK_THAT(error, Catch::Contains("p.json: /steps/4/sweep/values/1 [bs=1m]: ") &&
                        Catch::Contains("larger than size"));
  CHECK_THAT(error, Catch::Contains("p.json: /steps/5: target '" + missing + "' does not exist"));
  CHECK_THAT(error,
             Catch::Contains("p.json: /steps/6: ") && Catch::Contains("not enough free space"));
  // The unknown workload might have declared 'nosuch': no error for it then.
  CHECK_THAT(error, !Catch::Contains("nosuch"));
  CHECK(plan_error(R"({"params": {"nosuch": "1"}, "steps": [{"workload": "disk"}]})", dir.path())
            .find("p.json: /params/nosuch: no step's workload declares param 'nosuch'") !=
        std::string::npos);
}

TEST_CASE("with --keep the free-space check counts every run's files together", "[suite]") {
  const iobench::test::ScopedTmpfs small("64m");
  if (!small.mounted()) {
    WARN("skipped: mounting a 64 MiB tmpfs needs root");
    return;
  }
  static const iobench::Registry registry = iobench::test::make_full_registry();
  const iobench::Suite suite = iobench::parse_suite(
      R"({"steps": [{"workload": "disk", "repeat": 3, "params": {"size": "24m"}}]})", "k.json");
  iobench::SuiteOverrides overrides;
  overrides.default_target = small.path();
  // Each run's 24 MiB fits; removed after each run, they never add up.
  CHECK(iobench::plan_suite(suite, registry, overrides, {}).runs.size() == 3);
  try {
    (void)iobench::plan_suite(suite, registry, overrides, iobench::RunOptions{.keep_files = true});
    FAIL("no error");
  } catch (const iobench::ConfigError& e) {
    const std::string message = e.what();
    CHECK_THAT(message,
               Catch::StartsWith("k.json: /steps/0: run 3 (disk #3/3): not enough free space"));
    CHECK_THAT(message, Catch::Contains("writes 24 MiB on top of 48 MiB that earlier steps leave "
                                        "with --keep") &&
                            Catch::Contains("or run without --keep"));
    CHECK_THAT(message, !Catch::Contains("run 2"));
  }
  // bonnie++ deletes its own files: under --keep they do not add up.
  const iobench::Suite bonnie = iobench::parse_suite(
      R"({"steps": [{"workload": "bonnie", "repeat": 3,
                     "params": {"size": "24m", "files": "0", "ram": "0"}}]})",
      "b.json");
  CHECK(iobench::plan_suite(bonnie, registry, overrides, iobench::RunOptions{.keep_files = true})
            .runs.size() == 3);
}

TEST_CASE("sweep values may be size expressions resolved per run", "[suite]") {
  TempDir dir("plan");
  const auto p = plan(R"({"steps": [{"workload": "disk", "params": {"bs": "64k"},
      "sweep": {"param": "size", "values": ["1m*targets", "2m"]}}]})",
                      dir.path());
  REQUIRE(p.runs.size() == 2);
  CHECK(p.runs[0].step.params.at("size") == "1m*targets");
  CHECK(p.runs[0].step.name == "disk [size=1m*targets]");
  // A size expression for a param that is not a size is refused with its pointer.
  CHECK_THAT(plan_error(R"({"steps": [{"workload": "disk",
      "sweep": {"param": "iterations", "values": [1, "ram/4"]}}]})",
                        dir.path()),
             Catch::Contains("p.json: /steps/0/sweep/values/1 [iterations=ram/4]: ") &&
                 Catch::Contains("is not a count"));
  // workload.key must name a workload, even one the suite does not run.
  CHECK_THAT(plan_error(R"({"steps": [{"workload": "disk"}]})", dir.path(), {{"dsk.size", "1m"}}),
             Catch::Contains("p.json: parameter 'dsk.size' from the command line: unknown "
                             "workload 'dsk'; did you mean 'disk'?"));
  CHECK(plan(R"({"steps": [{"workload": "disk"}]})", dir.path(), {{"dbench.procs", "2"}})
            .runs.size() == 1);
}

TEST_CASE("one size override means one size in every workload", "[suite]") {
  TempDir dir("plan");
  const std::string suite = R"({"steps": [
    {"workload": "disk", "params": {"bs": "1m"}},
    {"workload": "bonnie", "params": {"files": "0", "ram": "0"}},
    {"workload": "tiotest", "params": {"threads": 1}}]})";
  static const iobench::Registry registry = iobench::test::make_full_registry();
  const iobench::Runner runner(registry, {});
  const auto planned_bytes = [&](const std::string& size) {
    const iobench::SuitePlan p = plan(suite, dir.path(), {{"size", size}});
    std::vector<iobench::Step> steps;
    for (const iobench::PlannedRun& run : p.runs) steps.push_back(run.step);
    std::vector<std::uint64_t> bytes;
    for (const auto& preview : runner.preview(steps)) bytes.push_back(preview.planned_bytes[0]);
    return bytes;
  };
  // disk, bonnie and tiotest each write one file of the size given, whatever the form.
  CHECK(planned_bytes("8m") == std::vector<std::uint64_t>(3, 8ULL << 20));
  CHECK(planned_bytes("8MiB") == std::vector<std::uint64_t>(3, 8ULL << 20));
  // A bare number was MiB to bonnie++ and tiotest -f, bytes to disk: refused, with the fix.
  const std::string bare = plan_error(suite, dir.path(), {{"size", "8"}});
  CHECK_THAT(bare, Catch::Contains("bonnie: size='8': a bare number is bytes in iobench, but "
                                   "bonnie++ -s (give its whole size:chunk:seeks:seekers text "
                                   "as bonnie_s=) read it as MiB; write 8m for 8 MiB"));
  CHECK_THAT(bare, Catch::Contains("tiotest: size='8': a bare number is bytes in iobench, but "
                                   "tiotest -f read it as MiB; write 8m for 8 MiB"));
  // bonnie++'s own -s text, in MiB, under its own name: the same 8 MiB.
  const iobench::SuitePlan own = plan(
      R"({"steps": [{"workload": "bonnie", "params": {"bonnie_s": "8:4k", "files": "0",
                                                      "ram": "0"}}]})",
      dir.path());
  CHECK(runner.preview(std::span<const iobench::Step>(&own.runs[0].step, 1))[0].planned_bytes[0] ==
        8ULL << 20);
  CHECK_THAT(plan_error(R"({"steps": [{"workload": "bonnie", "params": {"bonnie_s": "8",
                        "size": "8m", "files": "0", "ram": "0"}}]})",
                        dir.path()),
             Catch::Contains("give either bonnie_s or size/chunk_size/seeks/seekers"));
  CHECK_THAT(plan_error(R"({"steps": [{"workload": "bonnie", "params": {"size": "1000000b",
                        "files": "0", "ram": "0"}}]})",
                        dir.path()),
             Catch::Contains("bonnie: size=1000000b is 1000000 bytes, not a whole number of MiB"));
}
