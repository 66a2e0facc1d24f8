// The classic tools' own results read as they are (classic_results.hpp): each format from real
// samples (the seeds' tables and lines in data/, the reference docs' samples, and samples that
// bonnie++, fio and dbench make in the test where they are installed), every figure against the
// text it came from, with its unit conversion.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <iobench/classic_results.hpp>
#include <iobench/compare.hpp>
#include <iobench/result_json.hpp>
#include <nlohmann/json.hpp>

#include "tests/support/test_support.hpp"

using namespace iobench;
using namespace iobench::test;

namespace {

constexpr double kKiB = 1024.0;
constexpr double kBytesPerMiB = 1024.0 * 1024.0;

std::filesystem::path data(const std::string& name) {
  return std::filesystem::path(IOBENCH_COMPARE_DATA_DIR) / name;
}

ResultDocument read(const std::string& name, ResultFormat format = ResultFormat::kAuto) {
  return read_result_file(data(name), format);
}

const PhaseResult& phase_of(const StepResult& step, const std::string& name) {
  for (const PhaseResult& phase : step.phases) {
    if (phase.name == name) return phase;
  }
  FAIL("no phase " << name << " in step " << step.name);
  throw std::logic_error("unreachable");
}

const ReportedFigures& figures_of(const StepResult& step, const std::string& name) {
  const PhaseResult& phase = phase_of(step, name);
  REQUIRE(phase.reported.has_value());
  CHECK(phase.ops.empty());
  return *phase.reported;
}

double value(const std::optional<ReportedFigure>& figure) {
  REQUIRE(figure.has_value());
  CHECK_FALSE(figure->too_fast);
  return figure->value;
}

bool too_fast(const std::optional<ReportedFigure>& figure) {
  return figure.has_value() && figure->too_fast;
}

bool lists(const ResultDocument& document, const std::string& part) {
  for (const std::string& line : document.source->not_mapped) {
    if (line.find(part) != std::string::npos) return true;
  }
  return false;
}

// Every figure of every phase the same in `a` and `b` (two prints of one run).
void check_same_figures(const StepResult& a, const StepResult& b) {
  REQUIRE(a.phases.size() == b.phases.size());
  for (std::size_t p = 0; p < a.phases.size(); ++p) {
    INFO(a.phases[p].name);
    CHECK(a.phases[p].name == b.phases[p].name);
    const ReportedFigures& x = *a.phases[p].reported;
    const ReportedFigures& y = *b.phases[p].reported;
    const auto same = [](const std::optional<ReportedFigure>& l,
                         const std::optional<ReportedFigure>& r) {
      CHECK(l.has_value() == r.has_value());
      if (l && r) {
        CHECK(l->too_fast == r->too_fast);
        CHECK(l->value == r->value);
      }
    };
    same(x.throughput_bytes_per_s, y.throughput_bytes_per_s);
    same(x.iops, y.iops);
    same(x.cpu_percent, y.cpu_percent);
    same(x.latency_max_ns, y.latency_max_ns);
  }
}

std::string slurp(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

bool installed(const std::string& tool) {
  return run_command({"sh", "-c", "command -v " + tool}).exit_code == 0;
}

}  // namespace

TEST_CASE("formats are detected and named", "[compare][classic]") {
  const std::vector<std::pair<std::string, ResultFormat>> files{
      {"seed002_unpatched.csv", ResultFormat::kBonnieCsv},
      {"bonnie_198.csv", ResultFormat::kBonnieCsv},
      {"seed002_bonnie_patched.txt", ResultFormat::kBonnieText},
      {"seed003_pre9-3.txt", ResultFormat::kBonnieText},
      {"bonnie_200a_table.txt", ResultFormat::kBonnieText},
      {"seed004_tiotest_btrfs.txt", ResultFormat::kTiotest},
      {"tiotest_terse_crafted.txt", ResultFormat::kTiotest},
      {"ref_tiobench_row.txt", ResultFormat::kTiobench},
      {"seed002_dbench.txt", ResultFormat::kDbench},
      {"ref_dbench4_tmpfs.txt", ResultFormat::kDbench},
      {"fio_a.json", ResultFormat::kFioJson},
      {"seed000_2.5.25.txt", ResultFormat::kSeedLines},
      {"ref_mdtest_2ranks.txt", ResultFormat::kMdtest},
      {"ref_filebench_fileserver.txt", ResultFormat::kFilebench},
  };
  for (const auto& [file, format] : files) {
    INFO(file);
    CHECK(detect_result_format(slurp(data(file)), file) == format);
    CHECK(read(file).source->format == to_string(format));
  }
  for (const ResultFormat format : result_formats()) {
    CHECK(parse_result_format(to_string(format)) == format);
  }
  CHECK(parse_result_format("auto") == ResultFormat::kAuto);
  CHECK_THROWS_WITH(
      parse_result_format("bonnie"),
      Catch::Contains("unknown result format 'bonnie'") && Catch::Contains("bonnie-csv"));
  CHECK_THROWS_WITH(detect_result_format("hello\n", "notes.txt"),
                    Catch::StartsWith("notes.txt:1: expected a result this iobench reads"));
}

TEST_CASE("bonnie++ 1.0x CSV of seed 002: K/sec x 1024, +++++ kept", "[compare][classic]") {
  // jco-linux,3100M,21468,33,28510,20,17655,10,38814,65,82601,40,399.0,3,16,17419,56,+++++,+++,
  // 16464,58,17617,59,+++++,+++,7220,40
  const ResultDocument doc = read("seed002_unpatched.csv");
  REQUIRE(doc.run.steps.size() == 1);
  const StepResult& step = doc.run.steps[0];
  CHECK(step.name == "bonnie");
  CHECK(step.workload == "bonnie");
  CHECK(doc.run.environment.hostname == "jco-linux");
  CHECK(step.params.at("size") == "3100M");
  CHECK(step.params.at("files") == "16");
  CHECK(doc.source->tool_version == "1.0x");
  CHECK(step.phases.size() == 12);
  CHECK(value(figures_of(step, "putc").throughput_bytes_per_s) == 21468 * kKiB);
  CHECK(value(figures_of(step, "putc").cpu_percent) == 33);
  CHECK(value(figures_of(step, "put_block").throughput_bytes_per_s) == 28510 * kKiB);
  CHECK(value(figures_of(step, "rewrite").throughput_bytes_per_s) == 17655 * kKiB);
  CHECK(value(figures_of(step, "getc").throughput_bytes_per_s) == 38814 * kKiB);
  CHECK(value(figures_of(step, "get_block").throughput_bytes_per_s) == 82601 * kKiB);
  CHECK(value(figures_of(step, "get_block").cpu_percent) == 40);
  CHECK(value(figures_of(step, "seeks").iops) == 399.0);
  CHECK_FALSE(figures_of(step, "seeks").throughput_bytes_per_s.has_value());
  CHECK(value(figures_of(step, "seq_create").iops) == 17419);
  CHECK(too_fast(figures_of(step, "seq_stat").iops));
  CHECK(too_fast(figures_of(step, "seq_stat").cpu_percent));
  CHECK(value(figures_of(step, "ran_del").iops) == 7220);
  CHECK(value(figures_of(step, "ran_del").cpu_percent) == 40);
  CHECK_FALSE(figures_of(step, "putc").latency_max_ns.has_value());  // 1.0x has none
}

TEST_CASE("bonnie++ text of seed 002 as quoted and wrapped in mail equals its CSV line",
          "[compare][classic]") {
  for (const auto& [text, csv] :
       {std::pair{"seed002_bonnie_unpatched.txt", "seed002_unpatched.csv"},
        std::pair{"seed002_bonnie_patched.txt", "seed002_patched.csv"}}) {
    INFO(text);
    const ResultDocument table = read(text);
    REQUIRE(table.run.steps.size() == 1);
    CHECK(table.source->tool_version == "1.01d");
    CHECK(table.run.steps[0].params.at("size") == "3100M");
    CHECK(table.run.steps[0].params.at("files") == "16");
    check_same_figures(table.run.steps[0], read(csv).run.steps[0]);
  }
  // "jco-linux 3100M 37048 58 ..." then the wrapped "373.0 3".
  const StepResult step = read("seed002_bonnie_patched.txt").run.steps[0];
  CHECK(value(figures_of(step, "putc").throughput_bytes_per_s) == 37048 * kKiB);
  CHECK(value(figures_of(step, "seeks").iops) == 373.0);
  CHECK(value(figures_of(step, "ran_del").iops) == 13464);  // wrapped onto its own line
}

TEST_CASE("Bonnie 1.x 'K/sec %CPU' tables of seed 003", "[compare][classic]") {
  // pre9-3 400 15032 64.4 12843 13.8 6202 7.1 11421 38.1 13005 11.6 118.1 1.2
  const ResultDocument doc = read("seed003_pre9-3.txt");
  REQUIRE(doc.run.steps.size() == 1);
  const StepResult& step = doc.run.steps[0];
  CHECK(doc.run.environment.hostname == "pre9-3");
  CHECK(step.params.at("size") == "400M");  // Bonnie's MB column: MiB
  CHECK(step.phases.size() == 6);
  CHECK(value(figures_of(step, "putc").throughput_bytes_per_s) == 15032 * kKiB);
  CHECK(value(figures_of(step, "putc").cpu_percent) == 64.4);
  CHECK(value(figures_of(step, "rewrite").throughput_bytes_per_s) == 6202 * kKiB);
  CHECK(value(figures_of(step, "rewrite").cpu_percent) == 7.1);
  CHECK(value(figures_of(step, "seeks").iops) == 118.1);
  CHECK(value(figures_of(step, "seeks").cpu_percent) == 1.2);
  // 2.3.42 400 20978 97.2 22519 22.2 9302 12.7 18860 61.5 21020 20.4 114.8 1.3
  const StepResult old = read("seed003_2.3.42.txt").run.steps[0];
  CHECK(value(figures_of(old, "rewrite").throughput_bytes_per_s) == 9302 * kKiB);
  CHECK(value(figures_of(old, "get_block").cpu_percent) == 20.4);
  CHECK(value(figures_of(read("seed003_9-3-nswap.txt").run.steps[0], "getc")
                  .throughput_bytes_per_s) == 17863 * kKiB);
}

TEST_CASE("bonnie++ 2.00a table, its 1.98 CSV, and 1.97 / 1.96 layouts", "[compare][classic]") {
  // Generated here by bonnie++ 2.00a (-s 16 -r 8 -n 1): "vm 16M 662k 36 +++++ +++ ...".
  const ResultDocument table = read("bonnie_200a_table.txt");
  const ResultDocument csv = read("bonnie_198.csv");
  CHECK(csv.source->tool_version == "2.00a");
  CHECK(csv.run.steps[0].params.at("seeks") == "8192");
  CHECK(csv.run.steps[0].params.at("seekers") == "5");
  CHECK(csv.run.steps[0].params.at("concurrency") == "1");
  const StepResult& step = csv.run.steps[0];
  CHECK(value(figures_of(step, "putc").throughput_bytes_per_s) == 662 * kKiB);
  CHECK(too_fast(figures_of(step, "put_block").throughput_bytes_per_s));
  CHECK(too_fast(figures_of(step, "put_block").cpu_percent));
  CHECK(value(figures_of(step, "put_block").latency_max_ns) == 12090e3);  // 12090us
  CHECK(value(figures_of(step, "rewrite").latency_max_ns) == 46e3);
  CHECK(value(figures_of(step, "seq_create").iops) == 1736);
  CHECK(value(figures_of(step, "ran_del").latency_max_ns) == 4043e3);
  // The table prints the file rate 1024 where the CSV has 1736 (bonnie++'s own difference):
  // the I/O part is the same.
  const StepResult& text = table.run.steps[0];
  CHECK(value(figures_of(text, "putc").throughput_bytes_per_s) == 662 * kKiB);  // "662k"
  CHECK(value(figures_of(text, "getc").throughput_bytes_per_s) == 882 * kKiB);
  CHECK(value(figures_of(text, "seq_create").iops) == 1024);
  CHECK(value(figures_of(text, "seeks").latency_max_ns) == 48349e3);
  CHECK(value(figures_of(text, "seq_stat").latency_max_ns) == 66e3);

  // -f: the per-char cells blank, read by bonnie++'s fixed columns; not run = no phase.
  const StepResult fast = read("bonnie_200a_no_per_char.txt").run.steps[0];
  for (const PhaseResult& phase : fast.phases)
    CHECK((phase.name != "putc" && phase.name != "getc"));
  CHECK(fast.phases.size() == 4);  // -n 0: no file tests
  CHECK(too_fast(figures_of(fast, "put_block").throughput_bytes_per_s));
  CHECK(value(figures_of(fast, "rewrite").latency_max_ns) == 28e3);
  CHECK(value(figures_of(fast, "seeks").latency_max_ns) == 36056e3);
  check_same_figures(fast, read("bonnie_198_no_per_char.csv").run.steps[0]);

  // 1.97: the 1.98 line without seeks and seekers.
  const ResultDocument v197 = read("bonnie_197_from_198.csv");
  CHECK(v197.source->tool_version == "2.00a");
  CHECK_FALSE(v197.run.steps[0].params.contains("seeks"));
  check_same_figures(v197.run.steps[0], step);

  // 1.96 with -s 0: its I/O part one field short (num_files at index 18), as Dave Chinner's
  // line "1.96,1.96,fslab3,1,1374655110,,,,,,,,,,,,,,60,32,32,,,1702,14,..." (the rest crafted).
  const ResultDocument v196 = read("bonnie_196_s0_crafted.csv");
  const StepResult& s0 = v196.run.steps[0];
  CHECK(s0.params.at("files") == "60");
  CHECK(s0.params.at("max_size") == "32");
  CHECK(s0.params.at("min_size") == "32");
  CHECK(s0.phases.size() == 6);
  CHECK(value(figures_of(s0, "seq_create").iops) == 1702);
  CHECK(value(figures_of(s0, "seq_create").cpu_percent) == 14);
  CHECK(value(figures_of(s0, "seq_create").latency_max_ns) == 20e6);  // 20ms
  CHECK(value(figures_of(s0, "seq_stat").latency_max_ns) == 300e3);
}

TEST_CASE("tiotest tables of seed 004 (wrapped) and of the reference", "[compare][classic]") {
  // | Write 9000 MBs | 189.1 s | 47.599 MB/s | 0.8 % |\n38.9 % |
  const ResultDocument doc = read("seed004_tiotest_btrfs.txt");
  REQUIRE(doc.run.steps.size() == 1);
  const StepResult& step = doc.run.steps[0];
  CHECK(step.params.at("threads") == "1");
  REQUIRE(step.phases.size() == 4);
  CHECK(step.phases[1].name == "Random Write");
  const PhaseResult& write = phase_of(step, "Write");
  CHECK(write.wall_ns == 189'100'000'000);
  CHECK(value(write.reported->throughput_bytes_per_s) == 47.599 * kBytesPerMiB);
  CHECK(value(write.reported->cpu_percent) == 0.8 + 38.9);
  CHECK(value(write.reported->latency_mean_ns) == 0.077 * 1e6);
  CHECK(value(write.reported->latency_max_ns) == 2569.866 * 1e6);
  CHECK(value(figures_of(step, "Random Read").throughput_bytes_per_s) == 0.471 * kBytesPerMiB);
  CHECK(value(figures_of(step, "Random Read").latency_mean_ns) == 8.293 * 1e6);
  // | Read | 0.082 ms | 216.677 ms | 0.00000\n| 0.00000 |
  CHECK(value(figures_of(step, "Read").latency_max_ns) == 216.677 * 1e6);
  CHECK(lists(doc, "Total row"));
  CHECK(lists(doc, "% >2 sec"));

  const ResultDocument ref = read("ref_tiotest_table.txt");
  const StepResult& r = ref.run.steps[0];
  CHECK(r.params.at("threads") == "2");
  CHECK(value(figures_of(r, "Write").throughput_bytes_per_s) == 1770.401 * kBytesPerMiB);
  CHECK(value(figures_of(r, "Write").cpu_percent) == 144.5 + 0.2);
  CHECK(value(figures_of(r, "Write").latency_max_ns) == 0.205 * 1e6);
  CHECK_FALSE(figures_of(r, "Read").latency_mean_ns.has_value());  // "..." in the reference
}

TEST_CASE("tiotest terse lines: MB over seconds, CPU over the wall", "[compare][classic]") {
  // Crafted in tiotest -T's format (bonnie_tiobench.md B.5); rwrite all zeros: not run.
  const ResultDocument doc = read("tiotest_terse_crafted.txt");
  const StepResult& step = doc.run.steps[0];
  REQUIRE(step.phases.size() == 3);
  const PhaseResult& write = phase_of(step, "Write");
  CHECK(value(write.reported->throughput_bytes_per_s) == 32.0 * kBytesPerMiB / 0.01808);
  CHECK(value(write.reported->cpu_percent) == (0.026 + 0.0) / 0.01808 * 100.0);
  CHECK(value(write.reported->latency_max_ns) == 0.205 * 1e6);
  CHECK(value(figures_of(step, "Random Read").latency_max_ns) == 8.19 * 1e6);
  CHECK(lists(doc, "all zeros"));
  CHECK(lists(doc, "terse total line"));
}

TEST_CASE("tiobench.pl's table row", "[compare][classic]") {
  // test  32  4096  1  690.25 51.25%  0.011  8.37  0.00000 0.00000  1347
  const ResultDocument doc = read("ref_tiobench_row.txt");
  const StepResult& step = doc.run.steps[0];
  CHECK(step.name == "tiobench");
  CHECK(step.params.at("identifier") == "test");
  const ReportedFigures& f = figures_of(step, "Read size=32M bs=4096 threads=1");
  CHECK(value(f.throughput_bytes_per_s) == 690.25 * kBytesPerMiB);
  CHECK(value(f.cpu_percent) == 51.25);
  CHECK(value(f.latency_mean_ns) == 0.011 * 1e6);
  CHECK(value(f.latency_max_ns) == 8.37 * 1e6);
  CHECK(lists(doc, "CPU Eff"));
}

TEST_CASE("dbench: 2/3 Throughput lines of seed 002 and dbench 4's table", "[compare][classic]") {
  // Throughput 68.9744 MB/sec (NB=86.2179 MB/sec 689.744 MBit/sec) 8 procs ... 64 procs
  const ResultDocument doc = read("seed002_dbench.txt");
  REQUIRE(doc.run.steps.size() == 4);
  REQUIRE(doc.placements.size() == 4);
  CHECK(doc.placements[0].sweep_point == "8");
  CHECK(doc.placements[3].sweep_point == "64");
  CHECK(doc.run.steps[1].params.at("procs") == "16");
  CHECK(value(figures_of(doc.run.steps[0], "execute").throughput_bytes_per_s) == 68.9744 * 1e6);
  CHECK(value(figures_of(doc.run.steps[3], "execute").throughput_bytes_per_s) == 35.9702 * 1e6);
  CHECK_FALSE(figures_of(doc.run.steps[0], "execute").latency_mean_ns.has_value());
  CHECK(lists(doc, "NetBench-scaled"));

  // dbench 4.00 on tmpfs (dbench.md 5): WriteX 186562 0.008 11.142, ReadX 587562 0.003 5.995.
  const ResultDocument four = read("ref_dbench4_tmpfs.txt");
  REQUIRE(four.run.steps.size() == 1);
  CHECK(four.placements.empty());
  const StepResult& step = four.run.steps[0];
  CHECK(step.params.at("procs") == "2");
  CHECK(step.params.at("clients") == "2");
  const ReportedFigures& f = figures_of(step, "execute");
  CHECK(value(f.throughput_bytes_per_s) == 1166.97 * 1e6);
  CHECK(value(f.latency_mean_ns) ==
        (186562 * 0.008 + 587562 * 0.003) / (186562.0 + 587562.0) * 1e6);
  CHECK(value(f.latency_max_ns) == 11.142 * 1e6);
  CHECK(lists(four, "max_latency"));
}

TEST_CASE("mdtest: its SUMMARY rate rows as phases, Mean as IOPS", "[compare][classic]") {
  // mpirun -np 2 mdtest -n 20 -i 2 -P -w 100 -e 100 -N 1 (hpc/ior 5fcf0ba, mdtest-4.1.0+dev).
  const ResultDocument doc = read("ref_mdtest_2ranks.txt");
  CHECK(doc.source->format == "mdtest");
  CHECK(doc.source->tool_version == "4.1.0+dev");
  REQUIRE(doc.run.steps.size() == 1);
  const StepResult& step = doc.run.steps[0];
  CHECK(step.workload == "mdtest");
  CHECK(step.params.at("ranks") == "2");
  CHECK(step.params.at("items_total") == "40");
  REQUIRE(step.phases.size() == 10);
  CHECK(step.phases[0].name == "Directory creation");
  CHECK(step.phases[9].name == "Tree removal");
  CHECK(value(figures_of(step, "File read").iops) == 152419.168);
  CHECK(value(figures_of(step, "Tree creation").iops) == 3811.136);
  CHECK(lists(doc, "SUMMARY time table"));
  CHECK(lists(doc, "'File read' Max, Min and Std Dev"));
  // A phase mdtest did not run prints zeros: no phase, never a 0 figure.
  const ResultDocument partial = parse_result_text(
      "SUMMARY rate (in ops/sec): (of 1 iterations)\n"
      "   Operation                     Max            Min           Mean        Std Dev\n"
      "   File creation               10.000         10.000         10.000          0.000\n"
      "   File stat                    0.000          0.000          0.000          0.000\n",
      ResultFormat::kAuto, "partial.txt");
  REQUIRE(partial.run.steps.at(0).phases.size() == 1);
  CHECK(partial.run.steps[0].phases[0].name == "File creation");
  CHECK_THROWS_WITH(parse_result_text("SUMMARY rate (in ops/sec): (of 1 iterations)\n"
                                      "   File creation   10.0 x 10.0 0.0\n",
                                      ResultFormat::kMdtest, "bad.txt"),
                    Catch::StartsWith("bad.txt:2: expected an mdtest SUMMARY row"));
}

TEST_CASE("mdtest -X: its verification errors as the File read phase's mismatches",
          "[compare][classic]") {
  // Written in mdtest-4.1.0+dev's layout (not a recorded run): 2 tasks, -F -w 64 -e 64 -X -N 1,
  // three of the files changed before the read, and mdtest's line after its tables.
  const ResultDocument doc = read("mdtest_verify_errors.txt");
  REQUIRE(doc.run.steps.size() == 1);
  const StepResult& step = doc.run.steps[0];
  const PhaseResult& read_phase = phase_of(step, "File read");
  REQUIRE(read_phase.counter_names == std::vector<std::string>{"mismatches"});
  CHECK(read_phase.counters == std::vector<std::uint64_t>{3});
  CHECK(value(figures_of(step, "File read").iops) == 40311.870);
  for (const PhaseResult& phase : step.phases) {
    if (phase.name != "File read") CHECK(phase.counter_names.empty());
  }
  // Through the JSON that `compare` and `report` read back.
  const ResultDocument back = parse_result_json(to_json(doc));
  const PhaseResult& read_back = phase_of(back.run.steps.at(0), "File read");
  REQUIRE(read_back.counter_names == std::vector<std::string>{"mismatches"});
  CHECK(read_back.counters == std::vector<std::uint64_t>{3});
  // Without the line (a run without -X, or one that found nothing): no mismatches counter.
  const ResultDocument clean = read("ref_mdtest_2ranks.txt");
  for (const PhaseResult& phase : clean.run.steps.at(0).phases) CHECK(phase.counter_names.empty());
  // mdtest 3.x's line has no count (and a damaged 4.x line none to read): listed as not
  // mapped, the rates imported, never a silent count.
  for (const char* error_line :
       {"ERROR: verifying the data read! Take the performance values with care!\n",
        "ERROR: verifying the data on read (many errors)! Take\n"}) {
    const ResultDocument old =
        parse_result_text(std::string("SUMMARY rate: (of 1 iterations)\n"
                                      "   File read   10.000 10.000 10.000 0.000\n"
                                      "\n") +
                              error_line,
                          ResultFormat::kMdtest, "old.txt");
    CHECK(value(figures_of(old.run.steps.at(0), "File read").iops) == 10.0);
    CHECK(phase_of(old.run.steps.at(0), "File read").counter_names.empty());
    CHECK(lists(old, "data check failed, without a count of errors"));
  }
}

TEST_CASE("mdtest -X over several task counts: each step gets the errors its line adds",
          "[compare][classic]") {
  // mdtest never resets its total over -f/-l/-s: the second line's 5 holds the first's 2.
  const std::string one_step =
      "SUMMARY rate (in ops/sec): (of 1 iterations)\n"
      "   File read   10.000 10.000 10.000 0.000\n"
      "\n";
  const ResultDocument doc = parse_result_text(
      one_step +
          "ERROR: verifying the data on read (2 errors)! Take the performance values with "
          "care!\n\n" +
          one_step +
          "ERROR: verifying the data on read (5 errors)! Take the performance values with care!\n",
      ResultFormat::kMdtest, "steps.txt");
  REQUIRE(doc.run.steps.size() == 2);
  CHECK(phase_of(doc.run.steps[0], "File read").counters == std::vector<std::uint64_t>{2});
  CHECK(phase_of(doc.run.steps[1], "File read").counters == std::vector<std::uint64_t>{3});
}

TEST_CASE("filebench: the IO Summary as phase run, reads + writes as IOPS", "[compare][classic]") {
  // filebench 1.5-alpha3 (setarch -R filebench -f F) running examples/filebench/fileserver.f
  // for 5 s on tmpfs.
  const ResultDocument doc = read("ref_filebench_fileserver.txt");
  CHECK(doc.source->format == "filebench");
  CHECK(doc.source->tool_version == "1.5-alpha3");
  REQUIRE(doc.run.steps.size() == 1);
  const StepResult& step = doc.run.steps[0];
  CHECK(step.name == "filebench");
  CHECK(step.workload == "filebench");
  REQUIRE(step.phases.size() == 1);
  const ReportedFigures& f = figures_of(step, "run");
  // "IO Summary: 737467 ops 147381.773 ops/s 13399/26799 rd/wr 3481.4mb/s 0.1ms/op"
  CHECK(value(f.iops) == 13399.0 + 26799.0);
  CHECK(value(f.throughput_bytes_per_s) == 3481.4 * 1024 * 1024);
  // The rows that moved data: readwhole (67046 ops, 0.1 ms/op, max 13.76 ms), append (67047,
  // 0.0, 10.00) and writewhole (67048, 0.1, 11.81).
  CHECK(value(f.latency_mean_ns) ==
        Approx((67046 * 0.1 + 67047 * 0.0 + 67048 * 0.1) / (67046 + 67047 + 67048) * 1e6));
  CHECK(value(f.latency_max_ns) == Approx(13.76e6));
  CHECK(lists(doc, "IO Summary's ops/s"));
  CHECK_THROWS_WITH(parse_result_text("Per-Operation Breakdown\n"
                                      "read1   12ops 3ops/s 0.1mb/s\n",
                                      ResultFormat::kFilebench, "bad.txt"),
                    Catch::StartsWith("bad.txt:2: expected a Per-Operation Breakdown row"));
  CHECK_THROWS_WITH(parse_result_text("Per-Operation Breakdown\n"
                                      "IO Summary: 5 ops 1.0 ops/s 1/x rd/wr 0.1mb/s 0.1ms/op\n",
                                      ResultFormat::kFilebench, "bad.txt"),
                    Catch::StartsWith("bad.txt:2: expected 'IO Summary:"));
  CHECK_THROWS_WITH(
      parse_result_text("Filebench Version 1.5-alpha3\n", ResultFormat::kFilebench, "none.txt"),
      Catch::StartsWith("none.txt:1: expected filebench's 'IO Summary:' line"));
}

TEST_CASE("filebench: iobench's psrun text is read as its whole run, its periods skipped",
          "[compare][classic]") {
  // As plugins/filebench's formatter writes a `psrun -1` run of two periods: each period's
  // snapshot (rows without [min - max]) under its "Period K (S s):" line, then the whole run's.
  const std::string period =
      "Per-Operation Breakdown\n"
      "rd                     10ops       10ops/s   0.0mb/s    0.100ms/op\n"
      "IO Summary:     10 ops 10.000 ops/s 10/0 rd/wr   0.0mb/s   0.1ms/op\n";
  const ResultDocument doc = parse_result_text(
      "Period 1 (1 s):\n" + period + "Period 2 (1 s):\n" + period +
          "Per-Operation Breakdown\n"
          "rd                     20ops       10ops/s   1.0mb/s    0.200ms/op [0.050ms - 0.900ms]\n"
          "IO Summary:     20 ops 10.000 ops/s 10/0 rd/wr   1.0mb/s   0.2ms/op\n",
      ResultFormat::kFilebench, "psrun.txt");
  REQUIRE(doc.run.steps.size() == 1);
  const ReportedFigures& f = figures_of(doc.run.steps[0], "run");
  CHECK(value(f.iops) == 10.0);
  CHECK(value(f.throughput_bytes_per_s) == 1.0 * 1024 * 1024);
  CHECK(value(f.latency_max_ns) == Approx(0.9e6));
}

TEST_CASE("fio 3.x JSON: per job and direction, and with --group_reporting", "[compare][classic]") {
  const nlohmann::json raw = nlohmann::json::parse(slurp(data("fio_a.json")));
  const ResultDocument doc = read("fio_a.json");
  CHECK(doc.source->tool_version == raw["fio version"].get<std::string>());
  REQUIRE(doc.run.steps.size() == raw["jobs"].size());
  for (std::size_t j = 0; j < raw["jobs"].size(); ++j) {
    const nlohmann::json& job = raw["jobs"][j];
    const StepResult& step = doc.run.steps[j];
    CHECK(step.name == job["jobname"].get<std::string>());
    CHECK(step.workload == "fio");
    CHECK(step.params.at("rw") == job["job options"]["rw"].get<std::string>());
    REQUIRE(step.phases.size() == 1);  // one direction each: write, randread
    const std::string dir = step.phases[0].name;
    const nlohmann::json& d = job[dir];
    const ReportedFigures& f = *step.phases[0].reported;
    CHECK(value(f.throughput_bytes_per_s) == d["bw_bytes"].get<double>());
    CHECK(value(f.iops) == d["iops"].get<double>());
    CHECK(value(f.latency_mean_ns) == d["lat_ns"]["mean"].get<double>());
    CHECK(value(f.latency_max_ns) == d["lat_ns"]["max"].get<double>());
    CHECK(value(f.latency_p99_ns) == d["clat_ns"]["percentile"]["99.000000"].get<double>());
    CHECK(value(f.cpu_percent) == job["usr_cpu"].get<double>() + job["sys_cpu"].get<double>());
  }
  const ResultDocument group = read("fio_group_reporting.json");
  REQUIRE(group.run.steps.size() == 1);
  const StepResult& mixed = group.run.steps[0];
  REQUIRE(mixed.phases.size() == 2);                               // randrw: read and write
  CHECK_FALSE(mixed.phases[0].reported->cpu_percent.has_value());  // the job's, not one phase's
  CHECK(lists(group, "usr_cpu + sys_cpu"));
  // Generated here by fio 3.33 (--numjobs=2 --group_reporting, write): usr_cpu + sys_cpu is
  // CPU time over job_runtime, the sum of both jobs' run times; the phase's CPU % is the whole
  // group's CPU time over the phase's wall time (write runtime, ms).
  const nlohmann::json group_raw = nlohmann::json::parse(slurp(data("fio_group_write.json")));
  const nlohmann::json& g = group_raw["jobs"][0];
  const ResultDocument group_write = read("fio_group_write.json");
  const PhaseResult& write = group_write.run.steps[0].phases[0];
  CHECK(write.name == "write");
  const double cpu_ms = (g["usr_cpu"].get<double>() + g["sys_cpu"].get<double>()) / 100.0 *
                        g["job_runtime"].get<double>();
  CHECK(value(write.reported->cpu_percent) ==
        Approx(cpu_ms / g["write"]["runtime"].get<double>() * 100.0));
  CHECK(value(write.reported->cpu_percent) >
        g["usr_cpu"].get<double>() + g["sys_cpu"].get<double>());
}

TEST_CASE("the seeds' 'Completed ...' lines", "[compare][classic]") {
  // Completed writing 98304 mbytes across 8 devices using 98304 blocks of 1048576
  // in 579.935968 seconds (169.51 Mbytes/sec), 44717usec mean
  const ResultDocument doc = read("seed000_2.5.25.txt");
  CHECK(doc.run.environment.kernel == "Linux 2.5.25");
  REQUIRE(doc.run.steps.size() == 5);
  const StepResult& first = doc.run.steps[0];
  CHECK(first.name == "Test #1");
  CHECK(first.params.at("blocks") == "98304");
  CHECK(first.params.at("block_size") == "1048576");
  const PhaseResult& write = phase_of(first, "write");
  CHECK(write.wall_ns == 579'935'968'000);
  CHECK(value(write.reported->throughput_bytes_per_s) == 169.51 * kBytesPerMiB);
  CHECK(value(write.reported->iops) == 98304 / 579.935968);
  CHECK(value(write.reported->latency_mean_ns) == 44717e3);
  // "mbytes" are MiB: the printed rate is the MiB over the seconds.
  CHECK(98304 / 579.935968 == Approx(169.51).epsilon(1e-4));
  CHECK(value(figures_of(doc.run.steps[4], "read").latency_mean_ns) == 119e3);
  CHECK(lists(doc, "8 per-device lines"));
}

TEST_CASE("a classic document writes and reads back as iobench JSON", "[compare][classic]") {
  for (const char* file : {"seed002_unpatched.csv", "bonnie_198.csv", "seed004_tiotest_btrfs.txt",
                           "ref_dbench4_tmpfs.txt", "fio_a.json", "seed000_2.5.25.txt"}) {
    INFO(file);
    const ResultDocument doc = read(file);
    const std::string json = to_json(doc);
    const ResultDocument again = parse_result_json(json);
    CHECK(to_json(again) == json);
    REQUIRE(again.source.has_value());
    CHECK(again.source->not_mapped == doc.source->not_mapped);
  }
  const ResultDocument back = parse_result_json(to_json(read("seed002_unpatched.csv")));
  CHECK(too_fast(figures_of(back.run.steps[0], "seq_stat").iops));
  CHECK(value(figures_of(back.run.steps[0], "putc").throughput_bytes_per_s) == 21468 * kKiB);
}

TEST_CASE("unreadable classic input: file:line and what was expected", "[compare][classic]") {
  CHECK_THROWS_WITH(
      parse_result_text("1.98,2.00a,vm,1\n", ResultFormat::kBonnieCsv, "r.csv"),
      Catch::StartsWith("r.csv:1: expected 50 fields in a bonnie++ 1.98 CSV line, got 4"));
  CHECK_THROWS_WITH(
      parse_result_text("name,size\nhost,1G,12x,1\n", ResultFormat::kBonnieCsv, "r.csv"),
      Catch::StartsWith("r.csv:2: expected a bonnie++ CSV line"));
  std::string csv = slurp(data("seed002_unpatched.csv"));
  csv.replace(csv.find("21468"), 5, "fast!");
  CHECK_THROWS_WITH(parse_result_text(csv, ResultFormat::kBonnieCsv, "r.csv"),
                    Catch::StartsWith("r.csv:1: bonnie++ putc rate: expected K/sec"));
  CHECK_THROWS_WITH(
      parse_result_text("Throughput fast MB/sec 8 procs\n", ResultFormat::kDbench, "d"),
      Catch::StartsWith("d:1: expected dbench's 'Throughput N MB/sec"));
  CHECK_THROWS_WITH(parse_result_text("{\"fio version\": \"fio-3.33\", \"jobs\": [\n{]}",
                                      ResultFormat::kFioJson, "f.json"),
                    Catch::StartsWith("f.json:2: expected fio's JSON output"));
  CHECK_THROWS_WITH(
      parse_result_text("Tiotest results for 1 concurrent io threads:\n| Write 1 MBs | 1 s | x |\n",
                        ResultFormat::kTiotest, "t"),
      Catch::StartsWith("t:2: expected a tiotest row"));
  CHECK_THROWS_WITH(
      parse_result_text("Completed writing 5 mbytes\n", ResultFormat::kSeedLines, "s"),
      Catch::StartsWith("s:1: expected 'Completed writing|reading"));
  CHECK_THROWS_WITH(parse_result_text("nothing\n", ResultFormat::kBonnieText, "b"),
                    Catch::StartsWith("b:1: expected a bonnie++ table"));
}

TEST_CASE("samples made by the installed bonnie++, fio and dbench", "[compare][classic]") {
  const TempDir dir("classic");
  if (!installed("bonnie++") && !std::filesystem::exists("/usr/sbin/bonnie++")) {
    WARN("bonnie++ is not installed: its generated sample is skipped");
  } else {
    // File tests only (-s 0), 1024 files: under a second.
    std::vector<std::string> argv{
        std::filesystem::exists("/usr/sbin/bonnie++") ? "/usr/sbin/bonnie++" : "bonnie++",
        "-d",
        dir.path().string(),
        "-s",
        "0",
        "-n",
        "1",
        "-m",
        "gen"};
    if (geteuid() == 0) argv.insert(argv.end(), {"-u", "root"});
    const CliResult run = run_command(argv);
    INFO(run.err);
    REQUIRE(run.exit_code == 0);
    const std::string csv_line = run.out.substr(run.out.rfind("1.98,"));
    const ResultDocument csv = parse_result_text(csv_line, ResultFormat::kAuto, "bonnie.csv");
    const ResultDocument text = parse_result_text(run.out.substr(0, run.out.rfind("1.98,")),
                                                  ResultFormat::kAuto, "bonnie.txt");
    CHECK(csv.source->format == "bonnie-csv");
    CHECK(text.source->format == "bonnie-text");
    CHECK(csv.run.environment.hostname == "gen");
    const StepResult& step = csv.run.steps[0];
    CHECK(step.phases.size() == 6);  // no I/O tests
    // The CSV's seq_create cell, as printed.
    std::vector<std::string> fields;
    std::stringstream cells(csv_line);
    for (std::string cell; std::getline(cells, cell, ',');) fields.push_back(cell);
    REQUIRE(fields.size() >= 27);
    const ReportedFigures& create = figures_of(step, "seq_create");
    if (fields[26] == "+++++") {
      CHECK(too_fast(create.iops));
    } else {
      CHECK(value(create.iops) == std::stod(fields[26]));
    }
    CHECK(figures_of(text.run.steps[0], "seq_create").latency_max_ns.has_value());
  }
  if (!installed("fio")) {
    WARN("fio is not installed: its generated sample is skipped");
  } else {
    const CliResult run =
        run_command({"fio", "--name=gen", "--rw=write", "--size=4m", "--bs=4k",
                     "--directory=" + dir.path().string(), "--output-format=json"});
    INFO(run.err);
    REQUIRE(run.exit_code == 0);
    const ResultDocument doc = parse_result_text(run.out, ResultFormat::kAuto, "fio.json");
    const nlohmann::json raw = nlohmann::json::parse(run.out.substr(run.out.find('{')));
    const ReportedFigures& f = figures_of(doc.run.steps[0], "write");
    CHECK(value(f.throughput_bytes_per_s) == raw["jobs"][0]["write"]["bw_bytes"].get<double>());
    CHECK(value(f.iops) == raw["jobs"][0]["write"]["iops"].get<double>());
  }
  if (!installed("dbench") || !std::filesystem::exists("/usr/share/dbench/client.txt")) {
    WARN("dbench (with /usr/share/dbench/client.txt) is not installed: its sample is skipped");
  } else {
    const CliResult run = run_command({"dbench", "-t", "3", "-D", dir.path().string(), "-c",
                                       "/usr/share/dbench/client.txt", "1"});
    INFO(run.err);
    REQUIRE(run.exit_code == 0);
    const ResultDocument doc = parse_result_text(run.out, ResultFormat::kAuto, "dbench.txt");
    REQUIRE(doc.run.steps.size() == 1);
    const std::string line = run.out.substr(run.out.rfind("Throughput "));
    const double printed = std::stod(line.substr(11));
    CHECK(value(figures_of(doc.run.steps[0], "execute").throughput_bytes_per_s) == printed * 1e6);
    CHECK(doc.run.steps[0].params.at("procs") == "1");
    CHECK(figures_of(doc.run.steps[0], "execute").latency_max_ns.has_value());
  }
}
