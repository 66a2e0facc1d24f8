// pts-latency on a loop device with --destructive (root, losetup): the purge and the
// workload-independent preconditioning run and are recorded in the test conditions, the rounds
// measure every cell, and the result is not PTS-valid only for its shortened round. Without root
// or a free loop device the case says why it is skipped.
#include <catch2/catch.hpp>
#include <string>

#include "tests/disk/loop_device.hpp"
#include "tests/disk/pts_support.hpp"
#include "tests/explain/loop_fs.hpp"
#include "tests/support/test_support.hpp"

using namespace iobench;
using namespace iobench::pts_test;

namespace {

constexpr std::uint64_t kImageBytes = 16 << 20;

}  // namespace

TEST_CASE("pts-latency on a loop device purges, preconditions and measures every cell",
          "[disk][pts]") {
  const test::LoopDevice loop(kImageBytes);
  if (!loop.refused().empty()) {
    WARN("skipped: " << loop.refused());
    return;
  }
  test::TempDir out("pts-loop-out");
  std::string text;
  const Json doc = run_json(out,
                            {"run", "pts-latency", "-d", loop.device(), "--destructive",
                             loop.serial(), "round_time=100ms", "rounds=5"},
                            &text);
  const Json& step = doc.at("steps").at(0);
  check_step(step, {"100/0", "65/35", "0/100"}, {512, 4096, 8192}, "RND", "0/100", 4096, "mean_ns");
  // The whole device, purged (a loop device: no NVMe format; discard or a fallback) and
  // written twice over by the preconditioning.
  CHECK(attribute(step, "pts.condition.capacity_bytes") == kImageBytes);
  const std::string purge = text_attribute(step, "pts.condition.purge");
  CHECK_THAT(purge, Catch::Contains("nvme-format: "));
  CHECK(purge == text_attribute(step, "purge.0"));
  CHECK(text_attribute(step, "pts.condition.precondition") ==
        "workload-independent: 2 x capacity of 128 KiB SEQ writes");
  // Only the shortened round keeps it from being PTS-valid.
  CHECK(text_attribute(step, "pts.valid") == "no");
  CHECK(text_attribute(step, "pts.not_valid") ==
        std::string("round_time=100ms (PTS: 1 minute per cell)") +
            (text_attribute(step, "pts.steady") == "yes"
                 ? ""
                 : "; rounds=5: not steady within PTS's 25 rounds"));
  CHECK_THAT(text, Catch::Contains("device:           " + loop.device()));
  CHECK_THAT(text, Catch::Contains("identity:         "));
  CHECK_THAT(text, Catch::Contains("Mean latency, ms, over rounds 1-5:"));
}

TEST_CASE("pts refuses a capacity bigger than the block device, exit 2", "[disk][pts]") {
  const test::LoopDevice loop(kImageBytes);
  if (!loop.refused().empty()) {
    WARN("skipped: " << loop.refused());
    return;
  }
  const test::CliResult run =
      test::run_cli({"run", "pts-iops", "-d", loop.device(), "--destructive", loop.serial(),
                     "capacity=32m", "round_time=100ms"});
  CHECK(run.exit_code == 2);
  CHECK_THAT(run.err, Catch::Contains("pts: capacity=32m is bigger than block device '" +
                                      loop.device() + "' (16777216 bytes)"));
}
