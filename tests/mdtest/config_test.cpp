// Params of the mdtest workload: mdtest's refusals become one ConfigError naming the param.

#include "plugins/mdtest/config.hpp"

#include <catch2/catch.hpp>
#include <filesystem>
#include <iobench/error.hpp>
#include <iobench/params.hpp>
#include <map>
#include <string>

#include "tests/support/test_support.hpp"

using namespace iobench;
using namespace iobench::plugins::mdtest;

namespace {

MdtestConfig config_of(const std::map<std::string, std::string>& raw, std::size_t targets = 1) {
  const std::vector<ParamSpec> specs = param_specs();
  return make_config(Params::validate(specs, raw, "mdtest"), targets);
}

std::string error_of(const std::map<std::string, std::string>& raw, std::size_t targets = 1) {
  try {
    (void)config_of(raw, targets);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "(accepted)";
}

std::vector<PhaseKind> kinds(const MdtestConfig& c) {
  std::vector<PhaseKind> out;
  for (const PlannedPhase& p : c.plan()) out.push_back(p.kind);
  return out;
}

}  // namespace

TEST_CASE("mdtest items spread over the tree as mdtest -n does", "[mdtest][config]") {
  const MdtestConfig c = config_of({{"items", "100"}, {"branch", "2"}, {"depth", "2"}});
  CHECK(c.items_per_dir == 14);  // 100 / 7 directories, rounded down
  CHECK(c.layout().items() == 98);
  const MdtestConfig leaf =
      config_of({{"items", "10"}, {"branch", "2"}, {"depth", "2"}, {"leaf_only", "true"}});
  CHECK(leaf.items_per_dir == 2);  // 10 / 4 leaves
  CHECK(leaf.layout().items() == 8);
}

TEST_CASE("mdtest phase selection and files or dirs only plan mdtest's phases",
          "[mdtest][config]") {
  using K = PhaseKind;
  CHECK(kinds(config_of({{"items", "4"}})) ==
        std::vector<K>{K::kTreeCreate, K::kDirCreate, K::kDirStat, K::kDirRename, K::kDirRemove,
                       K::kFileCreate, K::kFileStat, K::kFileRead, K::kFileRemove, K::kTreeRemove});
  CHECK(kinds(config_of({{"items", "4"}, {"files_only", "true"}, {"phases", "create,stat"}})) ==
        std::vector<K>{K::kTreeCreate, K::kFileCreate, K::kFileStat});
  test::TempDir earlier("mdtest_earlier");
  std::filesystem::create_directory(earlier.path() / "test-dir.0-0");
  CHECK(kinds(config_of({{"items", "4"},
                         {"dirs_only", "true"},
                         {"phases", "stat,remove"},
                         {"tree_dir", earlier.path().string()}})) ==
        std::vector<K>{K::kDirStat, K::kDirRemove, K::kTreeRemove});
  // One item: mdtest skips the rename.
  CHECK(kinds(config_of({{"items", "1"}, {"dirs_only", "true"}})).size() == 5);
  CHECK(config_of({{"items", "4"}, {"iterations", "3"}}).plan().size() == 30);
}

TEST_CASE("mdtest refuses what mdtest refuses with the param named", "[mdtest][config]") {
  CHECK_THAT(error_of({}), Catch::Contains("give items=N (mdtest -n"));
  CHECK_THAT(error_of({{"items", "4"}, {"items_per_dir", "2"}}),
             Catch::Contains("items and items_per_dir are both given"));
  CHECK_THAT(error_of({{"items", "3"}, {"branch", "2"}, {"depth", "2"}}),
             Catch::Contains("items=3 is fewer than the 7 directories"));
  CHECK_THAT(error_of({{"items", "3"}, {"branch", "0"}, {"depth", "2"}}),
             Catch::Contains("branch=0 with depth=2"));
  CHECK_THAT(error_of({{"items", "3"}, {"write_bytes", "10"}, {"read_bytes", "20"}}),
             Catch::Contains("read_bytes=20 is more than write_bytes=10"));
  CHECK_THAT(error_of({{"items", "3"}}, 2), Catch::Contains("2 targets with the shared tree"));
  CHECK_THAT(error_of({{"items", "3"}, {"unique_dir", "true"}, {"shift", "1"}}, 2),
             Catch::Contains("shift=1 with 2 targets"));
  CHECK_THAT(error_of({{"items", "3"}, {"phases", "stat,frob"}}),
             Catch::Contains("unknown phase 'frob'"));
  CHECK_THAT(error_of({{"items", "3"}, {"phases", "stat"}}), Catch::Contains("give tree_dir=DIR"));
  CHECK_THAT(error_of({{"items", "3"}, {"write_bytes", "10"}, {"verify_read", "true"}}),
             Catch::Contains("reads 0 bytes per file (read_bytes=0)"));
  CHECK_THAT(error_of({{"items", "3"},
                       {"read_bytes", "10"},
                       {"write_bytes", "10"},
                       {"dirs_only", "true"},
                       {"verify_read", "true"}}),
             Catch::Contains("has no file phases"));
  CHECK_THAT(error_of({{"items", "3"},
                       {"read_bytes", "10"},
                       {"write_bytes", "10"},
                       {"phases", "create,stat"},
                       {"verify_read", "true"}}),
             Catch::Contains("has no read phase (phases=create,stat)"));
  CHECK_THAT(error_of({{"items", "3"}, {"tree_dir", "/x"}}),
             Catch::Contains("tree_dir=/x with phases=all"));
  CHECK_THAT(error_of({{"items", "3"}, {"branch", "1000"}, {"depth", "3"}}),
             Catch::Contains("more than 16777216 directories"));
  // mdtest -W works only with a branching factor of 1 or less.
  CHECK_THAT(error_of({{"items", "8"}, {"branch", "2"}, {"depth", "1"}, {"stonewall", "5s"}}),
             Catch::Contains("stonewall=5s with branch=2"));
  CHECK(config_of({{"items", "8"}, {"branch", "1"}, {"depth", "3"}, {"stonewall", "5s"}})
            .stonewall_ns == 5'000'000'000ULL);
}

TEST_CASE("mdtest refuses a tree_dir that holds no earlier run's tree before anything runs",
          "[mdtest][config]") {
  test::TempDir dir("mdtest_tree_dir");
  CHECK_THAT(error_of({{"items", "3"}, {"phases", "stat"}, {"tree_dir", "/nonexistent"}}),
             Catch::Contains("tree_dir=/nonexistent is not a directory"));
  CHECK_THAT(error_of({{"items", "3"}, {"phases", "stat"}, {"tree_dir", "/etc/passwd"}}),
             Catch::Contains("tree_dir=/etc/passwd is not a directory"));
  // A directory, but not one a create run left: nothing in it is touched.
  const std::string plain = dir.path().string();
  CHECK_THAT(error_of({{"items", "3"}, {"phases", "remove"}, {"tree_dir", plain}}),
             Catch::Contains("holds no test-dir.0-0 directory"));
  // Its test directory must be a directory, not a symlink to one elsewhere.
  std::filesystem::create_directory(dir.path() / "elsewhere");
  std::filesystem::create_directory_symlink(dir.path() / "elsewhere", dir.path() / "test-dir.0-0");
  CHECK_THAT(error_of({{"items", "3"}, {"phases", "remove"}, {"tree_dir", plain}}),
             Catch::Contains("holds no test-dir.0-0 directory"));
  std::filesystem::remove(dir.path() / "test-dir.0-0");
  std::filesystem::create_directory(dir.path() / "test-dir.0-0");
  CHECK(error_of({{"items", "3"}, {"phases", "remove"}, {"tree_dir", plain}}) == "(accepted)");
}

TEST_CASE("mdtest bad params end the CLI with exit code 2 and one message", "[mdtest][config]") {
  iobench::test::TempDir dir("mdtest_cli");
  const auto r = iobench::test::run_cli(
      {"run", "mdtest", "-d", dir.path().string(), "items=4", "items_per_dir=2"});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("items and items_per_dir are both given"));
  CHECK(dir.entries().empty());
}
