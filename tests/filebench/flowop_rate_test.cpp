// The event generator (eventgen rate=N) and the rate limits that take its events (eventlimit,
// opslimit, iopslimit, bwlimit), and hog. The generator is checked on an explicit clock, exactly;
// runs are checked with an upper bound only (ops <= rate x the run's own wall time + a burst
// the flowop list allows), which a slow or loaded machine cannot break.
#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

#include "plugins/filebench/event_generator.hpp"
#include "plugins/filebench/wml_parser.hpp"
#include "tests/filebench/filebench_test_support.hpp"
#include "tests/filebench/wml_test_helpers.hpp"
#include "tests/support/test_support.hpp"

namespace fb = iobench::plugins::filebench;
namespace fs = std::filesystem;
using filebench_test::op;

namespace {

constexpr std::uint64_t kSecond = 1'000'000'000;

/// The run phase's wall time in seconds (measure start to the last thread's end).
double wall_seconds(const filebench_test::Run& run) {
  return static_cast<double>(run.step.phases.front().wall_ns) / 1e9;
}

}  // namespace

TEST_CASE("the event generator posts rate x elapsed events, at most 5 s of them queued") {
  fb::EventGenerator events(100);
  CHECK_FALSE(events.try_take(1, 5 * kSecond));  // not started
  events.start(kSecond);
  events.start(3 * kSecond);                             // the first start counts
  CHECK_FALSE(events.try_take(1, kSecond + 9'999'999));  // 0.99 events due
  CHECK(events.try_take(1, kSecond + 10'000'000));
  CHECK(events.queued() == 0);
  CHECK_FALSE(events.try_take(100, 2 * kSecond));  // 100 due, 1 taken: 99 there, kept
  CHECK(events.queued() == 99);
  CHECK(events.try_take(99, 2 * kSecond));
  // 98 s later 9800 more are due; 5 s of them (500) wait, or what a taker needs if more.
  CHECK(events.try_take(600, 100 * kSecond));
  CHECK_FALSE(events.try_take(1, 100 * kSecond));
  CHECK(events.try_take(1, 200 * kSecond));
  CHECK(events.queued() == 499);
}

TEST_CASE("the event generator's count does not overflow over 30 days at the top rate") {
  fb::EventGenerator events(fb::kMaxEventRate);
  events.start(0);
  CHECK(events.try_take(1, 30ULL * 86400 * kSecond));
  CHECK(events.queued() == 5 * fb::kMaxEventRate - 1);
}

TEST_CASE("iopslimit holds its target's writes to the event rate") {
  const iobench::test::TempDir target("fbiops");
  const filebench_test::Run run =
      filebench_test::run_filebench_text(target,
                                         "eventgen rate=50\n"
                                         "define file name=f,size=0,prealloc\n"
                                         "define process name=p {thread name=t,memsize=1k {\n"
                                         "  flowop write name=w,filename=f,fd=1,iosize=1k\n"
                                         "  flowop iopslimit name=lim,target=w\n"
                                         "}}\n",
                                         "1s", 3);
  const std::uint64_t writes = op(run, "w").ops;
  // One event per write after the first (whose call only notes the count), and the last write
  // may not have been paid for: at most rate x wall + 2.
  CHECK(static_cast<double>(writes) <= 50 * wall_seconds(run) + 2);
  CHECK(writes >= 2);
  // The first call records nothing; a call cut short by the run's end neither.
  CHECK(op(run, "lim").ops + 1 <= writes);
  CHECK(op(run, "lim").ops + 2 >= writes);
  CHECK(fs::file_size(run.run_dir / "f") == writes * 1024);
}

TEST_CASE("eventlimit lets two threads do one flowop pass per event between them") {
  const iobench::test::TempDir target("fbevl");
  const filebench_test::Run run = filebench_test::run_filebench_text(
      target,
      "eventgen rate=40\n"
      "define file name=f,size=0,prealloc\n"
      "define process name=p {thread name=t,memsize=1k,instances=2 {\n"
      "  flowop eventlimit name=ev\n"
      "  flowop appendfile name=a,filename=f,fd=1,iosize=1k\n"
      "}}\n",
      "1s", 3);
  const std::uint64_t appends = op(run, "a").ops;
  CHECK(static_cast<double>(appends) <= 40 * wall_seconds(run));
  // Every append follows an event taken; a thread may take one and see the run end.
  CHECK(op(run, "ev").ops >= appends);
  CHECK(op(run, "ev").ops <= appends + 2);
}

TEST_CASE("bwlimit holds its target to a MiB per event") {
  const iobench::test::TempDir target("fbbwl");
  const filebench_test::Run run =
      filebench_test::run_filebench_text(target,
                                         "eventgen rate=3\n"
                                         "define file name=f,size=0,prealloc\n"
                                         "define process name=p {thread name=t,memsize=64k {\n"
                                         "  flowop write name=w,filename=f,fd=1,iosize=64k\n"
                                         "  flowop bwlimit name=bw,target=w\n"
                                         "}}\n",
                                         "1s", 3);
  const std::uint64_t bytes = op(run, "w").bytes;
  // The first write is free (the first call notes the count), the last may be owed.
  CHECK(static_cast<double>(bytes) <= 3 * wall_seconds(run) * 1048576 + 2 * 65536);
  CHECK(bytes >= 2 * 65536);
}

