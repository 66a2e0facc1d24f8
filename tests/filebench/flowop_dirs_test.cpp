// Leaf directories (leafdirs=N) and the makedir/removedir flowops: the layout filebench draws,
// and the directories a run leaves on a real file system, counted.
#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

#include "plugins/filebench/fileset.hpp"
#include "plugins/filebench/wml_parser.hpp"
#include "tests/filebench/filebench_test_support.hpp"
#include "tests/filebench/wml_test_helpers.hpp"
#include "tests/support/test_support.hpp"

namespace fb = iobench::plugins::filebench;
namespace fs = std::filesystem;
using filebench_test::attribute;
using filebench_test::op;

namespace {

/// Directories at and beneath `root` (a fileset's directory, its tree's root, counted as the
/// layout counts it), and of those the empty ones.
std::pair<std::uint64_t, std::uint64_t> count_dirs(const fs::path& root) {
  std::uint64_t dirs = 1;
  std::uint64_t empty = 0;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (!e.is_directory()) continue;
    ++dirs;
    empty += fs::is_empty(e.path());
  }
  return {dirs, empty};
}

}  // namespace

TEST_CASE("leaf directories are placed in the tree as filebench places files") {
  fb::FilesetDef def;
  def.name = "s";
  def.entries = 0;
  def.leafdirs = 8;
  def.dir_width = 2;
  def.dir_gamma = 0;  // mean depth ln 8 / ln 2 = 3, width 2 everywhere
  const fb::FilesetLayout layout = fb::draw_layout(def, 1);
  CHECK(layout.files.empty());
  REQUIRE(layout.leafdirs.size() == 8);
  CHECK(layout.dirs.size() == 7);
  CHECK(layout.leafdir_path(0) == "s/00000001/00000001/00000001");
  CHECK(layout.leafdir_path(1) == "s/00000001/00000001/00000002");
  CHECK(layout.leafdir_path(7) == "s/00000002/00000002/00000002");
  CHECK(layout.memory_bytes() == 7 * 8 + 8 * 8);
}

TEST_CASE("leaf directories beside files take the serials after the files") {
  fb::FilesetDef def;
  def.name = "s";
  def.entries = 2;
  def.leafdirs = 2;
  def.dir_width = 2;
  def.dir_gamma = 0;  // mean depth ln 4 / ln 2 = 2: one leaf directory under the root
  const fb::FilesetLayout layout = fb::draw_layout(def, 1);
  REQUIRE(layout.files.size() == 2);
  REQUIRE(layout.leafdirs.size() == 2);
  CHECK(layout.dirs.size() == 2);
  CHECK(layout.file_path(1) == "s/00000001/00000002");
  CHECK(layout.leafdir_path(0) == "s/00000001/00000003");
  CHECK(layout.leafdir_path(1) == "s/00000001/00000004");
}

TEST_CASE("leafdirs parses, entries then default to 0, and makedir needs leaf directories") {
  const fb::WmlModel m = fb::parse_wml(
      "define fileset name=d,size=0,leafdirs=50,dirwidth=10,prealloc=40\n"
      "define process name=p {thread name=t {flowop makedir name=mk,filesetname=d\n"
      "flowop removedir name=rm,filesetname=d}}\n",
      "t.f");
  REQUIRE(m.filesets.size() == 1);
  CHECK(m.filesets[0].leafdirs == 50);
  CHECK(m.filesets[0].entries == 0);
  CHECK(m.filesets[0].prealloc_pct == 40);
  CHECK(m.processes[0].threads[0].flowops[0].kind == fb::FlowopKind::kMakeDir);
  CHECK(m.processes[0].threads[0].flowops[1].kind == fb::FlowopKind::kRemoveDir);
  CHECK(filebench_test::wml_error_of(
            "define fileset name=s,size=1k,entries=4,dirwidth=2\n"
            "define process name=p {thread name=t {flowop makedir name=m,filesetname=s}}\n") ==
        "t.f:2:46: flowop makedir 'm' needs filesetname= of a fileset with leafdirs=N (its "
        "empty leaf directories)");
  CHECK(filebench_test::wml_error_of("define fileset name=s,size=1k,entries=0,dirwidth=2\n") ==
        "t.f:1:8: define fileset 's' has no files and no leaf directories; give entries=N or "
        "leafdirs=N above 0");
}

TEST_CASE("makedir makes each missing leaf directory once, on disk") {
  const iobench::test::TempDir target("fbmkd");
  const filebench_test::Run run =
      filebench_test::run_filebench_text(target,
                                         "define fileset name=d,size=0,leafdirs=30,dirwidth=4\n"
                                         "define process name=p {thread name=t {\n"
                                         "  flowop makedir name=mk,filesetname=d\n"
                                         "}}\n",
                                         "30s", 9);
  const auto tree_dirs = static_cast<std::uint64_t>(attribute(run, "fileset.d.dirs"));
  CHECK(attribute(run, "fileset.d.leafdirs") == 30);
  CHECK(attribute(run, "fileset.d.preallocated_leafdirs") == 0);
  // The 31st makedir finds no missing leaf directory: the thread stops and the step says so.
  CHECK(op(run, "mk").ops == 30);
  CHECK(op(run, "mk").bytes == 0);
  const auto [dirs, empty] = count_dirs(run.run_dir / "d");
  CHECK(dirs == tree_dirs + 30);
  CHECK(empty == 30);
  REQUIRE(run.step.warnings.size() == 1);
  CHECK(run.step.warnings[0].rfind("1 of 1 threads stopped early", 0) == 0);
}

TEST_CASE("removedir removes the preallocated leaf directories, makedir remakes them") {
  const iobench::test::TempDir target("fbrmd");
  const filebench_test::Run run = filebench_test::run_filebench_text(
      target,
      "define fileset name=d,size=0,leafdirs=20,dirwidth=5,prealloc\n"
      "define process name=p {thread name=t {\n"
      "  flowop removedir name=rm,filesetname=d,iters=3\n"
      "  flowop makedir name=mk,filesetname=d\n"
      "}}\n",
      "30s", 9, 8);
  const auto tree_dirs = static_cast<std::uint64_t>(attribute(run, "fileset.d.dirs"));
  CHECK(attribute(run, "fileset.d.preallocated_leafdirs") == 20);
  // Two passes of 3 removedirs and 1 makedir: 6 removed, 2 made back.
  CHECK(op(run, "rm").ops == 6);
  CHECK(op(run, "mk").ops == 2);
  CHECK(count_dirs(run.run_dir / "d").first == tree_dirs + 20 - 6 + 2);
}
