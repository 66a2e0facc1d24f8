// `iobench compare` end to end: output equal to the library's, --fail-if-worse exit codes, bad
// input refused with exit 2 and one message naming the file and field, and real result files of
// tiny runs (single runs and a suite with repetitions).
#include <catch2/catch.hpp>
#include <fstream>
#include <iobench/compare.hpp>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tests/compare/compare_fixtures.hpp"
#include "tests/support/test_support.hpp"

using namespace iobench;
using namespace iobench::test;
using Catch::Matchers::Contains;
using Json = nlohmann::json;

namespace {

using ::iobench::test::kSecond;

std::string write_text(const TempDir& dir, const std::string& name, const std::string& text) {
  const std::string path = (dir.path() / name).string();
  std::ofstream(path) << text;
  return path;
}

// Base: write 1 s, read 1 s. Other: write 0.5 s (+100 %), read 1.25 s (-20 % throughput).
struct Pair {
  TempDir dir{"compare-cli"};
  std::string base;
  std::string other;
  Pair() {
    base = write_document(
        dir, "base.json",
        single_run_document(
            compare_environment(),
            {compare_step("seq", {compare_phase("write", kSecond, 100, 4096, 1000),
                                  compare_phase("read", kSecond, 100, 4096, 1000)})}));
    other = write_document(
        dir, "other.json",
        single_run_document(
            compare_environment(),
            {compare_step("seq", {compare_phase("write", kSecond / 2, 100, 4096, 1000),
                                  compare_phase("read", kSecond * 5 / 4, 100, 4096, 1000)})}));
  }
};

void require_bad_input(const CliResult& result, const std::string& expected) {
  INFO(result.err);
  CHECK(result.exit_code == 2);
  CHECK(result.out.empty());
  CHECK_THAT(result.err, Contains(expected));
  // One message: one line.
  CHECK(std::count(result.err.begin(), result.err.end(), '\n') == 1);
}

}  // namespace

TEST_CASE("compare prints what the library prints, in every format", "[compare][cli]") {
  const Pair pair;
  const std::vector<CompareInput> inputs{{pair.base, load_result_file(pair.base)},
                                         {pair.other, load_result_file(pair.other)}};
  const Comparison c = compare_results(inputs);
  std::ostringstream text;
  write_comparison_text(c, text);
  const CliResult plain = run_cli({"compare", pair.base, pair.other});
  INFO(plain.err);
  CHECK(plain.exit_code == 0);
  CHECK(plain.err.empty());
  CHECK(plain.out == text.str());
  std::ostringstream markdown;
  write_comparison_markdown(c, markdown);
  CHECK(run_cli({"compare", pair.base, pair.other, "--format", "markdown"}).out == markdown.str());
  std::ostringstream csv;
  write_comparison_csv(c, csv);
  CHECK(run_cli({"compare", pair.base, pair.other, "-f", "csv"}).out == csv.str());
  const CliResult json = run_cli({"compare", pair.base, pair.other, "--format", "json", "--metrics",
                                  "iops,lat_max", "--phases", "read"});
  REQUIRE(json.exit_code == 0);
  const Json j = Json::parse(json.out);
  REQUIRE(j.at("phases").size() == 1);
  CHECK(j.at("phases").at(0).at("phase") == "read");
  REQUIRE(j.at("phases").at(0).at("metrics").size() == 2);
  CHECK(j.at("phases").at(0).at("metrics").at(0).at("metric") == "iops");
  CHECK(j.at("phases").at(0).at("metrics").at(0).at("changes").at(0).at("change_percent") == -20.0);
}

