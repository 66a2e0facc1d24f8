// filebench's timeline and report statements (issue 31): `sleep N` before the run (its pauses
// placed around `create files` as written), `psrun [-P] [D]` with its per-period lines, `enable
// lathist` with filebench's 64-bucket latency histogram on each flowop line, `set mode
// nousestats` (quit_mode_test), `debug N`, iters=128k, `disable lathist` (iobench's extension,
// as include is: wml_include_test), `enable multi` and domultisync refused naming mpirun: parsed
// with exact error positions, then run for real.
#include <fmt/format.h>
#include <sys/stat.h>

#include <bit>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "plugins/filebench/filebench_formatter.hpp"
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

// A fileset and one thread that only naps (nothing on disk changes after the fileset is made).
const std::string kNapper =
    "define fileset name=s,path=/tmp,size=4k,entries=8,dirwidth=4,prealloc\n"
    "define process name=p { thread name=t { flowop delay name=nap,value=0.01 } }\n";

// A thread that reads (so the latency histogram and the series have I/O ops).
const std::string kReader =
    "define file name=f,path=/tmp,size=64k,prealloc\n"
    "define process name=p { thread name=t,memsize=4k {\n"
    "  flowop read name=rd,filename=f,iosize=4k,fd=1,random\n"
    "  flowop delay name=nap,value=0.001 } }\n";

double double_attribute(const Run& run, const std::string& key) {
  for (const auto& [name, value] : run.step.attributes) {
    if (name == key && std::holds_alternative<double>(value)) return std::get<double>(value);
  }
  FAIL("no double attribute " << key);
  return 0;
}

bool has_attribute(const Run& run, const std::string& key) {
  for (const auto& [name, value] : run.step.attributes) {
    if (name == key) return true;
  }
  return false;
}

// Seconds since the epoch of `path`'s last modification.
double mtime_s(const fs::path& path) {
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  return static_cast<double>(st.st_mtim.tv_sec) + static_cast<double>(st.st_mtim.tv_nsec) / 1e9;
}

double now_s() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::vector<std::string> lines_starting(const std::string& text, const std::string& prefix) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(prefix, 0) == 0) out.push_back(line);
  }
  return out;
}

}  // namespace

TEST_CASE("sleep adds to the pauses before or after create files, in the file's order") {
  const fb::WmlModel m =
      fb::parse_wml("set $t=4\nsleep 2\ncreate files\nsleep 3\nsleep $t\nrun 5\n", "t.f");
  CHECK(m.sleep_before_create_s == 2);
  CHECK(m.sleep_after_create_s == 7);
  CHECK(m.run_seconds == 5);
  // Without `create files` every sleep comes before the run makes the filesets.
  const fb::WmlModel alone = fb::parse_wml("sleep 1\nrun 3\n", "t.f");
  CHECK(alone.sleep_before_create_s == 1);
  CHECK(alone.sleep_after_create_s == 0);
}

TEST_CASE("bad sleeps are refused at their place") {
  CHECK(filebench_test::wml_error_of("run 5\nsleep 1\n") ==
        "t.f:2:1: 'sleep' after 'run' is never reached: filebench ends with its run; move it "
        "above 'run' or remove it");
  CHECK(filebench_test::wml_error_of("sleep x\n") ==
        "t.f:1:7: expected seconds after 'sleep', found 'x'; write sleep N");
  CHECK(filebench_test::wml_error_of("sleep \"2\"\n") ==
        "t.f:1:7: expected seconds after 'sleep', found \"2\"; write sleep N");
  CHECK(filebench_test::wml_error_of("sleep 10s\n") ==
        "t.f:1:7: sleep 10s is not a whole number; write digits, e.g. 10");
  CHECK(filebench_test::wml_error_of("sleep 2592001\n") ==
        "t.f:1:7: sleep 2592001 is out of range; give 1 to 2592000 seconds (30 days)");
  // filebench's sleep 0 waits until it is interrupted.
  CHECK(filebench_test::wml_error_of("sleep 0\n") ==
        "t.f:1:7: sleep 0: filebench waits until it is interrupted on a sleep of 0 seconds; "
        "give N >= 1");
  CHECK(filebench_test::wml_error_of("set $z=0\nsleep $z\n") ==
        "t.f:2:7: sleep 0: filebench waits until it is interrupted on a sleep of 0 seconds; "
        "give N >= 1");
  CHECK(filebench_test::wml_error_of("sleep $nope\n") ==
        "t.f:1:7: variable $nope is not set; add 'set $nope=...' before its use");
  CHECK(filebench_test::wml_error_of("sleep 2592000\nsleep 1\n") ==
        "t.f:2:1: the sleeps add up to over 2592000 seconds (30 days)");
}

