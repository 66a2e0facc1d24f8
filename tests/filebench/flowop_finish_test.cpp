// finishoncount, finishonbytes, opslimit and listdir, counted exactly on single
// threads whose op sequence is fixed, and the parse errors of their attributes.
#include <dirent.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>
#include <vector>

#include "plugins/filebench/wml_parser.hpp"
#include "tests/filebench/filebench_test_support.hpp"
#include "tests/filebench/wml_test_helpers.hpp"
#include "tests/support/test_support.hpp"

namespace fs = std::filesystem;
using filebench_test::op;

TEST_CASE("finishoncount with a target ends the run at the target's value-th op") {
  const iobench::test::TempDir target("fbfin1");
  const filebench_test::Run run =
      filebench_test::run_filebench_text(target,
                                         "define file name=f,size=0,prealloc\n"
                                         "define process name=p {thread name=t,memsize=4k {\n"
                                         "  flowop finishoncount name=fin,value=7,target=w\n"
                                         "  flowop write name=w,filename=f,fd=1,iosize=1k\n"
                                         "  flowop opslimit name=lim\n"
                                         "}}\n",
                                         "30s", 5);
  // Checks before writes 1..7 pass (0..6 done); the eighth sees 7 >= 7 and ends the run.
  CHECK(op(run, "w").ops == 7);
  CHECK(op(run, "w").bytes == 7 * 1024);
  CHECK(op(run, "fin").ops == 8);
  CHECK(op(run, "fin").bytes == 0);
  // Without eventgen, filebench's opslimit returns at once and records nothing.
  CHECK(op(run, "lim").ops == 0);
  CHECK(fs::file_size(run.run_dir / "f") == 7 * 1024);
}

TEST_CASE("finishoncount without a target counts every I/O flowop of the run") {
  const iobench::test::TempDir target("fbfin2");
  const filebench_test::Run run =
      filebench_test::run_filebench_text(target,
                                         "define file name=f,size=0,prealloc\n"
                                         "define process name=p {thread name=t,memsize=4k {\n"
                                         "  flowop write name=w,filename=f,fd=1,iosize=1k\n"
                                         "  flowop fsync name=s,fd=1\n"
                                         "  flowop delay name=d,value=0\n"
                                         "  flowop finishoncount name=fin,value=9\n"
                                         "}}\n",
                                         "30s", 5);
  // Two I/O ops a pass (delay and finishoncount are not I/O): 8 after pass 4, 10 after pass 5.
  CHECK(op(run, "w").ops == 5);
  CHECK(op(run, "s").ops == 5);
  CHECK(op(run, "d").ops == 5);
  CHECK(op(run, "fin").ops == 5);
  CHECK(fs::file_size(run.run_dir / "f") == 5 * 1024);
}

TEST_CASE("finishonbytes ends the run once more than value bytes moved") {
  const iobench::test::TempDir target("fbfin3");
  const filebench_test::Run run =
      filebench_test::run_filebench_text(target,
                                         "define file name=f,size=0,prealloc\n"
                                         "define file name=g,size=0,prealloc\n"
                                         "define process name=p {thread name=t,memsize=4k {\n"
                                         "  flowop write name=w,filename=f,fd=1,iosize=1k\n"
                                         "  flowop appendfile name=a,filename=g,fd=2,iosize=512\n"
                                         "  flowop finishonbytes name=all,value=4608\n"
                                         "  flowop finishonbytes name=wonly,value=3k,target=w\n"
                                         "}}\n",
                                         "30s", 5);
  // All I/O: 1536 bytes a pass, 4608 after pass 3 is not above 4608; w alone: 3072 after
  // pass 3 is not above 3k either, so pass 4 writes and 'all' ends the run at 6144.
  CHECK(op(run, "w").ops == 4);
  CHECK(op(run, "a").ops == 4);
  CHECK(op(run, "all").ops == 4);
  CHECK(op(run, "wonly").ops == 3);
  CHECK(fs::file_size(run.run_dir / "f") == 4096);
  CHECK(fs::file_size(run.run_dir / "g") == 2048);
}