TEST_CASE("compare --fail-if-worse exit codes", "[compare][cli]") {
  const Pair pair;
  // The read lost 20 % of its throughput and IOPS (n = 1: the change alone counts).
  CHECK(run_cli({"compare", pair.base, pair.other, "--fail-if-worse", "25"}).exit_code == 0);
  CHECK(run_cli({"compare", pair.base, pair.other, "--fail-if-worse", "20"}).exit_code == 0);
  const CliResult worse = run_cli({"compare", pair.base, pair.other, "--fail-if-worse", "19.5%"});
  CHECK(worse.exit_code == 1);
  CHECK_THAT(worse.err, Contains("throughput is worse in #1 (" + pair.other +
                                 ") than in the baseline: step seq, phase read: 20.00% > 19.5% "
                                 "(n=1: no noise estimate)"));
  CHECK_FALSE(worse.out.empty());  // the comparison is printed all the same
  // Only the write selected, which improved; only latency selected, which did not move.
  CHECK(run_cli({"compare", pair.base, pair.other, "--fail-if-worse", "0", "--phases", "write"})
            .exit_code == 0);
  CHECK(run_cli({"compare", pair.base, pair.other, "--fail-if-worse", "0", "--metrics",
                 "lat_mean,lat_p99"})
            .exit_code == 0);
  // Swapped, the write regressed by 50 %.
  CHECK(run_cli({"compare", pair.other, pair.base, "--fail-if-worse", "49", "--phases", "write"})
            .exit_code == 1);

  // With repetitions: a 2 % slower write within noise never fails; a 20 % slower read does.
  TempDir dir("compare-reps");
  const auto phases = [](std::uint64_t write_ns, std::uint64_t read_ns) {
    return std::vector<PhaseResult>{compare_phase("write", write_ns, 100, 4096, 1000),
                                    compare_phase("read", read_ns, 100, 4096, 1000)};
  };
  const std::string base =
      write_document(dir, "base.json",
                     repeated_document(compare_environment(), {phases(1'000'000'000, 1'000'000'000),
                                                               phases(1'020'000'000, 1'010'000'000),
                                                               phases(980'000'000, 990'000'000)}));
  const std::string other = write_document(
      dir, "other.json",
      repeated_document(compare_environment(),
                        {phases(1'010'000'000, 1'250'000'000), phases(1'030'000'000, 1'240'000'000),
                         phases(1'020'000'000, 1'260'000'000)}));
  CHECK(
      run_cli({"compare", base, other, "--fail-if-worse", "0.5", "--phases", "write"}).exit_code ==
      0);
  const CliResult read = run_cli({"compare", base, other, "--fail-if-worse", "5"});
  CHECK(read.exit_code == 1);
  CHECK_THAT(read.err, Contains("phase read: "));
  CHECK_THAT(read.err, Contains("(significant)"));
  CHECK_THAT(read.err, !Contains("phase write"));
}

