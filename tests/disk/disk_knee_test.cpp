// Proof of curve= and latency_target= against a known ceiling: O_DIRECT 4 KiB reads of a loop
// device by a process in a cgroup whose I/O controller (cgroup v2 io.max riops, or v1
// blkio.throttle.read_iops_device) allows kCeiling reads per second. The loop device's own reads
// come from its backing file's page cache (tens of microseconds), so the throttle is the
// bottleneck: closed loop runs at the ceiling, open loop below it waits for nothing, above it a
// backlog grows. Skipped, with the reason, where root, loop devices or the controller are refused.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <fstream>
#include <iobench/explain.hpp>
#include <iobench/runner.hpp>
#include <iterator>
#include <map>
#include <optional>
#include <sstream>

#include "plugins/disk/disk_formatter.hpp"
#include "tests/disk/io_throttle.hpp"
#include "tests/explain/loop_fs.hpp"
#include "tests/support/test_support.hpp"

using namespace iobench;

namespace {

constexpr double kCeiling = 400;  // reads per second

double number(const StepResult& step, const std::string& key) {
  const AttributeValue* value = step.attribute(key);
  REQUIRE(value != nullptr);
  if (const auto* d = std::get_if<double>(value)) return *d;
  return static_cast<double>(std::get<std::int64_t>(*value));
}

StepResult run_throttled(const test::LoopFs& loop, std::map<std::string, std::string> extra,
                         std::chrono::milliseconds phase, std::chrono::milliseconds warmup) {
  std::map<std::string, std::string> params{
      {"operation", "read"}, {"mode", "direct"},          {"bs", "4k"},          {"size", "8m"},
      {"seek", "random"},    {"random_order", "uniform"}, {"time_based", "true"}};
  params.merge(extra);
  test::CapturingReporter reporter;
  const RunResult run = Runner(test::shared_full_registry(), RunOptions{})
                            .run(std::vector<Step>{Step{.workload = "disk",
                                                        .params = params,
                                                        .targets = {loop.device()},
                                                        .time_limit = phase,
                                                        .warmup = warmup}},
                                 reporter);
  INFO(run.steps.at(0).message);
  REQUIRE(run.status == Status::kOk);
  return run.steps.at(0);
}

}  // namespace

TEST_CASE("under a throttled read ceiling the curve's 100 % point is the ceiling",
          "[disk][curve][kernel]") {
  const test::LoopFs loop(16 * test::kMiB);
  if (!loop.refused().empty()) {
    WARN("skipped: " << loop.refused());
    return;
  }
  const test::ReadIopsCeiling ceiling(loop.device_number(), kCeiling);
  if (!ceiling.refused().empty()) {
    WARN("skipped: " << ceiling.refused());
    return;
  }
  // 2 s phases: blk-throttle releases ops in 100 ms slices, so a closed-loop phase ends waiting
  // up to 100 ms for its last op (5 % of 2 s at most); measured 384.6-392.1 IOPS here. The
  // 50 % point comes first, as in any curve: right after the closed loop the throttle holds
  // back the slice it lent ahead, which an open loop at ~97 % of the ceiling would take seconds
  // to recover from (measured: 347.7 IOPS at a 384.6 target); at 50 % it recovers at once.
  const StepResult step = run_throttled(
      loop, {{"curve", "50,100"}}, std::chrono::milliseconds(2000), std::chrono::milliseconds(200));
  std::ostringstream text;
  plugins::disk::format_disk_text(step, text);
  INFO(text.str());
  // Never over the ceiling by more than a slice's credit; under it by the last slice's wait and,
  // on a loaded machine, by the throttle's late dispatch worker: 5 % held on every quiet run
  // (384.6-392.1 IOPS) but failed once in a loaded ctest run, and a 1 s closed loop once read
  // 315 IOPS there, so the lower bound is 75 %.
  for (const char* key : {"curve.max_iops", "curve.100%.iops"}) {
    INFO(key);
    CHECK(number(step, key) <= kCeiling * 1.05);
    CHECK(number(step, key) >= kCeiling * 0.75);
  }
  CHECK(number(step, "curve.50%.iops") ==
        Approx(number(step, "curve.50%.target_iops")).epsilon(0.02));
}

TEST_CASE("under a throttled read ceiling the latency search ends at the ceiling's knee",
          "[disk][curve][kernel]") {
  const test::LoopFs loop(16 * test::kMiB);
  if (!loop.refused().empty()) {
    WARN("skipped: " << loop.refused());
    return;
  }
  const test::ReadIopsCeiling ceiling(loop.device_number(), kCeiling);
  if (!ceiling.refused().empty()) {
    WARN("skipped: " << ceiling.refused());
    return;
  }
  // Below the ceiling no read waits for the throttle (p90 ~0.2 ms); above it a backlog grows.
  // Measured here (1.2 s phases): the search ended at 423.9 IOPS (431.5 failing) on a quiet
  // machine; blk-throttle first lets a phase run over its limit by some 60 ops of slice credit.
  // On a loaded 2-CPU machine the throttle's dispatch worker runs late and a phase after a
  // saturated one starts in debt, so a probe at 86 % of the ceiling failed once (332.1 IOPS);
  // and blk-throttle lets a 1 s phase burst past its limit, so one at 111 % passed once (443.2
  // IOPS, the machine building beside it). Hence the bounds: half the ceiling always passes,
  // 20 % over it never does (a search that ignored the throttle would end at its maximum).
  const StepResult step =
      run_throttled(loop,
                    {{"latency_target", "p90:10ms"},
                     {"latency_precision", "2"},
                     {"latency_search_max", "125"},
                     {"latency_confirm", "0"}},
                    std::chrono::milliseconds(1000), std::chrono::milliseconds(200));
  std::ostringstream text;
  plugins::disk::format_disk_text(step, text);
  INFO(text.str());
  const double result = number(step, "latency_search.result_iops");
  CHECK(result >= kCeiling * 0.5);
  CHECK(result <= kCeiling * 1.20);
  for (std::size_t run = 1; run <= 6; ++run) {
    const std::string key = "latency_search.probe." + std::to_string(run) + ".";
    const double rate = number(step, key + "rate_iops");
    const AttributeValue* verdict = step.attribute(key + "result");
    REQUIRE(verdict != nullptr);
    if (rate <= kCeiling * 0.5) CHECK(std::get<std::string>(*verdict) == "pass");
    if (rate >= kCeiling * 1.10) CHECK(std::get<std::string>(*verdict) == "fail");
  }
}
