// What `iobench compare --fail-if-worse` reads from results that did not end ok, and how the
// outputs show it: a failure counter's counts in failed results (JSON), the CSV's direction of a
// failure count taken from the gate's means, and a step that failed before any phase ran.
#include <catch2/catch.hpp>
#include <iobench/compare.hpp>
#include <nlohmann/json.hpp>

#include "tests/compare/compare_fixtures.hpp"
#include "tests/support/test_support.hpp"

using namespace iobench;
using namespace iobench::test;
using Catch::Matchers::Contains;

namespace {

// A read of 1000 ops in 1 s that counted `mismatches`; ended failed when `failed` (as a data
// check fails its phase).
PhaseResult mismatch_read(std::uint64_t mismatches, bool failed = false) {
  PhaseResult read = with_counters(compare_read_phase(kSecond), {"mismatches"}, {mismatches});
  if (failed) {
    read.status = Status::kFailed;
    read.message = "data check: mismatches found";
  }
  return read;
}

// repeated_document of one read per repetition (mismatch_read), each repetition whose read
// failed marked failed as a step too.
ResultDocument mismatch_reads(const std::vector<PhaseResult>& reads) {
  std::vector<std::vector<PhaseResult>> repetitions;
  for (const PhaseResult& read : reads) repetitions.push_back({read});
  ResultDocument document = repeated_document(compare_environment(), repetitions);
  for (StepResult& step : document.run.steps) {
    if (step.phases.at(0).status != Status::kFailed) continue;
    step.status = Status::kFailed;
    step.message = "phase read failed";
  }
  return document;
}

// The CSV row of counter `name` (one input after the baseline); fails the test without one.
CsvRecord counter_csv_row(const std::string& csv, const std::string& name) {
  const std::vector<CsvRecord> rows = parse_csv(csv);
  REQUIRE_FALSE(rows.empty());
  const std::size_t metric = csv_column(rows[0], "metric");
  std::vector<CsvRecord> found;
  for (const CsvRecord& row : rows) {
    if (row.at(metric) == name) found.push_back(row);
  }
  REQUIRE(found.size() == 1);
  return found[0];
}

}  // namespace

TEST_CASE("compare's JSON carries a failure counter's counts in failed results",
          "[compare][cli][counters]") {
  // Three inputs: the baseline's and #1's read ended ok with 0 mismatches, #2's failed with 3
  // (its only read result: no ok one).
  TempDir dir("compare-gate-json");
  const std::string clean = write_document(dir, "clean.json", counter_document(0, 40));
  const std::string also = write_document(dir, "also.json", counter_document(0, 40));
  const std::string broken = write_document(dir, "broken.json", failed_read_document());
  const CliResult json =
      run_cli({"compare", clean, also, broken, "-f", "json", "--phases", "read"});
  INFO(json.err);
  REQUIRE(json.exit_code == 0);
  const nlohmann::json j = nlohmann::json::parse(json.out);
  REQUIRE(j.at("phases").size() == 1);
  const nlohmann::json& mismatches = counter_entry(j.at("phases").at(0), "mismatches");
  CHECK(mismatches.at("worse") == nlohmann::json::array({2}));
  const nlohmann::json& inputs = mismatches.at("inputs");
  REQUIRE(inputs.size() == 3);
  // The baseline: one ok result of 0, no failed one; the gate's mean 0.
  CHECK(inputs.at(0) == nlohmann::json::parse(R"({"n": 1, "total": 0, "mean": 0.0,
      "values": [0], "failed": null, "gate_mean": 0.0})"));
  CHECK(inputs.at(1) == inputs.at(0));
  // #2: no ok result, so nothing over the ok results, but the failed result's 3 mismatches and
  // the mean the gate compared (3 > 0: worse).
  CHECK(inputs.at(2) == nlohmann::json::parse(R"({"n": 0, "total": null, "mean": null,
      "values": [], "failed": {"n": 1, "total": 3, "mean": 3.0, "values": [3]},
      "gate_mean": 3.0})"));
  // The same figures as the gate's reason on stderr.
  const CliResult gate =
      run_cli({"compare", clean, also, broken, "--fail-if-worse", "1000", "--phases", "read"});
  CHECK(gate.exit_code == 1);
  CHECK_THAT(gate.err, Contains("failure counter mismatches is higher in #2 (" + broken +
                                ") than in the baseline: step md, phase read: 3 in failed "
                                "results > 0"));
}