TEST_CASE("compare refuses bad input with exit 2", "[compare][cli]") {
  const Pair pair;
  const std::string missing = (pair.dir.path() / "missing.json").string();
  require_bad_input(run_cli({"compare", pair.base, missing}),
                    "cannot read result file '" + missing + "': No such file or directory");
  require_bad_input(run_cli({"compare", pair.base, pair.dir.path().string()}),
                    "cannot read result file '" + pair.dir.path().string() + "': Is a directory");
  const std::string text = write_text(pair.dir, "notes.txt", "Completed writing 512 mbytes\n");
  // Read as the seeds' lines it starts like: where it stops being one, with file:line.
  require_bad_input(run_cli({"compare", text, pair.base}),
                    text + ":1: expected 'Completed writing|reading M mbytes across D devices");
  const std::string junk = write_text(pair.dir, "junk.txt", "hello\n");
  require_bad_input(run_cli({"compare", junk, pair.base}),
                    junk + ":1: expected a result this iobench reads");
  require_bad_input(run_cli({"compare", text, pair.base, "--from", "iobench-json"}),
                    text + ": /: byte 1: not valid JSON");
  require_bad_input(run_cli({"compare", text, pair.base, "--from", "bonnie"}),
                    "--from: unknown result format 'bonnie'");
  require_bad_input(run_cli({"compare", text, pair.base, "--from", "auto,auto,auto"}),
                    "--from names 3 formats for 2 files");
  const std::string not_result = write_text(pair.dir, "other.json.bak", R"({"name": "x"})");
  require_bad_input(run_cli({"compare", pair.base, not_result}), not_result + ": ");
  Json broken = Json::parse(read_file(pair.other));
  broken["steps"][0]["phases"][0]["wall_ns"] = "fast";
  const std::string bad_field = write_text(pair.dir, "broken.json", broken.dump());
  require_bad_input(run_cli({"compare", pair.base, bad_field}),
                    bad_field + ": /steps/0/phases/0/wall_ns: ");
  require_bad_input(run_cli({"compare", pair.base, pair.other, "--metrics", "iops,p99"}),
                    "--metrics: unknown metric 'p99'; metrics: throughput, iops, lat_mean");
  require_bad_input(run_cli({"compare", pair.base, pair.other, "--metrics", "iops,"}),
                    "--metrics 'iops,': an empty name");
  require_bad_input(
      run_cli({"compare", pair.base, pair.other, "--phases", "rewrite"}),
      "--phases: phase 'rewrite' is in none of the inputs; their phases: write, read");
  require_bad_input(run_cli({"compare", pair.base}), "compare needs two or more result files");
  require_bad_input(run_cli({"compare", pair.base, pair.other, "--fail-if-worse", "-3"}),
                    "--fail-if-worse '-3' is not a percentage");
  require_bad_input(run_cli({"compare", pair.base, pair.other, "--format", "html"}),
                    "--format 'html' is not one of text, json, csv, markdown");
  require_bad_input(run_cli({"compare", pair.base, pair.other, "-d", "/tmp"}),
                    "--dir goes with run or validate, not compare");
  require_bad_input(run_cli({"run", "disk", "--fail-if-worse", "5"}),
                    "--fail-if-worse goes with compare, not run");
  require_bad_input(run_cli({"run", "disk", "--format", "markdown"}),
                    "--format 'markdown' is not one of text, json, csv");
}

TEST_CASE("compare reads real results: single runs and a suite with repetitions",
          "[compare][cli]") {
  TempDir target("compare-target");
  TempDir out("compare-out");
  const auto run = [&](const std::string& name, std::vector<std::string> extra) {
    const std::string path = (out.path() / name).string();
    std::vector<std::string> args{"run", "-d", target.path().string(), "-q", "--format", "json",
                                  "-o",  path};
    args.insert(args.begin() + 1, extra.begin(), extra.end());
    const CliResult result = run_cli(args);
    INFO(result.err);
    REQUIRE(result.exit_code == 0);
    return path;
  };
  const std::string a = run("a.json", {"disk", "operation=write", "size=256k", "bs=4k"});
  const std::string b = run("b.json", {"disk", "operation=write", "size=256k", "bs=64k"});
  const CliResult single = run_cli({"compare", a, b, "--format", "json"});
  INFO(single.err);
  REQUIRE(single.exit_code == 0);
  const Json cj = Json::parse(single.out);
  const Json da = Json::parse(read_file(a));
  const Json db = Json::parse(read_file(b));
  // The block size is what differs; the write phase is aligned and its throughput is the one
  // each document records.
  bool bs_listed = false;
  for (const Json& difference : cj.at("environment")) {
    if (difference.at("field") == "step disk: param bs") {
      bs_listed = true;
      CHECK(difference.at("values") == Json::array({"4k", "64k"}));
    }
  }
  CHECK(bs_listed);
  REQUIRE(cj.at("phases").size() == da.at("steps").at(0).at("phases").size());
  const Json& throughput = cj.at("phases").at(0).at("metrics").at(0);
  CHECK(throughput.at("metric") == "throughput");
  CHECK(throughput.at("inputs").at(0).at("mean").get<double>() ==
        da.at("steps").at(0).at("phases").at(0).at("throughput_bytes_per_s").get<double>());
  CHECK(throughput.at("inputs").at(1).at("mean").get<double>() ==
        db.at("steps").at(0).at("phases").at(0).at("throughput_bytes_per_s").get<double>());

  const std::string suite = write_text(out, "reps.json", R"({"name": "reps", "steps": [
      {"name": "w", "workload": "disk", "repeat": 3,
       "params": {"operation": "write", "size": "128k", "bs": "4k"}}]})");
  const std::string r1 = run("r1.json", {suite});
  const std::string r2 = run("r2.json", {suite});
  const CliResult repeated = run_cli({"compare", r1, r2, "--format", "json", "--phases", "write"});
  INFO(repeated.err);
  REQUIRE(repeated.exit_code == 0);
  const Json rj = Json::parse(repeated.out);
  REQUIRE(rj.at("phases").size() == 1);
  CHECK(rj.at("phases").at(0).at("step") == "w");
  for (const Json& metric : rj.at("phases").at(0).at("metrics")) {
    CHECK(metric.at("inputs").at(0).at("n") == 3);
    CHECK(metric.at("inputs").at(1).at("n") == 3);
    const Json& change = metric.at("changes").at(0);
    CHECK(change.at("welch").is_object());
    CHECK((change.at("noise") == "significant" || change.at("noise") == "within noise"));
  }
  CHECK(rj.at("unmatched").empty());
  CHECK(rj.at("left_out").empty());
  // Text: the n per side is printed.
  const CliResult text = run_cli({"compare", r1, r2, "--phases", "write"});
  CHECK_THAT(text.out, Contains("(n=3)"));
}