TEST_CASE("psrun takes filebench's period and length") {
  const fb::WmlModel bare = fb::parse_wml("psrun\n", "t.f");
  CHECK(bare.psrun_period_s == 10);  // filebench's PERIOD_DEFAULT
  CHECK_FALSE(bare.psrun_reset);
  CHECK(bare.run_seconds == 60);
  const fb::WmlModel reset = fb::parse_wml("psrun -5 20\n", "t.f");
  CHECK(reset.psrun_period_s == 5);
  CHECK(reset.psrun_reset);
  CHECK(reset.run_seconds == 20);
  const fb::WmlModel period = fb::parse_wml("psrun 3\n", "t.f");
  CHECK(period.psrun_period_s == 3);
  CHECK(period.run_seconds == 60);
  const fb::WmlModel zero = fb::parse_wml("psrun 0 7\n", "t.f");
  CHECK(zero.psrun_period_s == 10);
  CHECK(zero.run_seconds == 7);
  const fb::WmlModel done = fb::parse_wml("set mode quit alldone\npsrun -2\n", "t.f");
  CHECK(done.run_until_done);
  CHECK_FALSE(done.run_seconds);
  CHECK(done.psrun_reset);
  // A plain run has no period.
  CHECK(fb::parse_wml("run 4\n", "t.f").psrun_period_s == 0);
}

TEST_CASE("every statement after run or psrun is refused at its place, comments kept") {
  // filebench ends with its run: nothing below it is reached, whatever the statement.
  const auto after_run = [](const std::string& where, const std::string& word) {
    return "t.f:" + where + ": '" + word +
           "' after 'run' is never reached: filebench ends with its run; move it above 'run' or "
           "remove it";
  };
  CHECK(filebench_test::wml_error_of("run 60\ndefine process name=p\n{\n}\n") ==
        after_run("2:1", "define"));
  CHECK(filebench_test::wml_error_of("run 1\n  eventgen rate=5\n") == after_run("2:3", "eventgen"));
  CHECK(filebench_test::wml_error_of("run 1\n# a comment\n\ncreate files\n") ==
        after_run("4:1", "create"));
  CHECK(filebench_test::wml_error_of("psrun 1\necho \"x\"\n") == after_run("2:1", "echo"));
  CHECK(filebench_test::wml_error_of("run 1\n    debug 3\n") == after_run("2:5", "debug"));
  CHECK(filebench_test::wml_error_of("run 1\nset $x=2\n") == after_run("2:1", "set"));
  CHECK(filebench_test::wml_error_of("run 1\nset mode quit alldone\n") == after_run("2:1", "set"));
  CHECK(filebench_test::wml_error_of("run 1\ninclude \"other.f\"\n") ==
        after_run("2:1", "include"));
  CHECK(filebench_test::wml_error_of("run 1 echo \"x\"\n") == after_run("1:7", "echo"));
  // Comments and blank lines below run stay fine; the model is the one above run.
  const fb::WmlModel m = fb::parse_wml("echo \"a\"\nrun 3\n\n# done\n   \n", "t.f");
  CHECK(m.run_seconds == 3);
  CHECK(m.echoes == std::vector<std::string>{"a"});
}