TEST_CASE("compare's CSV direction of a failure count uses the gate's means",
          "[compare][cli][counters]") {
  TempDir dir("compare-gate-csv");
  // Baseline: one ok read with 2 mismatches. Candidate: an ok read with 0 and a failed one with
  // 4: over the ok results 0 (below 2), over all results (the gate's) 2, as many as the
  // baseline: not worse, and not better either.
  const std::string two = write_document(dir, "two.json", mismatch_reads({mismatch_read(2)}));
  const std::string mixed = write_document(
      dir, "mixed.json", mismatch_reads({mismatch_read(0), mismatch_read(4, /*failed=*/true)}));
  const CliResult csv = run_cli({"compare", two, mixed, "-f", "csv"});
  INFO(csv.err);
  REQUIRE(csv.exit_code == 0);
  const std::vector<CsvRecord> rows = parse_csv(csv.out);
  const auto column = [&rows](const std::string& name) { return csv_column(rows.at(0), name); };
  const CsvRecord row = counter_csv_row(csv.out, "mismatches");
  CHECK(row.at(column("kind")) == "failure");
  CHECK(row.at(column("direction")) == "unchanged");
  // The other cells stay over the ok results.
  CHECK(row.at(column("base_n")) == "1");
  CHECK(row.at(column("base_total")) == "2");
  CHECK(row.at(column("n")) == "1");
  CHECK(row.at(column("mean")) == "0");
  CHECK(row.at(column("total")) == "0");
  CHECK(row.at(column("change_percent")) == "-100");
  // The JSON says the same: not worse, the gate's means 2 and 2.
  const CliResult json = run_cli({"compare", two, mixed, "-f", "json"});
  REQUIRE(json.exit_code == 0);
  const nlohmann::json mismatches =
      counter_entry(nlohmann::json::parse(json.out).at("phases").at(0), "mismatches");
  CHECK(mismatches.at("worse").empty());
  CHECK(mismatches.at("inputs").at(0).at("gate_mean") == 2.0);
  CHECK(mismatches.at("inputs").at(1).at("gate_mean") == 2.0);
  CHECK(mismatches.at("inputs").at(1).at("failed") ==
        nlohmann::json::parse(R"({"n": 1, "total": 4, "mean": 4.0, "values": [4]})"));
  // The gate fails on the failed read alone (the baseline's ended ok), not on the counter.
  const CliResult gate = run_cli({"compare", two, mixed, "--fail-if-worse", "1000"});
  CHECK(gate.exit_code == 1);
  CHECK_THAT(gate.err, Contains("a phase failed in #1 (" + mixed + ")"));
  CHECK_THAT(gate.err, !Contains("failure counter"));

  // The other way: the baseline's ok read counted 0 and its failed one 4 (the gate's mean 2);
  // the candidate's one ok read 1, above the baseline's ok mean 0 but below the gate's 2:
  // better, and the gate passes.
  const std::string base_mixed =
      write_document(dir, "base_mixed.json",
                     mismatch_reads({mismatch_read(0), mismatch_read(4, /*failed=*/true)}));
  const std::string one = write_document(dir, "one.json", mismatch_reads({mismatch_read(1)}));
  const CliResult better = run_cli({"compare", base_mixed, one, "-f", "csv"});
  REQUIRE(better.exit_code == 0);
  const CsvRecord better_row = counter_csv_row(better.out, "mismatches");
  CHECK(better_row.at(column("direction")) == "better");
  CHECK(better_row.at(column("base_total")) == "0");
  CHECK(better_row.at(column("total")) == "1");
  const CliResult passes = run_cli({"compare", base_mixed, one, "--fail-if-worse", "1000"});
  CHECK(passes.exit_code == 0);
  CHECK(passes.err.empty());
}

namespace {

constexpr const char* kSetUpFailure =
    "prepare: cannot create /mnt/a/iobench.1/f0: No space left on device";

// Steps "seq" (a write and a read, alike in every input) and "rand" (a write), "rand" failed
// before any phase ran (its set-up: no phase result) where `rand_failed`.
ResultDocument with_rand_step(bool rand_failed) {
  StepResult rand = compare_step("rand", {compare_write_phase(kSecond)});
  if (rand_failed) {
    rand.phases.clear();
    rand.status = Status::kFailed;
    rand.message = kSetUpFailure;
  }
  return single_run_document(
      compare_environment(),
      {compare_step("seq", {compare_write_phase(kSecond), compare_read_phase(kSecond)}), rand});
}

}  // namespace

