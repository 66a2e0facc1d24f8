// Hostile loadfiles: names built at run time that climb out with '..', names the parser must
// refuse, and names through symbolic links planted at every depth of the run directory. Each
// run leaves a sentinel tree beside the target exactly as it was.

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>

#include "tests/dbench/dbench_test_support.hpp"
#include "tests/support/planting.hpp"

namespace fs = std::filesystem;
using iobench::Status;
using iobench::StepResult;
using iobench::Target;
using iobench::test::kBeforeFirstPhase;
using iobench::test::SentinelTree;

namespace {

/// RANDOMSTRING lines that make "$1$2" draw ".." at run time while being too many combinations
/// for the parser's static check (65 x 65 definitions), so the replay's own refusal is what is
/// tested. The last definitions, which hold when the operations run, are ".".
std::string dotdot_preamble() {
  std::string text;
  for (int i = 0; i < 64; ++i) {
    text += "RANDOMSTRING 1 \"x" + std::to_string(i) + "\"\n";
    text += "RANDOMSTRING 2 \"y" + std::to_string(i) + "\"\n";
  }
  return text + "RANDOMSTRING 1 \".\"\nRANDOMSTRING 2 \".\"\n";
}

constexpr std::size_t kPreambleLines = 130;

/// "\clients\client1\$1$2\$1$2\$1$2\$1$2": clients/client0/../../../.. is the sentinel's base,
/// one level above the target (run directory, target, base).
const std::string kUp = R"(\clients\client1\$1$2\$1$2\$1$2\$1$2)";

std::string write_loadfile(const fs::path& dir, const std::string& text) {
  const fs::path path = dir / "hostile.txt";
  std::ofstream(path, std::ios::binary) << text;
  return path.string();
}

StepResult run_dbench(const iobench::Registry& registry, const SentinelTree& tree,
                      const std::string& loadfile, bool lenient = false) {
  std::map<std::string, std::string> params{
      {"loadfile", loadfile}, {"run_once", "true"}, {"time_limit", "30s"}, {"warmup", "0s"}};
  if (lenient) params["status_mismatch"] = "count";
  return iobench::test::run_planted(registry, params, {tree.target()});
}

const std::string kPrologue = R"(Mkdir "\clients" NT_STATUS_OK
Mkdir "\clients\client1" NT_STATUS_OK
NTCreateX "\clients\client1\f" 0x40 0x2 1 NT_STATUS_OK
WriteX 1 0 100 100 NT_STATUS_OK
Close 1 NT_STATUS_OK
)";

}  // namespace

TEST_CASE("run-time '..' from RANDOMSTRING is refused for every operation, naming the line",
          "[dbench][confinement]") {
  struct Case {
    const char* name;
    std::string line;
  };
  const std::vector<Case> cases{
      {"Unlink", "Unlink \"" + kUp + "\\victim.txt\" 0x6 NT_STATUS_OK"},
      {"Deltree", "Deltree \"" + kUp + "\\outside\" NT_STATUS_OK"},
      {"NTCreateX", "NTCreateX \"" + kUp + "\\created.txt\" 0x40 0x5 2 NT_STATUS_OK"},
      {"Mkdir", "Mkdir \"" + kUp + "\\newdir\" NT_STATUS_OK"},
      {"Rmdir", "Rmdir \"" + kUp + "\\outside\\empty\" NT_STATUS_OK"},
      {"Rename", "Rename \"\\clients\\client1\\f\" \"" + kUp + "\\moved\" NT_STATUS_OK"},
      {"Rename", "Rename \"" + kUp + "\\victim.txt\" \"\\clients\\client1\\stolen\" NT_STATUS_OK"},
      {"QUERY_PATH_INFORMATION",
       "QUERY_PATH_INFORMATION \"" + kUp + "\\victim.txt\" 1004 NT_STATUS_OK"},
      {"FIND_FIRST", "FIND_FIRST \"" + kUp + "\\outside\\*\" 260 1366 0 NT_STATUS_OK"},
  };
  const iobench::Registry registry =
      iobench::test::registry_with_planting("dbench", [](std::size_t, auto) {});
  for (const bool lenient : {false, true}) {
    for (const Case& c : cases) {
      INFO(c.line << (lenient ? " (status_mismatch=count)" : ""));
      SentinelTree tree;
      const std::string lf = write_loadfile(tree.base(), dotdot_preamble() + kPrologue + c.line);
      // The loadfile itself lives beside the target: take it into the digest.
      const auto before = tree.digest();
      const StepResult step = run_dbench(registry, tree, lf, lenient);
      CHECK(step.status == Status::kFailed);
      const std::size_t line = kPreambleLines + 6;
      CHECK_THAT(step.message,
                 Catch::Contains(lf + " line " + std::to_string(line) + ": " + c.name + ": '"));
      CHECK_THAT(step.message, Catch::Contains("resolves outside the run directory"));
      CHECK(tree.digest() == before);
      // Nothing of the run is left either.
      CHECK(iobench::test::TempDir::list(tree.target()).empty());
    }
  }
}

