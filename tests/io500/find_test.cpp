// IO500's find query over a tree with a known number of matches.

#include "plugins/io500/find.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <iobench/error.hpp>
#include <string>
#include <vector>

#include "tests/support/test_support.hpp"

using namespace iobench::plugins::io500;
using iobench::plugins::PathMode;
using iobench::test::TempDir;
namespace fs = std::filesystem;

namespace {

void write_file(const fs::path& path, std::size_t bytes) {
  std::ofstream out(path, std::ios::binary);
  out << std::string(bytes, 'x');
  REQUIRE(out.good());
}

void set_mtime(const fs::path& path, std::timespec mtime) {
  const std::timespec times[2] = {mtime, mtime};
  REQUIRE(::utimensat(AT_FDCWD, path.c_str(), times, AT_SYMLINK_NOFOLLOW) == 0);
}

}  // namespace

TEST_CASE("io500 find counts the entries matching -newer -size 3901c -name *01* and all scanned") {
  // By descriptor and by whole path (pfind's way): the same counts.
  const PathMode paths = GENERATE(PathMode::kDirfd, PathMode::kFull);
  TempDir dir("find");
  const fs::path root = dir.path();
  // The reference time is set, not read from a clock: files written now are later than it.
  FindQuery query;
  query.newer = std::timespec{1000, 500};
  write_file(root / "x01y", 3901);     // match
  write_file(root / "file.01", 3901);  // match
  write_file(root / "x01", 3900);      // size differs
  write_file(root / "x01z", 3902);     // size differs
  write_file(root / "abc", 3901);      // name differs
  write_file(root / "old01", 3901);    // older than the reference
  set_mtime(root / "old01", {999, 0});
  write_file(root / "eq01", 3901);  // as old as the reference: -newer is strictly later
  set_mtime(root / "eq01", {1000, 500});
  write_file(root / "late01", 3901);  // 1 ns later: match
  set_mtime(root / "late01", {1000, 501});
  fs::create_directories(root / "d01" / "e");
  write_file(root / "d01" / "e" / "n01", 3901);  // match, two levels down
  write_file(root / "d01" / "n02", 3901);        // name differs
  fs::create_symlink("x01y", root / "link01");   // its own size is 4 bytes; never followed

  const FindCount count = find_matches(root, query, {}, paths);
  CHECK(count.matched == 4);
  // 10 files, 2 directories, 1 symbolic link; the root itself is not counted.
  CHECK(count.scanned == 13);

  query.size_bytes = 3900;
  CHECK(find_matches(root, query, {}, paths).matched == 1);
  query.size_bytes = 3901;
  query.name_pattern = "*02*";
  CHECK(find_matches(root, query, {}, paths).matched == 1);
  query.name_pattern = "*01*";
  query.newer = std::timespec{998, 0};  // now old01 is later than the reference too
  CHECK(find_matches(root, query, {}, paths).matched == 6);
}

TEST_CASE("io500 find figure rates the entries scanned and is not valid when nothing matched") {
  const PhaseFigure f = find_figure(FindCount{12000, 30}, 2.0);
  CHECK(f.name == "find");
  CHECK(f.score == 6.0);  // 12000 entries / 1000 / 2 s
  CHECK(f.seconds == 2.0);
  CHECK(f.invalid.empty());
  const PhaseFigure none = find_figure(FindCount{500, 0}, 1.0);
  CHECK(none.invalid == "find matched none of the 500 entries it examined");
}

TEST_CASE("io500 find refuses a root that is missing or not a directory") {
  TempDir dir("find");
  CHECK_THROWS_AS(find_matches(dir.path() / "missing", FindQuery{}), iobench::IoError);
  write_file(dir.path() / "plain", 1);
  CHECK_THROWS_AS(find_matches(dir.path() / "plain", FindQuery{}), iobench::IoError);
}