TEST_CASE("bad psruns are refused at their place") {
  CHECK(filebench_test::wml_error_of("psrun 5\npsrun 5\n") ==
        "t.f:2:1: a second 'run' statement is not modelled; keep one");
  CHECK(filebench_test::wml_error_of("run 5\npsrun\n") ==
        "t.f:2:1: a second 'run' statement is not modelled; keep one");
  // At the second run's word, with or without its seconds.
  CHECK(filebench_test::wml_error_of("psrun 5\n  run 6\n") ==
        "t.f:2:3: a second 'run' statement is not modelled; keep one");
  CHECK(filebench_test::wml_error_of("run 5\nrun\n") ==
        "t.f:2:1: a second 'run' statement is not modelled; keep one");
  CHECK(filebench_test::wml_error_of("run 5x\n") ==
        "t.f:1:5: run 5x is not a whole number; write digits, e.g. 10");
  CHECK(filebench_test::wml_error_of("psrun 1 0\n") ==
        "t.f:1:9: psrun 0 is out of range; give 1 to 2592000 seconds (30 days)");
  CHECK(filebench_test::wml_error_of("psrun -2592001\n") ==
        "t.f:1:7: psrun period 2592001 is out of range; give 1 to 2592000 seconds");
  CHECK(filebench_test::wml_error_of("psrun 5x\n") ==
        "t.f:1:7: psrun 5x is not a whole number; write digits, e.g. 10");
  CHECK(filebench_test::wml_error_of("psrun -x\n") ==
        "t.f:1:7: psrun -x: expected a period in seconds; write psrun [-]P [D]");
  // filebench's psrun takes numbers only: a variable is the next statement.
  CHECK(filebench_test::wml_error_of("set $p=5\npsrun $p\n") ==
        "t.f:2:7: expected a statement (set, define, run, create files, echo), found '$p'");
  CHECK(filebench_test::wml_error_of("psrun 1\nsleep 1\n") ==
        "t.f:2:1: 'sleep' after 'run' is never reached: filebench ends with its run; move it "
        "above 'run' or remove it");
}

TEST_CASE("enable and disable lathist, the last above run deciding, multi refused naming mpirun") {
  CHECK(fb::parse_wml("enable lathist\n", "t.f").lathist);
  CHECK_FALSE(fb::parse_wml("run 1\n", "t.f").lathist);
  // disable lathist (iobench's extension) undoes an enable above it; the last one decides.
  CHECK_FALSE(fb::parse_wml("enable lathist\ndisable lathist\nrun 1\n", "t.f").lathist);
  CHECK(fb::parse_wml("disable lathist\nenable lathist\nrun 1\n", "t.f").lathist);
  CHECK_FALSE(fb::parse_wml("disable lathist\nrun 1\n", "t.f").lathist);
  CHECK(fb::parse_wml("enable lathist\ndisable lathist\n  enable lathist\n", "t.f").lathist);
  // Below run neither is reached (filebench ends with its run).
  CHECK(filebench_test::wml_error_of("enable lathist\nrun 1\n  disable lathist\n") ==
        "t.f:3:3: 'disable' after 'run' is never reached: filebench ends with its run; "
        "move it above 'run' or remove it");
  CHECK(filebench_test::wml_error_of("psrun 1\nenable lathist\n") ==
        "t.f:2:1: 'enable' after 'run' is never reached: filebench ends with its run; "
        "move it above 'run' or remove it");
  CHECK(filebench_test::wml_error_of("enable stats\n") ==
        "t.f:1:8: expected 'lathist' after 'enable', found 'stats'; write enable lathist");
  CHECK(filebench_test::wml_error_of("enable\n") ==
        "t.f:2:1: expected 'lathist' after 'enable', found the end of the file; write enable "
        "lathist");
  CHECK(filebench_test::wml_error_of("set $a=1\n disable $a\n") ==
        "t.f:2:10: expected 'lathist' after 'disable', found '$a'; write disable lathist "
        "(iobench's extension: filebench 1.5 has no 'disable')");
  CHECK(filebench_test::wml_error_of("disable stats\n") ==
        "t.f:1:9: expected 'lathist' after 'disable', found 'stats'; write disable lathist "
        "(iobench's extension: filebench 1.5 has no 'disable')");
  // filebench's multi-client sync server: refused, naming mpirun (README, Many clients).
  const std::string mpirun =
      "remove it, and to run this workload on several clients at once start iobench under "
      "mpirun (mpirun -n N iobench run filebench file=F.f): every rank runs the file and each "
      "phase starts at a barrier across the ranks";
  CHECK(filebench_test::wml_error_of("enable multi master=a,client=b\n") ==
        "t.f:1:8: 'enable multi' (filebench's multi-client synchronisation through its sync "
        "server) is not modelled by iobench; " +
            mpirun);
  CHECK(filebench_test::wml_error_of("\tdomultisync value=3\nrun 1\n") ==
        "t.f:1:2: 'domultisync' (a barrier among the clients of filebench's sync server) is not "
        "modelled by iobench; " +
            mpirun);
  CHECK(filebench_test::wml_error_of("disable  multi\n") ==
        "t.f:1:10: 'disable multi' is not a statement: filebench 1.5 has no 'disable' and "
        "iobench's 'disable' takes only lathist; remove it");
  // include is iobench's extension (wml_include_test): text parsed from memory reads no file.
  CHECK(filebench_test::wml_error_of("  include \"other.f\"\nrun 1\n") ==
        "t.f:1:3: 'include' (iobench's extension; filebench 1.5 has no such statement) reads a "
        "file, and this text was not read from one; run the .f file itself");
}

