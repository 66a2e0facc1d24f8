// ConfinedDir: names resolve beneath the directory descriptor, by openat2 and by the component
// walk alike; no link is followed at any depth; refused names leave everything outside intact.

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iobench/confined_dir.hpp>
#include <iobench/error.hpp>

#include "tests/support/planting.hpp"
#include "tests/support/test_support.hpp"

namespace fs = std::filesystem;
using namespace iobench;

namespace {

/// Restores openat2 after a test that forced the walk.
struct MethodScope {
  explicit MethodScope(ResolveMethod method) {
    force_component_walk(method == ResolveMethod::kComponentWalk);
  }
  ~MethodScope() { force_component_walk(false); }
  MethodScope(const MethodScope&) = delete;
  MethodScope& operator=(const MethodScope&) = delete;
};

const char* name_of(ResolveMethod m) {
  return m == ResolveMethod::kOpenat2 ? "openat2" : "component walk";
}

}  // namespace

TEST_CASE("name shapes are checked the same way for both methods", "[core][confined]") {
  CHECK(ConfinedDir::check_name("a/b/c") == 0);
  CHECK(ConfinedDir::check_name("a/./b//c") == 0);
  CHECK(ConfinedDir::check_name("..") == EXDEV);
  CHECK(ConfinedDir::check_name("a/../b") == EXDEV);
  CHECK(ConfinedDir::check_name("a/b/..") == EXDEV);
  CHECK(ConfinedDir::check_name("/etc/passwd") == EXDEV);
  CHECK(ConfinedDir::check_name("") == ENOENT);
  CHECK(ConfinedDir::check_name(std::string(5000, 'a')) == ENAMETOOLONG);
  CHECK(ConfinedDir::check_name(std::string_view("a\0b", 3)) == EINVAL);
  CHECK(ConfinedDir::check_name("..a/b..") == 0);  // only a whole ".." component climbs
}

TEST_CASE("every operation works beneath the directory with both methods", "[core][confined]") {
  const ResolveMethod method = GENERATE(ResolveMethod::kOpenat2, ResolveMethod::kComponentWalk);
  INFO(name_of(method));
  MethodScope scope(method);
  REQUIRE(resolve_method() == method);
  test::TempDir dir("confined");
  const OwnedConfinedDir root = test::open_confined(dir.path());
  root.mkdir("a");
  root.mkdir("a/b", 0700);
  {
    UniqueFd fd = root.create("a/b/f", O_WRONLY);
    REQUIRE(::write(fd.get(), "hello", 5) == 5);
  }
  CHECK_THROWS_AS(root.create("a/b/f", O_WRONLY), IoError);  // O_EXCL
  CHECK(root.stat("a/b/f").st_size == 5);
  CHECK(root.stat("a//./b/f").st_size == 5);
  CHECK(root.exists("a/b/f"));
  CHECK(!root.exists("a/b/none"));
  root.rename("a/b/f", "a/g");
  CHECK(fs::exists(dir.path() / "a" / "g"));
  const timespec times[2] = {{1000, 0}, {2000, 0}};
  CHECK(root.try_set_times("a/g", times) == 0);
  CHECK(root.stat("a/g").st_mtim.tv_sec == 2000);
  {
    const OwnedConfinedDir a = root.open_dir("a");
    CHECK(a.path() == dir.path() / "a");
    CHECK(a.stat("g").st_size == 5);
    UniqueFd fd = a.open("g", O_RDONLY);
    char text[5];
    CHECK(::read(fd.get(), text, 5) == 5);
    CHECK(std::memcmp(text, "hello", 5) == 0);
  }
  int fd = -1;
  CHECK(root.try_open("a/missing", O_RDONLY, 0, fd) == ENOENT);
  CHECK(fd == -1);
  CHECK(root.try_unlink("a/b") == EISDIR);
  CHECK(root.try_rmdir("a/b") == 0);
  root.unlink("a/g");
  // The final component of an *at operation may not be empty, "." or "..".
  CHECK(root.try_unlink("a/") == EINVAL);
  CHECK(root.try_rmdir("a/.") == EINVAL);
  CHECK(root.try_mkdir(".", 0755) == EINVAL);
  CHECK(root.try_rmdir("a/..") == EXDEV);
  CHECK(root.try_mkdir("t/", 0755) == EINVAL);
}

