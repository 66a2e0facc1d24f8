// aiowrite and aiowait through iobench's asynchronous engines: N aiowrites leave exactly N x iosize
// bytes of the thread's buffer on the files, random offsets stay in the workingset, aiowait with
// nothing in flight is an op that returns, and an engine that cannot serve the aiowrites (not
// available here, not asynchronous, buffered libaio) is refused before any I/O with the fix.
#include "plugins/filebench/flowop_aio.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <iobench/engine.hpp>
#include <iobench/error.hpp>
#include <iterator>
#include <string>

#include "plugins/filebench/wml_parser.hpp"
#include "tests/filebench/filebench_test_support.hpp"
#include "tests/filebench/wml_test_helpers.hpp"
#include "tests/support/test_support.hpp"

namespace fb = iobench::plugins::filebench;
namespace fs = std::filesystem;
using filebench_test::op;

namespace {

// io_uring, the default aio_engine, where this machine allows it (the runs below need it).
bool io_uring_here() {
  const auto engine = iobench::make_io_uring_engine(iobench::EngineSpec{.name = "io_uring"});
  const std::string why = engine->unavailable_reason();
  if (!why.empty()) WARN("skipped: io_uring is not available here: " << why);
  return why.empty();
}

// Bytes of `path` equal to 'f' (the thread buffer's byte; the fileset is created with zeros).
std::uint64_t written_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::uint64_t n = 0;
  for (std::istreambuf_iterator<char> it(in), end; it != end; ++it) n += *it == 'f';
  return n;
}

// An engine as a test needs it: asynchronous or not, available or not, O_DIRECT only or not.
class FakeEngine final : public iobench::Engine {
 public:
  FakeEngine(iobench::EngineCaps caps, std::string unavailable)
      : caps_(caps), unavailable_(std::move(unavailable)) {}
  [[nodiscard]] std::string name() const override { return "fake"; }
  [[nodiscard]] iobench::EngineCaps caps() const override { return caps_; }
  [[nodiscard]] std::string unavailable_reason() const override { return unavailable_; }
  [[nodiscard]] std::unique_ptr<iobench::IoFile> open(const iobench::FileLocation&,
                                                      const iobench::OpenOptions&) const override {
    throw iobench::IoError(ENOSYS, "open", "fake");
  }

 private:
  iobench::EngineCaps caps_;
  std::string unavailable_;
};

std::string aio_refusal(const fb::WmlModel& model, const iobench::Engine& engine) {
  try {
    fb::check_aio_engine(model, engine, "io_uring", "t.f");
  } catch (const iobench::ConfigError& e) {
    return e.what();
  }
  return "no error";
}

const std::string kOneAiowrite =
    "define fileset name=data,size=4k,entries=2,dirwidth=100,prealloc\n"
    "define process name=p {thread name=t,memsize=4k {\n"
    "  flowop aiowrite name=aw,filesetname=data,iosize=4k,random\n"
    "}}\n";

}  // namespace

TEST_CASE("N aiowrites leave N x iosize bytes on the files and aiowait reaps them all") {
  if (!io_uring_here()) return;
  const iobench::test::TempDir target("fbaio");
  // Each file is one iosize (its only random offset is 0) and closefile moves the fd on to the
  // next file: 5 aiowrites write 5 distinct files whole.
  const filebench_test::Run run = filebench_test::run_filebench_text(
      target,
      "define fileset name=data,size=4k,entries=8,dirwidth=100,prealloc\n"
      "define process name=db {thread name=writer,memsize=4k {\n"
      "  flowop aiowrite name=aw,filesetname=data,iosize=4k,random,fd=1\n"
      "  flowop aiowait name=wait\n"
      "  flowop aiowait name=idle\n"
      "  flowop closefile name=close,fd=1\n"
      "  flowop finishoncount name=done,target=aw,value=5\n"
      "}}\n",
      "30s", 9);
  CHECK(op(run, "aw").ops == 5);
  CHECK(op(run, "aw").bytes == 5 * 4096);
  CHECK(op(run, "wait").ops == 5);
  CHECK(op(run, "idle").ops == 5);  // nothing in flight: an op all the same
  std::uint64_t on_disk = 0;
  std::uint64_t files = 0;
  for (const auto& e : fs::recursive_directory_iterator(run.run_dir / "data")) {
    if (!e.is_regular_file()) continue;
    ++files;
    CHECK(e.file_size() == 4096);
    on_disk += written_bytes(e.path());
  }
  CHECK(files == 8);
  CHECK(on_disk == 5 * 4096);
}

