// block and wakeup: on real threads the wakeups that released a thread and the blocks that passed
// add up exactly (whatever the scheduling), a wakeup with no thread blocked is lost, and a thread
// blocked when the run ends leaves it cleanly; in a run the same counts, and the parse errors.
#include "plugins/filebench/flowop_block.hpp"

#include <atomic>
#include <catch2/catch.hpp>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "plugins/filebench/flowop_thread.hpp"
#include "plugins/filebench/wml_parser.hpp"
#include "tests/filebench/filebench_test_support.hpp"
#include "tests/filebench/wml_test_helpers.hpp"
#include "tests/support/test_support.hpp"

namespace fb = iobench::plugins::filebench;
namespace fs = std::filesystem;
using filebench_test::op;

namespace {

std::uint64_t woken(const filebench_test::Run& run) {
  const auto& phase = run.step.phases.front();
  REQUIRE(phase.counters.size() > fb::kWokenCounter);
  CHECK(phase.counter_names[fb::kWokenCounter] == "woken_by_wakeup");
  return phase.counters[fb::kWokenCounter];
}

}  // namespace

TEST_CASE("a wakeup releases a blocked thread exactly once and is lost when none is blocked") {
  fb::FlowopBlock blk;
  CHECK(blk.wake() == 0);  // nobody blocked: lost, and no later block passes on it
  CHECK_FALSE(blk.block([] { return false; }));
  CHECK(blk.waiting() == 0);
  // One blocker thread, 1000 rounds: each wakeup is made once the thread is seen blocked.
  std::atomic<bool> stop{false};
  std::uint64_t passed = 0;
  std::thread blocker([&] {
    while (blk.block([&] { return !stop.load(); })) ++passed;
  });
  std::uint64_t released = 0;
  for (int round = 0; round < 1000; ++round) {
    while (blk.waiting() == 0) std::this_thread::yield();
    released += blk.wake();
  }
  while (blk.waiting() == 0) std::this_thread::yield();
  stop = true;  // the blocker is blocked now: the run's end must let it go
  blocker.join();
  CHECK(released == 1000);
  CHECK(passed == 1000);
  CHECK(blk.waiting() == 0);
}

TEST_CASE("wakeups from several threads release exactly as many blocks as pass") {
  fb::FlowopBlock blk;
  std::atomic<bool> stop{false};
  std::atomic<std::uint64_t> passed{0};
  std::atomic<std::uint64_t> released{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 3; ++i) {
    threads.emplace_back([&] {
      while (blk.block([&] { return !stop.load(); })) passed.fetch_add(1);
    });
  }
  std::vector<std::thread> wakers;
  for (int i = 0; i < 2; ++i) {
    wakers.emplace_back([&] {
      for (int k = 0; k < 2000; ++k) released.fetch_add(blk.wake());
    });
  }
  for (std::thread& t : wakers) t.join();
  stop = true;
  for (std::thread& t : threads) t.join();
  CHECK(passed.load() == released.load());
  CHECK(passed.load() <= 4000);
  CHECK(blk.waiting() == 0);
}

TEST_CASE("in a run every block passed is one a wakeup released, one wakeup op per target") {
  const iobench::test::TempDir target("fbblock");
  const filebench_test::Run run = filebench_test::run_filebench_text(
      target,
      "define file name=f,size=0,prealloc\n"
      "define process name=sleepers {thread name=t,instances=2,memsize=1k {\n"
      "  flowop block name=blk\n"
      "  flowop appendfile name=a,filename=f,fd=1,iosize=1k\n"
      "}}\n"
      "define process name=waker {thread name=t {\n"
      "  flowop wakeup name=wake,target=blk\n"
      "  flowop delay name=d,value=0.001\n"
      "}}\n",
      "1s", 5);
  const std::uint64_t blocks = op(run, "blk").ops;
  CHECK(blocks > 0);
  CHECK(woken(run) == blocks);
  // Two block instances: each pass of the waker is two wakeup ops.
  const std::uint64_t wakes = op(run, "wake").ops;
  CHECK(wakes % 2 == 0);
  CHECK(wakes / 2 >= op(run, "d").ops);
  CHECK(wakes / 2 <= op(run, "d").ops + 1);
  CHECK(blocks <= wakes);
  // A sleeper appends after each pass, unless the run ended between the two.
  const std::uint64_t appends = op(run, "a").ops;
  CHECK(appends <= blocks);
  CHECK(appends + 2 >= blocks);
  CHECK(fs::file_size(run.run_dir / "f") == appends * 1024);
}

TEST_CASE("threads blocked when the run ends leave it cleanly") {
  const iobench::test::TempDir target("fbblockend");
  // The waker sleeps an hour first: the blockers are blocked all the run, which ends at 1 s.
  const filebench_test::Run run =
      filebench_test::run_filebench_text(target,
                                         "define process name=sleepers {thread name=t,"
                                         "instances=3 {flowop block name=blk}}\n"
                                         "define process name=waker {thread name=t {\n"
                                         "  flowop delay name=d,value=3600\n"
                                         "  flowop wakeup name=wake,target=blk\n"
                                         "}}\n",
                                         "1s", 5);
  CHECK(op(run, "blk").ops == 0);
  CHECK(op(run, "wake").ops == 0);
  CHECK(woken(run) == 0);
}

TEST_CASE("wakeup refuses a missing target or one that is no block flowop, with its position") {
  CHECK(filebench_test::wml_error_of(
            "define process name=p {thread name=t {flowop wakeup name=w}}\n") ==
        "t.f:1:46: flowop wakeup 'w' needs target=BLOCK (the block flowop it wakes)");
  CHECK(filebench_test::wml_error_of(
            "define process name=p {thread name=t {flowop wakeup name=w,target=s\n"
            "flowop semblock name=s,value=1}}\n") ==
        "t.f:1:46: wakeup 'w' wakes 's', which is no block flowop of the file; name a block "
        "flowop");
  const fb::WmlModel m = fb::parse_wml(
      "define process name=p {thread name=t {flowop wakeup name=w,target=b}}\n"
      "define process name=q {thread name=t {flowop block name=b}}\n",
      "t.f");
  CHECK(m.processes[0].threads[0].flowops[0].kind == fb::FlowopKind::kWakeup);
  CHECK(m.processes[0].threads[0].flowops[0].post_target == "b");
  CHECK(m.processes[1].threads[0].flowops[0].kind == fb::FlowopKind::kBlock);
}
