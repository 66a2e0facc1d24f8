// A disk worker thread's descriptor table (WorkerContext::own_descriptor_table()): its own, so
// that the kernel takes no reference on the file at each pread, with the run's figures unchanged
// and no descriptor left open afterwards.
#include <linux/kcmp.h>
#include <sched.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iobench/engine.hpp>
#include <iobench/registry.hpp>
#include <iobench/runner.hpp>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <utility>

#include "tests/support/test_support.hpp"

using namespace iobench;

namespace {

// What the probe engine saw where a worker opened its file.
struct Seen {
  std::mutex mutex;
  int opens = 0;
  bool in_main_thread = false;  // an open in the process's main thread
  long kcmp = -1;               // kcmp(KCMP_FILES) of the process and the opening thread; 0: same
  int kcmp_errno = 0;
  dev_t dev = 0;
  ino_t ino = 0;
};

// psync, noting in `seen` which descriptor table each open() lands in.
class ProbeEngine final : public Engine {
 public:
  ProbeEngine(std::unique_ptr<Engine> inner, Seen& seen) : inner_(std::move(inner)), seen_(seen) {}
  [[nodiscard]] std::string name() const override { return "probe"; }
  [[nodiscard]] EngineCaps caps() const override { return inner_->caps(); }
  [[nodiscard]] std::unique_ptr<IoFile> open(const FileLocation& location,
                                             const OpenOptions& options) const override {
    std::unique_ptr<IoFile> file = inner_->open(location, options);
    const auto tid = static_cast<pid_t>(::syscall(SYS_gettid));
    errno = 0;
    // The main thread's table (the process's) against the opening thread's: 0 the same.
    const long same = ::syscall(SYS_kcmp, ::getpid(), tid, KCMP_FILES, 0, 0);
    const int err = errno;
    struct stat st {};  // (Catch2's assertions are for the test's thread only: checked there)
    if (::fstat(file->fd(), &st) != 0) st = {};
    const std::lock_guard lock(seen_.mutex);
    ++seen_.opens;
    seen_.in_main_thread = seen_.in_main_thread || tid == ::getpid();
    seen_.kcmp = same;
    seen_.kcmp_errno = err;
    seen_.dev = st.st_dev;
    seen_.ino = st.st_ino;
    return file;
  }

 private:
  std::unique_ptr<Engine> inner_;
  Seen& seen_;
};

// (device, inode) of every descriptor in the process's table but those on procfs (the listing's
// own directory among them).
std::multiset<std::pair<dev_t, ino_t>> open_files() {
  struct stat proc {};
  REQUIRE(::stat("/proc/self", &proc) == 0);
  std::vector<std::filesystem::path> links;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd"))
    links.push_back(entry.path());
  std::multiset<std::pair<dev_t, ino_t>> files;
  for (const auto& link : links) {
    struct stat st {};
    if (::stat(link.c_str(), &st) == 0 && st.st_dev != proc.st_dev)
      files.emplace(st.st_dev, st.st_ino);
  }
  return files;
}

// Why a thread cannot take a table of its own, or kcmp cannot compare tables, here (empty: both
// work).
std::string refused_here() {
  int unshare_errno = 0;
  std::thread([&unshare_errno] {
    if (::unshare(CLONE_FILES) != 0) unshare_errno = errno;
  }).join();
  if (unshare_errno != 0) {
    return std::string("unshare(CLONE_FILES) is refused here (seccomp?): ") +
           std::strerror(unshare_errno);
  }
  if (::syscall(SYS_kcmp, ::getpid(), ::getpid(), KCMP_FILES, 0, 0) != 0) {
    return std::string("kcmp(KCMP_FILES) is refused here (seccomp?): ") + std::strerror(errno);
  }
  return {};
}

}  // namespace

TEST_CASE("a disk worker thread opens its file in a descriptor table of its own", "[disk]") {
  if (const std::string why = refused_here(); !why.empty()) {
    WARN("skipped: " << why);
    return;
  }
  Registry registry = test::make_full_registry();
  Seen seen;
  registry.add_engine({.name = "probe",
                       .summary = "psync, noting the descriptor table of each open",
                       .options = {},
                       .factory = [&registry, &seen](const EngineSpec&) {
                         return std::make_unique<ProbeEngine>(registry.create_engine("psync"),
                                                              seen);
                       }});
  test::TempDir dir("disk-fdtable");
  const auto run_disk = [&registry, &dir](const std::string& engine) {
    test::CapturingReporter reporter;
    return Runner(registry, RunOptions{})
        .run(std::vector<Step>{Step{.workload = "disk",
                                    .params = {{"operation", "read"},
                                               {"bs", "4k"},
                                               {"blocks", "16"},
                                               {"seek", "random"},
                                               {"engine", engine}},
                                    .targets = {dir.path()}}},
             reporter);
  };
  // A first run opens what a run keeps open for the process's life (if anything), so that the
  // second leaves the process's table as it found it.
  REQUIRE(run_disk("psync").status == Status::kOk);
  const auto before = open_files();
  const RunResult run = run_disk("probe");
  REQUIRE(run.status == Status::kOk);
  const PhaseResult& phase = run.steps.at(0).phases.back();
  CHECK(phase.name == "read");
  CHECK(phase.ops.at(0).ops == 16);
  CHECK(phase.ops.at(0).bytes == 65536);
  CHECK(phase.ops.at(0).latency.count() == 16);

  const std::lock_guard lock(seen.mutex);
  REQUIRE(seen.opens == 1);
  REQUIRE(seen.ino != 0);
  CHECK_FALSE(seen.in_main_thread);
  INFO("kcmp: " << seen.kcmp << " (" << std::strerror(seen.kcmp_errno) << ")");
  REQUIRE(seen.kcmp >= 0);
  if (IOBENCH_TEST_UNDER_TSAN) {
    // ThreadSanitizer keeps one record per descriptor number for the whole process: there the
    // worker keeps the process's table by design.
    WARN("ThreadSanitizer build: the worker's table stays the process's (checked as such)");
    CHECK(seen.kcmp == 0);
  } else {
    CHECK(seen.kcmp != 0);  // 1, 2 or 3: another table
  }
  // The worker closed its file in its own table, and the process's holds what it held before.
  const auto after = open_files();
  CHECK(after.count({seen.dev, seen.ino}) == 0);
  CHECK(after == before);
}