TEST_CASE("compare --fail-if-worse fails on a step that failed before any phase ran",
          "[compare][cli]") {
  TempDir dir("compare-gate-step");
  const std::string ok = write_document(dir, "ok.json", with_rand_step(false));
  const std::string broken = write_document(dir, "broken.json", with_rand_step(true));
  const std::string line = std::string("#1 step rand, repetition 1: failed (") + kSetUpFailure +
                           "); the baseline's ended ok\n";

  // The library marks the step: left out, its baseline's step ran.
  const std::vector<CompareInput> inputs{{ok, load_result_file(ok)},
                                         {broken, load_result_file(broken)}};
  const Comparison c = compare_results(inputs);
  REQUIRE(c.left_out.size() == 1);
  CHECK(c.left_out[0].input == 1);
  CHECK(c.left_out[0].step == "rand");
  CHECK(c.left_out[0].phase.empty());
  CHECK(c.left_out[0].baseline_ok);
  CHECK(failed_phases(c) == std::vector<std::size_t>{0});

  // Every metric alike: the failed step alone fails the gate, named with its message.
  const CliResult gate = run_cli({"compare", ok, broken, "--fail-if-worse", "1000"});
  INFO(gate.out);
  INFO(gate.err);
  CHECK(gate.exit_code == 1);
  CHECK(gate.err == "iobench: compare: a step failed in #1 (" + broken +
                        ") where the baseline's ended ok: step rand, repetition 1: failed: " +
                        kSetUpFailure + " (a failed step fails --fail-if-worse, whatever PCT)\n");
  CHECK_THAT(gate.out, Contains("Left out (did not end ok):\n  " + line));
  // Only where --phases selects a phase of the baseline's step (rand has a write alone).
  CHECK(
      run_cli({"compare", ok, broken, "--fail-if-worse", "1000", "--phases", "write"}).exit_code ==
      1);
  const CliResult read_only =
      run_cli({"compare", ok, broken, "--fail-if-worse", "1000", "--phases", "read"});
  CHECK(read_only.exit_code == 0);
  CHECK(read_only.err.empty());
  const Comparison read_c = compare_results(inputs, CompareOptions{.phases = {"read"}});
  REQUIRE(read_c.left_out.size() == 1);
  CHECK(!read_c.left_out[0].baseline_ok);
  CHECK(failed_phases(read_c).empty());
  const CliResult markdown = run_cli({"compare", ok, broken, "-f", "markdown"});
  REQUIRE(markdown.exit_code == 0);
  CHECK_THAT(markdown.out, Contains("### Left out (did not end ok)\n\n- " + line));
  const CliResult json = run_cli({"compare", ok, broken, "-f", "json"});
  REQUIRE(json.exit_code == 0);
  CHECK(nlohmann::json::parse(json.out).at("left_out") ==
        nlohmann::json::array({{{"input", 1},
                                {"step", "rand"},
                                {"sweep_point", nullptr},
                                {"repetition", 1},
                                {"phase", ""},
                                {"status", "failed"},
                                {"message", kSetUpFailure},
                                {"baseline_ok", true}}}));

  // Failed in the baseline too, or only there: listed, but nothing fails the gate.
  const std::string also_broken = write_document(dir, "also_broken.json", with_rand_step(true));
  const CliResult both = run_cli({"compare", broken, also_broken, "--fail-if-worse", "1000"});
  CHECK(both.exit_code == 0);
  CHECK(both.err.empty());
  CHECK_THAT(both.out,
             Contains(std::string("#1 step rand, repetition 1: failed (") + kSetUpFailure + ")\n"));
  const CliResult swapped = run_cli({"compare", broken, ok, "--fail-if-worse", "1000"});
  CHECK(swapped.exit_code == 0);
  CHECK(swapped.err.empty());
}