namespace {

// Two results alike but for counters: the verifying read found 0 and 3 mismatches, the find
// matched 40 and 35 entries; items_done and entries_scanned are equal.
struct CounterPair {
  TempDir dir{"compare-counters"};
  std::string base;
  std::string other;
  CounterPair() {
    base = write_document(dir, "base.json", counter_document(0, 40));
    other = write_document(dir, "other.json", counter_document(3, 35));
  }
};

// The cells of the text line whose first cell is `name`, split at runs of spaces.
std::vector<std::string> text_row(const std::string& text, const std::string& name) {
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::vector<std::string> cells;
    for (std::string word; words >> word;) cells.push_back(word);
    if (!cells.empty() && cells[0] == name) return cells;
  }
  return {};
}

}  // namespace

TEST_CASE("compare shows the counters that differ and the failures counted",
          "[compare][cli][counters]") {
  const CounterPair pair;
  const CliResult json = run_cli({"compare", pair.base, pair.other, "--format", "json"});
  INFO(json.err);
  REQUIRE(json.exit_code == 0);
  const Json j = Json::parse(json.out);
  REQUIRE(j.at("phases").size() == 2);
  const Json& read = j.at("phases").at(0);
  CHECK(read.at("phase") == "read");
  // Only the counter that differs: items_done is 100 in both.
  REQUIRE(read.at("counters").size() == 1);
  const Json& mismatches = counter_entry(read, "mismatches");
  CHECK(mismatches.at("failure") == true);
  CHECK(mismatches.at("inputs").at(0).at("total") == 0);
  CHECK(mismatches.at("inputs").at(0).at("values") == Json::array({0}));
  CHECK(mismatches.at("inputs").at(1).at("total") == 3);
  CHECK(mismatches.at("inputs").at(1).at("n") == 1);
  const Json& find = j.at("phases").at(1);
  CHECK(find.at("phase") == "find");
  REQUIRE(find.at("counters").size() == 1);
  const Json& matched = counter_entry(find, "matched");
  CHECK(matched.at("failure") == false);
  CHECK(matched.at("inputs").at(0).at("total") == 40);
  CHECK(matched.at("inputs").at(1).at("total") == 35);

  const CliResult text = run_cli({"compare", pair.base, pair.other});
  INFO(text.out);
  REQUIRE(text.exit_code == 0);
  CHECK(text_row(text.out, "mismatches") ==
        std::vector<std::string>{"mismatches", "0", "3", "failures,", "worse", "in", "#1"});
  CHECK(text_row(text.out, "matched") == std::vector<std::string>{"matched", "40", "35", "work"});
  CHECK(text_row(text.out, "items_done").empty());
  CHECK(text_row(text.out, "entries_scanned").empty());

  // Alike counters are not listed; a failure count above 0 is, even when alike.
  const CliResult same = run_cli({"compare", pair.other, pair.other, "--format", "json"});
  REQUIRE(same.exit_code == 0);
  const Json s = Json::parse(same.out);
  const Json& same_mismatches = counter_entry(s.at("phases").at(0), "mismatches");
  CHECK(same_mismatches.at("inputs").at(0).at("total") == 3);
  CHECK(same_mismatches.at("inputs").at(1).at("total") == 3);
  CHECK_FALSE(s.at("phases").at(1).contains("counters"));
}

