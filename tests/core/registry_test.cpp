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
  CHECK(registry.engine_names() == std::vector<std::string>{"io_uring", "libaio", "mmap", "null",
                                                            "psync", "pvsync2"});
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
  CHECK_THROWS_AS(registry.create_engine("libai"), ConfigError);
  CHECK_THROWS_WITH(registry.create_engine("io_uring:fixedbuf"),
                    Catch::Contains("io_uring has no option 'fixedbuf'") &&
                        Catch::Contains("fixedbufs, registerfiles, sqpoll, hipri"));
  CHECK_THROWS_WITH(registry.create_engine("psync:direct"),
                    Catch::Contains("psync takes no options"));
  CHECK_THROWS_WITH(registry.create_engine("io_uring:sqpoll,,fixedbufs"),
                    Catch::Contains("empty option"));
  CHECK_THROWS_WITH(registry.create_engine("io_uring:sqpoll,sqpoll"),
                    Catch::Contains("names option 'sqpoll' twice"));
  const auto engine = registry.create_engine("io_uring:sqpoll,fixedbufs");
  CHECK(engine->name() == "io_uring");
  CHECK(EngineSpec::parse("io_uring:sqpoll,fixedbufs").to_string() ==
        "io_uring:fixedbufs,sqpoll");
}

TEST_CASE("duplicate registrations are refused", "[core][registry]") {
  Registry registry;
  register_builtins(registry);
  CHECK_THROWS_AS(registry.add_engine({.name = "psync",
                                       .summary = "",
                                       .options = {},
                                       .factory = [](const EngineSpec&) {
                                         return make_psync_engine();
                                       }}),
                  PluginError);
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
