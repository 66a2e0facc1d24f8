// The io500-quick suite end to end through the CLI: the list's phases in order, each read phase
// on what its write phase left (rank shift), find's exact counts, IO500's lines and verdict.

#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "plugins/io500/score.hpp"
#include "tests/support/test_support.hpp"

using iobench::test::run_cli;
using iobench::test::TempDir;
using Json = nlohmann::json;

namespace {

const Json& phase(const Json& step, const std::string& name) {
  for (const Json& p : step.at("phases"))
    if (p.at("name") == name) return p;
  FAIL("no phase " << name);
  return step;
}

std::uint64_t worker_counter(const Json& p, std::size_t w, const char* key) {
  return p.at("workers").at(w).at("counters").at(key).get<std::uint64_t>();
}

}  // namespace

TEST_CASE("io500-quick prints the list's RESULT lines in order and an INVALID score") {
  TempDir dir("io500");
  const auto r = run_cli({"run", "io500-quick", "-d", dir.path().string(), "-q"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const std::regex line(R"(^\[RESULT\] +(\S+) +([0-9.]+) (GiB/s|kIOPS) : time ([0-9.]+) seconds)");
  std::vector<std::string> names;
  std::istringstream in(r.out);
  for (std::string l; std::getline(in, l);) {
    std::smatch m;
    if (!std::regex_search(l, m, line)) continue;
    names.push_back(m[1]);
    CHECK(m[3] == (iobench::plugins::io500::is_bandwidth_phase(m[1].str()) ? "GiB/s" : "kIOPS"));
    CHECK(std::stod(m[2]) > 0);
    // The read phases are valid: their data was the pattern the writes wrote.
    if (m[1] == "ior-easy-read" || m[1] == "ior-hard-read" || m[1] == "mdtest-hard-read")
      CHECK(l.find("[INVALID]") == std::string::npos);
  }
  CHECK(names == std::vector<std::string>(std::begin(iobench::plugins::io500::kPhaseOrder),
                                          std::end(iobench::plugins::io500::kPhaseOrder)));
  CHECK(
      std::regex_search(r.out, std::regex(R"(\n\[SCORE \] Bandwidth [0-9.]+ GiB/s : IOPS [0-9.]+ )"
                                          R"(kiops : TOTAL [0-9.]+ \[INVALID\]\n)")));
  CHECK_THAT(r.out, Catch::Contains(
                        "[INVALID] io500-quick: small sizes and short stonewalls, never valid for "
                        "the list\n"));
  // The run directory is gone: the data and the timestamp file were the run's own.
  CHECK(dir.entries().empty());
}

TEST_CASE("io500-quick reads what each write phase left, shifted by a rank, and find counts it") {
  // The mdtest phases and find by whole paths (the default, as IO500) or by descriptor: the same
  // files, counts and matches either way.
  const std::string paths = GENERATE(std::string("full"), std::string("dirfd"));
  TempDir dir("io500");
  const std::string json_path = (dir.path() / "io500.json").string();
  std::vector<std::string> args{"run",  "io500-quick", "-d",     dir.path().string(), "-q", "-f",
                                "json", "-o",          json_path};
  if (paths == "dirfd") args.push_back("paths=dirfd");
  const auto r = run_cli(args);
  INFO(paths << ": " << r.err);
  REQUIRE(r.exit_code == 0);
  Json doc;
  std::ifstream(json_path) >> doc;
  const Json& step = doc.at("steps").at(0);
  CHECK(step.at("attributes").at("paths") == paths);
  REQUIRE(step.at("phases").size() == 12);
  for (std::size_t i = 0; i < 12; ++i) {
    CHECK(step.at("phases").at(i).at("name") ==
          std::string(iobench::plugins::io500::kPhaseOrder[i]));
    CHECK(step.at("phases").at(i).at("status") == "ok");
  }
  // ior-easy: worker r reads rank r+1's file, all of it (2 MiB transfers).
  const Json& easy_w = phase(step, "ior-easy-write");
  const Json& easy_r = phase(step, "ior-easy-read");
  for (std::size_t w = 0; w < 2; ++w) {
    const std::uint64_t written = worker_counter(easy_w, (w + 1) % 2, "done");
    CHECK(written >= 1);
    CHECK(worker_counter(easy_r, w, "done") == written);
    CHECK(easy_r.at("workers").at(w).at("bytes") == written * 2 * 1024 * 1024);
  }
  // ior-hard: 47008-byte transfers, read back shifted.
  const Json& hard_w = phase(step, "ior-hard-write");
  const Json& hard_r = phase(step, "ior-hard-read");
  for (std::size_t w = 0; w < 2; ++w) {
    CHECK(worker_counter(hard_r, w, "done") == worker_counter(hard_w, (w + 1) % 2, "done"));
  }
  CHECK(hard_r.at("bytes") == hard_w.at("counters").at("done").get<std::uint64_t>() * 47008);
  // ior -R / mdtest -X: every word read was the pattern its owner wrote.
  for (const char* name : {"ior-easy-read", "ior-hard-read", "mdtest-hard-read"}) {
    INFO(name);
    CHECK(phase(step, name).at("counters").at("mismatches") == 0);
  }
  for (const char* group : {"ior-easy", "ior-hard", "mdtest-hard"}) {
    const std::int64_t seed =
        step.at("attributes").at(std::string("pattern_seed.") + group).get<std::int64_t>();
    CHECK(seed >= 1);
    CHECK(seed < (std::int64_t{1} << 31));
  }
  // mdtest: every item written is stat'ed (read) and deleted, by the next rank.
  const auto md_written = [&](const char* name) {
    return phase(step, name).at("counters").at("done").get<std::uint64_t>();
  };
  const std::uint64_t easy_items = md_written("mdtest-easy-write");
  const std::uint64_t hard_items = md_written("mdtest-hard-write");
  CHECK(easy_items >= 1);
  CHECK(hard_items >= 1);
  // mdtest -Y, as IO500 runs its write phases: each rank ends with a sync(2), timed.
  for (const char* name : {"mdtest-easy-write", "mdtest-hard-write"}) {
    INFO(name);
    CHECK(phase(step, name).at("ops_by_kind").at("sync").at("ops") == 2);
  }
  CHECK(phase(step, "mdtest-easy-stat").at("ops") == easy_items);
  CHECK(phase(step, "mdtest-easy-delete").at("ops") == easy_items);
  CHECK(phase(step, "mdtest-hard-stat").at("ops") == hard_items);
  CHECK(phase(step, "mdtest-hard-read").at("ops") == hard_items);
  CHECK(phase(step, "mdtest-hard-read").at("bytes") == hard_items * 3901);
  CHECK(phase(step, "mdtest-hard-delete").at("ops") == hard_items);
  // find: the mdtest-hard files whose name holds "01" are the only 3901-byte ones; it examined
  // the 4 phase directories, mdtest's 2 test-dir.0-0, mdtest_tree.0, the 2 easy rank directories,
  // the 2 ior-easy files, the ior-hard file and every mdtest file.
  const Json& hard_write = phase(step, "mdtest-hard-write");
  std::uint64_t expected_matches = 0;
  for (std::size_t rank = 0; rank < 2; ++rank) {
    const std::uint64_t done = worker_counter(hard_write, rank, "done");
    for (std::uint64_t n = 0; n < done; ++n) {
      const std::string name = "file.mdtest." + std::to_string(rank) + "." + std::to_string(n);
      expected_matches += name.find("01") != std::string::npos ? 1 : 0;
    }
  }
  const Json& find = phase(step, "find");
  CHECK(find.at("counters").at("matched") == expected_matches);
  CHECK(find.at("counters").at("entries_scanned") == 12 + easy_items + hard_items);
  // 200 items a rank unless the 1 s stonewall cut a write short: file.mdtest.<r>.101 each.
  if (hard_items == 400) CHECK(expected_matches == 2);
}

TEST_CASE("io500 refuses a paths value naming the param, the value and the accepted ones") {
  TempDir dir("io500");
  const auto r = run_cli({"run", "io500-quick", "-d", dir.path().string(), "-q", "paths=relative"});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("paths='relative' is not one of full, dirfd"));
  CHECK(dir.entries().empty());
}

TEST_CASE("io500 paths=full refuses a target below a directory others can change, exit 2") {
  TempDir dir("io500_trust");
  // Writable by every user, not sticky: another user could swap the target's parent mid-phase.
  const std::filesystem::path open = dir.path() / "open";
  const std::filesystem::path target = open / "target";
  std::filesystem::create_directories(target);
  std::filesystem::permissions(open, std::filesystem::perms::all,
                               std::filesystem::perm_options::replace);
  const auto r = run_cli({"run", "io500-quick", "-d", target.string(), "-q"});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains(open.string() + " on the path of target " + target.string()) &&
                        Catch::Contains("use paths=dirfd"));
  CHECK(std::filesystem::is_empty(target));
}

