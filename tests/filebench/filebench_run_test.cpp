// The filebench workload end to end through the Runner: the example personalities for about a
// second each on a temporary directory, their op counts and bytes checked against the files they
// leave on disk; the text report; a bad .f file refused by the CLI with exit code 2.
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <iobench/classic_results.hpp>
#include <iobench/compare.hpp>
#include <iobench/registry.hpp>
#include <iobench/runner.hpp>
#include <sstream>
#include <string>

#include "plugins/filebench/filebench_formatter.hpp"
#include "tests/filebench/filebench_test_support.hpp"
#include "tests/filebench/wml_test_helpers.hpp"
#include "tests/support/test_support.hpp"

namespace fs = std::filesystem;
using filebench_test::attribute;
using filebench_test::op;
using filebench_test::Run;
using filebench_test::run_filebench;
using filebench_test::Tree;
using filebench_test::tree;

namespace {

const fs::path kExamples = fs::path(IOBENCH_SOURCE_DIR) / "examples" / "filebench";

}  // namespace

TEST_CASE("the fileserver example leaves the files its creates and deletes account for") {
  const iobench::test::TempDir target("fbfs");
  const Run run = run_filebench(target, kExamples / "fileserver.f");
  const auto& create = op(run, "createfile1");
  const auto& remove = op(run, "delete");
  CHECK(create.ops > 0);
  CHECK(op(run, "readwhole").bytes > 0);
  CHECK(op(run, "writewhole").bytes > 0);
  CHECK(op(run, "append").ops > 0);
  CHECK(op(run, "stat").ops > 0);
  const Tree files = tree(run.run_dir / "fsfiles");
  CHECK(files.files ==
        static_cast<std::uint64_t>(attribute(run, "fileset.fsfiles.preallocated_files")) +
            create.ops - remove.ops);
  CHECK(attribute(run, "fileset.fsfiles.entries") == 400);
}

TEST_CASE("the varmail example leaves the files its creates and deletes account for") {
  const iobench::test::TempDir target("fbvm");
  const Run run = run_filebench(target, kExamples / "varmail.f");
  const auto& create = op(run, "createfile1");
  CHECK(create.ops > 0);
  CHECK(op(run, "fsyncnew").ops > 0);
  const Tree files = tree(run.run_dir / "spool");
  CHECK(files.files ==
        static_cast<std::uint64_t>(attribute(run, "fileset.spool.preallocated_files")) +
            create.ops - op(run, "delete").ops);
  // dirwidth 1000000 over 200 files: one directory below the root.
  CHECK(attribute(run, "fileset.spool.dirs") == 2);
}

TEST_CASE("the webserver example reads its documents unchanged and appends to its logs") {
  const iobench::test::TempDir target("fbws");
  const Run run = run_filebench(target, kExamples / "webserver.f");
  const Tree docs = tree(run.run_dir / "htdocs");
  CHECK(docs.files == 200);
  CHECK(docs.bytes ==
        static_cast<std::uint64_t>(attribute(run, "fileset.htdocs.preallocated_bytes")));
  const Tree logs = tree(run.run_dir / "weblog");
  CHECK(logs.files == 4);
  CHECK(logs.bytes ==
        static_cast<std::uint64_t>(attribute(run, "fileset.weblog.preallocated_bytes")) +
            op(run, "appendlog").bytes);
  CHECK(op(run, "read1").ops > 0);
  CHECK(op(run, "read1").bytes > 0);
}

TEST_CASE("the webproxy example evicts, stores and logs what its files on disk account for") {
  const iobench::test::TempDir target("fbwp");
  const Run run = run_filebench(target, kExamples / "webproxy.f");
  const auto& fetch = op(run, "fetch");
  CHECK(fetch.ops > 0);
  // One store per fetch, but the time limit can end each of the 4 threads between the two.
  CHECK(op(run, "store").ops <= fetch.ops);
  CHECK(op(run, "store").ops + 4 >= fetch.ops);
  CHECK(op(run, "read5").ops > 0);
  const Tree cache = tree(run.run_dir / "cache");
  CHECK(cache.files ==
        static_cast<std::uint64_t>(attribute(run, "fileset.cache.preallocated_files")) + fetch.ops -
            op(run, "evict").ops);
  // dirwidth 1000000 over 200 files: one directory below the root.
  CHECK(attribute(run, "fileset.cache.dirs") == 2);
  const Tree logs = tree(run.run_dir / "proxylog");
  CHECK(logs.files == 4);
  CHECK(logs.bytes == op(run, "appendlog").bytes);
}

