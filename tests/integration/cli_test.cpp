#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <iobench/result_json.hpp>
#include <iobench/version.hpp>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "tests/support/test_support.hpp"

using iobench::test::run_cli;
using iobench::test::TempDir;

TEST_CASE("version and help", "[integration]") {
  const auto version = run_cli({"--version"});
  CHECK(version.exit_code == 0);
  CHECK(version.out == std::string("iobench ") + IOBENCH_VERSION + "\n");
  const auto help = run_cli({"--help"});
  CHECK(help.exit_code == 0);
  CHECK_THAT(help.out, Catch::Contains("usage: iobench run"));
  CHECK(help.err.empty());
  // No command at all is bad usage: the usage on stderr, exit 2 (it was stdout and 0).
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{}, std::vector<std::string>{"-q"}}) {
    const auto bare = run_cli(args);
    CHECK(bare.exit_code == 2);
    CHECK(bare.out.empty());
    CHECK_THAT(bare.err, Catch::StartsWith("usage: iobench run"));
  }
}

TEST_CASE("list shows workloads with params defaults and units", "[integration]") {
  const auto list = run_cli({"list"});
  REQUIRE(list.exit_code == 0);
  CHECK_THAT(list.out, Catch::Contains("disk: one worker per target"));
  // One line per param: key, default, (type, unit).
  const std::size_t bs_line = list.out.find("\n  bs ");
  REQUIRE(bs_line != std::string::npos);
  const std::string line = list.out.substr(bs_line + 1, list.out.find('\n', bs_line + 1) - bs_line);
  CHECK_THAT(line, Catch::Matches(" +bs +1m +\\(size, bytes.*\n"));
  for (const char* engine : {"psync", "pvsync2", "mmap", "io_uring", "libaio", "null"}) {
    CHECK_THAT(list.out, Catch::Contains(fmt::format("\n  {} ", engine)));
  }
  CHECK_THAT(list.out, Catch::Contains(":fixedbufs"));
}

