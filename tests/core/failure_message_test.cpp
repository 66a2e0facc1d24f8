#include <catch2/catch.hpp>
#include <iobench/runner.hpp>

#include "tests/support/fake_workload.hpp"
#include "tests/support/test_support.hpp"

using namespace iobench;

TEST_CASE("a worker's failure keeps its errno text however long the path", "[core][runner]") {
  for (const WorkerMode mode : {WorkerMode::kThreads, WorkerMode::kProcesses}) {
    test::TempDir dir("failmsg");
    test::FakeConfig config;
    config.phases[0].mode = mode;
    config.behaviour = test::FakeBehaviour::kThrowAfter;
    config.ops = 3;
    // Longer than the 1024 bytes a worker's message travels in, with a control character.
    config.error_path = "/deep" + std::string(4000, 'd') + "/\x1b[2Jfile";
    Registry registry;
    register_builtins(registry);
    test::register_fake(registry, config);
    test::CapturingReporter reporter;
    const RunResult run =
        Runner(registry, {})
            .run(std::vector<Step>{Step{.workload = "fake", .targets = {dir.path()}}}, reporter);
    REQUIRE(run.steps.size() == 1);
    const StepResult& step = run.steps[0];
    REQUIRE(step.status == Status::kFailed);
    const std::string& message = step.phases.at(0).workers.at(0).message;
    INFO(message);
    CHECK(message.size() <= 1023);
    CHECK(message.rfind("pwrite /deepddd", 0) == 0);
    CHECK(message.find("[... ") != std::string::npos);  // cut in the middle of the path
    CHECK_THAT(message, Catch::EndsWith("/\\x1b[2Jfile: No space left on device"));
    CHECK_THAT(step.message, Catch::EndsWith("No space left on device"));
  }
}