TEST_CASE("io500 paths=full refuses a target whose mdtest file paths pass PATH_MAX with exit 2") {
  TempDir dir("io500_path_max");
  // A target of about 4030 bytes (directories of 200-byte names): with the run directory,
  // datafiles/mdtest-easy/test-dir.0-0/mdtest_tree.0.0/ and a file name, past 4096.
  std::filesystem::path target = dir.path();
  while (target.string().size() < 4030 - 201) target /= std::string(200, 'd');
  target /= std::string(4030 - target.string().size() - 1, 'e');
  REQUIRE(target.string().size() == 4030);
  std::filesystem::create_directories(target);
  auto r = run_cli({"run", "io500-quick", "-d", target.string(), "-q"});
  INFO(r.err);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("io500: paths=full with target=") &&
                        Catch::Contains("the longest path this run's ops would name is ") &&
                        Catch::Contains("over the kernel's PATH_MAX of 4096 bytes") &&
                        Catch::Contains("use paths=dirfd") &&
                        Catch::Contains("or a shorter target") &&
                        Catch::Contains("/datafiles/mdtest-easy/test-dir.0-0/mdtest_tree.1.0/"
                                        "file.mdtest.1."));
  CHECK(std::filesystem::is_empty(target));
  // By descriptor there is no path to fit.
  r = run_cli({"validate", "io500-quick", "-d", target.string(), "-q", "paths=dirfd"});
  INFO(r.err);
  CHECK(r.exit_code == 0);
}