TEST_CASE("compare --fail-if-worse fails on a failure counter above the baseline's",
          "[compare][cli][counters]") {
  TempDir dir("compare-counter-gate");
  // Alike but for the read's mismatches: 0 in the baseline, 3 in the candidate.
  const std::string clean = write_document(dir, "clean.json", counter_document(0, 40));
  const std::string broken = write_document(dir, "broken.json", counter_document(3, 40));
  // Every metric is equal, so no PCT would fail on them: the counter alone fails the gate.
  const CliResult gate = run_cli({"compare", clean, broken, "--fail-if-worse", "1000"});
  INFO(gate.err);
  CHECK(gate.exit_code == 1);
  CHECK_THAT(gate.err, Contains("failure counter mismatches is higher in #1 (" + broken +
                                ") than in the baseline: step md, phase read: 3 > 0"));
  // One reason: the find's counters are alike, the metrics unchanged.
  CHECK(std::count(gate.err.begin(), gate.err.end(), '\n') == 1);
  CHECK(text_row(gate.out, "mismatches") ==
        std::vector<std::string>{"mismatches", "0", "3", "failures,", "worse", "in", "#1"});
  const CliResult json = run_cli({"compare", clean, broken, "--format", "json"});
  REQUIRE(json.exit_code == 0);  // no gate asked for
  const Json j = Json::parse(json.out);
  CHECK(counter_entry(j.at("phases").at(0), "mismatches").at("worse") == Json::array({1}));
  // --phases keeps only the find: nothing counted as failing there.
  CHECK(run_cli({"compare", clean, broken, "--fail-if-worse", "0", "--phases", "find"}).exit_code ==
        0);

  // Fewer failures than the baseline, or as many, do not fail it (3 against 3 is listed, as a
  // failure count above 0, but not worse).
  const CliResult fewer = run_cli({"compare", broken, clean, "--fail-if-worse", "0"});
  CHECK(fewer.exit_code == 0);
  CHECK(fewer.err.empty());
  const CliResult same = run_cli({"compare", broken, broken, "--fail-if-worse", "0"});
  CHECK(same.exit_code == 0);
  CHECK(text_row(same.out, "mismatches") ==
        std::vector<std::string>{"mismatches", "3", "3", "failures"});

  // A work counter that differs (the find matched 40 and 35) never fails it, whatever PCT.
  const std::string fewer_matched = write_document(dir, "matched.json", counter_document(0, 35));
  const CliResult work = run_cli({"compare", clean, fewer_matched, "--fail-if-worse", "0"});
  INFO(work.out);
  CHECK(work.exit_code == 0);
  CHECK(work.err.empty());
  CHECK(text_row(work.out, "matched") == std::vector<std::string>{"matched", "40", "35", "work"});
}

