// filebench's processes as OS processes: `define process instances=N` runs N worker processes,
// each with its thread instances as threads, started at the runner's barrier, their results
// merged; what filebench shares across processes (fileset picks, semaphores, eventgen) is
// shared; a failing process fails the run; nothing is left behind.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iobench/registry.hpp>
#include <iobench/runner.hpp>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>

#include "plugins/filebench/filebench_workload.hpp"
#include "plugins/filebench/wml_parser.hpp"
#include "tests/filebench/filebench_test_support.hpp"
#include "tests/filebench/wml_test_helpers.hpp"
#include "tests/support/test_support.hpp"

namespace fs = std::filesystem;
namespace fb = iobench::plugins::filebench;
using filebench_test::op;
using filebench_test::Run;
using filebench_test::run_filebench;

namespace {

// The step of `file` on `target` (files removed at its end), whatever its status.
iobench::StepResult run_step(const iobench::test::TempDir& target, const fs::path& file,
                             const std::string& seconds, std::uint64_t ops = 0) {
  const iobench::Registry registry = iobench::test::make_full_registry();
  iobench::Runner runner(registry, iobench::RunOptions{});
  const iobench::Step step{.name = "filebench",
                           .workload = "filebench",
                           .params = {{"file", file.string()}, {"time_limit", seconds}},
                           .targets = {target.path()},
                           .ops_limit = ops,
                           .seed = 7};
  iobench::test::CapturingReporter reporter;
  runner.run(std::span<const iobench::Step>(&step, 1), reporter);
  REQUIRE(reporter.steps.size() == 1);
  return reporter.steps.front();
}

std::uint64_t worker_ops(const iobench::StepResult& step, std::size_t worker,
                         std::string_view name) {
  const auto& phase = step.phases.front();
  return phase.workers.at(worker).ops.at(phase.op_index(name)).ops;
}

// Shared anonymous mappings of this process (listed as /dev/zero in its maps).
std::size_t shared_mappings() {
  std::ifstream maps("/proc/self/maps");
  std::size_t n = 0;
  for (std::string line; std::getline(maps, line);) n += line.find("/dev/zero") != line.npos;
  return n;
}

}  // namespace

TEST_CASE("filebench process instances are processes and their thread instances threads") {
  const iobench::test::TempDir dir("fbpf");
  const iobench::test::TempDir target("fbpt");
  const fs::path file =
      filebench_test::write_file(dir.path() / "w.f",
                                 "define fileset name=pset,entries=1000,dirwidth=100,size=4k\n"
                                 "define process name=writer,instances=3 {\n"
                                 "  thread name=w,instances=2,memsize=64k {\n"
                                 "    flowop createfile name=create1,filesetname=pset,fd=1\n"
                                 "    flowop appendfile name=append,fd=1,iosize=64\n"
                                 "    flowop closefile name=close,fd=1\n"
                                 "  }\n"
                                 "}\n");
  // 30 ops per worker: 10 whole passes, so 10 files each.
  const Run run = run_filebench(target, file, "20s", 1234, 30);
  const auto& phase = run.step.phases.front();
  REQUIRE(phase.workers.size() == 6);
  CHECK(phase.mode == iobench::WorkerMode::kProcesses);
  // Who wrote each file: its first line, the writing thread's "iobench pid=P tid=T".
  std::map<long, std::map<long, int>> files_by_pid_tid;
  std::uint64_t files = 0;
  for (const auto& e : fs::recursive_directory_iterator(run.run_dir / "pset")) {
    if (!e.is_regular_file()) continue;
    ++files;
    std::ifstream in(e.path());
    std::string word;
    long pid = 0;
    long tid = 0;
    in >> word;
    REQUIRE(word == "iobench");
    in >> word;
    pid = std::stol(word.substr(4));
    in >> word;
    tid = std::stol(word.substr(4));
    ++files_by_pid_tid[pid][tid];
    CHECK(e.file_size() == 64);
  }
  CHECK(files == 60);
  CHECK(op(run, "create1").ops == 60);  // merged: the sum over the processes' threads
  REQUIRE(files_by_pid_tid.size() == 3);
  std::set<long> tids;
  for (const auto& [pid, by_tid] : files_by_pid_tid) {
    CHECK(pid != static_cast<long>(::getpid()));
    CHECK(by_tid.size() == 2);
    for (const auto& [tid, n] : by_tid) {
      CHECK(n == 10);
      CHECK(tid != pid);  // a thread the process started, not its main thread
      tids.insert(tid);
    }
  }
  CHECK(tids.size() == 6);
  // Each process's files are its two workers' creates (workers 2p and 2p+1).
  std::multiset<std::uint64_t> per_process;
  for (std::size_t p = 0; p < 3; ++p)
    per_process.insert(worker_ops(run.step, 2 * p, "create1") +
                       worker_ops(run.step, 2 * p + 1, "create1"));
  CHECK(per_process == std::multiset<std::uint64_t>{20, 20, 20});
}

