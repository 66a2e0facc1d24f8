// paralloc: a fileset's preallocated files created by several threads, the same files (names
// and sizes) as without for the same seed.
#include <fcntl.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <iobench/error.hpp>
#include <map>
#include <string>

#include "plugins/filebench/fileset.hpp"
#include "plugins/filebench/wml_parser.hpp"
#include "tests/filebench/filebench_test_support.hpp"
#include "tests/support/test_support.hpp"

namespace fs = std::filesystem;
namespace fb = iobench::plugins::filebench;

namespace {

// Every entry under `root`: its path relative to root and its size (-1 for a directory).
std::map<std::string, std::int64_t> disk_listing(const fs::path& root) {
  std::map<std::string, std::int64_t> out;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    out[fs::relative(e.path(), root).string()] =
        e.is_directory() ? -1 : static_cast<std::int64_t>(e.file_size());
  }
  return out;
}

filebench_test::Run run_paralloc(const iobench::test::TempDir& target, bool paralloc) {
  const iobench::test::TempDir files("fbpaf");
  const fs::path f = files.path() / "p.f";
  std::ofstream(f) << "define fileset name=big,entries=3000,dirwidth=30,prealloc=80,"
                      "size=cvar(type=cvar-gamma,parameters=mean:6000;gamma:1.5)"
                   << (paralloc ? ",paralloc" : "")
                   << "\n"
                      "define file name=one,size=5000,prealloc"
                   << (paralloc ? ",paralloc" : "")
                   << "\n"
                      "define process name=p { thread name=t { flowop statfile name=s,"
                      "filesetname=big } }\n";
  return filebench_test::run_filebench(target, f, "1s", 4242, 1);
}

}  // namespace

TEST_CASE("paralloc is a flag of define fileset and define file") {
  const fb::WmlModel m = fb::parse_wml(
      "define fileset name=a,entries=2,dirwidth=2,size=1k,prealloc,paralloc\n"
      "define fileset name=b,entries=2,dirwidth=2,size=1k,paralloc=false\n"
      "define file name=c,size=1k,prealloc,paralloc=true\n"
      "define file name=d,size=1k\n",
      "p.f");
  REQUIRE(m.filesets.size() == 4);
  CHECK(m.filesets[0].paralloc);
  CHECK_FALSE(m.filesets[1].paralloc);
  CHECK(m.filesets[2].paralloc);
  CHECK_FALSE(m.filesets[3].paralloc);
  CHECK_THROWS_WITH(fb::parse_wml("define file name=c,size=1k,paralloc=yes\n", "p.f"),
                    Catch::Contains("p.f:1:37") && Catch::Contains("not a flag"));
}

TEST_CASE("paralloc creates the same files, names and sizes, as without it, with 32 threads") {
  const iobench::test::TempDir serial_target("fbpa1");
  const iobench::test::TempDir parallel_target("fbpa2");
  const filebench_test::Run serial = run_paralloc(serial_target, false);
  const filebench_test::Run parallel = run_paralloc(parallel_target, true);
  const auto serial_files = disk_listing(serial.run_dir);
  const auto parallel_files = disk_listing(parallel.run_dir);
  // 80 % of 3000 files, their directories, and the single file.
  const std::int64_t created = filebench_test::attribute(serial, "fileset.big.preallocated_files");
  CHECK(created > 2300);
  CHECK(created < 2500);
  CHECK(filebench_test::tree(serial.run_dir).files == static_cast<std::uint64_t>(created) + 1);
  CHECK(parallel_files == serial_files);
  CHECK(filebench_test::attribute(parallel, "fileset.big.preallocated_bytes") ==
        filebench_test::attribute(serial, "fileset.big.preallocated_bytes"));
  // 3000 files are 47 chunks of 64: the 32 threads filebench allows at most.
  CHECK(filebench_test::attribute(parallel, "fileset.big.creation_threads") == 32);
  CHECK(filebench_test::attribute(serial, "fileset.big.creation_threads") == 1);
  CHECK(filebench_test::attribute(parallel, "fileset.one.creation_threads") == 1);
  CHECK(fs::file_size(parallel.run_dir / "one") == 5000);
}

TEST_CASE("a fileset of few files gets one paralloc thread per 64 files") {
  fb::FilesetDef def;
  def.name = "s";
  def.size.fixed_bytes = 1;
  def.dir_width = 10;
  def.entries = 200;
  CHECK(fb::paralloc_threads(fb::draw_layout(def, 1)) == 4);
  def.entries = 64;
  CHECK(fb::paralloc_threads(fb::draw_layout(def, 1)) == 1);
}

TEST_CASE("a stop request ends a parallel creation with what was made") {
  const iobench::test::TempDir dir("fbpa3");
  const iobench::OwnedConfinedDir run_dir(
      iobench::UniqueFd(::open(dir.path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)),
      dir.path());
  fb::FilesetDef def;
  def.name = "s";
  def.size.fixed_bytes = 3;
  def.dir_width = 100;
  def.entries = 2000;
  def.prealloc_pct = 100;
  const fb::FilesetLayout layout = fb::draw_layout(def, 1);
  // Asked once the directories are made (never during them: 21 of them), then at once: stop.
  const std::uint64_t written = fb::create_on_disk(
      layout, run_dir, [] { return true; }, {}, 8);
  CHECK(written % 3 == 0);
  CHECK(written <= 2000 * 3);
  CHECK(filebench_test::tree(dir.path()).bytes == written);
}
