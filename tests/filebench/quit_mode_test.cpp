// `set mode quit timeout|firstdone|alldone`: how a run ends (filebench's shm_rmode), parsed and
// run for real. Each thread creates files of its own fileset until none is left, so the ops each
// does are exact.
#include <catch2/catch.hpp>
#include <filesystem>
#include <iobench/error.hpp>
#include <string>

#include "plugins/filebench/wml_parser.hpp"
#include "tests/filebench/filebench_test_support.hpp"
#include "tests/support/test_support.hpp"

namespace fs = std::filesystem;
namespace fb = iobench::plugins::filebench;
using filebench_test::op;

namespace {

// Thread `a` creates the 5 files of fileset a at once; thread `b` the 12 of fileset b, one
// every 50 ms (delay), so it is still at work when `a` runs out.
std::string two_creators(const std::string& mode_line) {
  return mode_line +
         "define fileset name=a,entries=5,dirwidth=10,size=1k\n"
         "define fileset name=b,entries=12,dirwidth=10,size=1k\n"
         "define process name=p {\n"
         "  thread name=ta { flowop createfile name=ca,filesetname=a,fd=1\n"
         "                   flowop closefile name=xa,fd=1 }\n"
         "  thread name=tb { flowop createfile name=cb,filesetname=b,fd=1\n"
         "                   flowop closefile name=xb,fd=1\n"
         "                   flowop delay name=d,value=0.05 }\n"
         "}\n";
}

std::uint64_t no_file_picks(const filebench_test::Run& run) {
  const auto& phase = run.step.phases.front();
  for (std::size_t i = 0; i < phase.counter_names.size(); ++i) {
    if (phase.counter_names[i] == "no_file_picks") return phase.counters[i];
  }
  FAIL("no counter no_file_picks");
  return 0;
}

}  // namespace

TEST_CASE("set mode quit parses its three modes and refuses the rest with line and column") {
  CHECK(fb::parse_wml("set $x=1\n", "m.f").quit_mode == fb::QuitMode::kTimeout);
  CHECK(fb::parse_wml("set mode quit firstdone\n", "m.f").quit_mode == fb::QuitMode::kFirstDone);
  CHECK(fb::parse_wml("set mode quit alldone\n", "m.f").quit_mode == fb::QuitMode::kAllDone);
  CHECK(fb::parse_wml("set mode quit alldone\nset mode quit timeout\n", "m.f").quit_mode ==
        fb::QuitMode::kTimeout);
  CHECK_THROWS_WITH(fb::parse_wml("set mode quit never\n", "m.f"),
                    Catch::Contains("m.f:1:15") && Catch::Contains("'set mode quit never'"));
  CHECK_THROWS_WITH(fb::parse_wml("set mode stop\n", "m.f"),
                    Catch::Contains("m.f:1:10") && Catch::Contains("expected 'quit'"));
  // filebench 1.5 sets a flag nothing reads: accepted, recorded, the quit mode unchanged.
  const fb::WmlModel nousestats = fb::parse_wml("set mode nousestats\n", "m.f");
  CHECK(nousestats.nousestats);
  CHECK(nousestats.quit_mode == fb::QuitMode::kTimeout);
  CHECK_THROWS_WITH(fb::parse_wml("run 5\nset mode quit alldone\n", "m.f"),
                    Catch::Contains("m.f:2:1: 'set' after 'run' is never reached") &&
                        Catch::Contains("above 'run'"));
}

TEST_CASE("a bare run lasts until done under firstdone and alldone, 60 s under timeout") {
  const fb::WmlModel timed = fb::parse_wml("run\n", "r.f");
  CHECK(timed.run_seconds == 60);
  CHECK_FALSE(timed.run_until_done);
  const fb::WmlModel done = fb::parse_wml("set mode quit alldone\nrun\n", "r.f");
  CHECK_FALSE(done.run_seconds);
  CHECK(done.run_until_done);
  const fb::WmlModel bounded = fb::parse_wml("set mode quit firstdone\nrun 7\n", "r.f");
  CHECK(bounded.run_seconds == 7);
  CHECK_FALSE(bounded.run_until_done);
}

TEST_CASE("firstdone ends the run for every thread when the first finds no file") {
  const iobench::test::TempDir target("fbqm1");
  const filebench_test::Run run = filebench_test::run_filebench_text(
      target, two_creators("set mode quit firstdone\n"), "60s", 9);
  CHECK(op(run, "ca").ops == 5);
  // b was cut short: far from its 12 files (one each 50 ms while a made its 5 at once).
  CHECK(op(run, "cb").ops < 12);
  CHECK(no_file_picks(run) == 1);
  CHECK(run.step.warnings.empty());
  // Ended by a, long before the 60 s limit.
  CHECK(run.step.phases.front().wall_ns < 30'000'000'000ULL);
  std::uint64_t made_b = 0;
  for (const auto& e : fs::recursive_directory_iterator(run.run_dir / "b"))
    made_b += e.is_regular_file();
  CHECK(made_b == op(run, "cb").ops);
}

TEST_CASE("alldone ends the run once every thread found no file, with each thread's ops exact") {
  const iobench::test::TempDir target("fbqm2");
  const filebench_test::Run run =
      filebench_test::run_filebench_text(target, two_creators("set mode quit alldone\n"), "60s", 9);
  CHECK(op(run, "ca").ops == 5);
  CHECK(op(run, "cb").ops == 12);
  CHECK(op(run, "d").ops == 12);
  CHECK(no_file_picks(run) == 2);
  CHECK(run.step.warnings.empty());
  CHECK(run.step.phases.front().wall_ns < 30'000'000'000ULL);
  CHECK(filebench_test::tree(run.run_dir / "a").files == 5);
  CHECK(filebench_test::tree(run.run_dir / "b").files == 12);
}

TEST_CASE("timeout mode stops a thread that finds no file and warns") {
  const iobench::test::TempDir target("fbqm3");
  const filebench_test::Run run =
      filebench_test::run_filebench_text(target, two_creators(""), "60s", 9);
  CHECK(op(run, "ca").ops == 5);
  CHECK(op(run, "cb").ops == 12);
  REQUIRE(run.step.warnings.size() == 1);
  CHECK_THAT(run.step.warnings.front(), Catch::Contains("could not obtain a file"));
}

TEST_CASE("a finishoncount ends the run under alldone too, as filebench's") {
  const iobench::test::TempDir target("fbqm4");
  const filebench_test::Run run = filebench_test::run_filebench_text(
      target,
      "set mode quit alldone\n"
      "define file name=f,size=0,prealloc\n"
      "define process name=p {\n"
      "  thread name=w { flowop write name=wr,filename=f,fd=1,iosize=1k\n"
      "                  flowop finishoncount name=fin,value=3,target=wr }\n"
      "  thread name=s { flowop block name=wait }\n"
      "}\n",
      "60s", 9);
  // The writer's fourth check sees 3 writes and ends the run; the blocked thread leaves it.
  CHECK(op(run, "wr").ops == 3);
  CHECK(op(run, "wait").ops == 0);
  CHECK(run.step.phases.front().wall_ns < 30'000'000'000ULL);
}