TEST_CASE("compare's CSV carries the counters in the metrics' columns",
          "[compare][cli][counters]") {
  const CounterPair pair;
  const CliResult csv = run_cli({"compare", pair.base, pair.other, "-f", "csv"});
  INFO(csv.err);
  REQUIRE(csv.exit_code == 0);
  const std::vector<CsvRecord> rows = parse_csv(csv.out);
  REQUIRE_FALSE(rows.empty());
  const CsvRecord& header = rows[0];
  REQUIRE(header.size() == 26);
  const auto column = [&header](const std::string& name) { return csv_column(header, name); };
  const auto csv_row = [&rows, &column](const std::string& phase, const std::string& name) {
    for (const CsvRecord& row : rows) {
      if (row.at(column("phase")) == phase && row.at(column("metric")) == name) return row;
    }
    FAIL("no CSV row for " << phase << " " << name);
    return CsvRecord{};
  };
  for (const CsvRecord& row : rows) REQUIRE(row.size() == header.size());
  // The metrics keep their columns, kind "metric" and no totals.
  const CsvRecord iops = csv_row("read", "iops");
  CHECK(iops.at(column("kind")) == "metric");
  CHECK(iops.at(column("unit")) == "ops/s");
  CHECK(std::stod(iops.at(column("mean"))) == 100.0);
  CHECK(iops.at(column("total")).empty());
  // The failure count: 0 in the baseline, 3 in the other, worse.
  const CsvRecord mismatches = csv_row("read", "mismatches");
  CHECK(mismatches.at(column("step")) == "md");
  CHECK(mismatches.at(column("unit")) == "count");
  CHECK(mismatches.at(column("better")) == "lower");
  CHECK(mismatches.at(column("baseline")) == pair.base);
  CHECK(mismatches.at(column("input")) == pair.other);
  CHECK(mismatches.at(column("base_n")) == "1");
  CHECK(std::stod(mismatches.at(column("base_mean"))) == 0.0);
  CHECK(mismatches.at(column("base_stddev")).empty());  // one result: no stddev
  CHECK(mismatches.at(column("n")) == "1");
  CHECK(std::stod(mismatches.at(column("mean"))) == 3.0);
  CHECK(mismatches.at(column("change_percent")).empty());  // against 0
  CHECK(mismatches.at(column("direction")) == "worse");
  CHECK(mismatches.at(column("noise")).empty());
  CHECK(mismatches.at(column("p_value")).empty());
  CHECK(mismatches.at(column("kind")) == "failure");
  CHECK(mismatches.at(column("base_total")) == "0");
  CHECK(mismatches.at(column("total")) == "3");
  // The work count: 40 and 35, -12.5 %, no direction.
  const CsvRecord matched = csv_row("find", "matched");
  CHECK(matched.at(column("unit")) == "count");
  CHECK(matched.at(column("better")).empty());
  CHECK(std::stod(matched.at(column("base_mean"))) == 40.0);
  CHECK(std::stod(matched.at(column("mean"))) == 35.0);
  CHECK(std::stod(matched.at(column("change_percent"))) == -12.5);
  CHECK(matched.at(column("direction")).empty());
  CHECK(matched.at(column("kind")) == "work");
  CHECK(matched.at(column("base_total")) == "40");
  CHECK(matched.at(column("total")) == "35");
  // Alike counters get no row, as in the text.
  for (const CsvRecord& row : rows) {
    CHECK(row.at(column("metric")) != "items_done");
    CHECK(row.at(column("metric")) != "entries_scanned");
  }
}

