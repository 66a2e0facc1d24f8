// Proof of the steady-state detector on devices whose behaviour is known in advance (issue 32):
// a throttled device must be called steady, a page cache that fills and then runs at the
// device's speed must not be.
// - Steady: O_DIRECT 4 KiB random reads of a loop device by a process in a cgroup whose read IOPS
//   on it are capped (io.max riops / blkio.throttle.read_iops_device). The loop device's reads
//   come from its backing file's page cache, so the cap is the only bottleneck: every interval
//   reads at the cap.
// - Not steady: buffered writes at a fixed rate (an application writing 16 MiB/s) into a file on
//   ext4 on a loop device whose writeback is capped at 2 MiB/s and whose dirty pages are limited
//   to kDirtyBytes (the bdi's strict_limit and max_bytes). The page cache takes the writes at the
//   application's rate until its dirty pages reach the kernel's throttling point (about 3/4 of
//   the limit: ~3.5 s at 14 MiB/s net), then the kernel's dirty throttling holds the writer
//   down toward the device's rate (1/8): the series a benchmark sees from a drive behind a
//   filling page cache, fast, then falling.
// Both fail with a broken detector: one that always says steady fails the second (its whole
// point), one that never does (or judges the wrong samples, or a wrong mean) fails the first's
// decision and figures. Checked by making judge_window's fio rule answer `true`: the second
// failed (steady after 12 intervals, stopped at 6.0 s); answering `false`: the first failed
// (not steady over a window of 400.0 IOPS samples, ran to its 8 s limit). Skipped, with the reason,
// where root, loop devices, a mount or the kernel's throttles are refused. Runs alone (its figures
// are the throttle's).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <functional>
#include <iobench/runner.hpp>
#include <map>
#include <numeric>
#include <string>

#include "tests/disk/io_throttle.hpp"
#include "tests/explain/loop_fs.hpp"
#include "tests/support/test_support.hpp"

using namespace iobench;

namespace {

constexpr double kReadCeiling = 400;  // reads per second
// The writing application's rate and the device's write bandwidth, in 64 KiB writes per second.
constexpr double kWriteRate = 256;                    // 16 MiB/s
constexpr std::uint64_t kDeviceBps = 2 * test::kMiB;  // 32 writes/s
constexpr std::uint64_t kDirtyBytes = 64 * test::kMiB;

// The step's one phase; `on_clean_up` is called as the step's clean-up begins.
PhaseResult run_phase(const std::filesystem::path& target,
                      std::map<std::string, std::string> params, std::chrono::milliseconds limit,
                      const std::function<void()>& on_clean_up = {}) {
  test::CapturingReporter reporter;
  RunOptions options;
  if (on_clean_up) {
    options.on_progress = [&](const ProgressSnapshot& snapshot) {
      if (snapshot.state_changed && snapshot.state == ProgressState::kCleanUp) on_clean_up();
    };
  }
  const RunResult run = Runner(test::shared_full_registry(), options)
                            .run(std::vector<Step>{Step{.workload = "disk",
                                                        .params = std::move(params),
                                                        .targets = {target},
                                                        .time_limit = limit}},
                                 reporter);
  INFO(run.steps.at(0).message);
  REQUIRE(run.status == Status::kOk);
  REQUIRE(run.steps.at(0).phases.size() == 1);
  return run.steps.at(0).phases.at(0);
}

std::string joined(const std::vector<double>& samples) {
  return fmt::format("{:.1f}", fmt::join(samples, ", "));
}

}  // namespace

