// directio on the flowops that open, read or write files: O_DIRECT, seen through what only
// O_DIRECT does on the target's file system (an unaligned offset refused with EINVAL, written
// pages left out of the page cache), and the parse errors of the attribute.
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iobench/error.hpp>
#include <iobench/registry.hpp>
#include <iobench/runner.hpp>
#include <string>
#include <vector>

#include "plugins/filebench/wml_parser.hpp"
#include "tests/filebench/filebench_test_support.hpp"
#include "tests/filebench/wml_test_helpers.hpp"
#include "tests/support/test_support.hpp"

namespace fs = std::filesystem;
namespace fb = iobench::plugins::filebench;
using filebench_test::op;

namespace {

/// What O_DIRECT does in `dir`: refused at open (EINVAL: tmpfs before Linux 6.6), enforced (an
/// unaligned write fails with EINVAL: ext4, xfs, btrfs), or accepted without alignment.
enum class DirectIo { kRefused, kEnforced, kLoose };

DirectIo probe_direct_io(const fs::path& dir) {
  const fs::path probe = dir / "probe";
  const int fd = ::open(probe.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_DIRECT, 0644);
  if (fd < 0) {
    REQUIRE(errno == EINVAL);
    return DirectIo::kRefused;
  }
  const std::vector<char> bytes(100, 'x');
  const ssize_t n = ::pwrite(fd, bytes.data(), bytes.size(), 0);
  const int err = errno;
  ::close(fd);
  fs::remove(probe);
  if (n < 0 && err == EINVAL) return DirectIo::kEnforced;
  return DirectIo::kLoose;
}

iobench::StepResult run_any(const iobench::test::TempDir& target, const std::string& text,
                            bool keep) {
  const iobench::test::TempDir files("fbdiof");
  const fs::path f = files.path() / "d.f";
  filebench_test::write_file(f, text);
  const iobench::Registry registry = iobench::test::make_full_registry();
  iobench::RunOptions options;
  options.keep_files = keep;
  iobench::Runner runner(registry, options);
  const iobench::Step step{.name = "filebench",
                           .workload = "filebench",
                           .params = {{"file", f.string()}, {"time_limit", "30s"}},
                           .targets = {target.path()},
                           .seed = 3};
  iobench::test::CapturingReporter reporter;
  runner.run(std::span<const iobench::Step>(&step, 1), reporter);
  REQUIRE(reporter.steps.size() == 1);
  return reporter.steps.front();
}

// 16 writes of 4 KiB to an empty file, with or without directio.
std::string sixteen_writes(bool directio) {
  return std::string(
             "define file name=g,size=0,prealloc\n"
             "define process name=p { thread name=t,memsize=64k {\n"
             "  flowop write name=w,filename=g,fd=1,iosize=4k") +
         (directio ? ",directio" : "") +
         "\n"
         "  flowop finishoncount name=fin,value=16,target=w\n"
         "}}\n";
}

}  // namespace

TEST_CASE("directio is taken by the flowops that open, read or write a file") {
  const fb::WmlModel m = fb::parse_wml(
      "define fileset name=s,entries=2,dirwidth=2,size=8k,prealloc\n"
      "define process name=p { thread name=t {\n"
      "  flowop createfile name=c,filesetname=s,fd=2,directio\n"
      "  flowop openfile name=o,filesetname=s,fd=1,directio=true\n"
      "  flowop read name=r,fd=1,iosize=4k,directio\n"
      "  flowop write name=w,fd=1,iosize=4k,directio=false\n"
      "  flowop appendfile name=a,fd=1,iosize=512,directio\n"
      "  flowop readwholefile name=rw,fd=1,iosize=8k,directio\n"
      "  flowop writewholefile name=ww,fd=2,srcfd=1,iosize=8k,directio\n"
      "  flowop appendfilerand name=ar,fd=1,iosize=1k,directio\n"
      "} }\n",
      "d.f");
  const auto& flowops = m.processes.front().threads.front().flowops;
  std::vector<bool> direct;
  for (const auto& f : flowops) direct.push_back(f.directio);
  CHECK(direct == std::vector<bool>{true, true, true, false, true, true, true, true});
  // A whole number is a flag, as filebench's randomread.f writes it (set $directio=0).
  const fb::WmlModel numbers = fb::parse_wml(
      "set $directio=0\nset $on=1\ndefine file name=f,size=8k\n"
      "define process name=p { thread name=t {\n"
      "  flowop read name=r,filename=f,iosize=4k,directio=$directio\n"
      "  flowop write name=w,filename=f,iosize=4k,directio=$on } }\n",
      "n.f");
  CHECK_FALSE(numbers.processes.front().threads.front().flowops[0].directio);
  CHECK(numbers.processes.front().threads.front().flowops[1].directio);
  CHECK_THROWS_WITH(fb::parse_wml("define file name=f,size=8k\n"
                                  "define process name=p { thread name=t {\n"
                                  "  flowop fsync name=s,fd=1,directio } }\n",
                                  "d.f"),
                    Catch::Contains("d.f:3:28") && Catch::Contains("'directio' of flowop fsync") &&
                        Catch::Contains("not modelled"));
}

