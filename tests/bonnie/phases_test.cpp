#include "plugins/bonnie/phases.hpp"

#include <catch2/catch.hpp>
#include <iobench/error.hpp>
#include <string>
#include <utility>
#include <vector>

using iobench::ConfigError;
using namespace iobench::plugins::bonnie;

namespace {

PlanInputs all_on(std::string_view phases, std::uint32_t repetitions = 1) {
  return PlanInputs{.selection = parse_phase_selection(phases, "phases"),
                    .io_enabled = true,
                    .per_char_enabled = true,
                    .seeks_enabled = true,
                    .files_enabled = true,
                    .repetitions = repetitions};
}

/// "name" or "(name)" for unmeasured phases, "#rep" appended for repetitions > 1.
std::vector<std::string> describe(const std::vector<PlannedPhase>& plan, std::uint32_t reps = 1) {
  std::vector<std::string> out;
  for (const PlannedPhase& p : plan) {
    const std::string name = planned_phase_name(p, reps);
    out.push_back(p.measured ? name : "(" + name + ")");
  }
  return out;
}

}  // namespace

TEST_CASE("bonnie phase names round trip", "[bonnie][phases]") {
  for (const PhaseId id : kAllPhases) {
    CHECK(phase_from_name(phase_name(id)) == id);
  }
  CHECK(phase_name(PhaseId::kSeqDelete) == "seq_del");
  CHECK(phase_name(PhaseId::kRandStat) == "ran_stat");
  CHECK_FALSE(phase_from_name("bogus").has_value());
  const PlannedPhase p{.id = PhaseId::kSeeks, .measured = true, .repetition = 3};
  CHECK(planned_phase_name(p, 1) == "seeks");
  CHECK(planned_phase_name(p, 4) == "seeks#3");
  const auto parsed = parse_planned_phase_name("seeks#3");
  REQUIRE(parsed.has_value());
  CHECK(parsed->id == PhaseId::kSeeks);
  CHECK(parsed->repetition == 3);
  CHECK(parse_planned_phase_name("get_block")->repetition == 1);
  CHECK_FALSE(parse_planned_phase_name("seeks#").has_value());
  CHECK_FALSE(parse_planned_phase_name("seeks#0").has_value());
  CHECK_FALSE(parse_planned_phase_name("seeks#2x").has_value());
  CHECK_FALSE(parse_planned_phase_name("disk").has_value());
}

TEST_CASE("bonnie phase selection parses names and groups", "[bonnie][phases]") {
  CHECK(parse_phase_selection("all", "phases").phases.count() == 12);
  CHECK(parse_phase_selection("all", "phases").named.none());
  CHECK(parse_phase_selection("io", "phases").phases.count() == 6);
  CHECK(parse_phase_selection("files", "phases").phases.count() == 6);
  CHECK(parse_phase_selection("per_char", "phases").phases.count() == 2);
  const PhaseSelection s = parse_phase_selection("get_block, seeks", "phases");
  CHECK(s.phases.count() == 2);
  CHECK(s.named.test(index_of(PhaseId::kGetBlock)));
  CHECK(s.named.test(index_of(PhaseId::kSeeks)));
  for (const char* bad : {"", "get_blok", "all,", ",seeks", "seeks,,putc", "io files"}) {
    INFO("phases=" << bad);
    CHECK_THROWS_AS(parse_phase_selection(bad, "phases"), ConfigError);
  }
  try {
    (void)parse_phase_selection("get_blok", "phases");
  } catch (const ConfigError& e) {
    CHECK(std::string(e.what()).find("did you mean 'get_block'") != std::string::npos);
  }
}

TEST_CASE("bonnie plan adds unmeasured phases a selected phase needs", "[bonnie][phases]") {
  CHECK(describe(build_plan(all_on("all"), "phases")) ==
        std::vector<std::string>{"putc", "put_block", "rewrite", "getc", "get_block", "seeks",
                                 "seq_create", "seq_stat", "seq_del", "ran_create", "ran_stat",
                                 "ran_del"});
  CHECK(describe(build_plan(all_on("get_block"), "phases")) ==
        std::vector<std::string>{"(put_block)", "get_block"});
  CHECK(describe(build_plan(all_on("seeks,putc"), "phases")) ==
        std::vector<std::string>{"putc", "(put_block)", "seeks"});
  CHECK(describe(build_plan(all_on("putc"), "phases")) == std::vector<std::string>{"putc"});
  CHECK(describe(build_plan(all_on("seq_stat"), "phases")) ==
        std::vector<std::string>{"(seq_create)", "seq_stat", "(seq_del)"});
  CHECK(describe(build_plan(all_on("ran_create"), "phases")) ==
        std::vector<std::string>{"ran_create", "(ran_del)"});
  CHECK(describe(build_plan(all_on("put_block,ran_del"), "phases")) ==
        std::vector<std::string>{"put_block", "(ran_create)", "ran_del"});
}

TEST_CASE("bonnie plan leaves out tests that are off", "[bonnie][phases]") {
  PlanInputs in = all_on("all");
  in.per_char_enabled = false;
  in.seeks_enabled = false;
  in.files_enabled = false;
  CHECK(describe(build_plan(in, "phases")) ==
        std::vector<std::string>{"put_block", "rewrite", "get_block"});
  in = all_on("all");
  in.io_enabled = false;
  CHECK(build_plan(in, "phases").size() == 6);

  in = all_on("getc");
  in.per_char_enabled = false;
  CHECK_THROWS_WITH(build_plan(in, "phases"), Catch::Contains("per_char=0"));
  in = all_on("seeks");
  in.seeks_enabled = false;
  CHECK_THROWS_WITH(build_plan(in, "phases"), Catch::Contains("seeks"));
  in = all_on("files");
  in.files_enabled = false;
  CHECK_THROWS_WITH(build_plan(in, "phases"), Catch::Contains("nothing to run"));
}

TEST_CASE("bonnie plan repeats every phase per repetition", "[bonnie][phases]") {
  const auto plan = build_plan(all_on("put_block,seq_stat", 2), "phases");
  CHECK(describe(plan, 2) ==
        std::vector<std::string>{"put_block#1", "(seq_create#1)", "seq_stat#1", "(seq_del#1)",
                                 "put_block#2", "(seq_create#2)", "seq_stat#2", "(seq_del#2)"});
}