TEST_CASE("a sleep lengthens the run by its time, before or after the filesets are made") {
  const iobench::test::TempDir files("fbslf");
  const fs::path plain = filebench_test::write_file(files.path() / "plain.f", kNapper + "run 60\n");
  const fs::path after = filebench_test::write_file(files.path() / "after.f",
                                                    kNapper + "create files\nsleep 2\nrun 60\n");
  const fs::path before = filebench_test::write_file(files.path() / "before.f",
                                                     kNapper + "sleep 2\ncreate files\nrun\n");

  const iobench::test::TempDir t1("fbsl1");
  const Run base = run_filebench(t1, plain);
  CHECK_FALSE(has_attribute(base, fb::kSleptAfterCreateAttr));

  // Only lower bounds on the slept run itself, and a generous upper bound: a loaded CI under
  // a sanitizer may stretch any run, so two runs' elapsed times are never compared.
  const iobench::test::TempDir t2("fbsl2");
  const auto start = std::chrono::steady_clock::now();
  const Run slept = run_filebench(t2, after);
  const double slept_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double t_end = now_s();
  // The run took at least its 1 s time limit plus the sleep's 2 s (elapsed time, not a speed).
  CHECK(slept_s >= 3.0);
  CHECK(slept_s < 30.0);
  CHECK(double_attribute(slept, fb::kSleptAfterCreateAttr) >= 2.0);
  CHECK(double_attribute(slept, fb::kSleptAfterCreateAttr) < 30.0);
  CHECK_FALSE(has_attribute(slept, fb::kSleptBeforeCreateAttr));
  // The files were made before the sleep: at least its 2 s before the run's end.
  CHECK(t_end - mtime_s(slept.run_dir / "s") >= 1.9);
  CHECK(op(slept, "nap").ops > 0);

  const iobench::test::TempDir t3("fbsl3");
  const double t0 = now_s();
  const Run late = run_filebench(t3, before);
  CHECK(double_attribute(late, fb::kSleptBeforeCreateAttr) >= 2.0);
  // The files were made after the sleep.
  CHECK(mtime_s(late.run_dir / "s") - t0 >= 1.9);
}