TEST_CASE("the steady-state detector calls reads of a throttled device steady at the ceiling",
          "[disk][steady_state][kernel]") {
  const test::LoopFs loop(16 * test::kMiB);
  if (!loop.refused().empty()) {
    WARN("skipped: " << loop.refused());
    return;
  }
  const test::ReadIopsCeiling ceiling(loop.device_number(), kReadCeiling);
  if (!ceiling.refused().empty()) {
    WARN("skipped: " << ceiling.refused());
    return;
  }
  // 500 ms samples hold ~200 reads: blk-throttle's slices (100 ms) and a late dispatch worker on
  // a loaded machine move one by a few %; iops:20% over 4 of them (after a 500 ms ramp, where
  // the throttle's first slice may run ahead) leaves room for that. Measured here, the machine
  // building beside it: steady after 9 intervals, window 287.9, 311.1, 286.8, 287.5 (the
  // loaded machine's dispatch delays keep the reads under the cap).
  const PhaseResult phase = run_phase(loop.device(),
                                      {{"operation", "read"},
                                       {"mode", "direct"},
                                       {"bs", "4k"},
                                       {"size", "8m"},
                                       {"seek", "random"},
                                       {"random_order", "uniform"},
                                       {"time_based", "true"},
                                       {"steady_state", "iops:20%"},
                                       {"ss_dur", "2s"},
                                       {"ss_ramp", "500ms"},
                                       {"ss_interval", "500ms"}},
                                      std::chrono::milliseconds(8000));
  REQUIRE(phase.steady_state.has_value());
  const SteadyStateResult& steady = *phase.steady_state;
  INFO(describe(steady));
  INFO("window: " << joined(steady.window));
  WARN("throttled reads (" << kReadCeiling << " IOPS cap): " << describe(steady) << "; series "
                           << joined(steady.series));
  CHECK(steady.steady);
  REQUIRE(steady.window.size() == 4);
  REQUIRE(steady.figures.has_value());
  // The decision's figures are the throttle's: the mean at the cap (never over it by more than a
  // slice's credit, under it by the dispatch worker's delays, as in disk_knee_test.cpp, down to
  // 73 % of it on a loaded machine), every sample within the limit of it.
  const double mean = std::accumulate(steady.window.begin(), steady.window.end(), 0.0) / 4;
  CHECK(steady.figures->window_mean == Approx(mean));
  CHECK(mean <= kReadCeiling * 1.05);
  CHECK(mean >= kReadCeiling * 0.65);
  for (const double sample : steady.window) CHECK(std::abs(sample - mean) < mean * 0.20);
  CHECK(steady.figures->criterion_value < 20.0);
  // It stopped there, not at its 8 s limit (16 intervals).
  CHECK(steady.samples < 16);
  CHECK(phase.wall_ns < 7'500'000'000ULL);
}

TEST_CASE("the steady-state detector calls writes into a filling page cache not steady",
          "[disk][steady_state][kernel]") {
  const test::LoopFs loop(256 * test::kMiB);
  if (!loop.refused().empty()) {
    WARN("skipped: " << loop.refused());
    return;
  }
  test::WritebackThrottle throttle(loop.device_number(), kDeviceBps, kDirtyBytes);
  if (!throttle.refused().empty()) {
    WARN("skipped: " << throttle.refused());
    return;
  }
  // 8 s in 500 ms samples, judged over 6 s windows (12 samples): the drop (~3.5 s in; it moves
  // with the dirty limit's exact figure and the flusher's timing) lies inside every window the
  // phase can fill (0-6 s, 0.5-6.5 s, ..., 2-8 s) as long as it comes between 2 s and 6 s. A
  // window of samples from 256 and 32 writes/s deviates from its mean by far more than 20 %
  // whatever the mix; only a window wholly after the drop could be steady, and the phase ends
  // first. fsync=false: the closing fsync would wait for tens of MiB at 2 MiB/s; so would the
  // removal of the file (the writeback queued behind the limit), hence the limit is lifted as
  // the clean-up begins. The file (128 MiB) is larger than what the phase can write, so every
  // write dirties new pages.
  const PhaseResult phase = run_phase(loop.mount_point(),
                                      {{"operation", "write"},
                                       {"mode", "buffered"},
                                       {"bs", "64k"},
                                       {"size", "128m"},
                                       {"fsync", "false"},
                                       {"rate_iops", fmt::format("{:g}", kWriteRate)},
                                       {"time_based", "true"},
                                       {"steady_state", "iops:20%"},
                                       {"ss_dur", "6s"},
                                       {"ss_interval", "500ms"}},
                                      std::chrono::milliseconds(8000), [&] { throttle.lift(); });
  REQUIRE(phase.steady_state.has_value());
  const SteadyStateResult& steady = *phase.steady_state;
  INFO(describe(steady));
  INFO("series: " << joined(steady.series));
  WARN("page cache filling (" << kWriteRate << " writes/s into a " << kDeviceBps / 65536
                              << " writes/s device): " << describe(steady) << "; series "
                              << joined(steady.series));
  CHECK_FALSE(steady.steady);
  // Ran to its limit: 16 intervals (one may be lost to the phase's end).
  CHECK(steady.samples >= 15);
  CHECK(phase.wall_ns >= 7'500'000'000ULL);
  REQUIRE(steady.window.size() == 12);
  REQUIRE(steady.series.size() == steady.samples);
  CHECK(std::equal(steady.window.begin(), steady.window.end(), steady.series.end() - 12));
  REQUIRE(steady.figures.has_value());
  CHECK(steady.figures->criterion_value >= 20.0);
  // The series shows the drop: it starts at the application's rate (the page cache takes
  // everything; the open loop catches up after a stall, so a sample may run above it) and falls
  // toward the device's, 32 writes/s: the kernel's dirty throttling converges on the device's
  // bandwidth over seconds, and a sample may hold no write at all (the writer held in it for
  // the whole interval). Measured, 500 ms samples: 256, 254, 256, 258, 254, 246, 100, 18, 10,
  // 84, 84, 74, 36, 80, 72 (quiet machine); ... 254, 258, 67.5, 440, 248, 66, 24, 37, 16, 22,
  // 20, 40 and ... 256, 98.7, 95.4, 0, 61, 0, 54, 0 (loaded: building beside it). Hence: the
  // last 2 s under half the start.
  const double start = *std::max_element(steady.series.begin(), steady.series.begin() + 3);
  CHECK(start >= kWriteRate * 0.85);
  const double end = std::accumulate(steady.series.end() - 4, steady.series.end(), 0.0) / 4;
  CHECK(end < kWriteRate / 2);
}
