// The run directory names rank 0 sends the other ranks for shared_file=regions|interleaved (and
// mdtest's and io500's setup messages): one strict decoder (plugins/common/rank0_dirs.hpp), so a
// message cut short or garbled between the processes is refused with what is wrong, never read
// as fewer names or as a name that opens another directory.
#include <catch2/catch.hpp>
#include <filesystem>
#include <iobench/error.hpp>
#include <string>
#include <vector>

#include "plugins/common/rank0_dirs.hpp"
#include "tests/support/test_support.hpp"

using iobench::Error;
using iobench::Target;
using iobench::plugins::decode_dir_names;
using iobench::plugins::open_rank0_dirs;

TEST_CASE("shared_file opens the run directories rank 0 named, one per target",
          "[disk][mpi-names]") {
  iobench::test::TempDir dir("shared_names");
  std::filesystem::create_directories(dir.path() / "a" / "iobench.1.x");
  std::filesystem::create_directories(dir.path() / "b" / "iobench.1.y");
  const std::vector<Target> targets{Target{.user_path = dir.path() / "a"},
                                    Target{.user_path = dir.path() / "b"}};
  const auto dirs = open_rank0_dirs(targets, "iobench.1.x\niobench.1.y\n", "shared_file", "test");
  REQUIRE(dirs.size() == 2);
  CHECK(dirs[1].path() == dir.path() / "b" / "iobench.1.y");
  CHECK(decode_dir_names("x\n", 1, "w") == std::vector<std::string>{"x"});
}

TEST_CASE("shared_file refuses each malformed rank-0 message with one error, opening nothing",
          "[disk][mpi-names]") {
  iobench::test::TempDir dir("shared_names_bad");
  // Directories a loose reader would open: "a" for "a\0b" (the name cut at its NUL), "a" for a
  // last name cut short, the target's parent for "..".
  std::filesystem::create_directories(dir.path() / "t" / "a");
  const std::vector<Target> target{Target{.user_path = dir.path() / "t"}};
  const std::string expected =
      "shared_file: rank 0's run directory names are not 'NAME\\n...' (one per target, one a "
      "line, every line ending in a newline): ";
  const auto refused = [&](const std::string& text, const std::string& what) {
    INFO(text.size());
    CHECK_THROWS_WITH(open_rank0_dirs(target, text, "shared_file", "test"), expected + what);
  };
  refused("", "no run directory name (cut short)");
  refused("a", "the last run directory name 'a' has no newline (cut short)");
  refused("a\na", "the last run directory name 'a' has no newline (cut short)");
  refused("\n", "run directory name 1 is empty");
  refused("..\n", "run directory name 1 '..' is not one directory's name");
  refused(".\n", "run directory name 1 '.' is not one directory's name");
  refused("t/a\n", "run directory name 1 't/a' is not one directory's name");
  refused(std::string("a\0b\n", 4), "run directory name 1 'a\\x00b' is not one directory's name");
  // Another count than the targets': a name too many or too few is no longer read as enough.
  refused("a\na\n", "2 name(s) for 1 target(s)");
  CHECK_THROWS_WITH(decode_dir_names("a\n", 2, "io500"),
                    Catch::StartsWith("io500: rank 0's run directory names") &&
                        Catch::EndsWith(": 1 name(s) for 2 target(s)"));
  // A garbled name is quoted in at most 64 bytes.
  try {
    (void)decode_dir_names(std::string(10'000, 'x'), 1, "shared_file");
    FAIL("accepted");
  } catch (const Error& e) {
    const std::string message = e.what();
    CHECK_THAT(message, Catch::EndsWith("' has no newline (cut short)"));
    CHECK(message.find(std::string(20, 'x')) != std::string::npos);
    CHECK(message.find(std::string(64, 'x')) == std::string::npos);
  }
}
