// Which file a flowop picks: opennext (the thread's descriptor and file rotors) and indexed=N
// (filebench's FILESET_PICKBYINDEX), and a useism thread's buffer, checked against the files
// left on disk.
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "plugins/filebench/fileset.hpp"
#include "tests/filebench/filebench_test_support.hpp"
#include "tests/support/test_support.hpp"

namespace fs = std::filesystem;
namespace fb = iobench::plugins::filebench;
using filebench_test::op;

TEST_CASE(
    "pick_from starts at its index modulo the files, wraps, skips busy ones, keeps the rotor") {
  fb::FilesetDef def;
  def.name = "s";
  def.size.fixed_bytes = 1;
  def.entries = 4;
  def.dir_width = 4;
  def.prealloc_pct = 100;
  fb::FilesetState state(fb::draw_layout(def, 3));
  const auto go_on = [] { return true; };
  CHECK(state.pick_from(true, 6, go_on) == 2u);  // 6 modulo 4
  CHECK(state.pick_from(true, 2, go_on) == 3u);  // 2 is busy: the next one
  CHECK(state.pick_from(true, 3, go_on) == 0u);  // 3 busy too: wraps to 0
  state.release(2, false);                       // deleted
  CHECK(state.pick_from(true, 2, go_on) == 1u);  // 2 gone, 3 and 0 busy
  CHECK(state.pick_from(false, 0, go_on) == 2u);
  // Every file busy: a picker gives up once it is told to stop waiting.
  CHECK(state.pick_from(true, 0, [] { return false; }) == std::nullopt);
  state.release(0, true);
  state.release(3, true);
  // The set's rotor never moved: pick() starts at file 0.
  CHECK(state.pick(true, go_on) == 0u);
}

TEST_CASE("openfile with opennext takes the thread's next descriptor and its own rotor, wrapping") {
  const iobench::test::TempDir target("fbpick1");
  // statfile moves the set's rotor to file 1; opennext opens from the thread's own (file 0) on
  // descriptors 127, 126, 125, 124; after fd 125 is closed the next opennext (fd 123) wraps
  // past the busy files 0 and 1 to file 2.
  const filebench_test::Run run = filebench_test::run_filebench_text(
      target,
      "define fileset name=s,size=100,entries=4,dirwidth=10,dirgamma=0,prealloc\n"
      "define process name=p {thread name=t,memsize=4k {\n"
      "  flowop statfile name=st,filesetname=s\n"
      "  flowop openfile name=o1,filesetname=s,opennext,iters=4\n"
      "  flowop appendfile name=a1,fd=127,iosize=1\n"
      "  flowop appendfile name=a2,fd=124,iosize=4\n"
      "  flowop closefile name=c,fd=125\n"
      "  flowop openfile name=o2,filesetname=s,opennext\n"
      "  flowop appendfile name=a3,fd=123,iosize=50\n"
      "}}\n",
      "30s", 5, 10);
  CHECK(op(run, "o1").ops == 4);
  CHECK(op(run, "o2").ops == 1);
  CHECK(op(run, "a3").bytes == 50);
  CHECK(fs::file_size(run.run_dir / "s" / "00000001" / "00000001") == 101);
  CHECK(fs::file_size(run.run_dir / "s" / "00000001" / "00000002") == 100);
  CHECK(fs::file_size(run.run_dir / "s" / "00000001" / "00000003") == 150);
  CHECK(fs::file_size(run.run_dir / "s" / "00000001" / "00000004") == 104);
}

TEST_CASE("deletefile indexed=3 removes file 3, then the next higher ones, as filebench's") {
  const iobench::test::TempDir target("fbpick2");
  const filebench_test::Run run = filebench_test::run_filebench_text(
      target,
      "define fileset name=s,size=100,entries=10,dirwidth=20,dirgamma=0,prealloc\n"
      "define process name=p {thread name=t {\n"
      "  flowop deletefile name=d,filesetname=s,indexed=3\n"
      "}}\n",
      "30s", 5, 3);
  CHECK(op(run, "d").ops == 3);
  std::vector<std::string> left;
  for (const auto& e : fs::directory_iterator(run.run_dir / "s" / "00000001"))
    left.push_back(e.path().filename().string());
  std::sort(left.begin(), left.end());
  CHECK(left == std::vector<std::string>{"00000001", "00000002", "00000003", "00000007", "00000008",
                                         "00000009", "00000010"});
}

TEST_CASE("a useism thread writes from its buffer in a shared mapping as from the heap one") {
  const iobench::test::TempDir target("fbpick3");
  const filebench_test::Run run = filebench_test::run_filebench_text(
      target,
      "define file name=f,size=0,prealloc\n"
      "define process name=p {thread name=t,memsize=8k,useism {\n"
      "  flowop write name=w,filename=f,fd=1,iosize=8k\n"
      "}}\n",
      "30s", 5, 2);
  CHECK(op(run, "w").bytes == 16384);
  std::ifstream in(run.run_dir / "f", std::ios::binary);
  const std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  REQUIRE(data.size() == 16384);
  // The buffer: its writer's line, then 'f' to its end; both writes sent the same 8 KiB.
  CHECK(data.rfind("iobench pid=", 0) == 0);
  const std::size_t line = data.find('\n');
  REQUIRE(line < 100);
  CHECK(data.find_first_not_of('f', line + 1) == 8192);
  CHECK(data.substr(0, 8192) == data.substr(8192));
}

TEST_CASE("indexed takes a randvar, drawn for each pick") {
  const iobench::test::TempDir target("fbpick4");
  // A uniform randvar with its mean at its min draws 3 every time: files 3 and 4 go.
  const filebench_test::Run run = filebench_test::run_filebench_text(
      target,
      "set $i = randvar(type=uniform, min=3, mean=3)\n"
      "define fileset name=s,size=100,entries=6,dirwidth=20,dirgamma=0,prealloc\n"
      "define process name=p {thread name=t {\n"
      "  flowop deletefile name=d,filesetname=s,indexed=$i\n"
      "}}\n",
      "30s", 5, 2);
  CHECK(op(run, "d").ops == 2);
  std::vector<std::string> left;
  for (const auto& e : fs::directory_iterator(run.run_dir / "s" / "00000001"))
    left.push_back(e.path().filename().string());
  std::sort(left.begin(), left.end());
  CHECK(left == std::vector<std::string>{"00000001", "00000002", "00000003", "00000006"});
}