TEST_CASE("psrun prints filebench's snapshot per period: every flowop's line and IO Summary") {
  const iobench::test::TempDir files("fbpsf");
  for (const bool reset : {false, true}) {
    INFO("reset " << reset);
    const fs::path f = filebench_test::write_file(
        files.path() / "ps.f", kReader + (reset ? "psrun -1 60\n" : "psrun 1 60\n"));
    const iobench::test::TempDir target("fbps");
    const Run run = run_filebench(target, f, "3s");
    const iobench::PhaseResult& phase = run.step.phases.front();
    std::ostringstream text;
    fb::format_filebench_text(run.step, text);
    INFO(text.str());
    REQUIRE(phase.op_names == std::vector<std::string>{"rd", "nap"});
    // The series splits every measured point by flowop, adding up to each flowop's totals.
    std::vector<iobench::SeriesOpPoint> series_sums(2);
    for (const iobench::SeriesPoint& p : phase.time_series.points) {
      if (p.warmup) continue;
      REQUIRE(p.op_points.size() == 2);
      for (std::size_t k = 0; k < 2; ++k) series_sums[k].add(p.op_points[k]);
    }
    for (std::size_t k = 0; k < 2; ++k) {
      CHECK(series_sums[k].ops == phase.ops[k].ops);
      CHECK(series_sums[k].bytes == phase.ops[k].bytes);
      CHECK(series_sums[k].latency_sum_ns == phase.ops[k].latency.sum());
    }

    // Each period: "Period k (s s):", the breakdown's header, a line per flowop, IO Summary.
    std::istringstream in(text.str());
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    struct Snapshot {
      unsigned seconds = 0;
      unsigned long long ops[2] = {0, 0};
      unsigned long long summary_ops = 0;
    };
    std::vector<Snapshot> snaps;
    std::size_t i = 0;
    for (; i < lines.size() && lines[i].rfind("Period ", 0) == 0; i += 5) {
      Snapshot s;
      unsigned index = 0;
      REQUIRE(std::sscanf(lines[i].c_str(), "Period %u (%u s):", &index, &s.seconds) == 2);
      CHECK(index == snaps.size() + 1);
      REQUIRE(i + 4 < lines.size());
      CHECK(lines[i + 1] == "Per-Operation Breakdown");
      char name[32] = {};
      REQUIRE(std::sscanf(lines[i + 2].c_str(), "%31s %lluops", name, &s.ops[0]) == 2);
      CHECK(std::string(name) == "rd");
      REQUIRE(std::sscanf(lines[i + 3].c_str(), "%31s %lluops", name, &s.ops[1]) == 2);
      CHECK(std::string(name) == "nap");
      // No [min - max] in a period's lines: the series keeps no per-op extremes.
      CHECK(lines[i + 2].find('[') == std::string::npos);
      REQUIRE(std::sscanf(lines[i + 4].c_str(), "IO Summary: %llu ops", &s.summary_ops) == 1);
      CHECK(s.summary_ops == s.ops[0]);  // the delay flowop is not in the IO Summary
      snaps.push_back(s);
    }
    REQUIRE(snaps.size() >= 2);
    REQUIRE(snaps.size() <= 4);
    // Then the whole run's breakdown, as without psrun.
    REQUIRE(i < lines.size());
    CHECK(lines[i] == "Per-Operation Breakdown");
    for (std::size_t k = 0; k < 2; ++k) {
      INFO("flowop " << phase.op_names[k]);
      unsigned long long sum = 0;
      unsigned long long previous = 0;
      for (const Snapshot& s : snaps) {
        if (reset) {
          CHECK(s.seconds >= 1);
          CHECK(s.seconds <= 2);
        } else {
          CHECK(s.ops[k] >= previous);  // the run so far
        }
        previous = s.ops[k];
        sum += s.ops[k];
      }
      CHECK((reset ? sum : snaps.back().ops[k]) == phase.ops[k].ops);
      CHECK(phase.ops[k].ops > 0);
    }
  }
}

TEST_CASE("psrun periods start at the first measured point, mark gaps, say a coarse series") {
  const auto point = [](double start_s, double duration_s, std::uint64_t ops, bool warmup) {
    iobench::SeriesPoint p;
    p.start_ns = static_cast<std::uint64_t>(start_s * 1e9);
    p.duration_ns = static_cast<std::uint64_t>(duration_s * 1e9);
    p.ops = ops;
    p.bytes = ops * 4096;
    p.warmup = warmup;
    p.latency_ns.mean = 1e6;
    return p;
  };
  const auto text_of = [](std::int64_t period_s, bool reset, double interval_s,
                          std::vector<iobench::SeriesPoint> points) {
    iobench::StepResult step;
    step.attributes.emplace_back(fb::kPsrunPeriodAttr, period_s);
    step.attributes.emplace_back(fb::kPsrunResetAttr, std::int64_t{reset ? 1 : 0});
    iobench::PhaseResult phase;
    phase.wall_ns = 1'000'000'000;
    phase.time_series.interval_ns = static_cast<std::uint64_t>(interval_s * 1e9);
    phase.time_series.points = std::move(points);
    step.phases.push_back(std::move(phase));
    std::ostringstream out;
    fb::format_filebench_text(step, out);
    return out.str();
  };
  // A 1.5 s warm-up does not shorten period 1: it holds the first two measured seconds.
  const std::string warm = text_of(2, true, 1,
                                   {point(0, 1.5, 7, true), point(1.5, 1, 10, false),
                                    point(2.5, 1, 20, false), point(3.5, 1, 30, false)});
  INFO(warm);
  const std::vector<std::string> w = lines_starting(warm, "Period ");
  REQUIRE(w.size() == 2);
  CHECK(w[0].rfind("Period 1 (2 s):    30 ops", 0) == 0);
  CHECK(w[1].rfind("Period 2 (1 s):    30 ops", 0) == 0);

  // Periods without a point between data are marked, in both modes, never given numbers.
  for (const bool reset : {false, true}) {
    const std::string gap =
        text_of(1, reset, 1, {point(0, 1, 5, false), point(1, 1, 5, false), point(4, 1, 5, false)});
    INFO(gap);
    const std::vector<std::string> g = lines_starting(gap, "Period ");
    REQUIRE(g.size() == 5);
    CHECK(g[2] == "Period 3: not measured (no time series point starts in it)");
    CHECK(g[3] == "Period 4: not measured (no time series point starts in it)");
    CHECK(g[4].rfind(reset ? "Period 5 (1 s):     5 ops" : "Period 5 (3 s):    15 ops", 0) == 0);
  }

  // A 5 s series under 2 s periods: said once, each line 6 s, none empty.
  const std::string coarse = text_of(2, true, 5,
                                     {point(0, 5, 50, false), point(5, 5, 50, false),
                                      point(10, 5, 50, false), point(15, 5, 50, false)});
  INFO(coarse);
  CHECK(lines_starting(coarse, "Periods: ") ==
        std::vector<std::string>{
            "Periods: the time series interval (5.000 s) is longer than psrun's 2 s period; "
            "each Period line covers 6 s (give a smaller --interval for 2 s periods)"});
  const std::vector<std::string> c = lines_starting(coarse, "Period ");
  REQUIRE(c.size() == 3);
  CHECK(c[0].rfind("Period 1 (10 s):   100 ops", 0) == 0);
  CHECK(c[1].rfind("Period 2 (5 s):    50 ops", 0) == 0);
  CHECK(c[2].rfind("Period 3 (5 s):    50 ops", 0) == 0);

  // Only a warm-up: one line says there is nothing to show.
  CHECK(lines_starting(text_of(1, false, 1, {point(0, 1, 5, true)}), "Period") ==
        std::vector<std::string>{"Periods: none (the run's time series has no measured point)"});
}