TEST_CASE("compare --fail-if-worse fails on a phase that failed where the baseline's ended ok",
          "[compare][cli][counters]") {
  TempDir dir("compare-failed-gate");
  const std::string clean = write_document(dir, "clean.json", counter_document(0, 40));
  const std::string broken = write_document(dir, "broken.json", failed_read_document());
  const std::string reason = "a phase failed in #1 (" + broken +
                             ") where the baseline's ended ok: step md, phase read, repetition "
                             "1: failed: data check (verify_read): 3 of the 100 files read";
  // The find is alike: no metric is worse; the failed read fails the gate on its own.
  const CliResult gate = run_cli({"compare", clean, broken, "--fail-if-worse", "1000"});
  INFO(gate.out);
  INFO(gate.err);
  CHECK(gate.exit_code == 1);
  CHECK_THAT(gate.err, Contains(reason));
  CHECK(std::count(gate.err.begin(), gate.err.end(), '\n') == 1);
  // The text says it failed in #1 where the baseline's ended ok, among the left-out results.
  CHECK_THAT(gate.out, Contains("Left out (did not end ok):"));
  CHECK_THAT(gate.out, Contains("#1 step md, repetition 1, phase read: failed (data check") &&
                           Contains("did not hold the data pattern); the baseline's ended ok\n"));
  // --phases selecting only the failed phase: 1 with the reason, not 2 (nothing to compare).
  const CliResult only = run_cli(
      {"compare", clean, broken, "--fail-if-worse", "1000", "--phases", "read", "-f", "markdown"});
  INFO(only.out);
  CHECK(only.exit_code == 1);
  CHECK_THAT(only.err, Contains(reason));
  CHECK_THAT(only.err, !Contains("nothing to compare"));
  CHECK_THAT(only.out,
             Contains("### Left out (did not end ok)") && Contains("; the baseline's ended ok\n"));
  // --phases leaving the read out: the find passes.
  CHECK(run_cli({"compare", clean, broken, "--fail-if-worse", "0", "--phases", "find"}).exit_code ==
        0);
  // The JSON marks it; swapped (the failed run as the baseline) nothing fails.
  const CliResult json = run_cli({"compare", clean, broken, "-f", "json"});
  REQUIRE(json.exit_code == 0);
  const Json left = Json::parse(json.out).at("left_out");
  const auto phase_entry =
      std::find_if(left.begin(), left.end(), [](const Json& e) { return e.at("phase") == "read"; });
  REQUIRE(phase_entry != left.end());
  CHECK(phase_entry->at("status") == "failed");
  CHECK(phase_entry->at("baseline_ok") == true);
  const CliResult swapped = run_cli({"compare", broken, clean, "--fail-if-worse", "1000"});
  CHECK(swapped.exit_code == 0);
  CHECK(swapped.err.empty());
}

TEST_CASE("a failed phase's failure counters make its input worse beside an ok one",
          "[compare][cli][counters]") {
  // Three inputs: the baseline's and #1's read ended ok with 0 mismatches, #2's failed with 3.
  TempDir dir("compare-failed-counters");
  const std::string clean = write_document(dir, "clean.json", counter_document(0, 40));
  const std::string also = write_document(dir, "also.json", counter_document(0, 40));
  const std::string broken = write_document(dir, "broken.json", failed_read_document());
  const CliResult gate =
      run_cli({"compare", clean, also, broken, "--fail-if-worse", "1000", "--phases", "read"});
  INFO(gate.out);
  INFO(gate.err);
  CHECK(gate.exit_code == 1);
  CHECK_THAT(gate.err, Contains("failure counter mismatches is higher in #2 (" + broken +
                                ") than in the baseline: step md, phase read: 3 in failed "
                                "results > 0"));
  CHECK_THAT(gate.err, Contains("a phase failed in #2 (" + broken + ")"));
  CHECK(text_row(gate.out, "mismatches") == std::vector<std::string>{"mismatches", "0", "0",
                                                                     "failed:", "3", "failures,",
                                                                     "worse", "in", "#2"});
  // CSV: #2 has no ok read (n onwards empty) but its row says worse; #1's unchanged.
  const CliResult csv = run_cli({"compare", clean, also, broken, "-f", "csv", "--phases", "read"});
  REQUIRE(csv.exit_code == 0);
  const std::vector<CsvRecord> rows = parse_csv(csv.out);
  REQUIRE_FALSE(rows.empty());
  const auto column = [&rows](const std::string& name) { return csv_column(rows[0], name); };
  std::vector<CsvRecord> counted;
  for (const CsvRecord& row : rows) {
    if (row.at(column("metric")) == "mismatches") counted.push_back(row);
  }
  REQUIRE(counted.size() == 2);
  CHECK(counted[0].at(column("input")) == also);
  CHECK(counted[0].at(column("n")) == "1");
  CHECK(counted[0].at(column("direction")) == "unchanged");
  CHECK(counted[1].at(column("input")) == broken);
  CHECK(counted[1].at(column("n")).empty());
  CHECK(counted[1].at(column("total")).empty());
  CHECK(counted[1].at(column("direction")) == "worse");
  CHECK(counted[1].at(column("kind")) == "failure");
}