TEST_CASE("finishoncount and finishonbytes need a value and a target in the thread") {
  const std::string head =
      "define file name=f,size=1k\n"
      "define process name=p {thread name=t {\n";
  CHECK(filebench_test::wml_error_of(head + "flowop finishoncount name=c,target=x,value=2\n"
                                            "flowop statfile name=s,filename=f\n}}\n") ==
        "t.f:3:36: target flowop 'x' is not in thread 't'; name one of its flowops");
  CHECK(filebench_test::wml_error_of(head + "flowop finishonbytes name=b,value=1k,target=s\n"
                                            "flowop statfile name=s,filename=f\n}}\n") ==
        "t.f:3:45: finishonbytes target 's' does no reads or writes; name a read or write "
        "flowop");
  CHECK(filebench_test::wml_error_of(head + "flowop finishoncount name=c\n}}\n") ==
        "t.f:3:8: flowop finishoncount 'c' needs value=OPS above 0");
  CHECK(filebench_test::wml_error_of(head + "flowop opslimit name=l,value=3\n}}\n") ==
        "t.f:3:24: attribute 'value' of flowop opslimit is accepted by filebench but not "
        "modelled by iobench yet; remove it");
  CHECK(filebench_test::wml_error_of(head + "flowop finishonbytes name=b,value=2m,target=s\n"
                                            "flowop write name=s,filename=f,iosize=1k\n}}\n") ==
        "no error");
}

TEST_CASE("listdir reads each directory of the fileset in rotation with filebench's byte count") {
  const iobench::test::TempDir target("fbls1");
  const filebench_test::Run run = [&] {
    const iobench::test::TempDir files("fblsf");
    const fs::path f = files.path() / "w.f";
    filebench_test::write_file(
        f,
        "define fileset name=s,size=1k,entries=5,dirwidth=2,dirgamma=0,prealloc\n"
        "define process name=p {thread name=t {\n"
        "  flowop listdir name=ls,filesetname=s\n"
        "}}\n");
    // 5 files at dirwidth 2 without gamma: the root holds 3 directories of 2, 2 and 1 files
    // (depth ln 5 / ln 2 rounded down); 8 ops list each of the 4 twice.
    return filebench_test::run_filebench(target, f, "30s", 5, 8);
  }();
  std::vector<fs::path> tree{run.run_dir / "s"};  // the root is the set's directory itself
  for (const auto& e : fs::recursive_directory_iterator(tree.front())) {
    if (e.is_directory()) tree.push_back(e.path());
  }
  std::uint64_t bytes = 0;
  for (const fs::path& dir : tree) {
    bytes += 2 * sizeof(dirent) - 2 + 1 + 2;  // "." and ".."
    for (const auto& child : fs::directory_iterator(dir))
      bytes += child.path().filename().string().size() + sizeof(dirent) - 1;
  }
  CHECK(tree.size() == 4);
  CHECK(op(run, "ls").ops == 8);
  CHECK(op(run, "ls").bytes == 2 * bytes);
}

TEST_CASE("listdir needs a fileset with directories") {
  CHECK(filebench_test::wml_error_of("define file name=f,size=1k\n"
                                     "define process name=p {thread name=t {flowop listdir name=l,"
                                     "filesetname=f}}\n") ==
        "t.f:2:46: flowop listdir 'l' needs a fileset with directories; 'f' is a define file");
  CHECK(filebench_test::wml_error_of(
            "define process name=p {thread name=t {flowop listdir name=l}}\n") ==
        "t.f:1:46: flowop listdir 'l' needs filesetname=FILESET");
}

TEST_CASE("fsyncset fsyncs each open file of its fileset as one op") {
  const iobench::test::TempDir target("fbfss");
  const filebench_test::Run run = filebench_test::run_filebench_text(
      target,
      "define fileset name=a,size=1k,entries=4,dirwidth=4,prealloc\n"
      "define fileset name=b,size=1k,entries=4,dirwidth=4,prealloc\n"
      "define process name=p {thread name=t {\n"
      "  flowop openfile name=oa1,filesetname=a,fd=1\n"
      "  flowop openfile name=oa2,filesetname=a,fd=2\n"
      "  flowop openfile name=ob,filesetname=b,fd=3\n"
      "  flowop fsyncset name=fa,filesetname=a\n"
      "  flowop fsyncset name=fb,filesetname=b\n"
      "  flowop closefile name=c1,fd=1\n"
      "  flowop closefile name=c2,fd=2\n"
      "  flowop closefile name=c3,fd=3\n"
      "  flowop fsyncset name=none,filesetname=a\n"
      "  flowop finishoncount name=fin,value=6,target=fa\n"
      "}}\n",
      "30s", 5);
  // Two open files of a and one of b a pass; after the closes nothing of a is open.
  CHECK(op(run, "oa1").ops == 3);
  CHECK(op(run, "fa").ops == 6);
  CHECK(op(run, "fb").ops == 3);
  CHECK(op(run, "none").ops == 0);
  CHECK(op(run, "fa").bytes == 0);
}