TEST_CASE("enable lathist ends each flowop line in filebench's 64-bucket histogram") {
  const iobench::test::TempDir files("fblhf");
  const fs::path f =
      filebench_test::write_file(files.path() / "lh.f", "enable lathist\n" + kReader + "run 1\n");
  const iobench::test::TempDir target("fblh");
  const Run run = run_filebench(target, f);
  std::ostringstream text;
  fb::format_filebench_text(run.step, text);
  INFO(text.str());
  for (const char* name : {"rd", "nap"}) {
    const iobench::OpResult& o = op(run, name);
    const std::vector<std::string> lines = lines_starting(text.str(), fmt::format("{:<20} ", name));
    REQUIRE(lines.size() == 1);
    const std::size_t open = lines[0].find("\t[ ");
    REQUIRE(open != std::string::npos);
    REQUIRE(lines[0].back() == ']');
    std::istringstream in(lines[0].substr(open + 3, lines[0].size() - open - 4));
    std::vector<std::uint64_t> counts;
    for (std::uint64_t c = 0; in >> c;) counts.push_back(c);
    REQUIRE(counts.size() == fb::kLathistBuckets);
    CHECK(std::accumulate(counts.begin(), counts.end(), std::uint64_t{0}) == o.latency.count());
    // The fastest and slowest ops lie in their powers of two, nothing outside them.
    const auto lo = static_cast<std::size_t>(std::bit_width(o.latency.min()));
    const auto hi = static_cast<std::size_t>(std::bit_width(o.latency.max()));
    CHECK(counts[lo] >= 1);
    CHECK(counts[hi] >= 1);
    for (std::size_t i = 0; i < counts.size(); ++i) {
      if (i < lo || i > hi) CHECK(counts[i] == 0);
    }
  }
  // Turned off again by disable lathist (as without it), no histogram.
  const fs::path plain = filebench_test::write_file(
      files.path() / "plain.f", "enable lathist\ndisable lathist\n" + kReader + "run 1\n");
  const iobench::test::TempDir target2("fblh2");
  std::ostringstream text2;
  fb::format_filebench_text(run_filebench(target2, plain).step, text2);
  CHECK(text2.str().find("\t[ ") == std::string::npos);
}