TEST_CASE("names through symbolic links planted at every depth are refused",
          "[dbench][confinement]") {
  // Where the link is planted (relative to the run directory), before the first operation, and
  // what it points to (the sentinel tree's "outside" or its victim file).
  struct Plant {
    const char* link;
  };
  const std::vector<Plant> plants{{"clients"}, {"clients/client0"}, {"clients/client0/sub"}};
  const std::vector<std::string> ops{
      R"(Unlink "\clients\client1\sub\a.txt" 0x6 NT_STATUS_OK)",
      R"(NTCreateX "\clients\client1\sub\new.txt" 0x40 0x5 2 NT_STATUS_OK)",
      R"(NTCreateX "\clients\client1\sub\a.txt" 0x40 0x1 2 NT_STATUS_OK)",
      R"(Mkdir "\clients\client1\sub\newdir" NT_STATUS_OK)",
      R"(Rmdir "\clients\client1\sub\empty" NT_STATUS_OK)",
      R"(Deltree "\clients\client1\sub\dir" NT_STATUS_OK)",
      R"(Rename "\clients\client1\sub\a.txt" "\clients\client1\x" NT_STATUS_OK)",
      R"(QUERY_PATH_INFORMATION "\clients\client1\sub\a.txt" 1004 NT_STATUS_OK)",
      R"(FIND_FIRST "\clients\client1\sub\*" 260 1366 0 NT_STATUS_OK)",
  };
  for (const Plant& plant : plants) {
    for (const std::string& op : ops) {
      INFO(plant.link << ": " << op);
      SentinelTree tree;
      const auto registry = iobench::test::registry_with_planting(
          "dbench", [&](std::size_t phase, std::span<const Target> targets) {
            if (phase != kBeforeFirstPhase) return;
            const fs::path run = targets[0].run_dir.path();
            const fs::path link = run / plant.link;
            fs::create_directories(link.parent_path());
            // "sub" itself links to the outside tree (a.txt, empty, dir); the shallower links to
            // the sentinel's base, where the rest of the names is laid out below.
            const bool deepest = std::string(plant.link) == "clients/client0/sub";
            fs::create_directory_symlink(deepest ? tree.outside() : tree.base(), link);
          });
      // Lay the outside tree out so every op would succeed through the link: for the shallower
      // links the names go through "client0/sub" below the link target.
      if (std::string(plant.link) != "clients/client0/sub") {
        const fs::path below = std::string(plant.link) == "clients"
                                   ? tree.base() / "client0" / "sub"
                                   : tree.base() / "sub";
        fs::create_directories(below / "empty");
        fs::create_directories(below / "dir");
        std::ofstream(below / "a.txt") << "a";
        std::ofstream(below / "dir" / "d.txt") << "d";
      }
      const std::string lf = write_loadfile(tree.base(), op + "\n");
      const auto before = tree.digest();
      const StepResult step = run_dbench(registry, tree, lf);
      CHECK(step.status == Status::kFailed);
      CHECK_THAT(step.message, Catch::Contains(lf + " line 1: "));
      CHECK_THAT(step.message, Catch::Contains("goes through a symbolic link"));
      CHECK(tree.digest() == before);
      CHECK(iobench::test::TempDir::list(tree.target()).empty());
    }
  }
}