TEST_CASE("bad input exits 2 with one message naming the field and writes nothing",
          "[integration]") {
  TempDir dir("cli");
  const auto out_file = dir.path() / "result.json";
  struct Case {
    std::vector<std::string> args;
    std::string expected;
  };
  const std::string d = dir.path().string();
  const std::vector<Case> cases{
      {{"run", "disk", "-d", d, "bs=-4k"}, "bs"},
      {{"run", "disk", "-d", d, "bs=0"}, "bs"},
      {{"run", "disk", "-d", d, "bs=4kk"}, "bs"},
      {{"run", "disk", "-d", d, "blocks=99999999999999999999999"}, "blocks"},
      {{"run", "disk", "-d", d, "bz=4k"}, "did you mean 'bs'"},
      {{"run", "disk", "-d", d, "bs=1m", "size=4k"}, "larger than size"},
      {{"run", "disk", "-d", d, "seek=rnd"}, "seek"},
      {{"run", "disk", "-d", d, "iterations=0"}, "iterations"},
      {{"run", "disk", "-d", d + "/missing"}, "does not exist"},
      {{"run", "dsk", "-d", d}, "did you mean 'disk'"},
      {{"run", "disk", "-d", d, "--format", "yaml"}, "--format"},
      {{"run", "disk", "-d", d, "--bogus"}, "bogus"},
      {{"run", "disk", "-d", d, "bs"}, "unexpected argument"},
      {{"run", "disk", "-d", d, "--time", "-5s"}, "--time"},
      {{"frobnicate"}, "unknown command"},
      {{"run", "disk", "-d", d, "size=64t"}, "not enough free space"},
      {{"run", "disk", "-d", d, "--ops", "1.5"}, "--ops: '1.5' is not a count"},
      {{"run", "disk", "-d", d, "--ops", "0"}, "--ops: 0 is no limit"},
      {{"run", "disk", "-d", d, "--seed", "0"}, "--seed: give 1 or more"},
      {{"run", "disk", "-d", d, "size=2*ram/0"}, "size='2*ram/0' divides by zero"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = c.args;
    args.insert(args.end(), {"-o", out_file.string()});
    const auto result = run_cli(args);
    INFO(c.args.back() << ": " << result.err);
    CHECK(result.exit_code == 2);
    CHECK_THAT(result.err, Catch::StartsWith("iobench: error: "));
    CHECK_THAT(result.err, Catch::Contains(c.expected));
    CHECK(result.out.empty());
    CHECK(dir.entries().empty());
  }
  // An output file that cannot be written is refused before the run, not after it.
  const std::vector<Case> outputs{
      {{"run", "disk", "-d", d, "-o", d + "/nodir/r.json"}, "-o: directory '" + d + "/nodir'"},
      {{"run", "disk", "-d", d, "-o", d}, "-o: '" + d + "' is a directory"},
  };
  for (const Case& c : outputs) {
    const auto result = run_cli(c.args);
    INFO(c.args.back() << ": " << result.err);
    CHECK(result.exit_code == 2);
    CHECK_THAT(result.err, Catch::StartsWith("iobench: error: ") && Catch::Contains(c.expected));
    CHECK(dir.entries().empty());
  }
}

TEST_CASE("a disk run prints the seed-style lines and JSON that parses back", "[integration]") {
  TempDir a("cliA"), b("cliB");
  const auto json_path = a.path().parent_path() / (a.path().filename().string() + ".json");
  const auto result =
      run_cli({"run", "disk", "-d", a.path().string(), "-d", b.path().string(), "bs=64k",
               "blocks=32", "--format", "json", "-o", json_path.string(), "--seed", "1234"});
  REQUIRE(result.exit_code == 0);
  CHECK_THAT(result.out,
             Catch::Matches("(.|\n)*Completed writing 4 mbytes across 2 devices using 64 blocks of "
                            "65536 in [0-9.]+ seconds \\([0-9.]+ Mbytes/sec\\), [0-9]+usec mean\n"
                            "#0 \\(.*/bigfile\\) 2MB in [0-9.]+s using 32 writes of 64k "
                            "\\([0-9.]+MB/sec\\), [0-9]+usec\n#1 (.|\n)*"));
  const auto doc = nlohmann::json::parse(iobench::test::read_file(json_path));
  std::filesystem::remove(json_path);
  CHECK(doc.at("schema") == std::string(iobench::kResultSchema));
  CHECK(doc.at("environment").at("targets").size() == 2);
  const auto& step = doc.at("steps").at(0);
  CHECK(step.at("workload") == "disk");
  CHECK(step.at("seed") == "1234");  // decimal text: exact past 2^53
  CHECK(step.at("params").at("bs") == "64k");
  const auto& phase = step.at("phases").at(0);
  CHECK(phase.at("name") == "write");
  CHECK(phase.at("bytes") == 2 * 32 * 65536);
  CHECK(phase.at("ops_by_kind").at("write").at("ops") == 64);
  CHECK(phase.at("workers").size() == 2);
  CHECK(phase.at("workers").at(1).at("ops_by_kind").at("write").at("bytes") == 32 * 65536);
  CHECK(phase.at("throughput_bytes_per_s").get<double>() > 0);
  CHECK(a.entries().empty());
  CHECK(b.entries().empty());
}

TEST_CASE("a run records the clock it measured with, IOBENCH_CLOCK=monotonic chooses that one",
          "[integration]") {
  TempDir dir("clock");
  const std::vector<std::string> run = {"run",   "disk",     "-d", dir.path().string(),
                                        "bs=4k", "blocks=8", "-q"};
  const auto text = run_cli(run);
  REQUIRE(text.exit_code == 0);
  CHECK_THAT(
      text.out,
      Catch::Matches(R"re((.|\n)*\nclock +(tsc \([0-9.]+ MHz, calibrated against )re"
                     R"re(CLOCK_MONOTONIC_RAW over [0-9.]+ ms\)|CLOCK_MONOTONIC.*)\n(.|\n)*)re"));
  std::vector<std::string> monotonic = {"env", "IOBENCH_CLOCK=monotonic", IOBENCH_CLI_PATH};
  monotonic.insert(monotonic.end(), run.begin(), run.end());
  monotonic.insert(monotonic.end(), {"--format", "json"});
  const auto json = iobench::test::run_command(monotonic);
  REQUIRE(json.exit_code == 0);
  const auto doc = nlohmann::json::parse(json.out);
  CHECK(doc.at("environment").at("clock") == "CLOCK_MONOTONIC (IOBENCH_CLOCK=monotonic)");
  CHECK(doc.at("steps").at(0).at("phases").at(0).at("ops_by_kind").at("write").at("ops") == 8);
  CHECK(dir.entries().empty());
  // A misspelt clock is bad input, not the default in silence.
  std::vector<std::string> misspelt = {"env", "IOBENCH_CLOCK=tcs", IOBENCH_CLI_PATH};
  misspelt.insert(misspelt.end(), run.begin(), run.end());
  const auto refused = iobench::test::run_command(misspelt);
  CHECK(refused.exit_code == 2);
  CHECK(refused.err ==
        "iobench: error: IOBENCH_CLOCK 'tcs': the run clock must be 'tsc' (the CPU's time-stamp "
        "counter wherever it is invariant) or 'monotonic' (clock_gettime(CLOCK_MONOTONIC)); unset "
        "it for the default\n");
  CHECK(dir.entries().empty());
}

TEST_CASE("csv output has a header and one row per worker and op", "[integration]") {
  TempDir dir("cli");
  const auto result = run_cli({"run", "disk", "-d", dir.path().string(), "bs=4k", "blocks=16",
                               "operation=read", "--format", "csv", "-q"});
  REQUIRE(result.exit_code == 0);
  std::istringstream lines(result.out);
  std::string header, row;
  std::getline(lines, header);
  CHECK_THAT(header, Catch::StartsWith("step,workload,phase,worker,target,op,ops,bytes"));
  bool found = false;
  while (std::getline(lines, row)) {
    if (row.find(",0,") != std::string::npos && row.find(",read,16,65536,") != std::string::npos) {
      found = true;
    }
  }
  CHECK(found);
}

TEST_CASE("the metadata example plugin stats and unlinks exactly the files it created",
          "[integration]") {
  TempDir dir("cli");
  const auto phase_ops = [](const nlohmann::json& doc, std::size_t phase) {
    return doc.at("steps").at(0).at("phases").at(phase).at("ops").get<std::uint64_t>();
  };
  const auto all = run_cli({"--plugin", METADATA_PLUGIN_PATH, "run", "metadata", "-d",
                            dir.path().string(), "files=50", "threads=2", "--format", "json"});
  REQUIRE(all.exit_code == 0);
  const auto doc = nlohmann::json::parse(all.out);
  for (std::size_t phase = 0; phase < 3; ++phase) CHECK(phase_ops(doc, phase) == 100);
  CHECK(doc.at("steps").at(0).at("phases").at(0).at("counters").at("files_created") == 100);

  // The create phase's own time limit ends it long before 10^8 files per worker: stat and
  // unlink (not time-limited) must take exactly the files it made, no fewer and none missing.
  const auto cut =
      run_cli({"--plugin", METADATA_PLUGIN_PATH, "run", "metadata", "-d", dir.path().string(),
               "files=100000000", "threads=2", "create_time=30ms", "--format", "json"});
  REQUIRE(cut.exit_code == 0);
  const auto cut_doc = nlohmann::json::parse(cut.out);
  const auto made = cut_doc.at("steps")
                        .at(0)
                        .at("phases")
                        .at(0)
                        .at("counters")
                        .at("files_created")
                        .get<std::uint64_t>();
  CHECK(made > 0);
  CHECK(made == phase_ops(cut_doc, 0));
  CHECK(phase_ops(cut_doc, 1) == made);
  CHECK(phase_ops(cut_doc, 2) == made);
  CHECK(dir.entries().empty());
}

TEST_CASE("an external plugin runs from the command line", "[integration]") {
  TempDir dir("cli");
  const auto result = run_cli({"--plugin", HELLO_PLUGIN_PATH, "run", "hello", "-d",
                               dir.path().string(), "files=5", "--format", "json"});
  REQUIRE(result.exit_code == 0);
  const auto doc = nlohmann::json::parse(result.out);
  CHECK(doc.at("steps").at(0).at("phases").at(0).at("ops") == 5);
  CHECK(dir.entries().empty());
}

TEST_CASE("run -o - is standard output, and -q with a machine format writes no text report",
          "[integration]") {
  TempDir dir("cli-stdout");
  const std::filesystem::path dash = std::filesystem::current_path() / "-";
  std::filesystem::remove(dash);
  const std::vector<std::string> run{
      "run", "disk", "-d", dir.path().string(), "bs=64k", "blocks=16", "--seed", "7", "-q"};
  // -o - made a file named "-" in the working directory.
  auto args = run;
  args.insert(args.end(), {"--format", "json", "-o", "-"});
  const auto json = run_cli(args);
  REQUIRE(json.exit_code == 0);
  CHECK_FALSE(std::filesystem::exists(dash));
  const auto doc = nlohmann::json::parse(json.out);  // stdout holds the document alone
  CHECK(doc.at("steps").at(0).at("phases").at(0).at("bytes") == 16 * 65536);
  // -q with json: the text report ("Completed writing ...") went to stderr regardless.
  CHECK(json.err.empty());
  // Without -q the text report is on stderr beside the JSON on stdout.
  const auto loud = run_cli({"run", "disk", "-d", dir.path().string(), "bs=64k", "blocks=16",
                             "--format", "json", "--progress", "0"});
  REQUIRE(loud.exit_code == 0);
  CHECK_THAT(loud.err, Catch::Contains("Completed writing 1 mbytes"));
  CHECK(nlohmann::json::parse(loud.out).at("steps").size() == 1);
  // A text run with -o - prints the text report on stdout.
  args = run;
  args.insert(args.end(), {"-o", "-"});
  const auto text = run_cli(args);
  REQUIRE(text.exit_code == 0);
  CHECK_THAT(text.out, Catch::Contains("Completed writing 1 mbytes"));
  CHECK_FALSE(std::filesystem::exists(dash));
  CHECK(dir.entries().empty());
  // --html, --time-series-csv and --live-csv have no stdout to share.
  for (const char* option : {"--html", "--time-series-csv", "--live-csv"}) {
    const auto refused =
        run_cli({"run", "disk", "-d", dir.path().string(), "blocks=16", option, "-"});
    CHECK(refused.exit_code == 2);
    CHECK_THAT(refused.err, Catch::StartsWith(fmt::format("iobench: error: {} -: standard output "
                                                          "carries the run's results",
                                                          option)));
    CHECK_FALSE(std::filesystem::exists(dash));
  }
}

TEST_CASE("run --keep names every run directory it keeps and removes an empty one",
          "[integration]") {
  TempDir a("keepA"), b("keepB");
  const auto result = run_cli({"run", "disk", "-d", a.path().string(), "-d", b.path().string(),
                               "bs=64k", "blocks=4", "--keep", "-q"});
  REQUIRE(result.exit_code == 0);
  // One line per target, naming the kept directory (it said nothing before).
  for (const TempDir* dir : {&a, &b}) {
    const auto entries = dir->entries();
    REQUIRE(entries.size() == 1);
    const std::filesystem::path kept = dir->path() / entries.front();
    CHECK_THAT(result.err, Catch::Contains("iobench: kept " + kept.string() + "\n"));
    CHECK(std::filesystem::file_size(kept / "bigfile") == 4 * 65536);
    std::filesystem::remove_all(kept);
  }
  CHECK(std::count(result.err.begin(), result.err.end(), '\n') == 2);
  // bonnie removes its files as bonnie++ does: the kept run directory was left empty.
  const auto bonnie = run_cli({"run", "bonnie", "-d", a.path().string(), "size=8m", "ram=0",
                               "files=0", "--keep", "-q", "--format", "json"});
  REQUIRE(bonnie.exit_code == 0);
  CHECK_THAT(bonnie.err, Catch::Matches("iobench: --keep: removed " + a.path().string() +
                                        "/iobench\\.[0-9]+\\.[0-9a-f]{8}: it was empty \\(nothing "
                                        "was created in it\\)\n"));
  CHECK(a.entries().empty());
}