TEST_CASE(
    "debug N is filebench's log level, recorded, and iters takes k as filebench's lexer does") {
  CHECK(fb::parse_wml("run 1\n", "t.f").debug_level == -1);
  CHECK(fb::parse_wml("debug 1\n", "t.f").debug_level == 1);
  CHECK(fb::parse_wml("debug 12\n", "t.f").debug_level == 10);  // filebench caps it at 10
  CHECK(filebench_test::wml_error_of("debug x\n") ==
        "t.f:1:7: expected a level after 'debug', found 'x'; write debug N");
  CHECK(filebench_test::wml_error_of("debug\n") ==
        "t.f:2:1: expected a level after 'debug', found the end of the file; write debug N");
  const std::string fs = "define file name=f,size=1k\n";
  const fb::WmlModel m = fb::parse_wml(
      fs + "define process name=p { thread name=t { flowop write name=w,filename=f,iosize=1k,"
           "iters=128k } }\n",
      "t.f");
  CHECK(m.processes.front().threads.front().flowops.front().iters == 131072);
  CHECK(filebench_test::wml_error_of(
            fs + "define process name=p { thread name=t { flowop write name=w,filename=f,"
                 "iosize=1k,iters=1m } }\n") ==
        "t.f:2:88: iters=1m is out of range; give 1 to 1000000");
  CHECK(filebench_test::wml_error_of(
            fs + "define process name=p { thread name=t { flowop write name=w,filename=f,"
                 "iosize=1k,iters=0 } }\n") ==
        "t.f:2:88: iters=0 is out of range; give 1 to 1000000");
}