TEST_CASE("compare's CSV counter rows where an input lacks the phase or the counter",
          "[compare][cli][counters]") {
  TempDir dir("compare-counter-csv3");
  // The baseline counts mismatches 0 in its read; #1 has no read at all (its find alone); #2's
  // read counts items_done only (no data check).
  const std::string base = write_document(dir, "base.json", counter_document(0, 40));
  const std::string no_read = write_document(
      dir, "no_read.json",
      single_run_document(
          compare_environment(),
          {compare_step("md", {with_counters(compare_phase("find", kSecond, 100, 0, 1000),
                                             {"entries_scanned", "matched"}, {500, 40})})}));
  const std::string unchecked = write_document(
      dir, "unchecked.json",
      single_run_document(
          compare_environment(),
          {compare_step("md", {with_counters(compare_phase("read", kSecond, 100, 4096, 1000),
                                             {"items_done"}, {100}),
                               with_counters(compare_phase("find", kSecond, 100, 0, 1000),
                                             {"entries_scanned", "matched"}, {500, 40})})}));
  const CliResult csv = run_cli({"compare", base, no_read, unchecked, "-f", "csv"});
  INFO(csv.err);
  REQUIRE(csv.exit_code == 0);
  const std::vector<CsvRecord> rows = parse_csv(csv.out);
  REQUIRE_FALSE(rows.empty());
  const CsvRecord& header = rows[0];
  REQUIRE(header.size() == 26);
  const auto column = [&header](const std::string& name) { return csv_column(header, name); };
  std::vector<CsvRecord> counter_rows;
  for (const CsvRecord& row : rows) {
    CHECK(row.size() == 26);
    if (row.at(column("metric")) == "mismatches") counter_rows.push_back(row);
  }
  // One row per input after the baseline, in input order.
  REQUIRE(counter_rows.size() == 2);
  for (const CsvRecord& row : counter_rows) {
    CHECK(row.at(column("phase")) == "read");
    CHECK(row.at(column("kind")) == "failure");
    CHECK(row.at(column("unit")) == "count");
    CHECK(row.at(column("better")) == "lower");
    CHECK(row.at(column("base_n")) == "1");
    CHECK(row.at(column("base_mean")) == "0");
    CHECK(row.at(column("base_total")) == "0");
    CHECK(row.at(column("base_not_available")).empty());
  }
  // #1 lacks the phase: every cell from n to p_value empty, nothing said "not counted".
  const CsvRecord& lacking = counter_rows[0];
  CHECK(lacking.at(column("input")) == no_read);
  for (const char* name : {"n", "mean", "stddev", "change_percent", "direction", "noise", "welch_t",
                           "welch_df", "p_value", "not_available", "total"}) {
    INFO(name);
    CHECK(lacking.at(column(name)).empty());
  }
  // #2 has the phase but not the counter: n 0, "not counted", no direction.
  const CsvRecord& uncounted = counter_rows[1];
  CHECK(uncounted.at(column("input")) == unchecked);
  CHECK(uncounted.at(column("n")) == "0");
  CHECK(uncounted.at(column("mean")).empty());
  CHECK(uncounted.at(column("direction")).empty());
  CHECK(uncounted.at(column("not_available")) == "not counted");
  CHECK(uncounted.at(column("total")).empty());
  // The metric rows say kind metric; #1's read metric rows are empty from n on as well.
  for (const CsvRecord& row : rows) {
    if (&row == &rows[0] || row.at(column("metric")) == "mismatches") continue;
    CHECK(row.at(column("kind")) == "metric");
  }
}