TEST_CASE("appends and whole-file reads move exactly the bytes filebench's flowops move") {
  const iobench::test::TempDir target("fbio");
  const iobench::test::TempDir files("fbiof");
  const fs::path f = files.path() / "io.f";
  filebench_test::write_file(
      f,
      "define file name=log,size=4k,prealloc\n"
      "define file name=data,size=40k,prealloc\n"
      "define process name=p {\n"
      "  thread name=t,memsize=64k {\n"
      "    flowop appendfile name=app,filesetname=log,iosize=1k,fd=1\n"
      "    flowop appendfilerand name=apprand,filesetname=log,iosize=3k,fd=1\n"
      "    flowop openfile name=open,filesetname=data,fd=2\n"
      "    flowop readwholefile name=readall,fd=2,iosize=16k\n"
      "    flowop closefile name=close,fd=2\n"
      "    flowop delay name=nap,value=0.001\n"
      "  }\n"
      "}\n"
      "run 1\n");
  const Run run = run_filebench(target, f);
  const auto& app = op(run, "app");
  const auto& apprand = op(run, "apprand");
  const auto& readall = op(run, "readall");
  REQUIRE(app.ops > 0);
  CHECK(app.bytes == 1024 * app.ops);
  // filebench's draw for iosize 3k: 0..3070 bytes.
  CHECK(apprand.bytes <= 3070 * apprand.ops);
  CHECK(readall.bytes == 40960 * readall.ops);
  CHECK(fs::file_size(run.run_dir / "log") == 4096 + app.bytes + apprand.bytes);
  CHECK(fs::file_size(run.run_dir / "data") == 40960);
  CHECK(op(run, "nap").bytes == 0);

  std::ostringstream text;
  iobench::plugins::filebench::format_filebench_text(run.step, text);
  const std::string out = text.str();
  CHECK(out.rfind("Per-Operation Breakdown\n", 0) == 0);
  CHECK(out.find(fmt::format("\napp                  {}ops ", app.ops)) != std::string::npos);
  CHECK(out.find(fmt::format("\nreadall              {}ops ", readall.ops)) != std::string::npos);
  // Every flowop but the delay counts in the summary.
  const std::uint64_t io_ops =
      app.ops + apprand.ops + op(run, "open").ops + readall.ops + op(run, "close").ops;
  CHECK(out.find(fmt::format("\nIO Summary: {:5d} ops ", io_ops)) != std::string::npos);
  // Its ms/op as filebench's stats.c computes it: the counted flowops' summed latency over the
  // reads and writes (here readall; app and apprand), not over all io_ops.
  double latency_ns = 0;
  for (const char* name : {"app", "apprand", "open", "readall", "close"}) {
    const auto& o = op(run, name);
    latency_ns += o.latency.mean() * static_cast<double>(o.latency.count());
  }
  const double ms_per_op =
      latency_ns / static_cast<double>(readall.ops + app.ops + apprand.ops) / 1e6;
  CHECK_THAT(out, Catch::Contains(fmt::format("mb/s {:5.3f}ms/op\n", ms_per_op)));

  // compare reads this text as it reads filebench's, on the figures compare takes from the
  // run's own phase: reads + writes per second (rounded to whole ops/s in the text) and the
  // data flowops' mean latency (ms to 3 decimals).
  const iobench::ResultDocument back =
      iobench::parse_result_text(out, iobench::ResultFormat::kAuto, "ours.txt");
  CHECK(back.source->format == "filebench");
  REQUIRE(back.run.steps.size() == 1);
  REQUIRE(back.run.steps[0].phases.size() == 1);
  const iobench::PhaseResult& read_back = back.run.steps[0].phases[0];
  CHECK(read_back.name == "run");
  const iobench::PhaseResult& phase = run.step.phases.at(0);
  const auto from_text = [&](iobench::CompareMetric metric) {
    return iobench::phase_metric_value(read_back, metric).value();
  };
  CHECK(from_text(iobench::CompareMetric::kIops) ==
        Approx(iobench::phase_metric(phase, iobench::CompareMetric::kIops)).margin(1.0));
  CHECK(from_text(iobench::CompareMetric::kLatencyMean) ==
        Approx(iobench::phase_metric(phase, iobench::CompareMetric::kLatencyMean)).margin(1000.0));
}

TEST_CASE("the step seed decides the fileset on disk: names and sizes") {
  const iobench::test::TempDir files("fbseedf");
  const fs::path f = files.path() / "seed.f";
  filebench_test::write_file(
      f,
      "define fileset name=s,size=cvar(type=cvar-gamma,parameters=mean:2048),"
      "entries=60,dirwidth=4,prealloc=70,readonly\n"
      "define process name=p {thread name=t {flowop statfile name=st,"
      "filesetname=s}}\n");
  const auto listing = [&](std::uint64_t seed) {
    const iobench::test::TempDir target("fbseed");
    const Run run = run_filebench(target, f, "1s", seed);
    std::vector<std::string> out;
    for (const auto& e : fs::recursive_directory_iterator(run.run_dir / "s")) {
      out.push_back(fs::relative(e.path(), run.run_dir).string() +
                    (e.is_regular_file() ? " " + std::to_string(e.file_size()) : "/"));
    }
    std::sort(out.begin(), out.end());
    return out;
  };
  const std::vector<std::string> first = listing(77);
  CHECK(first.size() > 40);
  CHECK(listing(77) == first);
  CHECK(listing(78) != first);
}

TEST_CASE("a bad .f file is refused with its line and column and exit code 2") {
  const iobench::test::TempDir target("fbbad");
  const iobench::test::TempDir files("fbbadf");
  const fs::path f = files.path() / "bad.f";
  filebench_test::write_file(f,
                             "define fileset name=s,size=1k,entries=4,dirwidth=2\n"
                             "list\n");
  const auto result = iobench::test::run_cli(
      {"run", "filebench", "-d", target.path().string(), "file=" + f.string()});
  CHECK(result.exit_code == 2);
  CHECK(result.err.find(f.string() +
                        ":2:1: statement 'list' is accepted by filebench but not modelled by "
                        "iobench yet") != std::string::npos);
  CHECK(target.entries().empty());
}
