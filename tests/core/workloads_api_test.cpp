// <iobench/workloads.hpp>: the built-in families registered and formatted through the public API.
#include <catch2/catch.hpp>
#include <iobench/error.hpp>
#include <iobench/runner.hpp>
#include <iobench/workloads.hpp>
#include <sstream>

#include "tests/support/test_support.hpp"

using namespace iobench;

TEST_CASE("make_builtin_registry has every family, its formatters and the engines",
          "[core][workloads]") {
  const Registry registry = make_builtin_registry();
  std::vector<std::string> names;
  for (const WorkloadInfo* info : registry.workloads()) names.push_back(info->name);
  CHECK(names == std::vector<std::string>{"bonnie", "dbench", "disk", "filebench", "io500",
                                          "mdtest", "pts", "tiobench", "tiotest"});
  CHECK(registry.engine_names() ==
        std::vector<std::string>{"io_uring", "libaio", "mmap", "null", "psync", "pvsync2"});
  for (const auto& [workload, format] :
       std::vector<std::pair<std::string, std::string>>{{"disk", "text"},
                                                        {"bonnie", "text"},
                                                        {"bonnie", "csv"},
                                                        {"tiotest", "text"},
                                                        {"tiotest", "csv"},
                                                        {"tiobench", "text"},
                                                        {"tiobench", "csv"},
                                                        {"dbench", "text"},
                                                        {"mdtest", "text"},
                                                        {"filebench", "text"},
                                                        {"io500", "text"},
                                                        {"pts", "text"}}) {
    INFO(workload << " " << format);
    CHECK(registry.formatter(workload, format) != nullptr);
  }
  // Registering twice is refused, naming the workload.
  Registry twice = make_builtin_registry();
  CHECK_THROWS_WITH(register_builtin_workloads(twice), Catch::Contains("disk"));
}

TEST_CASE("the public family formatters print what the reporters print, for their workload only",
          "[core][workloads]") {
  test::TempDir dir("workloads_api");
  const Registry registry = make_builtin_registry();
  const RunResult run = Runner(registry, {})
                            .run(std::vector<Step>{Step{
                                .workload = "disk",
                                .params = {{"operation", "write"}, {"bs", "4k"}, {"size", "64k"}},
                                .targets = {dir.path()}}});
  REQUIRE(run.status == Status::kOk);
  const StepResult& step = run.steps.at(0);
  std::ostringstream direct, registered;
  write_disk_report(step, direct);
  (*registry.formatter("disk", "text"))(step, registered);
  CHECK(direct.str() == registered.str());
  CHECK_THAT(direct.str(), Catch::StartsWith("Completed writing 0 mbytes across 1 devices "
                                             "using 16 blocks of 4096"));

  std::ostringstream out;
  CHECK_THROWS_AS(write_bonnie_table(step, out), ConfigError);
  CHECK_THROWS_WITH(write_dbench_table(step, out),
                    "write_dbench_table: step 'disk' is a 'disk' step, not a 'dbench' step; "
                    "format it with the formatter of its workload (or make_text_reporter)");
  CHECK(out.str().empty());
}