TEST_CASE("aiowrite's random offsets stay below its workingset and the file keeps its size") {
  if (!io_uring_here()) return;
  const iobench::test::TempDir target("fbaiows");
  const filebench_test::Run run = filebench_test::run_filebench_text(
      target,
      "define file name=big,size=64k,prealloc\n"
      "define process name=db {thread name=writer,memsize=4k {\n"
      "  flowop aiowrite name=aw,filename=big,iosize=4k,workingset=32k,random,"
      "iters=20\n"
      "  flowop aiowait name=wait\n"
      "  flowop finishoncount name=done,target=aw,value=40\n"
      "}}\n",
      "30s", 9);
  CHECK(op(run, "aw").ops == 40);
  CHECK(op(run, "wait").ops == 2);
  const fs::path big = run.run_dir / "big";
  CHECK(fs::file_size(big) == 64 * 1024);
  std::ifstream in(big, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  REQUIRE(bytes.size() == 64 * 1024);
  // filebench's offsets: uniform in [0, workingset - iosize] rounded down to an iosize multiple;
  // nothing beyond the workingset is written, and what is written is whole blocks.
  const std::uint64_t written =
      static_cast<std::uint64_t>(std::count(bytes.begin(), bytes.begin() + 32 * 1024, 'f'));
  CHECK(written > 0);
  CHECK(written % 4096 == 0);
  CHECK(bytes.substr(32 * 1024) == std::string(32 * 1024, '\0'));
}

TEST_CASE("aiowait with no aiowrite in the file is an op that returns at once") {
  const iobench::test::TempDir target("fbaiowait");
  const filebench_test::Run run =
      filebench_test::run_filebench_text(target,
                                         "define process name=p {thread name=t {\n"
                                         "  flowop aiowait name=wait\n"
                                         "  flowop finishoncount name=done,target=wait,"
                                         "value=3\n"
                                         "}}\n",
                                         "30s", 9);
  CHECK(op(run, "wait").ops == 3);
  CHECK(op(run, "wait").bytes == 0);
}

TEST_CASE("an engine that cannot serve aiowrite is refused naming the flowop and the fix") {
  const fb::WmlModel model = fb::parse_wml(kOneAiowrite, "t.f");
  const FakeEngine off(iobench::EngineCaps{.async = true, .max_depth = 4096},
                       "io_uring_queue_init: Operation not permitted");
  CHECK(aio_refusal(model, off) ==
        "filebench: t.f:3:10: flowop aiowrite 'aw' needs engine fake (aio_engine=io_uring), which "
        "is not available here: io_uring_queue_init: Operation not permitted; give the other of "
        "aio_engine=io_uring and aio_engine=libaio (libaio with directio on the aiowrite)");
  const FakeEngine sync(iobench::EngineCaps{}, "");
  CHECK(aio_refusal(model, sync) ==
        "filebench: t.f:3:10: flowop aiowrite 'aw' needs an asynchronous engine and "
        "aio_engine=io_uring is not one; give aio_engine=io_uring or aio_engine=libaio");
  const FakeEngine direct_only(
      iobench::EngineCaps{.async = true, .supports_direct = true, .async_needs_direct = true}, "");
  CHECK(aio_refusal(model, direct_only) ==
        "filebench: t.f:3:10: flowop aiowrite 'aw' is buffered and engine io_uring is "
        "asynchronous only with O_DIRECT; give the aiowrite directio, or aio_engine=io_uring");
  const fb::WmlModel direct = fb::parse_wml(
      "define file name=f,size=4k,prealloc\n"
      "define process name=p {thread name=t {flowop aiowrite name=aw,filename=f,iosize=4k,random,"
      "directio}}\n",
      "t.f");
  CHECK(direct.processes[0].threads[0].flowops[0].directio);
  CHECK(aio_refusal(direct, direct_only) == "no error");
  // A file without aiowrite makes no engine at all.
  CHECK(fb::make_aio_engine(fb::parse_wml("define process name=p {thread name=t {flowop aiowait "
                                          "name=w}}\n",
                                          "t.f"),
                            "io_uring", "t.f") == nullptr);
}

TEST_CASE("buffered aiowrite with aio_engine=libaio is refused with exit code 2, nothing written") {
  const iobench::test::TempDir target("fbaiocli");
  const iobench::test::TempDir files("fbaioclif");
  const fs::path f = files.path() / "aio.f";
  filebench_test::write_file(f, kOneAiowrite);
  const auto result =
      iobench::test::run_cli({"run", "filebench", "-d", target.path().string(),
                              "file=" + f.string(), "aio_engine=libaio", "time_limit=1s"});
  CHECK(result.exit_code == 2);
  INFO(result.err);
  // Where libaio is not available at all the refusal names that instead; both give the fix.
  CHECK((result.err.find(f.string() + ":3:10: flowop aiowrite 'aw' is buffered and engine "
                                      "libaio is asynchronous only with O_DIRECT") !=
             std::string::npos ||
         result.err.find(f.string() + ":3:10: flowop aiowrite 'aw' needs engine libaio") !=
             std::string::npos));
  CHECK(target.entries().empty());
}

TEST_CASE("aiowrite needs random and iosize, directio is refused elsewhere, workingset parses") {
  CHECK(filebench_test::wml_error_of(
            "define file name=f,size=4k\n"
            "define process name=p {thread name=t {flowop aiowrite name=aw,filename=f,"
            "iosize=4k}}\n") ==
        "t.f:2:46: flowop aiowrite 'aw' needs random: filebench's aiowrite writes at random "
        "offsets only");
  CHECK(filebench_test::wml_error_of(
            "define file name=f,size=4k\n"
            "define process name=p {thread name=t {flowop aiowrite name=aw,filename=f,"
            "random}}\n") == "t.f:2:46: flowop aiowrite 'aw' needs iosize=BYTES");
  CHECK(filebench_test::wml_error_of(
            "define file name=f,size=4k\n"
            "define process name=p {thread name=t {flowop fsync name=r,filename=f,"
            "directio}}\n") ==
        "t.f:2:70: attribute 'directio' of flowop fsync is accepted by filebench but not "
        "modelled by iobench yet; remove it");
  const fb::WmlModel m = fb::parse_wml(
      "define file name=f,size=64k\n"
      "define process name=p {thread name=t {flowop read name=r,filename=f,iosize=1k,random,"
      "workingset=16k}}\n",
      "t.f");
  CHECK(m.processes[0].threads[0].flowops[0].workingset == 16 * 1024);
}