namespace {

/// A psrun step of one phase (flowops rd, a read, and nap, a delay) over 1 s points, point k
/// starting at k s with the totals of `splits[k]` (its split by op, kept with `keep_split`; an
/// empty one is a gap: measured, no op completed); the text its report prints with 1 s periods
/// (`reset`: psrun -1).
std::string psrun_text_of(bool reset,
                          const std::vector<std::vector<iobench::SeriesOpPoint>>& splits,
                          bool keep_split = true) {
  iobench::StepResult step;
  step.attributes.emplace_back(fb::kPsrunPeriodAttr, std::int64_t{1});
  step.attributes.emplace_back(fb::kPsrunResetAttr, std::int64_t{reset ? 1 : 0});
  step.attributes.emplace_back(fb::kReadFlowopsAttr, std::string("rd"));
  step.attributes.emplace_back(fb::kOtherFlowopsAttr, std::string("nap"));
  iobench::PhaseResult phase;
  phase.op_names = {"rd", "nap"};
  phase.wall_ns = 3'000'000'000;
  phase.time_series.interval_ns = 1'000'000'000;
  for (std::size_t k = 0; k < splits.size(); ++k) {
    iobench::SeriesPoint p;
    p.start_ns = k * 1'000'000'000ULL;
    p.duration_ns = 1'000'000'000;
    std::uint64_t latency_sum_ns = 0;
    for (const iobench::SeriesOpPoint& o : splits[k]) {
      p.ops += o.ops;
      p.bytes += o.bytes;
      latency_sum_ns += o.latency_sum_ns;
    }
    p.latency_ns.mean =
        p.ops ? static_cast<double>(latency_sum_ns) / static_cast<double>(p.ops) : 0.0;
    if (keep_split) p.op_points = splits[k];
    phase.time_series.points.push_back(std::move(p));
  }
  step.phases.push_back(std::move(phase));
  std::ostringstream out;
  fb::format_filebench_text(step, out);
  return out.str();
}

constexpr std::uint64_t kPsrunMiB = 1024 * 1024;
// Second 1: 4 reads of 1 MiB (2 ms each), 2 naps (500 ms each); second 2: nothing completes (a
// gap: a measured point without the split); second 3: 2 reads (3 ms each).
const std::vector<std::vector<iobench::SeriesOpPoint>> kPsrunGapSplits = {
    {{.ops = 4, .bytes = 4 * kPsrunMiB, .latency_samples = 4, .latency_sum_ns = 8'000'000},
     {.ops = 2, .latency_samples = 2, .latency_sum_ns = 1'000'000'000}},
    {},
    {{.ops = 2, .bytes = 2 * kPsrunMiB, .latency_samples = 2, .latency_sum_ns = 6'000'000}, {}}};

}  // namespace

TEST_CASE("psrun prints a gap interval's period per flowop, with no op, between its neighbours") {
  // psrun -1: each period alone; the gap's period is all zeros, per flowop.
  CHECK(psrun_text_of(true, kPsrunGapSplits) ==
        "Period 1 (1 s):\n"
        "Per-Operation Breakdown\n"
        "rd                   4ops        4ops/s   4.0mb/s    2.000ms/op\n"
        "nap                  2ops        2ops/s   0.0mb/s  500.000ms/op\n"
        "IO Summary:     4 ops 4.000 ops/s 4/0 rd/wr   4.0mb/s 2.000ms/op\n"
        "Period 2 (1 s):\n"
        "Per-Operation Breakdown\n"
        "rd                   0ops        0ops/s   0.0mb/s    0.000ms/op\n"
        "nap                  0ops        0ops/s   0.0mb/s    0.000ms/op\n"
        "IO Summary:     0 ops 0.000 ops/s 0/0 rd/wr   0.0mb/s 0.000ms/op\n"
        "Period 3 (1 s):\n"
        "Per-Operation Breakdown\n"
        "rd                   2ops        2ops/s   2.0mb/s    3.000ms/op\n"
        "nap                  0ops        0ops/s   0.0mb/s    0.000ms/op\n"
        "IO Summary:     2 ops 2.000 ops/s 2/0 rd/wr   2.0mb/s 3.000ms/op\n"
        // The whole run's breakdown (this phase has no op results).
        "Per-Operation Breakdown\n"
        "IO Summary:     0 ops 0.000 ops/s 0/0 rd/wr   0.0mb/s 0.000ms/op\n");
  // psrun 1: the run so far; the gap adds its second and no op.
  CHECK(psrun_text_of(false, kPsrunGapSplits) ==
        "Period 1 (1 s):\n"
        "Per-Operation Breakdown\n"
        "rd                   4ops        4ops/s   4.0mb/s    2.000ms/op\n"
        "nap                  2ops        2ops/s   0.0mb/s  500.000ms/op\n"
        "IO Summary:     4 ops 4.000 ops/s 4/0 rd/wr   4.0mb/s 2.000ms/op\n"
        "Period 2 (2 s):\n"
        "Per-Operation Breakdown\n"
        "rd                   4ops        2ops/s   2.0mb/s    2.000ms/op\n"
        "nap                  2ops        1ops/s   0.0mb/s  500.000ms/op\n"
        "IO Summary:     4 ops 2.000 ops/s 2/0 rd/wr   2.0mb/s 2.000ms/op\n"
        "Period 3 (3 s):\n"
        "Per-Operation Breakdown\n"
        "rd                   6ops        2ops/s   2.0mb/s    2.333ms/op\n"
        "nap                  2ops        1ops/s   0.0mb/s  500.000ms/op\n"
        "IO Summary:     6 ops 2.000 ops/s 2/0 rd/wr   2.0mb/s 2.333ms/op\n"
        "Per-Operation Breakdown\n"
        "IO Summary:     0 ops 0.000 ops/s 0/0 rd/wr   0.0mb/s 0.000ms/op\n");
}

TEST_CASE("psrun prints one aggregate line a period for a series without the per-op split") {
  // A result written before SeriesPoint::op_points: the same points' totals, none split by op.
  // Each period's line counts every op (nap's too) at the points' mean latency.
  CHECK(psrun_text_of(true, kPsrunGapSplits, false) ==
        "Period 1 (1 s):     6 ops 6.000 ops/s   4.0mb/s 168.000ms/op\n"
        "Period 2 (1 s):     0 ops 0.000 ops/s   0.0mb/s 0.000ms/op\n"
        "Period 3 (1 s):     2 ops 2.000 ops/s   2.0mb/s 3.000ms/op\n"
        "Per-Operation Breakdown\n"
        "IO Summary:     0 ops 0.000 ops/s 0/0 rd/wr   0.0mb/s 0.000ms/op\n");
  CHECK(psrun_text_of(false, kPsrunGapSplits, false) ==
        "Period 1 (1 s):     6 ops 6.000 ops/s   4.0mb/s 168.000ms/op\n"
        "Period 2 (2 s):     6 ops 3.000 ops/s   2.0mb/s 168.000ms/op\n"
        "Period 3 (3 s):     8 ops 2.667 ops/s   2.0mb/s 126.750ms/op\n"
        "Per-Operation Breakdown\n"
        "IO Summary:     0 ops 0.000 ops/s 0/0 rd/wr   0.0mb/s 0.000ms/op\n");
}