TEST_CASE("a link as the last component is never followed, only opened as itself or removed",
          "[dbench][confinement]") {
  SentinelTree tree;
  const auto registry = iobench::test::registry_with_planting(
      "dbench", [&](std::size_t phase, std::span<const Target> targets) {
        if (phase != kBeforeFirstPhase) return;
        const fs::path dir = targets[0].run_dir.path() / "clients" / "client0";
        fs::create_directories(dir);
        fs::create_symlink(tree.victim(), dir / "f");
        fs::create_directory_symlink(tree.outside(), dir / "d");
      });
  // Opening the link or listing it (Deltree) is refused; an Unlink of it, and the cleanup,
  // remove the link itself.
  for (const std::string& op :
       {std::string(R"(NTCreateX "\clients\client1\f" 0x40 0x1 2 NT_STATUS_OK)"),
        std::string(R"(NTCreateX "\clients\client1\f" 0x40 0x5 2 NT_STATUS_OK)"),
        std::string(R"(Deltree "\clients\client1\d" NT_STATUS_OK)"),
        std::string(R"(Unlink "\clients\client1\f" 0x6 NT_STATUS_OK)")}) {
    INFO(op);
    const std::string lf = write_loadfile(tree.base(), op + "\n");
    const auto before = tree.digest();
    const StepResult step = run_dbench(registry, tree, lf);
    if (op.rfind("Unlink", 0) != 0) {
      CHECK(step.status == Status::kFailed);
      CHECK_THAT(step.message, Catch::Contains("goes through a symbolic link"));
    } else {
      CHECK(step.status == Status::kOk);
    }
    CHECK(tree.digest() == before);
    CHECK(iobench::test::TempDir::list(tree.target()).empty());
  }
}

TEST_CASE("links planted before the cleanup are removed, never followed", "[dbench][confinement]") {
  SentinelTree tree;
  const auto registry = iobench::test::registry_with_planting(
      "dbench", [&](std::size_t phase, std::span<const Target> targets) {
        if (phase != 0) return;  // after the execute phase, before the cleanup
        const fs::path dir = targets[0].run_dir.path() / "clients" / "client0";
        fs::create_directory_symlink(tree.outside(), dir / "escape");
        fs::create_directory_symlink(tree.outside(), targets[0].run_dir.path() / "clients" / "x");
      });
  const std::string lf = write_loadfile(tree.base(), kPrologue);
  const auto before = tree.digest();
  const StepResult step = run_dbench(registry, tree, lf);
  CHECK(step.status == Status::kOk);
  CHECK(step.warnings.empty());
  CHECK(tree.digest() == before);
  CHECK(iobench::test::TempDir::list(tree.target()).empty());
}

TEST_CASE("validate refuses what it can see statically: '..' from RANDOMSTRING, absolute names",
          "[dbench][confinement]") {
  SentinelTree tree;
  const std::string bad_random = write_loadfile(tree.base(), R"(RANDOMSTRING 1 "[a.]"
Mkdir "\clients" NT_STATUS_OK
Unlink "\clients\client1\.$1\.$1\.$1\.$1\victim.txt" 0x6 NT_STATUS_OK
)");
  auto r = iobench::test::run_cli(
      {"validate", "dbench", "-d", tree.target().string(), "loadfile=" + bad_random});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains(bad_random + ":3:8: path component '.$1' can become '..' "
                                                 "(RANDOMSTRING 1 of line 1)"));
  // Two slots together, and a slot on its own drawing "..".
  const std::string pair = write_loadfile(tree.base(), R"(RANDOMSTRING 1 "[.x]"
RANDOMSTRING 2 "[y.]"
RANDOMSTRING 3 "[.][.]"
Unlink "\clients\client1\$1$2\f" 0x6 NT_STATUS_OK
Unlink "\clients\client1\$3\f" 0x6 NT_STATUS_OK
Unlink "\clients\client1\$1$2$3\f" 0x6 NT_STATUS_OK
)");
  r = iobench::test::run_cli(
      {"validate", "dbench", "-d", tree.target().string(), "loadfile=" + pair});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("2 errors in loadfile"));
  CHECK_THAT(r.err, Catch::Contains("'$1$2' can become '..' (RANDOMSTRING 1 of line 1 and "
                                    "RANDOMSTRING 2 of line 2)"));
  CHECK_THAT(r.err, Catch::Contains("'$3' can become '..'"));
  for (const char* absolute : {R"(Unlink "\\tmp\victim" 0x6 NT_STATUS_OK)",
                               R"(Unlink "\clients\..\..\victim.txt" 0x6 NT_STATUS_OK)"}) {
    const std::string lf = write_loadfile(tree.base(), std::string(absolute) + "\n");
    r = iobench::test::run_cli(
        {"validate", "dbench", "-d", tree.target().string(), "loadfile=" + lf});
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains(lf + ":1:"));
  }
  CHECK(iobench::test::TempDir::list(tree.target()).empty());
}
