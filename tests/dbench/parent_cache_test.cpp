// The dbench client's parent-directory cache: hits, evictions, refusals, staleness.

#include "plugins/dbench/parent_cache.hpp"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "tests/dbench/dbench_test_support.hpp"
#include "tests/support/test_support.hpp"

namespace fs = std::filesystem;
using iobench::ConfinedDir;
using iobench::plugins::dbench::ParentCache;

namespace {

int stat_of(ParentCache& cache, std::string_view rel, struct stat& st) {
  return cache.apply(
      rel, [&](const ConfinedDir& dir, std::string_view name) { return dir.try_stat(name, st); });
}

}  // namespace

TEST_CASE("the parent cache resolves each directory once and then hits", "[dbench]") {
  iobench::test::TempDir dir("pcache");
  fs::create_directories(dir.path() / "a" / "b");
  std::ofstream(dir.path() / "a" / "b" / "f") << "12345";
  const iobench::OwnedConfinedDir root = iobench::test::open_confined(dir.path());
  ParentCache cache(root);
  struct stat st {};
  CHECK(stat_of(cache, "a/b/f", st) == 0);
  CHECK(st.st_size == 5);
  CHECK(stat_of(cache, "a/b/g", st) == ENOENT);
  CHECK(stat_of(cache, "a/b/f", st) == 0);
  CHECK(cache.misses() == 1);
  CHECK(cache.hits() == 2);
  CHECK(stat_of(cache, "a", st) == 0);  // a name without '/' acts on the root: no entry
  CHECK(cache.misses() == 1);
  // More directories than entries: the least recently used one goes.
  for (int i = 0; i < 10; ++i) fs::create_directory(dir.path() / ("d" + std::to_string(i)));
  for (int i = 0; i < 10; ++i) (void)stat_of(cache, "d" + std::to_string(i) + "/x", st);
  CHECK(cache.misses() == 11);
  (void)stat_of(cache, "d9/x", st);
  CHECK(cache.misses() == 11);
  (void)stat_of(cache, "a/b/f", st);  // evicted by then
  CHECK(cache.misses() == 12);
}

TEST_CASE("the parent cache refuses what ConfinedDir refuses", "[dbench]") {
  iobench::test::TempDir dir("pcache");
  iobench::test::TempDir outside("pcache-out");
  fs::create_directory(dir.path() / "a");
  fs::create_directory_symlink(outside.path(), dir.path() / "a" / "link");
  const iobench::OwnedConfinedDir root = iobench::test::open_confined(dir.path());
  ParentCache cache(root);
  struct stat st {};
  CHECK(stat_of(cache, "a/link/x", st) == ELOOP);
  CHECK(stat_of(cache, "a/../../x", st) == EXDEV);
  CHECK(stat_of(cache, "a/..", st) == EXDEV);
  CHECK(stat_of(cache, "a/", st) == EINVAL);
  CHECK(stat_of(cache, "a/.", st) == EINVAL);
  CHECK(stat_of(cache, ".", st) == EINVAL);
  // The final link is described, never followed.
  CHECK(stat_of(cache, "a/link", st) == 0);
  CHECK(S_ISLNK(st.st_mode));
}

TEST_CASE("a cached directory removed by someone else is resolved again", "[dbench]") {
  iobench::test::TempDir dir("pcache");
  fs::create_directories(dir.path() / "d");
  const iobench::OwnedConfinedDir root = iobench::test::open_confined(dir.path());
  ParentCache cache(root);
  struct stat st {};
  CHECK(stat_of(cache, "d/f", st) == ENOENT);
  // Another client removes d and makes a new one with f in it.
  fs::remove(dir.path() / "d");
  fs::create_directory(dir.path() / "d");
  std::ofstream(dir.path() / "d" / "f") << "x";
  CHECK(stat_of(cache, "d/f", st) == 0);
  CHECK(st.st_size == 1);
  CHECK(cache.misses() == 2);
  // After clear() everything is resolved afresh.
  cache.clear();
  CHECK(stat_of(cache, "d/f", st) == 0);
  CHECK(cache.misses() == 3);
}

TEST_CASE("names after a Rename or Rmdir of their directory land where the names say", "[dbench]") {
  dbench_test::Fixture fx;
  const auto lf = fx.loadfile(R"(Mkdir "\clients" NT_STATUS_OK
Mkdir "\clients\client1" NT_STATUS_OK
Mkdir "\clients\client1\d" NT_STATUS_OK
NTCreateX "\clients\client1\d\f" 0x40 0x2 1 NT_STATUS_OK
Close 1 NT_STATUS_OK
Rename "\clients\client1\d" "\clients\client1\e" NT_STATUS_OK
Mkdir "\clients\client1\d" NT_STATUS_OK
NTCreateX "\clients\client1\d\g" 0x40 0x2 1 NT_STATUS_OK
Close 1 NT_STATUS_OK
Unlink "\clients\client1\d\g" 0x6 NT_STATUS_OK
Rmdir "\clients\client1\d" NT_STATUS_OK
Mkdir "\clients\client1\d" NT_STATUS_OK
NTCreateX "\clients\client1\d\h" 0x40 0x2 1 NT_STATUS_OK
Close 1 NT_STATUS_OK
)");
  const auto step =
      fx.run({{"loadfile", lf}, {"run_once", "true"}, {"skip_cleanup", "true"}}, true);
  REQUIRE(step.status == iobench::Status::kOk);
  CHECK(dbench_test::tree(fx.run_dir()) ==
        std::vector<std::string>{"d clients", "d clients/client0", "d clients/client0/d",
                                 "d clients/client0/e", "f clients/client0/d/h 0",
                                 "f clients/client0/e/f 0"});
}
