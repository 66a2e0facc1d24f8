// longest_run_dir_path(): the run directory a run will make in a target at its longest, as the
// paths=full PATH_MAX checks of mdtest and io500 count it.

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <iobench/run_dir_name.hpp>
#include <string>
#include <vector>

#include "core/run_dirs.hpp"
#include "tests/support/test_support.hpp"

using namespace iobench;
namespace fs = std::filesystem;

TEST_CASE("longest_run_dir_path names this process's pid, or the longest pid when shared",
          "[core]") {
  const std::string pid = std::to_string(::getpid());
  CHECK(longest_run_dir_path("/some/dir", false) == "/some/dir/iobench." + pid + ".XXXXXXXX");
  CHECK(longest_run_dir_path("/some/dir", false).string().size() == 10 + 17 + pid.size());
  // Made by another process (rank 0's, under mpirun): PID_MAX_LIMIT - 1, 7 digits.
  CHECK(longest_run_dir_path("/some/dir", true) == "/some/dir/iobench.4194303.XXXXXXXX");
  CHECK(longest_run_dir_path("/some/dir", true).string().size() == 34);
  // The target as given, joined as RunDirs joins it.
  CHECK(longest_run_dir_path("rel/", true) == "rel/iobench.4194303.XXXXXXXX");
}

TEST_CASE("longest_run_dir_path is as long as the run directory RunDirs makes", "[core]") {
  test::TempDir dir("run_dir_path");
  const std::vector<fs::path> targets{dir.path()};
  const detail::RunDirs dirs(targets, false);
  std::vector<std::string> names;
  for (const fs::directory_entry& e : fs::directory_iterator(dir.path())) {
    names.push_back(e.path().filename().string());
  }
  REQUIRE(names.size() == 1);
  const std::string longest = longest_run_dir_path(dir.path(), false).filename().string();
  CHECK(names[0].size() == longest.size());
  CHECK(names[0].substr(0, longest.size() - 8) == longest.substr(0, longest.size() - 8));
}
