// mdtest 3.x's text output read for compare and report. data/mdtest3_2ranks_written.txt is not a
// capture: it was written for this test from the format hpc/ior's tag 3.3.0 prints (src/mdtest.c:
// main()'s "-- started at" / "mdtest-%s was launched with" / "Command line used:" lines,
// "%d tasks, %llu files/directories", and summarize_results()'s "SUMMARY %s: (of %d iterations)"
// tables, each row "   %s " with the operation padded to 26 characters and a colon, then four
// "%14.3f" figures; -W's "File create (stonewall)   : " row "%14s %14s %14.3f %14s" with NA),
// as `mdtest -n 20 -i 2 -P -W 5 -w 100 -e 100` under 2 ranks would print it; its figures are
// made up.
#include <catch2/catch.hpp>
#include <filesystem>
#include <iobench/classic_results.hpp>
#include <iobench/compare.hpp>

#include "tests/support/test_support.hpp"

namespace {

std::string mdtest3_data(const std::string& name) {
  return (std::filesystem::path(IOBENCH_COMPARE_DATA_DIR) / name).string();
}

double mdtest3_iops(const iobench::StepResult& step, const std::string& name) {
  for (const iobench::PhaseResult& phase : step.phases) {
    if (phase.name != name) continue;
    REQUIRE(phase.reported.has_value());
    REQUIRE(phase.reported->iops.has_value());
    return phase.reported->iops->value;
  }
  FAIL("no phase " << name);
  return 0;
}

bool mdtest3_lists(const iobench::ResultDocument& doc, const std::string& part) {
  for (const std::string& line : doc.source->not_mapped)
    if (line.find(part) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_CASE("mdtest 3.x: its SUMMARY rate rows with the colon as phases, Mean as IOPS",
          "[compare][classic]") {
  const std::string path = mdtest3_data("mdtest3_2ranks_written.txt");
  CHECK(iobench::detect_result_format(iobench::test::read_file(path), path) ==
        iobench::ResultFormat::kMdtest);
  const iobench::ResultDocument doc = iobench::read_result_file(path, iobench::ResultFormat::kAuto);
  CHECK(doc.source->format == "mdtest");
  CHECK(doc.source->tool_version == "3.3.0");
  REQUIRE(doc.run.steps.size() == 1);
  const iobench::StepResult& step = doc.run.steps[0];
  CHECK(step.workload == "mdtest");
  CHECK(step.params.at("ranks") == "2");
  CHECK(step.params.at("items_total") == "40");
  std::vector<std::string> names;
  for (const iobench::PhaseResult& p : step.phases) names.push_back(p.name);
  // 3.x has no rename row; the stonewall row is no phase.
  CHECK(names == std::vector<std::string>{
                     "Directory creation", "Directory stat", "Directory removal", "File creation",
                     "File stat", "File read", "File removal", "Tree creation", "Tree removal"});
  CHECK(mdtest3_iops(step, "Directory creation") == 4572.287);
  CHECK(mdtest3_iops(step, "File creation") == 4221.722);
  CHECK(mdtest3_iops(step, "File read") == 30000.0);
  CHECK(mdtest3_iops(step, "Tree removal") == 800.5);
  CHECK(mdtest3_lists(doc, "'File create (stonewall)' (the items made by the stonewall"));
  CHECK(mdtest3_lists(doc, "SUMMARY time table"));
  CHECK(mdtest3_lists(doc, "'File read' Max, Min and Std Dev"));
  // A 3.x row that is not four figures is refused with its line.
  CHECK_THROWS_WITH(iobench::parse_result_text("SUMMARY rate: (of 1 iterations)\n"
                                               "   File creation             :  10.0 x 10.0 0.0\n",
                                               iobench::ResultFormat::kMdtest, "bad3.txt"),
                    Catch::StartsWith("bad3.txt:2: expected an mdtest SUMMARY row"));
}

TEST_CASE("compare CLI: mdtest 3.x against mdtest 4.x output, --from mdtest",
          "[compare][classic][cli]") {
  const auto r =
      iobench::test::run_cli({"compare", mdtest3_data("mdtest3_2ranks_written.txt"),
                              mdtest3_data("ref_mdtest_2ranks.txt"), "--from", "mdtest"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("phase File creation") &&
                        Catch::Contains("phase Tree removal") &&
                        Catch::Contains("phase Directory stat"));
}
