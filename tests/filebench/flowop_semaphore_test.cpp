// semblock and sempost: the counts a run leaves are bounded by the semaphores' arithmetic
// (posts received >= blocks passed; with blocking, posts <= highwater + blocks begun), which no
// scheduling can break; and their parse errors.
#include "plugins/filebench/flowop_semaphore.hpp"

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

#include "plugins/filebench/wml_parser.hpp"
#include "tests/filebench/filebench_test_support.hpp"
#include "tests/filebench/wml_test_helpers.hpp"
#include "tests/support/test_support.hpp"

namespace fb = iobench::plugins::filebench;
namespace fs = std::filesystem;
using filebench_test::op;

namespace {

bool never_wait() { return false; }

}  // namespace

TEST_CASE("a flowop semaphore counts posts against blocks and the high-water mark") {
  fb::FlowopSemaphore sem(2);
  CHECK_FALSE(sem.block(1, never_wait));  // no post yet: gives up when told to stop waiting
  // That block still raised the high-water count to 3: three blocking posts pass, a fourth not.
  CHECK(sem.post(1, true, never_wait));
  CHECK(sem.post(1, true, never_wait));
  CHECK(sem.post(1, true, never_wait));
  CHECK_FALSE(sem.post(1, true, never_wait));
  CHECK(sem.low() == 3);
  CHECK(sem.post(5, false, never_wait));  // not blocking: always posts
  CHECK(sem.block(8, never_wait));
  CHECK(sem.low() == 0);
}

TEST_CASE(
    "semblock passes only posted counts and a blocking sempost runs at most highwater ahead") {
  const iobench::test::TempDir target("fbsema");
  const filebench_test::Run run = filebench_test::run_filebench_text(
      target,
      "define file name=f,size=0,prealloc\n"
      "define process name=producer {thread name=t,memsize=1k {\n"
      "  flowop sempost name=post,target=blk,value=1,blocking\n"
      "}}\n"
      "define process name=consumer {thread name=t,memsize=1k {\n"
      "  flowop semblock name=blk,value=1,highwater=2\n"
      "  flowop appendfile name=a,filename=f,fd=1,iosize=1k\n"
      "}}\n",
      "1s", 11);
  const std::uint64_t posts = op(run, "post").ops;
  const std::uint64_t blocks = op(run, "blk").ops;
  CHECK(blocks > 0);
  CHECK(blocks <= posts);
  // high = 2 + blocks begun (at most one more than passed) - posts, never below 0.
  CHECK(posts <= blocks + 1 + 2);
  CHECK(op(run, "a").ops <= blocks);
  CHECK(fs::file_size(run.run_dir / "f") == op(run, "a").ops * 1024);
}

TEST_CASE("a sempost posts to the semblock of every thread instance") {
  const iobench::test::TempDir target("fbsemb");
  // 10 ops per worker: the producer posts 3 five times (15 to each instance), so each of the
  // two consumer instances passes its 10 blocks only if every post reaches both.
  const filebench_test::Run run = filebench_test::run_filebench_text(
      target,
      "define process name=producer {thread name=t {\n"
      "  flowop sempost name=post,target=blk,value=3\n"
      "  flowop delay name=d,value=0.01\n"
      "}}\n"
      "define process name=consumer {thread name=t,instances=2 {\n"
      "  flowop semblock name=blk,value=1\n"
      "}}\n",
      "30s", 11, 10);
  CHECK(op(run, "post").ops == 5);
  CHECK(op(run, "blk").ops == 20);
}

TEST_CASE("semblock and sempost refuse a missing value or target with their position") {
  CHECK(filebench_test::wml_error_of(
            "define process name=p {thread name=t {flowop sempost name=s,value=1}}\n") ==
        "t.f:1:46: flowop sempost 's' needs target=SEMBLOCK (the semblock it posts to)");
  CHECK(filebench_test::wml_error_of(
            "define process name=p {thread name=t {flowop semblock name=b}}\n") ==
        "t.f:1:46: flowop semblock 'b' needs value=N (the count it waits for)");
  CHECK(filebench_test::wml_error_of(
            "define process name=p {thread name=t {flowop sempost name=s,value=1,"
            "target=nope}}\n") ==
        "t.f:1:46: sempost 's' posts to 'nope', which is no semblock of the file; name a "
        "semblock flowop");
  const fb::WmlModel m = fb::parse_wml(
      "define process name=p {thread name=t {flowop sempost name=s,value=2,target=b,blocking\n"
      "flowop semblock name=b,value=4,highwater=7}}\n",
      "t.f");
  const auto& flowops = m.processes[0].threads[0].flowops;
  CHECK(flowops[0].post_target == "b");
  CHECK(flowops[0].blocking);
  CHECK(flowops[0].limit == 2);
  CHECK(flowops[1].highwater == 7);
  CHECK(flowops[1].limit == 4);
}
