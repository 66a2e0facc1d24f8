// read_input_file's identity overload (file_util.hpp): the identity is the file opened, the same
// through a symbolic and a hard link, another for another file or a file replaced by rename, and
// `opened` is left as it was when the read is refused.

#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <iobench/error.hpp>
#include <iobench/file_util.hpp>
#include <string>

#include "tests/support/test_support.hpp"

namespace fs = std::filesystem;

namespace {

void write_text(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  out.close();
  REQUIRE(out.good());
}

iobench::InputFileIdentity identity_of(const fs::path& path) {
  iobench::InputFileIdentity id;
  CHECK(iobench::read_input_file(path, "test file", iobench::kMaxInputFileBytes, id) == "text");
  return id;
}

}  // namespace

TEST_CASE("read_input_file's identity is the file opened, through symbolic and hard links",
          "[input_file]") {
  const iobench::test::TempDir dir("inid");
  const fs::path a = dir.path() / "a.txt";
  write_text(a, "text");
  fs::create_symlink("a.txt", dir.path() / "sym.txt");
  fs::create_hard_link(a, dir.path() / "hard.txt");
  write_text(dir.path() / "b.txt", "text");
  struct stat st {};
  REQUIRE(::stat(a.c_str(), &st) == 0);
  const iobench::InputFileIdentity id = identity_of(a);
  CHECK(id.device == static_cast<std::uint64_t>(st.st_dev));
  CHECK(id.inode == static_cast<std::uint64_t>(st.st_ino));
  CHECK(identity_of(dir.path() / "sym.txt") == id);
  CHECK(identity_of(dir.path() / "hard.txt") == id);
  CHECK(identity_of(a) == id);  // the same file read twice
  // Another file, though of the same text, is another identity.
  CHECK(identity_of(dir.path() / "b.txt") != id);
  // A file replaced by rename is another file (b.txt still holds the old inode as a.txt's name
  // moves to it, so its number cannot be reused here).
  const iobench::InputFileIdentity b = identity_of(dir.path() / "b.txt");
  fs::rename(dir.path() / "b.txt", a);
  CHECK(identity_of(a) == b);
  CHECK(identity_of(dir.path() / "hard.txt") == id);  // the old a.txt, still linked as hard.txt
}

TEST_CASE("read_input_file leaves the identity as it was when it refuses the file",
          "[input_file]") {
  const iobench::test::TempDir dir("inidr");
  write_text(dir.path() / "big.txt", "0123456789");
  const iobench::InputFileIdentity before{7, 11};
  iobench::InputFileIdentity opened = before;
  CHECK_THROWS_AS(iobench::read_input_file(dir.path() / "missing.txt", "test file", 1024, opened),
                  iobench::ConfigError);
  CHECK(opened == before);
  CHECK_THROWS_AS(iobench::read_input_file(dir.path(), "test file", 1024, opened),
                  iobench::ConfigError);  // a directory
  CHECK(opened == before);
  CHECK_THROWS_AS(iobench::read_input_file(dir.path() / "big.txt", "test file", 4, opened),
                  iobench::ConfigError);  // over the cap, after the open
  CHECK(opened == before);
  CHECK(iobench::read_input_file(dir.path() / "big.txt", "test file", 1024, opened) ==
        "0123456789");
  CHECK(opened != before);
}
