// The io500 report's figures from a step's phase results, and the io500 params' bad input.

#include <catch2/catch.hpp>
#include <string>
#include <utility>
#include <vector>

#include "plugins/io500/io500_config.hpp"
#include "plugins/io500/io500_report.hpp"
#include "plugins/io500/io500_workload.hpp"
#include "tests/support/test_support.hpp"

using namespace iobench;
using namespace iobench::plugins::io500;

namespace {

PhaseResult phase_of(const std::string& name, std::uint64_t ops, std::uint64_t bytes,
                     std::uint64_t wall_ns) {
  PhaseResult p;
  p.name = name;
  p.op_names = {"op"};
  p.ops.resize(1);
  p.ops[0].ops = ops;
  p.ops[0].bytes = bytes;
  p.wall_ns = wall_ns;
  return p;
}

}  // namespace

TEST_CASE("io500 figures are GiB/s of ior bytes, kIOPS of mdtest items and of find's entries") {
  StepResult step;
  step.phases.push_back(phase_of("ior-easy-write", 1024, 2ULL << 30, 4'000'000'000));
  step.phases.push_back(phase_of("mdtest-hard-stat", 6000, 0, 2'000'000'000));
  PhaseResult find = phase_of("find", 1, 0, 500'000'000);
  find.counters = {9000, 0};  // entries examined, matched
  step.phases.push_back(find);
  PhaseResult failed = phase_of("ior-hard-write", 10, 470080, 1'000'000'000);
  failed.status = Status::kFailed;
  failed.message = "pwrite file: No space left on device";
  step.phases.push_back(failed);
  step.attributes = {{"stonewall_s", 2.5}, {"quick", std::int64_t{1}}};

  const std::vector<PhaseFigure> f = phase_figures(step);
  REQUIRE(f.size() == 4);
  CHECK(f[0].score == 0.5);  // 2 GiB in 4 s
  CHECK(f[0].seconds == 4.0);
  CHECK(f[1].score == 3.0);   // 6000 items / 1000 / 2 s
  CHECK(f[2].score == 18.0);  // 9000 entries / 1000 / 0.5 s
  CHECK(f[2].invalid == "find matched none of the 9000 entries it examined");
  CHECK(f[3].failure == "failed: pwrite file: No space left on device");
  const ValidityRules rules = validity_rules(step);
  CHECK(rules.stonewall_seconds == 2.5);
  CHECK(rules.quick);
  CHECK(validity_rules(StepResult{}).stonewall_seconds == 300.0);
  CHECK_FALSE(validity_rules(StepResult{}).quick);
}

TEST_CASE(
    "io500 refuses several targets, an ior_easy_size below one transfer and a checkpoint without "
    "cache_proof, exit 2") {
  iobench::test::TempDir a("io500-bad");
  iobench::test::TempDir b("io500-bad");
  const auto two = iobench::test::run_cli(
      {"run", "io500-quick", "-d", a.path().string(), "-d", b.path().string(), "-q"});
  CHECK(two.exit_code == 2);
  CHECK_THAT(two.err, Catch::Contains("io500: 2 targets; IO500 writes every phase's files into "
                                      "one data directory, give one target (-d)"));
  const auto small = iobench::test::run_cli(
      {"run", "io500-quick", "-d", a.path().string(), "-q", "ior_easy_size=1m"});
  CHECK(small.exit_code == 2);
  CHECK_THAT(small.err, Catch::Contains("io500: ior_easy_size=1m is less than one 2 MiB transfer; "
                                        "give ior_easy_size=2m or more"));
  const auto lone_checkpoint = iobench::test::run_cli(
      {"run", "io500-quick", "-d", a.path().string(), "-q", "checkpoint=true"});
  CHECK(lone_checkpoint.exit_code == 2);
  CHECK_THAT(lone_checkpoint.err,
             Catch::Contains("io500: checkpoint=true without cache_proof=true: the checkpoint is "
                             "there so that the page-cache drops free what the journal held; "
                             "give cache_proof=true too, or drop checkpoint"));
  CHECK(a.entries().empty());
  CHECK(b.entries().empty());
}

TEST_CASE(
    "io500 refuses the run-wide --time, --ops, --warmup, --stonewall and --wear-out, exit 2") {
  // Each would cut io500's read, stat, find or delete phases short while the score read valid.
  iobench::test::TempDir dir("io500-limits");
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--time", "10s"}, "--time 10s"},
      {{"--ops", "100"}, "--ops 100"},
      {{"--warmup", "2s"}, "--warmup 2s"},
      {{"--stonewall"}, "--stonewall"},
      {{"--wear-out"}, "--wear-out"}};
  for (const auto& [args, shown] : cases) {
    std::vector<std::string> argv = {"run", "io500-quick", "-d", dir.path().string(), "-q"};
    argv.insert(argv.end(), args.begin(), args.end());
    const auto r = iobench::test::run_cli(argv);
    INFO(shown << ": " << r.err);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains(shown + ": workload 'io500' times its own phases"));
    CHECK_THAT(r.err, Catch::Contains("drop " + shown.substr(0, shown.find(' '))));
    CHECK(dir.entries().empty());
  }
}

TEST_CASE("io500 params are bounded so the planned bytes cannot overflow") {
  using namespace iobench::plugins::io500;
  const std::vector<iobench::ParamSpec> specs = io500_param_specs();
  // At every bound the planned bytes are exact: 1024 x (2^50 + 10^9 x 47008 + 10^9 x 3901).
  const iobench::Params top = iobench::Params::validate(specs,
                                                        {{"ranks", "1024"},
                                                         {"ior_easy_size", "1024t"},
                                                         {"ior_hard_segments", "1000000000"},
                                                         {"mdtest_easy_items", "1000000000"},
                                                         {"mdtest_hard_items", "1000000000"}},
                                                        "io500");
  const Io500Workload workload(make_io500_config(top, 1));
  CHECK(workload.retained_bytes(0) == 1201057696606846976ULL);
  CHECK(workload.planned_bytes(0) == 1205052320606846976ULL);
  // One past a bound is refused, naming the param, the value and the limit; nothing written.
  iobench::test::TempDir dir("io500-bounds");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"ior_hard_segments=1000000001", "1000000000"},
      {"mdtest_easy_items=1000000001", "1000000000"},
      {"mdtest_hard_items=1000000001", "1000000000"},
      {"ior_easy_size=1025t", "1125899906842624"}};
  for (const auto& [param, limit] : cases) {
    const auto r = iobench::test::run_cli({"run", "io500", "-d", dir.path().string(), "-q", param});
    INFO(param << ": " << r.err);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains(param.substr(0, param.find('='))));
    CHECK_THAT(r.err, Catch::Contains(param.substr(param.find('=') + 1)));
    CHECK_THAT(r.err, Catch::Contains("must be at most " + limit));
    CHECK(dir.entries().empty());
  }
}
