// bonnie direct=true: O_DIRECT on every block phase (block output, rewrite, block input, seeks),
// never on the per-char ones; a deliberate difference from bonnie++ 2.00a -D, which sets it
// only on the opens that create the file.
#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <iobench/engine.hpp>
#include <iobench/error.hpp>
#include <iobench/runner.hpp>
#include <iobench/testing.hpp>
#include <iobench/workload.hpp>
#include <optional>
#include <sstream>

#include "plugins/bonnie/io_workers.hpp"
#include "tests/data/direct_context.hpp"
#include "tests/support/test_support.hpp"

using namespace iobench;
using plugins::bonnie::PhaseId;
namespace fs = std::filesystem;

namespace {

using test::DirectContext;

// The open(2) flags of every descriptor of this process open on `file`, from /proc/self/fdinfo.
std::vector<int> open_flags_of(const fs::path& file) {
  std::vector<int> flags;
  for (const auto& entry : fs::directory_iterator("/proc/self/fd")) {
    std::error_code ec;
    if (fs::read_symlink(entry.path(), ec) != file) continue;
    std::ifstream info("/proc/self/fdinfo/" + entry.path().filename().string());
    for (std::string line; std::getline(info, line);) {
      if (line.rfind("flags:", 0) == 0) flags.push_back(std::stoi(line.substr(6), nullptr, 8));
    }
  }
  return flags;
}

bool supports_direct(const fs::path& dir) {
  const auto probe = dir / "probe";
  const int fd = ::open(probe.c_str(), O_CREAT | O_EXCL | O_RDWR | O_DIRECT, 0600);
  if (fd >= 0) ::close(fd);
  fs::remove(probe);
  return fd >= 0;
}

// `file` is in `dir`, the view of its directory the copy's workers open it through.
plugins::bonnie::IoArgs args_for(const ConfinedDir& dir, const fs::path& file, bool direct,
                                 std::atomic<std::uint64_t>& tickets) {
  return plugins::bonnie::IoArgs{.run_dir = dir,
                                 .name = file.filename().string(),
                                 .file = file,
                                 .chunk_bytes = 8192,
                                 .file_bytes = 1 << 20,
                                 .per_char_bytes = 64 * 1024,
                                 .direct = direct,
                                 .seeks = 64,
                                 .seed = 1,
                                 .next_ticket = &tickets};
}

// A ramfs mounted on a fresh TempDir: a filesystem that refuses O_DIRECT (EINVAL; tmpfs takes
// it since Linux 6.6). Root only.
class ScopedRamfs {
 public:
  ScopedRamfs() {
    mounted_ =
        ::geteuid() == 0 &&
        std::system(
            ("mount -t ramfs iobench-test " + dir_.path().string() + " 2>/dev/null").c_str()) == 0;
  }
  ~ScopedRamfs() {
    if (mounted_) (void)std::system(("umount " + dir_.path().string()).c_str());
  }
  ScopedRamfs(const ScopedRamfs&) = delete;
  ScopedRamfs& operator=(const ScopedRamfs&) = delete;
  [[nodiscard]] bool mounted() const noexcept { return mounted_; }
  [[nodiscard]] const fs::path& path() const noexcept { return dir_.path(); }

 private:
  test::TempDir dir_{"ramfs"};
  bool mounted_ = false;
};

}  // namespace

TEST_CASE("bonnie direct=true opens every block phase with O_DIRECT, per-char phases without",
          "[data][bonnie][direct]") {
  test::TempDir dir("bonniedirect");
  if (!supports_direct(dir.path())) {
    WARN("skipped: the test directory's filesystem refuses O_DIRECT");
    return;
  }
  const auto file = fs::canonical(dir.path()) / "Bonnie.0";
  const OwnedConfinedDir confined = test::open_confined(dir.path());
  for (const bool direct : {true, false}) {
    std::atomic<std::uint64_t> tickets{0};
    const auto args = args_for(confined, file, direct, tickets);
    // In bonnie++'s order: each phase opens the file left by the ones before.
    for (const PhaseId id : {PhaseId::kPutc, PhaseId::kPutBlock, PhaseId::kRewrite, PhaseId::kGetc,
                             PhaseId::kGetBlock, PhaseId::kSeeks}) {
      const bool block_phase = id != PhaseId::kPutc && id != PhaseId::kGetc;
      DirectContext context;
      const auto worker = plugins::bonnie::make_io_worker(id, args);
      const std::vector<int> flags = open_flags_of(file);
      INFO("phase " << static_cast<int>(id) << ", direct=" << direct);
      REQUIRE(flags.size() == 1);
      CHECK(((flags.front() & O_DIRECT) != 0) == (direct && block_phase));
      worker->run(context.ctx);
      CHECK(context.harness.ops()[0].ops > 0);
    }
    fs::remove(file);
  }
}

TEST_CASE("bonnie direct=true on a filesystem without O_DIRECT names the phase and O_DIRECT",
          "[data][bonnie][direct]") {
  const ScopedRamfs tmpfs;
  if (!tmpfs.mounted()) {
    WARN("skipped: mounting a ramfs needs root");
    return;
  }
  REQUIRE_FALSE(supports_direct(tmpfs.path()));
  const Registry registry = test::make_full_registry();
  test::CapturingReporter reporter;
  // ramfs has no size, so statvfs says 0 bytes free: skip the free-space check.
  const RunResult run = Runner(registry, RunOptions{.skip_space_check = true})
                            .run(std::vector<Step>{Step{.workload = "bonnie",
                                                        .params = {{"size", "2m"},
                                                                   {"files", "0"},
                                                                   {"ram", "0"},
                                                                   {"per_char", "1m"},
                                                                   {"direct", "true"}},
                                                        .targets = {tmpfs.path()}}},
                                 reporter);
  REQUIRE(run.steps.size() == 1);
  const StepResult& step = run.steps.front();
  CHECK(step.status == Status::kFailed);
  CHECK_THAT(step.message, Catch::StartsWith("phase 'put_block': ") &&
                               Catch::Contains("create with O_DIRECT (direct=true") &&
                               Catch::Contains("Invalid argument"));
  // The per-char output before it ran buffered, and the result says so.
  REQUIRE_FALSE(step.phases.empty());
  CHECK(step.phases.front().name == "putc");
  CHECK(step.phases.front().status == Status::kOk);
  bool warned = false;
  for (const auto& w : step.warnings) warned = warned || w.find("per-char phases") != w.npos;
  CHECK(warned);
  CHECK(test::TempDir::list(tmpfs.path()).empty());

  // The later block phases ask for O_DIRECT too, so on ramfs their opens fail the same way.
  std::atomic<std::uint64_t> tickets{0};
  const auto file = tmpfs.path() / "Bonnie.0";
  { std::ofstream(file) << std::string(1 << 20, 'x'); }
  const OwnedConfinedDir confined = test::open_confined(tmpfs.path());
  for (const PhaseId id : {PhaseId::kRewrite, PhaseId::kGetBlock, PhaseId::kSeeks}) {
    CHECK_THROWS_WITH(plugins::bonnie::make_io_worker(id, args_for(confined, file, true, tickets)),
                      Catch::Contains("open with O_DIRECT (direct=true"));
  }
}
