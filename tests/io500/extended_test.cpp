// IO500's extended phases (extended=true, its --mode=extended): find-easy and ior-rnd4K-easy-read
// run, are printed in their own section after the score with IO500's [SCOREX], and never change
// the score.

#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "plugins/io500/io500_report.hpp"
#include "plugins/io500/score.hpp"
#include "tests/support/test_support.hpp"

using namespace iobench;
using namespace iobench::plugins::io500;
using Json = nlohmann::json;

namespace {

PhaseResult recorded(std::string_view name, std::uint64_t ops, std::uint64_t bytes,
                     std::vector<std::uint64_t> counters = {}) {
  PhaseResult p;
  p.name = std::string(name);
  p.op_names = {"op"};
  p.ops.resize(1);
  p.ops[0].ops = ops;
  p.ops[0].bytes = bytes;
  p.counters = std::move(counters);
  p.wall_ns = 1'000'000'000;  // 1 s each
  return p;
}

std::string text_of(const StepResult& step) {
  std::ostringstream out;
  format_io500_text(step, out);
  return out.str();
}

std::string line_starting(const std::string& text, const std::string& start) {
  const std::size_t at = text.find("\n" + start);
  if (at == std::string::npos) return {};
  return text.substr(at + 1, text.find('\n', at + 1) - at - 1);
}

}  // namespace

TEST_CASE(
    "io500 extended phases are printed after the score in their own section, score unchanged") {
  // Every ior phase 1 GiB/s, every mdtest phase and find 4 kIOPS: Bandwidth 1, IOPS 4, TOTAL 2.
  StepResult step;
  for (const std::string_view name : kPhaseOrder) {
    if (name == "find")
      step.phases.push_back(recorded(name, 1, 0, {4000, 3}));
    else if (is_bandwidth_phase(name))
      step.phases.push_back(recorded(name, 512, std::uint64_t{1} << 30));
    else
      step.phases.push_back(recorded(name, 4000, 0));
  }
  const std::string without = text_of(step);
  // find-easy at 2048 kIOPS (2048000 entries in 1 s), ior-rnd4K-easy-read at 0.5 GiB/s.
  step.phases.insert(step.phases.begin() + 2, recorded("find-easy", 1, 0, {2'048'000, 5}));
  step.phases.push_back(recorded("ior-rnd4K-easy-read", 131072, std::uint64_t{1} << 29));
  const std::string with = text_of(step);

  const std::string score = line_starting(without, "[SCORE ]");
  CHECK(score ==
        "[SCORE ] Bandwidth 1.000000 GiB/s : IOPS 4.000000 kiops : TOTAL 2.000000 [INVALID]");
  CHECK(line_starting(with, "[SCORE ]") == score);
  CHECK(without.find("find-easy") == std::string::npos);
  CHECK(without.find("Extended phases") == std::string::npos);
  // The scored [RESULT] lines and the [INVALID] reasons are the same, in the same place; the
  // extended section comes after them.
  const std::size_t section =
      with.find("\nExtended phases (IO500 --mode=extended), not in the score:\n");
  REQUIRE(section != std::string::npos);
  const std::size_t results = with.find("[RESULT]");
  const std::size_t results_without = without.find("[RESULT]");
  CHECK(with.substr(results, section - results) == without.substr(results_without));
  CHECK(with.substr(section) ==
        "\nExtended phases (IO500 --mode=extended), not in the score:\n"
        "[RESULT]            find-easy     2048.000000 kIOPS : time 1.000 seconds\n"
        "[      ]  ior-rnd4K-easy-read        0.500000 GiB/s : time 1.000 seconds\n"
        // IO500's extended score: find-easy joins the metadata group, (4^8 x 2048)^(1/9) = 8;
        // ior-rnd4K-easy-read is in no group, so the bandwidth stays 1.
        "[SCOREX] Bandwidth 1.000000 GiB/s : IOPS 8.000000 kiops : TOTAL 2.828427 [INVALID]\n");
}

TEST_CASE("io500 extended=true runs find-easy on the easy tree and random 4 KiB reads") {
  test::TempDir dir("io500-ext");
  const std::string json_path = (dir.path() / "io500.json").string();
  const auto r = test::run_cli({"run", "io500-quick", "-d", dir.path().string(), "-q",
                                "extended=true", "stonewall=30s", "-f", "json", "-o", json_path});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  Json doc;
  std::ifstream(json_path) >> doc;
  const Json& phases = doc.at("steps").at(0).at("phases");
  std::vector<std::string> names;
  for (const Json& p : phases) {
    names.push_back(p.at("name"));
    CHECK(p.at("status") == "ok");
  }
  CHECK(names == std::vector<std::string>{
                     "ior-easy-write", "mdtest-easy-write", "find-easy", "ior-hard-write",
                     "mdtest-hard-write", "find", "ior-easy-read", "mdtest-easy-stat",
                     "ior-hard-read", "mdtest-hard-stat", "mdtest-easy-delete", "mdtest-hard-read",
                     "mdtest-hard-delete", "ior-rnd4K-easy-read"});
  // io500-quick: 200 easy files a rank (30 s is ample), 4 ior-easy transfers (8 MiB) a rank.
  const Json& easy_write = phases.at(1);
  std::uint64_t expected = 0;
  std::uint64_t items = 0;
  for (std::size_t rank = 0; rank < 2; ++rank) {
    const std::uint64_t done = easy_write.at("workers").at(rank).at("counters").at("done");
    CHECK(done == 200);
    items += done;
    for (std::uint64_t n = 0; n < done; ++n) {
      const std::string name = "file.mdtest." + std::to_string(rank) + "." + std::to_string(n);
      expected += name.find("01") != std::string::npos ? 1 : 0;
    }
  }
  // find-easy: -name *01* alone over mdtest-easy: mdtest's test-dir.0-0, the two rank
  // directories and every file.
  CHECK(expected == 2);  // file.mdtest.<r>.101 (n < 200)
  CHECK(phases.at(2).at("counters").at("matched") == expected);
  CHECK(phases.at(2).at("counters").at("entries_scanned") == 3 + items);
  // ior-rnd4K-easy-read: worker r reads every 4 KiB block of rank r+1's 8 MiB once.
  const Json& rnd = phases.at(13);
  for (std::size_t w = 0; w < 2; ++w) {
    CHECK(rnd.at("workers").at(w).at("counters").at("done") == 2048);
    CHECK(rnd.at("workers").at(w).at("bytes") == 2048 * 4096);
  }
  // The text (stdout beside -o): the extended lines in their own section after [SCORE ].
  const std::size_t score = r.out.find("\n[SCORE ] ");
  const std::size_t section =
      r.out.find("\nExtended phases (IO500 --mode=extended), not in the score:\n[RESULT] ");
  REQUIRE(score != std::string::npos);
  REQUIRE(section != std::string::npos);
  CHECK(section > score);
  CHECK(r.out.find("[RESULT]            find-easy ") > section);
  CHECK(r.out.find("[      ]  ior-rnd4K-easy-read ") > section);
  CHECK(r.out.find("\n[SCOREX] Bandwidth ") > section);
}