TEST_CASE("io500 find walks a tree deeper than PATH_MAX by descriptor") {
  // 20 nested directories of 250-character names: their paths pass 4096 bytes, so a walk that
  // opens directories by path fails with ENAMETOOLONG; one 3901-byte "x01" at the bottom.
  TempDir dir("find");
  const std::string name(250, 'd');
  constexpr int kDepth = 20;
  std::vector<int> fds{::open(dir.path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)};
  REQUIRE(fds.back() >= 0);
  for (int i = 0; i < kDepth; ++i) {
    REQUIRE(::mkdirat(fds.back(), name.c_str(), 0755) == 0);
    fds.push_back(::openat(fds.back(), name.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    REQUIRE(fds.back() >= 0);
  }
  const int file = ::openat(fds.back(), "x01", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  REQUIRE(file >= 0);
  const std::string bytes(3901, 'x');
  CHECK(::write(file, bytes.data(), bytes.size()) == 3901);
  ::close(file);
  FindCount count;
  CHECK_NOTHROW(count = find_matches(dir.path(), FindQuery{}));
  CHECK(count.scanned == kDepth + 1);
  CHECK(count.matched == 1);
  // By whole path, as pfind: the kernel resolves the whole path of every directory opened, and
  // refuses those past PATH_MAX.
  try {
    (void)find_matches(dir.path(), FindQuery{}, {}, PathMode::kFull);
    FAIL("a walk by whole paths opened a directory whose path is longer than PATH_MAX");
  } catch (const iobench::IoError& e) {
    CHECK(e.error_number() == ENAMETOOLONG);
  }
  // Remove bottom-up by descriptor: the paths are too long for TempDir's clean-up.
  CHECK(::unlinkat(fds.back(), "x01", 0) == 0);
  for (int i = kDepth; i > 0; --i) {
    ::close(fds[static_cast<std::size_t>(i)]);
    CHECK(::unlinkat(fds[static_cast<std::size_t>(i) - 1], name.c_str(), AT_REMOVEDIR) == 0);
  }
  ::close(fds.front());
}

TEST_CASE("io500 find does not follow a root that is a symbolic link") {
  TempDir dir("find");
  fs::create_directory(dir.path() / "real");
  fs::create_directory_symlink(dir.path() / "real", dir.path() / "link");
  try {
    (void)find_matches(dir.path() / "link", FindQuery{});
    FAIL("a symbolic link root was walked");
  } catch (const iobench::IoError& e) {
    CHECK(e.error_number() == ENOTDIR);  // O_DIRECTORY | O_NOFOLLOW on a link
  }
}

TEST_CASE("io500 find parts of a walk add up to the whole walk, each a share") {
  const PathMode paths = GENERATE(PathMode::kDirfd, PathMode::kFull);
  TempDir dir("find");
  const fs::path root = dir.path();
  FindQuery query;
  query.newer = {1000, 500};
  // 3 directories of 7 files (2 matching each) and a link: 25 entries, 6 matches.
  for (int d = 0; d < 3; ++d) {
    const fs::path sub = root / ("d" + std::to_string(d));
    fs::create_directories(sub);
    for (int f = 0; f < 7; ++f) {
      write_file(sub / ((f < 2 ? "m01." : "f.") + std::to_string(f)), 3901);
    }
  }
  fs::create_symlink("d0", root / "link01");
  fs::create_directories(root / "d1" / "deep");
  write_file(root / "d1" / "deep" / "x01", 3901);  // 27 entries, 7 matches
  const FindCount whole = find_matches(root, query, {}, paths);
  CHECK(whole.scanned == 27);
  CHECK(whole.matched == 7);
  for (const std::uint64_t parts : {2u, 3u, 5u}) {
    FindCount sum;
    for (std::uint64_t i = 0; i < parts; ++i) {
      const FindCount part = find_matches(root, query, FindPart{.index = i, .parts = parts}, paths);
      CHECK(part.scanned < whole.scanned);  // a share, not the whole
      sum.scanned += part.scanned;
      sum.matched += part.matched;
    }
    INFO(parts << " parts");
    CHECK(sum.scanned == whole.scanned);
    CHECK(sum.matched == whole.matched);
  }
  CHECK_THROWS_AS(find_matches(root, query, FindPart{.index = 2, .parts = 2}), iobench::Error);
}

TEST_CASE("io500 find counts matches at several depths the same by whole path and by descriptor") {
  const PathMode paths = GENERATE(PathMode::kDirfd, PathMode::kFull);
  TempDir dir("find_depths");
  const fs::path root = dir.path();
  FindQuery query;
  query.newer = std::timespec{1000, 500};
  // Directory names of several lengths, so that each entry's path is its own directory's with
  // the name appended after a longer or shorter sibling's: a path buffer trimmed back wrongly
  // would lstat a name that is not there (skipped as removed) and miss matches.
  const fs::path long_dir = root / "d1" / std::string(120, 'l');
  fs::create_directories(long_dir / "deeper");
  fs::create_directories(root / "e" / "g" / "h" / "i" / "j");
  fs::create_directories(root / "z01");
  write_file(root / "a01", 3901);                                // depth 1: match
  write_file(long_dir / "m01", 3901);                            // depth 3: match
  write_file(long_dir / "deeper" / "q01", 3901);                 // depth 4: match
  write_file(long_dir / "deeper" / "n02", 3901);                 // name differs
  write_file(root / "d1" / "s01", 3901);                         // depth 2: match
  write_file(root / "e" / "f01", 3900);                          // size differs
  write_file(root / "e" / "g" / "h" / "i" / "j" / "k01", 3901);  // depth 6: match
  write_file(root / "z01" / "y01", 3901);                        // in a matching name's dir
  // Every entry below the root: 9 directories and 8 files.
  std::uint64_t entries = 0;
  for ([[maybe_unused]] const auto& e : fs::recursive_directory_iterator(root)) ++entries;
  REQUIRE(entries == 17);

  const FindCount whole = find_matches(root, query, {}, paths);
  CHECK(whole.scanned == 17);
  CHECK(whole.matched == 6);  // a01 m01 q01 s01 k01 y01 (z01 is a directory, not 3901 bytes)
  // From the directory held open, the root itself and a subtree.
  const iobench::OwnedConfinedDir held = iobench::test::open_confined(root);
  const FindCount from_held = find_matches(held.view(), ".", query, {}, paths);
  CHECK(from_held.scanned == 17);
  CHECK(from_held.matched == 6);
  const FindCount d1 = find_matches(held.view(), "d1", query, {}, paths);
  CHECK(d1.scanned == 6);  // the long directory, deeper, m01, q01, n02, s01
  CHECK(d1.matched == 3);
  // Parts add up to the whole.
  for (const std::uint64_t parts : {2u, 3u}) {
    FindCount sum;
    for (std::uint64_t i = 0; i < parts; ++i) {
      const FindCount part = find_matches(held.view(), ".", query, {i, parts}, paths);
      sum.scanned += part.scanned;
      sum.matched += part.matched;
    }
    INFO(parts << " parts");
    CHECK(sum.scanned == 17);
    CHECK(sum.matched == 6);
  }
}