TEST_CASE(
    "compare --fail-if-worse fails on a step failed in a phase the baseline has no ok result of",
    "[compare][cli]") {
  TempDir dir("compare-gate-step-phase");
  const std::string ok = write_document(dir, "ok.json", with_rand_step(false));
  // rand's write ended ok, then a read the baseline never ran failed, and so did the step.
  ResultDocument document = with_rand_step(false);
  StepResult& rand = document.run.steps.at(1);
  PhaseResult read = compare_read_phase(kSecond);
  read.status = Status::kFailed;
  read.message = "read: short read";
  rand.phases.push_back(read);
  rand.status = Status::kFailed;
  rand.message = "read: short read";
  const std::string broken = write_document(dir, "broken.json", document);

  const std::vector<CompareInput> inputs{{ok, load_result_file(ok)},
                                         {broken, load_result_file(broken)}};
  const Comparison c = compare_results(inputs);
  // The step, then its failed read (no phase gate: the baseline has no ok read of rand).
  REQUIRE(c.left_out.size() == 2);
  CHECK(c.left_out[0].phase.empty());
  CHECK(c.left_out[0].baseline_ok);
  CHECK(c.left_out[1].phase == "read");
  CHECK(!c.left_out[1].baseline_ok);
  CHECK(failed_phases(c) == std::vector<std::size_t>{0});

  const CliResult gate = run_cli({"compare", ok, broken, "--fail-if-worse", "1000"});
  INFO(gate.err);
  CHECK(gate.exit_code == 1);
  CHECK(gate.err == "iobench: compare: a step failed in #1 (" + broken +
                        ") where the baseline's ended ok: step rand, repetition 1: failed: read: "
                        "short read (a failed step fails --fail-if-worse, whatever PCT)\n");
  // --phases write leaves the failed read out: nothing fails.
  const CliResult write_only =
      run_cli({"compare", ok, broken, "--fail-if-worse", "1000", "--phases", "write"});
  CHECK(write_only.exit_code == 0);
  CHECK(write_only.err.empty());
}

TEST_CASE("compare --fail-if-worse: a failed step alone is compared, an interrupted one is not",
          "[compare][cli]") {
  TempDir dir("compare-gate-step-only");
  const auto only_rand = [](bool failed, Status status) {
    ResultDocument document = with_rand_step(failed);
    document.run.steps.erase(document.run.steps.begin());  // drop "seq"
    if (failed) document.run.steps.at(0).status = status;
    return document;
  };
  const std::string ok = write_document(dir, "ok.json", only_rand(false, Status::kOk));
  const std::string broken = write_document(dir, "broken.json", only_rand(true, Status::kFailed));
  const std::string stopped =
      write_document(dir, "stopped.json", only_rand(true, Status::kInterrupted));

  // The failed step is the only one in both files: it fails the gate (1), not "nothing
  // compared" (2).
  const CliResult gate = run_cli({"compare", ok, broken, "--fail-if-worse", "1000"});
  INFO(gate.err);
  CHECK(gate.exit_code == 1);
  CHECK(gate.err == "iobench: compare: a step failed in #1 (" + broken +
                        ") where the baseline's ended ok: step rand, repetition 1: failed: " +
                        kSetUpFailure + " (a failed step fails --fail-if-worse, whatever PCT)\n");

  // Interrupted with no phases: listed, but not a failure; nothing is compared (2).
  const std::vector<CompareInput> inputs{{ok, load_result_file(ok)},
                                         {stopped, load_result_file(stopped)}};
  const Comparison c = compare_results(inputs);
  REQUIRE(c.left_out.size() == 1);
  CHECK(c.left_out[0].status == Status::kInterrupted);
  CHECK(!c.left_out[0].baseline_ok);
  CHECK(failed_phases(c).empty());
  const CliResult interrupted = run_cli({"compare", ok, stopped, "--fail-if-worse", "1000"});
  CHECK(interrupted.exit_code == 2);
  CHECK_THAT(interrupted.err, !Contains("a step failed"));
}

TEST_CASE("compare --fail-if-worse names the one candidate repetition whose set-up failed",
          "[compare][cli]") {
  TempDir dir("compare-gate-step-repetition");
  const std::vector<std::vector<PhaseResult>> two(
      2, {compare_write_phase(kSecond), compare_read_phase(kSecond)});
  const std::string ok =
      write_document(dir, "ok.json", repeated_document(compare_environment(), two));
  ResultDocument document = repeated_document(compare_environment(), two);
  StepResult& second = document.run.steps.at(1);
  second.phases.clear();
  second.status = Status::kFailed;
  second.message = kSetUpFailure;
  const std::string broken = write_document(dir, "broken.json", document);

  const CliResult gate = run_cli({"compare", ok, broken, "--fail-if-worse", "1000"});
  INFO(gate.err);
  CHECK(gate.exit_code == 1);
  CHECK(gate.err == "iobench: compare: a step failed in #1 (" + broken +
                        ") where the baseline's ended ok: step seq, repetition 2: failed: " +
                        kSetUpFailure + " (a failed step fails --fail-if-worse, whatever PCT)\n");
}
