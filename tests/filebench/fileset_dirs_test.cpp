// A flowop thread's cache of fileset directories (FilesetDirs): one descriptor per directory
// while it is in use, names as the layout's paths, leaf directories, a directory removed by
// someone else, and running out of descriptors; and opens by a file's whole path, which use
// no cached directory.
#include "plugins/filebench/fileset_dirs.hpp"

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>
#include <vector>

#include "tests/filebench/wml_test_helpers.hpp"
#include "tests/support/test_support.hpp"

namespace fb = iobench::plugins::filebench;
namespace fs = std::filesystem;
using iobench::ConfinedDir;

namespace {

/// `entries` files of 100 bytes, 2 per directory (depth ln entries / ln 2, width 2).
fb::FilesetDef dirs_binary_set(std::uint64_t entries) {
  fb::FilesetDef def;
  def.name = "s";
  def.size.fixed_bytes = 100;
  def.entries = entries;
  def.dir_width = 2;
  def.dir_gamma = 0;
  def.prealloc_pct = 100;
  return def;
}

bool dirs_never_stop() { return false; }

/// stat of file `file` of fileset 0 through `dirs`; its errno. `name` is the name it acted on.
int stat_in_dirs(fb::FilesetDirs& dirs, std::uint32_t file, struct stat& st, std::string& name) {
  return dirs.on_file(0, file, [&](const ConfinedDir& dir, std::string_view n) {
    name = std::string(n);
    return dir.try_stat(n, st);
  });
}

}  // namespace

TEST_CASE("fileset directories are opened once while in use and files are named as their paths") {
  const iobench::test::TempDir dir("fbdirs");
  const iobench::OwnedConfinedDir run_dir = iobench::test::open_confined(dir.path());
  fb::FilesetState state(fb::draw_layout(dirs_binary_set(16), 1));
  const fb::FilesetLayout& layout = state.layout();
  REQUIRE(layout.files.size() == 16);
  (void)fb::create_on_disk(layout, run_dir, dirs_never_stop);
  fb::FilesetState* const sets[] = {&state};
  fb::FilesetDirs dirs(run_dir, sets);
  std::vector<std::uint32_t> parents;
  for (std::uint32_t f = 0; f < 16; ++f) {
    struct stat st {};
    std::string name;
    REQUIRE(stat_in_dirs(dirs, f, st, name) == 0);
    CHECK(st.st_size == 100);
    CHECK(layout.file_path(f) == layout.dir_path(layout.files[f].parent) + "/" + name);
    if (parents.empty() || parents.back() != layout.files[f].parent)
      parents.push_back(layout.files[f].parent);
  }
  // 8 directories of 2 files, visited in order: one open each, the second file a hit.
  CHECK(parents.size() == 8);
  CHECK(dirs.misses() == 8);
  CHECK(dirs.hits() == 8);
  // The last 4 directories are cached (kEntries), the first was evicted.
  struct stat st {};
  std::string name;
  CHECK(stat_in_dirs(dirs, 15, st, name) == 0);
  CHECK(dirs.misses() == 8);
  CHECK(stat_in_dirs(dirs, 0, st, name) == 0);
  CHECK(dirs.misses() == 9);
  // A missing file is the call's errno.
  fs::remove(dir.path() / layout.file_path(1));
  CHECK(stat_in_dirs(dirs, 1, st, name) == ENOENT);
}

TEST_CASE("a define file is acted on in the run directory itself") {
  const iobench::test::TempDir dir("fbdirs");
  const iobench::OwnedConfinedDir run_dir = iobench::test::open_confined(dir.path());
  fb::FilesetDef def = dirs_binary_set(1);
  def.name = "bigfile";
  def.single_file = true;
  fb::FilesetState state(fb::draw_layout(def, 1));
  (void)fb::create_on_disk(state.layout(), run_dir, dirs_never_stop);
  fb::FilesetState* const sets[] = {&state};
  fb::FilesetDirs dirs(run_dir, sets);
  struct stat st {};
  std::string name;
  CHECK(stat_in_dirs(dirs, 0, st, name) == 0);
  CHECK(name == "bigfile");
  CHECK(st.st_size == 100);
  CHECK(dirs.misses() == 0);
}

TEST_CASE("leaf directories are made and removed in their cached parent") {
  const iobench::test::TempDir dir("fbdirs");
  const iobench::OwnedConfinedDir run_dir = iobench::test::open_confined(dir.path());
  fb::FilesetDef def = dirs_binary_set(4);
  def.leafdirs = 4;
  def.prealloc_pct = 0;
  fb::FilesetState state(fb::draw_layout(def, 1));
  const fb::FilesetLayout& layout = state.layout();
  REQUIRE(layout.leafdirs.size() == 4);
  (void)fb::create_on_disk(layout, run_dir, dirs_never_stop);
  fb::FilesetState* const sets[] = {&state};
  fb::FilesetDirs dirs(run_dir, sets);
  const auto make_dir = [](const ConfinedDir& d, std::string_view n) {
    return d.try_mkdir(n, 0755);
  };
  const auto remove_dir = [](const ConfinedDir& d, std::string_view n) { return d.try_rmdir(n); };
  for (std::uint32_t l = 0; l < 4; ++l) {
    CHECK(dirs.on_leafdir(0, l, make_dir) == 0);
    CHECK(fs::is_directory(dir.path() / layout.leafdir_path(l)));
  }
  CHECK(dirs.on_leafdir(0, 2, remove_dir) == 0);
  CHECK_FALSE(fs::exists(dir.path() / layout.leafdir_path(2)));
  CHECK(fs::exists(dir.path() / layout.leafdir_path(3)));
  CHECK(dirs.on_leafdir(0, 2, remove_dir) == ENOENT);
}

