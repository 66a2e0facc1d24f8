#include <catch2/catch.hpp>
#include <iobench/error.hpp>
#include <iobench/registry.hpp>

#include "tests/support/test_support.hpp"

using namespace iobench;

TEST_CASE("registry lists the built-in families and engines", "[core][registry]") {
  const Registry registry = test::make_full_registry();
  std::vector<std::string> names;
  for (const WorkloadInfo* info : registry.workloads()) names.push_back(info->name);
  CHECK(std::find(names.begin(), names.end(), "disk") != names.end());
  CHECK(registry.engine_names() == std::vector<std::string>{"mmap", "psync"});
  CHECK(registry.formatter("disk", "text") != nullptr);
  CHECK(registry.formatter("disk", "yaml") == nullptr);
}

TEST_CASE("unknown workload names suggest the closest one", "[core][registry]") {
  const Registry registry = test::make_full_registry();
  try {
    (void)registry.workload("dsk");
    FAIL("no error");
  } catch (const ConfigError& e) {
    const std::string message = e.what();
    CHECK_THAT(message, Catch::Contains("unknown workload 'dsk'"));
    CHECK_THAT(message, Catch::Contains("did you mean 'disk'?"));
  }
  CHECK_THROWS_AS(registry.create_engine("libaio"), ConfigError);
}

TEST_CASE("duplicate registrations are refused", "[core][registry]") {
  Registry registry;
  register_builtins(registry);
  CHECK_THROWS_AS(registry.add_engine("psync", [] { return make_psync_engine(); }), PluginError);
  WorkloadInfo info{
      .name = "w",
      .summary = "",
      .params = {},
      .factory = [](const WorkloadSetup&) -> std::unique_ptr<Workload> { return nullptr; }};
  registry.add_workload(info);
  CHECK_THROWS_WITH(registry.add_workload(info), Catch::Contains("registered twice"));
  registry.add_formatter("w", "text", [](const StepResult&, std::ostream&) {});
  CHECK_THROWS_AS(registry.add_formatter("w", "text", [](const StepResult&, std::ostream&) {}),
                  PluginError);
}