TEST_CASE("a directio flowop's iosize is a multiple of 512 bytes, else refused where it stands") {
  CHECK_THROWS_WITH(fb::parse_wml("define file name=f,size=8k\n"
                                  "define process name=p { thread name=t {\n"
                                  "  flowop read name=r,filename=f,iosize=1000,directio } }\n",
                                  "d.f"),
                    Catch::Contains("d.f:3:10") && Catch::Contains("iosize 1000") &&
                        Catch::Contains("multiple of 512") && Catch::Contains("iosize=1024"));
  // Without directio any iosize goes.
  CHECK_NOTHROW(
      fb::parse_wml("define file name=f,size=8k\n"
                    "define process name=p { thread name=t {\n"
                    "  flowop read name=r,filename=f,iosize=1000 } }\n",
                    "d.f"));
}

TEST_CASE("directio opens with O_DIRECT: an unaligned append fails naming the flowop and EINVAL") {
  const iobench::test::TempDir target("fbdio1");
  const DirectIo kind = probe_direct_io(target.path());
  if (kind == DirectIo::kLoose) {
    WARN("skipped: O_DIRECT in " << target.path() << " takes unaligned writes");
    return;
  }
  // The file is 100 bytes: a 512-byte O_DIRECT write at its end (offset 100) is unaligned.
  const std::string text =
      "define file name=f,size=100,prealloc\n"
      "define process name=p { thread name=t,memsize=4k {\n"
      "  flowop appendfile name=app,filename=f,fd=1,iosize=512,directio\n"
      "  flowop finishoncount name=fin,value=4,target=app\n"
      "}}\n";
  const iobench::StepResult direct = run_any(target, text, false);
  CHECK(direct.status == iobench::Status::kFailed);
  CHECK_THAT(direct.message, Catch::Contains("flowop app") &&
                                 Catch::Contains(std::strerror(EINVAL)) &&
                                 Catch::Contains("O_DIRECT"));
  if (kind == DirectIo::kRefused)
    CHECK_THAT(direct.message, Catch::Contains("(open with O_DIRECT"));
  CHECK(target.entries().empty());
  // The same flowop without directio appends through the page cache.
  std::string buffered = text;
  buffered.erase(buffered.find(",directio"), std::strlen(",directio"));
  const iobench::StepResult ok = run_any(target, buffered, false);
  INFO(ok.message);
  CHECK(ok.status == iobench::Status::kOk);
}

TEST_CASE("directio writes leave the page cache empty and move the bytes asked") {
  const iobench::test::TempDir target("fbdio2");
  if (probe_direct_io(target.path()) != DirectIo::kEnforced) {
    WARN("skipped: no enforcing O_DIRECT in " << target.path());
    return;
  }
  const iobench::test::TempDir direct_target("fbdio3");
  const filebench_test::Run direct = [&] {
    const iobench::test::TempDir files("fbdio4");
    filebench_test::write_file(files.path() / "d.f", sixteen_writes(true));
    return filebench_test::run_filebench(direct_target, files.path() / "d.f", "30s", 3);
  }();
  CHECK(op(direct, "w").ops == 16);
  CHECK(op(direct, "w").bytes == 16 * 4096);
  REQUIRE(fs::file_size(direct.run_dir / "g") == 16 * 4096);
  CHECK(filebench_test::pages_in_cache(direct.run_dir / "g") == 0);
  // Buffered: the 16 pages written stay cached (nothing evicts 64 KiB that fast).
  const filebench_test::Run buffered = [&] {
    const iobench::test::TempDir files("fbdio5");
    filebench_test::write_file(files.path() / "b.f", sixteen_writes(false));
    return filebench_test::run_filebench(target, files.path() / "b.f", "30s", 3);
  }();
  CHECK(op(buffered, "w").bytes == 16 * 4096);
  CHECK(filebench_test::pages_in_cache(buffered.run_dir / "g") == 16);
}