TEST_CASE("a cached fileset directory that someone else replaced is opened again") {
  const iobench::test::TempDir dir("fbdirs");
  const iobench::OwnedConfinedDir run_dir = iobench::test::open_confined(dir.path());
  fb::FilesetState state(fb::draw_layout(dirs_binary_set(2), 1));
  const fb::FilesetLayout& layout = state.layout();
  (void)fb::create_on_disk(layout, run_dir, dirs_never_stop);
  fb::FilesetState* const sets[] = {&state};
  fb::FilesetDirs dirs(run_dir, sets);
  struct stat st {};
  std::string name;
  REQUIRE(stat_in_dirs(dirs, 0, st, name) == 0);
  const fs::path parent = dir.path() / layout.dir_path(layout.files[0].parent);
  fs::remove_all(parent);
  fs::create_directory(parent);
  filebench_test::write_file(parent / name, "12345");
  CHECK(stat_in_dirs(dirs, 0, st, name) == 0);
  CHECK(st.st_size == 5);
  CHECK(dirs.misses() == 2);
}

TEST_CASE("out of descriptors, the directory cache gives its own up and opens the one needed") {
  const iobench::test::TempDir dir("fbdirs");
  const iobench::OwnedConfinedDir run_dir = iobench::test::open_confined(dir.path());
  fb::FilesetState state(fb::draw_layout(dirs_binary_set(16), 1));
  (void)fb::create_on_disk(state.layout(), run_dir, dirs_never_stop);
  fb::FilesetState* const sets[] = {&state};
  fb::FilesetDirs dirs(run_dir, sets);
  struct stat st {};
  std::string name;
  for (std::uint32_t f = 0; f < 8; f += 2) REQUIRE(stat_in_dirs(dirs, f, st, name) == 0);
  REQUIRE(dirs.misses() == 4);  // the cache is full
  // No descriptor can be opened past the lowest free one now.
  const int free_fd = ::dup(0);
  REQUIRE(free_fd >= 0);
  ::close(free_fd);
  rlimit saved{};
  REQUIRE(::getrlimit(RLIMIT_NOFILE, &saved) == 0);
  rlimit low = saved;
  low.rlim_cur = static_cast<rlim_t>(free_fd);
  REQUIRE(::setrlimit(RLIMIT_NOFILE, &low) == 0);
  const int err = stat_in_dirs(dirs, 8, st, name);
  REQUIRE(::setrlimit(RLIMIT_NOFILE, &saved) == 0);
  CHECK(err == 0);
  CHECK(st.st_size == 100);
  CHECK(dirs.misses() == 5);
  // Only the new directory is cached: the one before is opened again.
  CHECK(stat_in_dirs(dirs, 6, st, name) == 0);
  CHECK(dirs.misses() == 6);
}

TEST_CASE("a fileset file is opened by its whole path, with no directory kept open") {
  const iobench::test::TempDir dir("fbdirs");
  const iobench::OwnedConfinedDir run_dir = iobench::test::open_confined(dir.path());
  fb::FilesetState state(fb::draw_layout(dirs_binary_set(16), 1));
  const fb::FilesetLayout& layout = state.layout();
  (void)fb::create_on_disk(layout, run_dir, dirs_never_stop);
  fb::FilesetState* const sets[] = {&state};
  fb::FilesetDirs dirs(run_dir, sets);
  for (std::uint32_t f = 0; f < 16; ++f) {
    INFO("file " << f << ": " << layout.file_path(f));
    int fd = -1;
    REQUIRE(dirs.open_file(0, f, O_RDONLY, 0, fd) == 0);
    const iobench::UniqueFd owned(fd);
    struct stat st {};
    REQUIRE(::fstat(fd, &st) == 0);
    CHECK(st.st_size == 100);
    // The file its path names.
    struct stat by_path {};
    REQUIRE(::stat((dir.path() / layout.file_path(f)).c_str(), &by_path) == 0);
    CHECK(st.st_ino == by_path.st_ino);
  }
  CHECK(dirs.misses() == 0);
  CHECK(dirs.hits() == 0);
  // A file created by its whole path, never over an existing one.
  fs::remove(dir.path() / layout.file_path(3));
  int fd = -1;
  REQUIRE(dirs.open_file(0, 3, O_RDWR | O_CREAT | O_EXCL, 0644, fd) == 0);
  ::close(fd);
  CHECK(fs::file_size(dir.path() / layout.file_path(3)) == 0);
  CHECK(dirs.open_file(0, 3, O_RDWR | O_CREAT | O_EXCL, 0644, fd) == EEXIST);
  // The path is resolved at every open: a directory moved away and a link left in its place
  // is refused, not followed.
  const fs::path parent = dir.path() / layout.dir_path(layout.files[0].parent);
  fs::rename(parent, dir.path() / "moved");
  CHECK(dirs.open_file(0, 0, O_RDONLY, 0, fd) == ENOENT);
  fs::create_directory_symlink(dir.path() / "moved", parent);
  CHECK(dirs.open_file(0, 0, O_RDONLY, 0, fd) == ELOOP);
  // A define file is its name in the run directory.
  fb::FilesetDef single = dirs_binary_set(1);
  single.name = "bigfile";
  single.single_file = true;
  fb::FilesetState one(fb::draw_layout(single, 1));
  (void)fb::create_on_disk(one.layout(), run_dir, dirs_never_stop);
  fb::FilesetState* const one_set[] = {&one};
  fb::FilesetDirs one_dirs(run_dir, one_set);
  REQUIRE(one_dirs.open_file(0, 0, O_RDONLY, 0, fd) == 0);
  const iobench::UniqueFd big(fd);
  CHECK(fs::equivalent(fs::read_symlink("/proc/self/fd/" + std::to_string(fd)),
                       dir.path() / "bigfile"));
}
