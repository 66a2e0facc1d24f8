// Flowop semantics one by one on a real file system, with single threads whose op sequence is
// fixed: counts and bytes exact, checked against the files left on disk.
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <iobench/registry.hpp>
#include <iobench/runner.hpp>
#include <string>

#include "tests/filebench/filebench_test_support.hpp"
#include "tests/support/test_support.hpp"

namespace fs = std::filesystem;
using filebench_test::op;

namespace {

std::vector<std::uint64_t> file_sizes(const fs::path& root) {
  std::vector<std::uint64_t> out;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (e.is_regular_file()) out.push_back(e.file_size());
  }
  return out;
}

}  // namespace

TEST_CASE(
    "createfile takes each missing file once and writewholefile writes its drawn size in "
    "whole iosize blocks") {
  const iobench::test::TempDir target("fbsem1");
  const filebench_test::Run run =
      filebench_test::run_filebench_text(target,
                                         "define fileset name=s,size=10000,entries=5,dirwidth=10\n"
                                         "define process name=p {thread name=t,memsize=4k {\n"
                                         "  flowop createfile name=c,filesetname=s,fd=1\n"
                                         "  flowop writewholefile name=w,srcfd=1,fd=1,iosize=4k\n"
                                         "  flowop closefile name=x,fd=1\n"
                                         "}}\n",
                                         "30s", 5);
  // The sixth createfile finds no missing file: the thread stops and the step says so.
  CHECK(op(run, "c").ops == 5);
  CHECK(op(run, "w").ops == 5);
  // filebench's writewholefile writes whole iosize blocks until the drawn size is reached: a
  // 10000-byte file at iosize 4k is 3 x 4096 = 12288 bytes (it was 4096 + 4096 + 1808).
  CHECK(op(run, "w").bytes == 5 * 12288);
  CHECK(op(run, "x").ops == 5);
  CHECK(file_sizes(run.run_dir / "s") == std::vector<std::uint64_t>(5, 12288));
  REQUIRE(run.step.warnings.size() == 1);
  CHECK(run.step.warnings[0].rfind("1 of 1 threads stopped early", 0) == 0);
}

TEST_CASE("statfile and deletefile take existing files until none is left") {
  const iobench::test::TempDir target("fbsem2");
  const filebench_test::Run run = filebench_test::run_filebench_text(
      target,
      "define fileset name=s,size=100,entries=4,dirwidth=10,prealloc\n"
      "define process name=p {thread name=t {\n"
      "  flowop statfile name=st,filesetname=s\n"
      "  flowop deletefile name=del,filesetname=s\n"
      "}}\n",
      "30s", 5);
  CHECK(op(run, "st").ops == 4);
  CHECK(op(run, "del").ops == 4);
  CHECK(file_sizes(run.run_dir / "s").empty());
}

TEST_CASE("a sequential read rewinds at the end of the file as filebench's does") {
  const iobench::test::TempDir target("fbsem3");
  // 4096 + 4096 + 2048, then 0 bytes (and a rewind), then again: 7 ops move 20480 bytes.
  const filebench_test::Run run =
      filebench_test::run_filebench_text(target,
                                         "define file name=f,size=10k,prealloc\n"
                                         "define process name=p {thread name=t,memsize=4k {\n"
                                         "  flowop read name=r,filename=f,fd=1,iosize=4k\n"
                                         "}}\n",
                                         "30s", 5, 7);
  CHECK(op(run, "r").ops == 7);
  CHECK(op(run, "r").bytes == 20480);
}

TEST_CASE("readwholefile leaves the offset at the end of the file") {
  const iobench::test::TempDir target("fbsem5");
  // Each sequential read after a whole-file read meets EOF (0 bytes) and rewinds. Without
  // iosize the whole file is one read (filebench's working set), so memsize holds 10k.
  const filebench_test::Run run =
      filebench_test::run_filebench_text(target,
                                         "define file name=f,size=10k,prealloc\n"
                                         "define process name=p {thread name=t,memsize=16k {\n"
                                         "  flowop readwholefile name=all,filename=f,fd=1\n"
                                         "  flowop read name=r,fd=1,iosize=4k\n"
                                         "}}\n",
                                         "30s", 5, 4);
  CHECK(op(run, "all").ops == 2);
  CHECK(op(run, "all").bytes == 20480);
  CHECK(op(run, "r").ops == 2);
  CHECK(op(run, "r").bytes == 0);
}

TEST_CASE("random writes stay inside the file's drawn size, sequential ones extend it") {
  const iobench::test::TempDir target("fbsem4");
  const filebench_test::Run run =
      filebench_test::run_filebench_text(target,
                                         "define file name=r,size=10000,prealloc\n"
                                         "define file name=s,size=0,prealloc\n"
                                         "define process name=p {thread name=t,memsize=8k {\n"
                                         "  flowop write name=rw,filename=r,fd=1,iosize=4k,random\n"
                                         "  flowop write name=sw,filename=s,fd=2,iosize=1k\n"
                                         "}}\n",
                                         "30s", 5, 40);
  CHECK(op(run, "rw").ops == 20);
  CHECK(op(run, "rw").bytes == 20 * 4096);
  // Offsets 0 or 4096: [0, 10000 - 4096] rounded down to 4 KiB, so the file keeps its size.
  CHECK(fs::file_size(run.run_dir / "r") == 10000);
  CHECK(fs::file_size(run.run_dir / "s") == 20 * 1024);
}