TEST_CASE("names leaving the directory or meeting a link at any depth are refused",
          "[core][confined]") {
  const ResolveMethod method = GENERATE(ResolveMethod::kOpenat2, ResolveMethod::kComponentWalk);
  INFO(name_of(method));
  MethodScope scope(method);
  test::SentinelTree tree;
  const fs::path run = tree.target() / "run";
  fs::create_directories(run / "d1" / "d2");
  const OwnedConfinedDir root = test::open_confined(run);
  // Links to the outside tree at depth 1, 2 and 3, and one to the victim file.
  fs::create_directory_symlink(tree.outside(), run / "l1");
  fs::create_directory_symlink(tree.outside(), run / "d1" / "l2");
  fs::create_directory_symlink(tree.outside(), run / "d1" / "d2" / "l3");
  fs::create_symlink(tree.victim(), run / "d1" / "lf");
  // A link that stays inside is not followed either.
  fs::create_directory_symlink("d1", run / "inner");
  const auto before = tree.digest();

  const std::vector<std::string> through{"l1/a.txt", "d1/l2/a.txt", "d1/d2/l3/a.txt", "inner/d2/x",
                                         "l1/dir/sub/c.txt"};
  const std::vector<std::string> escapes{"../victim.txt", "d1/../../victim.txt",
                                         "../../outside/a.txt", "/etc/passwd",
                                         tree.victim().string()};
  const auto refused = [](int err) { return err == ELOOP || err == EXDEV; };
  for (const auto& names : {through, escapes}) {
    for (const std::string& name : names) {
      INFO(name);
      struct stat st {};
      int fd = -1;
      std::byte value[64];
      std::size_t size = 0;
      const timespec times[2] = {{1, 0}, {2, 0}};
      CHECK(refused(root.try_open(name, O_RDONLY, 0, fd)));
      CHECK(refused(root.try_open(name, O_RDWR | O_CREAT | O_TRUNC, 0644, fd)));
      CHECK(refused(root.try_open_dir(name, fd)));
      CHECK(refused(root.try_stat(name, st)));
      CHECK(refused(root.try_unlink(name)));
      CHECK(refused(root.try_rmdir(name)));
      CHECK(refused(root.try_mkdir(name, 0755)));
      CHECK(refused(root.try_set_times(name, times)));
      CHECK(refused(root.try_get_xattr(name, "user.x", value, size)));
      CHECK(refused(root.try_rename(name, "d1/stolen")));
      CHECK(refused(root.try_rename("d1/d2", name)));
      CHECK(fd == -1);
      CHECK_THROWS_WITH(root.unlink(name), Catch::Contains("(refused: "));
      CHECK_NOTHROW(root.remove_all("d1/d2/none"));
    }
  }
  // A final link is described (lstat), opened never, and removed as itself.
  struct stat st {};
  REQUIRE(root.try_stat("d1/lf", st) == 0);
  CHECK(S_ISLNK(st.st_mode));
  int fd = -1;
  CHECK(root.try_open("d1/lf", O_RDONLY, 0, fd) == ELOOP);
  CHECK(root.try_open("d1/lf", O_WRONLY | O_CREAT | O_EXCL, 0644, fd) == EEXIST);
  CHECK(root.try_open_dir("d1/l2", fd) == ELOOP);
  CHECK(tree.digest() == before);
  root.remove_all("d1");  // removes the links inside, follows none
  root.unlink("l1");
  CHECK(tree.digest() == before);
  CHECK(test::TempDir::list(run) == std::vector<std::string>{"inner"});
}

TEST_CASE("the user's own target is followed through their link and never created",
          "[core][confined]") {
  test::TempDir dir("confined");
  std::ofstream(dir.path() / "data") << std::string(100, 'x');
  fs::create_symlink(dir.path() / "data", dir.path() / "by-id");
  const FileLocation user = FileLocation::user_target(dir.path() / "by-id");
  CHECK(user.is_user_target());
  UniqueFd fd = user.open(O_RDONLY, false);
  struct stat st {};
  REQUIRE(::fstat(fd.get(), &st) == 0);
  CHECK(st.st_size == 100);
  CHECK_THROWS_AS(user.open(O_RDWR, true), IoError);
  // A directory is not a file or device.
  CHECK_THROWS_WITH(FileLocation::user_target(dir.path()).open(O_RDONLY, false),
                    Catch::Contains("not a regular file or block device"));
}
