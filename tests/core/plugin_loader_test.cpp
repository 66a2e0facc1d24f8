#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <iobench/error.hpp>
#include <iobench/plugin.hpp>
#include <iobench/runner.hpp>

#include "tests/support/test_support.hpp"

using namespace iobench;

namespace {
std::string load_error(const std::string& path) {
  Registry registry;
  try {
    load_plugin(registry, path);
  } catch (const PluginError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST_CASE("a good plugin registers its workload and runs", "[core][plugin]") {
  Registry registry = test::make_full_registry();
  load_plugin(registry, HELLO_PLUGIN_PATH);
  const WorkloadInfo& info = registry.workload("hello");
  CHECK(info.params.size() == 3);

  test::TempDir dir("plugin");
  const std::vector<Step> steps{Step{.name = "hello",
                                     .workload = "hello",
                                     .params = {{"files", "7"}, {"threads", "2"}, {"size", "8k"}},
                                     .targets = {dir.path()}}};
  test::CapturingReporter reporter;
  const RunResult run = Runner(registry, {}).run(steps, reporter);
  REQUIRE(run.status == Status::kOk);
  const PhaseResult& phase = run.steps.at(0).phases.at(0);
  CHECK(phase.ops.at(0).ops == 14);
  CHECK(phase.ops.at(0).bytes == 14 * 8192);
  CHECK(dir.entries().empty());
}

TEST_CASE("each plugin load failure has its own message", "[core][plugin]") {
  CHECK_THAT(load_error("/nonexistent/p.so"), Catch::Contains("cannot load: No such file"));
  CHECK_THAT(load_error("/tmp"), Catch::Contains("not a regular file"));
  test::TempDir dir("plugin");
  const auto junk = dir.path() / "junk.so";
  { std::ofstream(junk) << "not an ELF file"; }
  CHECK_THAT(load_error(junk.string()), Catch::Contains("dlopen failed"));
  CHECK_THAT(load_error(NO_ENTRY_PLUGIN_PATH), Catch::Contains("no entry point"));
  const std::string abi = load_error(WRONG_ABI_PLUGIN_PATH);
  // The test plugin claims IOBENCH_PLUGIN_ABI_VERSION + 41.
  CHECK_THAT(abi, Catch::Contains(fmt::format("ABI version {}", IOBENCH_PLUGIN_ABI_VERSION + 41)));
  CHECK_THAT(abi, Catch::Contains(fmt::format("implements version {}", IOBENCH_PLUGIN_ABI_VERSION)));
  CHECK_THAT(load_error(THROWING_PLUGIN_PATH),
             Catch::Contains("registration threw: database of workloads is on fire"));
}

TEST_CASE("loading the same plugin twice reports the duplicate workload", "[core][plugin]") {
  Registry registry;
  load_plugin(registry, HELLO_PLUGIN_PATH);
  try {
    load_plugin(registry, HELLO_PLUGIN_PATH);
    FAIL("no error");
  } catch (const PluginError& e) {
    CHECK_THAT(e.what(), Catch::Contains("'hello' is registered twice"));
  }
}