TEST_CASE("a semblock in one filebench process is released by a sempost in another") {
  const iobench::test::TempDir dir("fbsf");
  const iobench::test::TempDir target("fbst");
  const fs::path file = filebench_test::write_file(
      dir.path() / "w.f",
      "define process name=poster,instances=1 {\n"
      "  thread name=p { flowop sempost name=post,target=blk,value=1\n"
      "    flowop delay name=pause,value=0.001 }\n"
      "}\n"
      "define process name=blocker,instances=1 {\n"
      "  thread name=b { flowop semblock name=blk,value=1,highwater=1000 }\n"
      "}\n");
  // The poster posts 10 times (20 ops); the blocker gets exactly those 10, then waits for the
  // time limit.
  const Run run = run_filebench(target, file, "2s", 1234, 20);
  CHECK(op(run, "post").ops == 10);
  CHECK(op(run, "blk").ops == 10);
}

TEST_CASE("filebench processes share one event generator") {
  const iobench::test::TempDir dir("fbef");
  const iobench::test::TempDir target("fbet");
  const fs::path file =
      filebench_test::write_file(dir.path() / "w.f",
                                 "eventgen rate=50\n"
                                 "define process name=limited,instances=2 {\n"
                                 "  thread name=t { flowop eventlimit name=tick }\n"
                                 "}\n");
  const Run run = run_filebench(target, file, "1s");
  const auto& phase = run.step.phases.front();
  // Events accrue at 50/s from the first thread's start, inside the measured wall time: both
  // processes together take at most that many (each its own generator would take twice).
  const double wall_s = static_cast<double>(phase.wall_ns) / 1e9;
  CHECK(op(run, "tick").ops > 0);
  CHECK(static_cast<double>(op(run, "tick").ops) <= 50 * wall_s + 1);
}

TEST_CASE("a failing filebench process fails the run with its error and leaves nothing behind") {
  const iobench::test::TempDir dir("fbxf");
  const iobench::test::TempDir target("fbxt");
  const fs::path file = filebench_test::write_file(
      dir.path() / "w.f",
      "define fileset name=ro,entries=20,dirwidth=10,size=8k,"
      "prealloc=100,readonly\n"
      "define process name=reader,instances=2 {\n"
      "  thread name=r { flowop read name=look,filesetname=ro,iosize=4k }\n"
      "}\n"
      "define process name=scribbler,instances=1 {\n"
      "  thread name=s { flowop write name=scribble,filesetname=ro,"
      "iosize=4k }\n"
      "}\n");
  const std::size_t mappings = shared_mappings();
  const iobench::StepResult step = run_step(target, file, "10s");
  CHECK(step.status == iobench::Status::kFailed);
  CHECK_THAT(step.message,
             Catch::Contains("flowop scribble") && Catch::Contains(std::strerror(EBADF)));
  REQUIRE(step.phases.size() == 1);
  CHECK(step.phases.front().workers.at(2).status == iobench::Status::kFailed);
  // Nothing left: no file, no worker process, no shared mapping.
  CHECK(target.entries().empty());
  errno = 0;
  CHECK(::waitpid(-1, nullptr, WNOHANG) == -1);
  CHECK(errno == ECHILD);
  CHECK(shared_mappings() == mappings);
}

TEST_CASE("a filebench process's nice lowers its threads' priority") {
  const fb::WmlModel model = fb::parse_wml(
      "define process name=p,instances=1,nice=5 { thread name=t { flowop delay name=d,value=1 } "
      "}\n",
      "n.f");
  CHECK(model.processes.front().nice == 5);
  CHECK_THROWS_WITH(fb::parse_wml("define process name=p,nice=20 { thread name=t { flowop delay "
                                  "name=d,value=1 } }\n",
                                  "n.f"),
                    Catch::Contains("n.f:1:28") && Catch::Contains("nice=20 is out of range"));
  int before = 0;
  int after = 0;
  std::thread([&] {
    before = ::getpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()));
    fb::apply_nice(5);
    after = ::getpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()));
  }).join();
  CHECK(after == std::min(before + 5, 19));
  CHECK(::getpriority(PRIO_PROCESS, static_cast<id_t>(::gettid())) == before);
}