TEST_CASE("opslimit without target holds the run's I/O ops to the rate") {
  const iobench::test::TempDir target("fbopl");
  const filebench_test::Run run =
      filebench_test::run_filebench_text(target,
                                         "eventgen rate=60\n"
                                         "define file name=f,size=4k,prealloc\n"
                                         "define process name=p {thread name=t,memsize=1k {\n"
                                         "  flowop read name=r,filename=f,fd=1,iosize=1k,random\n"
                                         "  flowop opslimit name=lim\n"
                                         "}}\n",
                                         "1s", 3);
  CHECK(static_cast<double>(op(run, "r").ops) <= 60 * wall_seconds(run) + 2);
  CHECK(op(run, "r").ops >= 2);
}

TEST_CASE("eventgen rate=0 leaves the limits doing nothing, as filebench's") {
  const iobench::test::TempDir target("fbrate0");
  const filebench_test::Run run =
      filebench_test::run_filebench_text(target,
                                         "eventgen rate=0\n"
                                         "define file name=f,size=0,prealloc\n"
                                         "define process name=p {thread name=t,memsize=1k {\n"
                                         "  flowop write name=w,filename=f,fd=1,iosize=1k\n"
                                         "  flowop iopslimit name=lim\n"
                                         "  flowop eventlimit name=ev\n"
                                         "}}\n",
                                         "30s", 3, 12);
  CHECK(op(run, "w").ops == 12);
  CHECK(op(run, "lim").ops == 0);
  CHECK(op(run, "ev").ops == 0);
}

TEST_CASE("hog is one op of no bytes per call and no I/O flowop") {
  const iobench::test::TempDir target("fbhog");
  const filebench_test::Run run =
      filebench_test::run_filebench_text(target,
                                         "define file name=f,size=0,prealloc\n"
                                         "define process name=p {thread name=t,memsize=1k {\n"
                                         "  flowop hog name=h,value=100000\n"
                                         "  flowop write name=w,filename=f,fd=1,iosize=1k\n"
                                         "  flowop finishoncount name=fin,value=6\n"
                                         "}}\n",
                                         "30s", 3);
  // finishoncount without target counts I/O flowops only: 6 writes, so hog ran 6 times.
  CHECK(op(run, "w").ops == 6);
  CHECK(op(run, "h").ops == 6);
  CHECK(op(run, "h").bytes == 0);
}

TEST_CASE("eventgen, hog and the limits refuse bad attributes with their position") {
  CHECK(filebench_test::wml_error_of("eventgen rate=2000000\n") ==
        "t.f:1:15: eventgen rate=2000000 is above 1000000 events per second; give 0 to 1000000");
  CHECK(filebench_test::wml_error_of("eventgen rate=5\neventgen rate=6\n") ==
        "t.f:2:1: a second 'eventgen' is not modelled; keep one rate for the run");
  CHECK(filebench_test::wml_error_of("eventgen speed=5\n") ==
        "t.f:1:10: unknown attribute 'speed' of eventgen; expected one of rate");
  CHECK(filebench_test::wml_error_of(
            "define process name=p {thread name=t {flowop hog name=h,value=2000000000}}"
            "\n") ==
        "t.f:1:63: hog value=2000000000 is above 1000000000 iterations; give at most 1000000000");
  CHECK(filebench_test::wml_error_of("define process name=p {thread name=t {flowop delay name=d\n"
                                     "flowop iopslimit name=l,target=d}}\n") ==
        "t.f:2:32: iopslimit target 'd' does no reads or writes; name a read or write flowop");
  CHECK(
      filebench_test::wml_error_of("define process name=p {thread name=t {flowop eventlimit name=e,"
                                   "target=e}}\n") ==
      "t.f:1:64: attribute 'target' of flowop eventlimit is accepted by filebench but not "
      "modelled by iobench yet; remove it");
  const fb::WmlModel m = fb::parse_wml(
      "eventgen rate = 25\n"
      "define process name=p {thread name=t {flowop hog name=h,value=7\n"
      "flowop bwlimit name=b,target=h2\nflowop read name=h2,fd=1,iosize=1k}}\n",
      "t.f");
  CHECK(m.eventgen_rate == 25);
  const auto& flowops = m.processes[0].threads[0].flowops;
  CHECK(flowops[0].kind == fb::FlowopKind::kHog);
  CHECK(flowops[0].limit == 7);
  CHECK(flowops[1].kind == fb::FlowopKind::kBwLimit);
  CHECK(flowops[1].target == 2);
}
