// `cached=false` on a fileset or file (filebench's filemicro_*.f files): once made, its files
// are flushed and dropped from the page cache, checked with mincore(2) on the files left on
// disk; where the filesystem keeps files in memory (tmpfs) the step says so in a warning.
#include <fcntl.h>
#include <linux/magic.h>
#include <sys/mman.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "plugins/filebench/wml_parser.hpp"
#include "tests/filebench/filebench_test_support.hpp"
#include "tests/filebench/wml_test_helpers.hpp"
#include "tests/support/test_support.hpp"

namespace fs = std::filesystem;
namespace fb = iobench::plugins::filebench;
using filebench_test::attribute;
using filebench_test::op;
using filebench_test::Run;
using filebench_test::run_filebench;

namespace {

std::size_t pages_in_cache_under(const fs::path& root) {
  std::size_t n = 0;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (e.is_regular_file()) n += filebench_test::pages_in_cache(e.path());
  }
  return n;
}

bool kept_in_memory(const fs::path& path) {
  struct statfs st {};
  REQUIRE(::statfs(path.c_str(), &st) == 0);
  return st.f_type == TMPFS_MAGIC || st.f_type == RAMFS_MAGIC;
}

// Files made then left alone: the thread only naps.
std::string cached_napper(const std::string& cached) {
  return "define fileset name=set,path=/tmp,size=256k,entries=4,dirwidth=2,prealloc" + cached +
         "\n"
         "define file name=one,path=/tmp,size=1m,prealloc" +
         cached +
         "\n"
         "define process name=p { thread name=t { flowop delay name=nap,value=0.01 } }\n"
         "run 60\n";
}

}  // namespace

TEST_CASE("cached takes a flag on filesets and files, true by default") {
  const fb::WmlModel m = fb::parse_wml(
      "set $c=false\n"
      "define fileset name=a,size=1k,entries=2,dirwidth=2,cached=$c\n"
      "define fileset name=b,size=1k,entries=2,dirwidth=2,cached\n"
      "define file name=c,size=1k,cached=false\n"
      "define file name=d,size=1k\n",
      "t.f");
  REQUIRE(m.filesets.size() == 4);
  CHECK_FALSE(m.filesets[0].cached);
  CHECK(m.filesets[1].cached);
  CHECK_FALSE(m.filesets[2].cached);
  CHECK(m.filesets[3].cached);
  CHECK(filebench_test::wml_error_of("define file name=c,size=1k,cached=maybe\n") ==
        "t.f:1:35: cached=maybe is not a flag; write cached alone, cached=true or cached=false");
  // Not a flowop's attribute, and no word of filebench 1.5's lexer: an unknown attribute there.
  CHECK(
      filebench_test::wml_error_of(
          "define file name=c,size=1k\n"
          "define process name=p { thread name=t { flowop statfile name=s,filename=c,"
          "cached } }\n")
          .rfind("t.f:2:75: unknown attribute 'cached' of flowop statfile; expected one of name, ",
                 0) == 0);
}

TEST_CASE("cached=false drops the made files from the page cache, or says why not") {
  const iobench::test::TempDir files("fbcaf");
  const fs::path evicted = files.path() / "evicted.f";
  filebench_test::write_file(evicted, cached_napper(",cached=false"));
  const iobench::test::TempDir target("fbca");
  const Run run = run_filebench(target, evicted);
  CHECK(op(run, "nap").ops > 0);
  CHECK(attribute(run, "fileset.set.evicted_files") == 4);
  CHECK(attribute(run, "fileset.one.evicted_files") == 1);
  if (kept_in_memory(target.path())) {
    // tmpfs keeps its files in memory: the pages stay, and the step says so.
    const char* why =
        "skipped the eviction check: the target is tmpfs/ramfs, whose files live in "
        "the page cache";
    WARN(why);
    std::cerr << why << "\n";
    // File 'one' is 1 MiB: all its pages stay, however large a page is here.
    const auto page = static_cast<std::int64_t>(::sysconf(_SC_PAGESIZE));
    const std::int64_t pages = ((1 << 20) + page - 1) / page;
    CHECK(attribute(run, "fileset.one.resident_pages") == pages);
    const std::string expected = "fileset 'one' has cached=false but " + std::to_string(pages) +
                                 " of its " + std::to_string(pages) + " pages";
    bool warned = false;
    // ... and says what to do about it.
    for (const std::string& w : run.step.warnings) {
      warned = warned || (w.find(expected) == 0 &&
                          w.find("put the target on a disk-backed file system, or drop the "
                                 "caches as root") != std::string::npos);
    }
    CHECK(warned);
    return;
  }
  CHECK(attribute(run, "fileset.set.resident_pages") == 0);
  CHECK(attribute(run, "fileset.one.resident_pages") == 0);
  CHECK(run.step.warnings.empty());
  // What is on disk now: nothing of the files in the page cache (the thread only napped).
  CHECK(pages_in_cache_under(run.run_dir / "set") == 0);
  CHECK(filebench_test::pages_in_cache(run.run_dir / "one") == 0);

  // The default keeps them: just written, they are in the page cache.
  const fs::path kept = files.path() / "kept.f";
  filebench_test::write_file(kept, cached_napper(""));
  const iobench::test::TempDir target2("fbca2");
  const Run cached = run_filebench(target2, kept);
  CHECK(filebench_test::pages_in_cache(cached.run_dir / "one") > 0);
  for (const auto& [name, value] : cached.step.attributes)
    CHECK(name.find("evicted_files") == std::string::npos);
}
