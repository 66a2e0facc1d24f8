// The system calls each flowop makes, as filebench 1.5-alpha3's flowop library makes them: one
// worker thread of a .f file runs in the test's process (WorkerHarness) under a seccomp filter
// whose every call is sent to a supervisor thread (SECCOMP_RET_USER_NOTIF), which records it
// (number, arguments, the names and /proc/self/fdinfo flags they refer to) and lets it continue.
// Skipped, saying why, under sanitizers (their interceptors add calls and locks) and where the
// kernel or a container refuses such a filter.
#include <dirent.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iobench/confined_dir.hpp>
#include <iobench/engine.hpp>
#include <iobench/error.hpp>
#include <iobench/params.hpp>
#include <iobench/registry.hpp>
#include <iobench/testing.hpp>
#include <iobench/workload.hpp>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "tests/filebench/wml_test_helpers.hpp"
#include "tests/support/test_support.hpp"

namespace fs = std::filesystem;

namespace {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
#else
constexpr bool kSanitized = false;
#endif

/// One system call of the traced thread, as the supervisor saw it before the kernel ran it.
struct Call {
  long nr = -1;
  std::uint64_t args[6] = {};
  char name[192] = {};           ///< the path argument (openat, openat2, newfstatat, statx, ...)
  char fd_path[192] = {};        ///< where args[0] (a descriptor) leads, from /proc/self/fd
  long fd_flags = -1;            ///< args[0]'s open flags from /proc/self/fdinfo (-1: none)
  std::uint64_t open_flags = 0;  ///< openat's flags, openat2's how.flags
  std::uint64_t resolve = 0;     ///< openat2's how.resolve
};

// No allocation from here to the end of the supervisor's loop: the traced thread may hold
// malloc's lock while one of its calls waits for the supervisor.
void copy_string(const void* from, char* to, std::size_t size) {
  if (from == nullptr) return;
  const char* text = static_cast<const char*>(from);
  const std::size_t n = ::strnlen(text, size - 1);
  std::memcpy(to, text, n);
  to[n] = '\0';
}

/// Whether `path` is the fileset "s" (the tests' fileset name) or lies under it.
bool in_fileset_s(const std::string& path) {
  return path.ends_with("/s") || path.find("/s/") != std::string::npos;
}

void describe_fd(long fd, Call& call) {
  if (fd < 0) return;
  char link[64];
  std::snprintf(link, sizeof link, "/proc/self/fd/%ld", fd);
  const ssize_t n = ::readlink(link, call.fd_path, sizeof call.fd_path - 1);
  call.fd_path[n > 0 ? n : 0] = '\0';
  char info_path[64];
  std::snprintf(info_path, sizeof info_path, "/proc/self/fdinfo/%ld", fd);
  const int info = ::open(info_path, O_RDONLY | O_CLOEXEC);
  if (info < 0) return;
  char text[512];
  const ssize_t got = ::read(info, text, sizeof text - 1);
  ::close(info);
  if (got <= 0) return;
  text[got] = '\0';
  if (const char* flags = std::strstr(text, "flags:"))
    call.fd_flags = std::strtol(flags + 6, nullptr, 8);
}

void describe(Call& c) {
  const auto ptr = [&c](int i) { return reinterpret_cast<const void*>(c.args[i]); };
  switch (c.nr) {
    case SYS_openat:
      copy_string(ptr(1), c.name, sizeof c.name);
      c.open_flags = c.args[2];
      break;
    case SYS_openat2:
      copy_string(ptr(1), c.name, sizeof c.name);
      if (ptr(2) != nullptr) {
        c.open_flags = static_cast<const open_how*>(ptr(2))->flags;
        c.resolve = static_cast<const open_how*>(ptr(2))->resolve;
      }
      break;
    case SYS_newfstatat:
    case SYS_statx:
    case SYS_unlinkat:
    case SYS_mkdirat:
      copy_string(ptr(1), c.name, sizeof c.name);
      break;
#ifdef SYS_open
    case SYS_stat:
    case SYS_lstat:
    case SYS_open:
      copy_string(ptr(0), c.name, sizeof c.name);
      break;
#endif
    default:
      break;
  }
  switch (c.nr) {
    case SYS_openat:
    case SYS_openat2:
    case SYS_read:
    case SYS_write:
    case SYS_pread64:
    case SYS_pwrite64:
    case SYS_lseek:
    case SYS_fstat:
    case SYS_newfstatat:
    case SYS_statx:
    case SYS_getdents64:
    case SYS_fcntl:
    case SYS_close:
    case SYS_fsync:
      describe_fd(static_cast<long>(static_cast<int>(c.args[0])), c);
      break;
    default:
      break;
  }
}

/// Why user-notification filters cannot be used here, or "" where they can.
std::string tracing_unavailable() {
  if (kSanitized) return "a sanitizer build (its interceptors change the calls)";
  utsname u{};
  int major = 0;
  int minor = 0;
  if (::uname(&u) != 0 || std::sscanf(u.release, "%d.%d", &major, &minor) != 2)
    return "no kernel release";
  // SECCOMP_USER_NOTIF_FLAG_CONTINUE came with Linux 5.5.
  if (major < 5 || (major == 5 && minor < 5))
    return std::string("kernel ") + u.release + " lacks SECCOMP_USER_NOTIF_FLAG_CONTINUE (5.5)";
  return "";
}

/// Runs `body` in a thread of its own whose every system call is recorded; returns them, or
/// sets `why` (a filter could not be installed) and returns none.
std::vector<Call> trace(const std::function<void()>& body, std::string& why) {
  std::vector<Call> calls;
  calls.reserve(20000);
  seccomp_notif_sizes sizes{};
  if (::syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes) != 0) {
    why = std::string("seccomp(SECCOMP_GET_NOTIF_SIZES): ") + std::strerror(errno);
    return {};
  }
  std::vector<char> request(std::max<std::size_t>(sizes.seccomp_notif, sizeof(seccomp_notif)));
  std::vector<char> response(
      std::max<std::size_t>(sizes.seccomp_notif_resp, sizeof(seccomp_notif_resp)));
  std::atomic<int> listener{-2};  // -2: not yet; -1: refused (install_errno says why)
  std::atomic<int> install_errno{0};
  std::atomic<bool> done{false};
  std::atomic<int> send_errno{0};  // the supervisor could not let a call go on: why
  std::exception_ptr failure;

  std::thread supervisor([&] {
    while (listener.load() == -2) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    const int fd = listener.load();
    if (fd < 0) return;
    while (!done.load()) {
      pollfd p{fd, POLLIN, 0};
      if (::poll(&p, 1, 20) <= 0 || (p.revents & POLLIN) == 0) continue;
      std::memset(request.data(), 0, request.size());
      auto* req = reinterpret_cast<seccomp_notif*>(request.data());
      if (::ioctl(fd, SECCOMP_IOCTL_NOTIF_RECV, req) != 0) continue;
      if (calls.size() < calls.capacity()) {
        Call c;
        c.nr = req->data.nr;
        for (int i = 0; i < 6; ++i) c.args[i] = req->data.args[i];
        describe(c);
        calls.push_back(c);
      }
      std::memset(response.data(), 0, response.size());
      auto* resp = reinterpret_cast<seccomp_notif_resp*>(response.data());
      resp->id = req->id;
      resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
      if (::ioctl(fd, SECCOMP_IOCTL_NOTIF_SEND, resp) != 0 && errno != ENOENT) {
        // The call would wait forever: closing the listener fails it and every later call of
        // the traced thread (ENOSYS), which then ends; the test skips, saying why. (ENOENT: the
        // call was interrupted and is gone.)
        send_errno = errno;
        break;
      }
    }
    ::close(fd);
  });

  std::thread traced([&] {
    sock_filter notify_all = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF);
    sock_fprog program{1, &notify_all};
    if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
      install_errno = errno;
      listener = -1;
      return;
    }
    const long fd =
        ::syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &program);
    if (fd < 0) {
      install_errno = errno;
      listener = -1;
      return;
    }
    listener = static_cast<int>(fd);  // from here every call waits for the supervisor
    try {
      body();
    } catch (...) {
      failure = std::current_exception();
    }
  });
  traced.join();
  done = true;
  supervisor.join();
  if (listener.load() == -1) {
    why = std::string("seccomp(SECCOMP_SET_MODE_FILTER, NEW_LISTENER): ") +
          std::strerror(install_errno.load());
    return {};
  }
  if (send_errno.load() != 0) {
    why = std::string("SECCOMP_IOCTL_NOTIF_SEND with SECCOMP_USER_NOTIF_FLAG_CONTINUE: ") +
          std::strerror(send_errno.load());
    return {};  // the traced body failed because its calls did: not its own failure
  }
  if (failure) std::rethrow_exception(failure);
  REQUIRE(calls.size() < calls.capacity());
  return calls;
}

/// The untimed parts of a step the runner would do, for one worker in this process.
class Prepare final : public iobench::PrepareContext {
 public:
  Prepare(std::span<const iobench::Target> targets, const iobench::Engine& engine)
      : targets_(targets), engine_(engine) {}
  [[nodiscard]] std::span<const iobench::Target> targets() const override { return targets_; }
  [[nodiscard]] const iobench::Engine& engine() const override { return engine_; }
  [[nodiscard]] std::uint64_t seed() const override { return 1234; }
  void set_attribute(const std::string&, iobench::AttributeValue) override {}
  void warn(const std::string&) override {}
  void skip_remaining_phases(const std::string&) override {}

 private:
  std::span<const iobench::Target> targets_;
  const iobench::Engine& engine_;
};

/// A .f file's first thread, prepared on a fresh target, run for `ops` ops (`extra` params
/// besides the file).
class FlowopRun {
 public:
  FlowopRun(const std::string& text, std::uint64_t ops,
            std::map<std::string, std::string> extra = {})
      : files_("fbscf"), target_("fbsct") {
    const fs::path f = files_.path() / "w.f";
    filebench_test::write_file(f, text);
    const iobench::Registry registry = iobench::test::make_full_registry();
    const iobench::WorkloadInfo& info = registry.workload("filebench");
    extra["file"] = f.string();
    extra["time_limit"] = "30s";
    const iobench::Params params = iobench::Params::validate(info.params, extra, "filebench");
    paths_.push_back(target_.path());
    workload_ = info.factory(iobench::WorkloadSetup{params, paths_, *engine_});
    run_dir_ = iobench::test::open_confined(target_.path());
    targets_.resize(1);
    targets_[0].user_path = target_.path();
    targets_[0].run_dir = run_dir_;
    Prepare prepare(targets_, *engine_);
    workload_->prepare(prepare);
    phases_ = workload_->phases();
    harness_ = std::make_unique<iobench::testing::WorkerHarness>(
        phases_[0], targets_, *engine_, iobench::testing::WorkerHarnessOptions{.ops_limit = ops});
    worker_ = workload_->make_worker(0, harness_->context());
  }

  /// Runs the worker, recording its calls; false (with `why`) where they cannot be recorded.
  bool run_traced(std::string& why) {
    calls_ = trace([this] { harness_->run(*worker_); }, why);
    return why.empty();
  }
  void run() { harness_->run(*worker_); }

  [[nodiscard]] const std::vector<Call>& calls() const { return calls_; }
  [[nodiscard]] const fs::path& target() const { return target_.path(); }
  /// Ops and bytes of op `name` of the run phase.
  [[nodiscard]] const iobench::OpStats& op(const std::string& name) const {
    const auto& names = phases_[0].op_names;
    const auto at = std::find(names.begin(), names.end(), name);
    REQUIRE(at != names.end());
    return harness_->ops()[static_cast<std::size_t>(at - names.begin())];
  }

 private:
  iobench::test::TempDir files_;
  iobench::test::TempDir target_;
  std::unique_ptr<iobench::Engine> engine_ = iobench::make_psync_engine();
  std::vector<fs::path> paths_;
  std::unique_ptr<iobench::Workload> workload_;
  iobench::OwnedConfinedDir run_dir_;
  std::vector<iobench::Target> targets_;
  std::vector<iobench::PhaseSpec> phases_;
  std::unique_ptr<iobench::testing::WorkerHarness> harness_;
  std::unique_ptr<iobench::PhaseWorker> worker_;
  std::vector<Call> calls_;
};

bool ends_with(const char* text, const std::string& tail) {
  const std::string s(text);
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

bool is_open(const Call& c) {
#ifdef SYS_open
  if (c.nr == SYS_open) return true;
#endif
  return c.nr == SYS_openat || c.nr == SYS_openat2;
}

/// An open's path: the directory its descriptor argument leads to, "/", the name opened.
std::string opened_path(const Call& c) { return std::string(c.fd_path) + "/" + c.name; }

/// An fstat of descriptor `fd` (fstat, or newfstatat/statx of "" with AT_EMPTY_PATH).
bool is_fstat_of(const Call& c, long fd) {
  if (static_cast<long>(static_cast<int>(c.args[0])) != fd) return false;
  if (c.nr == SYS_fstat) return true;
  if (c.nr == SYS_newfstatat) return c.name[0] == '\0' && (c.args[3] & AT_EMPTY_PATH) != 0;
  if (c.nr == SYS_statx) return c.name[0] == '\0' && (c.args[2] & AT_EMPTY_PATH) != 0;
  return false;
}

/// A stat by a name (stat, lstat, or newfstatat/statx of a non-empty path).
bool is_stat_by_name(const Call& c) {
#ifdef SYS_stat
  if (c.nr == SYS_stat || c.nr == SYS_lstat) return true;
#endif
  return (c.nr == SYS_newfstatat || c.nr == SYS_statx) && c.name[0] != '\0';
}

/// The calls on descriptor `fd`'s file (those whose args[0] leads to a path ending in `tail`).
std::vector<Call> calls_on(const std::vector<Call>& calls, const std::string& tail, long nr) {
  std::vector<Call> out;
  for (const Call& c : calls) {
    if (c.nr == nr && ends_with(c.fd_path, tail)) out.push_back(c);
  }
  return out;
}

std::vector<std::uint64_t> sizes_of(const std::vector<Call>& calls) {
  std::vector<std::uint64_t> out;
  for (const Call& c : calls) out.push_back(c.args[2]);
  return out;
}

#define SKIP_UNLESS_TRACEABLE()                                    \
  do {                                                             \
    const std::string why_not = tracing_unavailable();             \
    if (!why_not.empty()) {                                        \
      WARN("skipped: system calls cannot be traced: " << why_not); \
      return;                                                      \
    }                                                              \
  } while (false)

#define RUN_TRACED(run)                                            \
  do {                                                             \
    std::string why_not;                                           \
    if (!(run).run_traced(why_not)) {                              \
      WARN("skipped: system calls cannot be traced: " << why_not); \
      return;                                                      \
    }                                                              \
  } while (false)

}  // namespace

TEST_CASE(
    "createfile stats the parent directory before the create and writewholefile "
    "writes whole iosize blocks") {
  SKIP_UNLESS_TRACEABLE();
  FlowopRun run(
      "define fileset name=s,size=10000,entries=1,dirwidth=10\n"
      "define process name=p {thread name=t,memsize=16k {\n"
      "  flowop createfile name=c,filesetname=s,fd=1\n"
      "  flowop writewholefile name=w,srcfd=1,fd=1,iosize=4k\n"
      "  flowop closefile name=x,fd=1\n"
      "}}\n",
      3);
  RUN_TRACED(run);
  const std::vector<Call>& calls = run.calls();
  std::size_t create = calls.size();
  for (std::size_t i = 0; i < calls.size(); ++i) {
    if (is_open(calls[i]) && (calls[i].open_flags & O_CREAT) != 0) create = i;
  }
  REQUIRE(create < calls.size());
  REQUIRE(create > 0);
  // filebench's fileset_openfile: stat64 of the parent directory, then the open with O_CREAT.
  const Call& stat = calls[create - 1];
  INFO("call before the create: " << stat.nr << " on " << stat.fd_path << ", the create in "
                                  << calls[create].fd_path << " of " << calls[create].name);
  CHECK(is_fstat_of(stat, static_cast<int>(stat.args[0])));
  // The directory the create is made in (its dirfd) is the one stat'ed.
  CHECK(std::string(stat.fd_path) == calls[create].fd_path);
  CHECK(in_fileset_s(calls[create].fd_path));
  // 10000 bytes at iosize 4k: three writes of 4096, a 12288-byte file, as filebench's loop.
  const std::vector<Call> writes =
      calls_on(calls, std::string(calls[create].fd_path) + "/" + calls[create].name, SYS_write);
  CHECK(sizes_of(writes) == std::vector<std::uint64_t>{4096, 4096, 4096});
  CHECK(run.op("w").bytes == 12288);
}

TEST_CASE("readwholefile without iosize reads the file's drawn size at once from offset 0") {
  SKIP_UNLESS_TRACEABLE();
  FlowopRun run(
      "define file name=f,size=10000,prealloc\n"
      "define process name=p {thread name=t,memsize=64k {\n"
      "  flowop readwholefile name=all,filename=f,fd=1\n"
      "}}\n",
      1);
  RUN_TRACED(run);
  const std::vector<Call> seeks = calls_on(run.calls(), "/f", SYS_lseek);
  REQUIRE(seeks.size() == 1);
  CHECK(seeks[0].args[1] == 0);
  CHECK(seeks[0].args[2] == SEEK_SET);
  // filebench: iosize 0 is the working set (the file's size): one read of it, one meeting EOF.
  CHECK(sizes_of(calls_on(run.calls(), "/f", SYS_read)) ==
        std::vector<std::uint64_t>{10000, 10000});
  CHECK(run.op("all").bytes == 10000);
}

TEST_CASE("appendfilerand appends 0..iosize-2 bytes after an lseek to the end and no call for 0") {
  SKIP_UNLESS_TRACEABLE();
  FlowopRun run(
      "define file name=log,size=1k,prealloc\n"
      "define file name=never,size=1k,prealloc\n"
      "define process name=p {thread name=t,memsize=4k {\n"
      "  flowop appendfilerand name=a3,filename=log,fd=1,iosize=3\n"
      "  flowop appendfilerand name=a2,filename=never,fd=2,iosize=2\n"
      "}}\n",
      400);
  RUN_TRACED(run);
  const std::vector<Call> writes = calls_on(run.calls(), "/log", SYS_write);
  const std::vector<Call> seeks = calls_on(run.calls(), "/log", SYS_lseek);
  // iosize 3: fb_random64(3, 1) draws 0 or 1 byte, never 2.
  CHECK(run.op("a3").ops == 200);
  CHECK(writes.size() == run.op("a3").bytes);
  CHECK(writes.size() > 50);
  CHECK(writes.size() < 150);
  CHECK(sizes_of(writes) == std::vector<std::uint64_t>(writes.size(), 1));
  REQUIRE(seeks.size() == writes.size());
  for (const Call& s : seeks) CHECK(s.args[2] == SEEK_END);
  // iosize 2 always draws 0: 200 ops of no bytes and not one call on (or open of) its file.
  CHECK(run.op("a2").ops == 200);
  CHECK(run.op("a2").bytes == 0);
  std::size_t on_never = 0;
  for (const Call& c : run.calls())
    on_never += ends_with(c.name, "never") || ends_with(c.fd_path, "/never") ? 1 : 0;
  CHECK(on_never == 0);
  CHECK(fs::file_size(run.target() / "never") == 1024);
}

TEST_CASE("dsync opens the file with O_SYNC as filebench does") {
  SKIP_UNLESS_TRACEABLE();
  FlowopRun run(
      "define file name=f,size=8k,prealloc\n"
      "define process name=p {thread name=t,memsize=4k {\n"
      "  flowop write name=w,filename=f,fd=1,iosize=4k,dsync\n"
      "}}\n",
      2);
  RUN_TRACED(run);
  const std::vector<Call> writes = calls_on(run.calls(), "/f", SYS_write);
  REQUIRE(writes.size() == 2);
  for (const Call& w : writes) {
    INFO("fdinfo flags 0" << std::oct << w.fd_flags);
    CHECK((w.fd_flags & O_SYNC) == O_SYNC);
  }
}

TEST_CASE("statfile on an open fd= is one fstat of it") {
  SKIP_UNLESS_TRACEABLE();
  FlowopRun run(
      "define fileset name=s,size=1k,entries=3,dirwidth=10,prealloc\n"
      "define process name=p {thread name=t {\n"
      "  flowop openfile name=o,filesetname=s,fd=1\n"
      "  flowop statfile name=st,filesetname=s,fd=1\n"
      "  flowop closefile name=x,fd=1\n"
      "}}\n",
      3);
  RUN_TRACED(run);
  const std::vector<Call>& calls = run.calls();
  std::size_t open = calls.size();
  std::size_t close = calls.size();
  // The openfile's open: of a file of the fileset (not O_PATH, not a directory).
  for (std::size_t i = 0; i < calls.size() && open == calls.size(); ++i) {
    if (is_open(calls[i]) && (calls[i].open_flags & (O_PATH | O_DIRECTORY)) == 0 &&
        in_fileset_s(opened_path(calls[i])))
      open = i;
  }
  for (std::size_t i = open; i < calls.size() && close == calls.size(); ++i) {
    if (calls[i].nr == SYS_close) close = i;
  }
  REQUIRE(open < close);
  REQUIRE(close < calls.size());
  const long fd = static_cast<int>(calls[close].args[0]);
  std::size_t fstats = 0;
  for (std::size_t i = open + 1; i < close; ++i) {
    INFO("call " << calls[i].nr << " name '" << calls[i].name << "'");
    CHECK_FALSE(is_stat_by_name(calls[i]));
    fstats += is_fstat_of(calls[i], fd) ? 1 : 0;
  }
  CHECK(fstats == 1);
  CHECK(run.op("st").ops == 1);
}

TEST_CASE(
    "listdir makes glibc opendir's calls: open then fstat then getdents64 until 0 then close") {
  SKIP_UNLESS_TRACEABLE();
  FlowopRun run(
      "define fileset name=s,size=0,entries=6,dirwidth=100,prealloc\n"
      "define process name=p {thread name=t {\n"
      "  flowop listdir name=ls,filesetname=s\n"
      "}}\n",
      1);
  RUN_TRACED(run);
  const std::vector<Call>& calls = run.calls();
  std::size_t open = calls.size();
  // The listdir's open: a directory of the fileset ("s" or below), not O_PATH.
  for (std::size_t i = 0; i < calls.size() && open == calls.size(); ++i) {
    if (is_open(calls[i]) && (calls[i].open_flags & O_DIRECTORY) != 0 &&
        (calls[i].open_flags & O_PATH) == 0 && calls[i].name[0] == 's')
      open = i;
  }
  REQUIRE(open < calls.size());
  // glibc opendir's flags exactly (O_RDONLY|O_NDELAY|O_DIRECTORY|O_CLOEXEC; O_LARGEFILE is 0
  // on 64-bit), plus the O_NOFOLLOW iobench adds to every open beneath its run directory.
  CHECK(calls[open].open_flags ==
        static_cast<std::uint64_t>(O_RDONLY | O_NONBLOCK | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW));
  std::vector<long> sequence;
  long fd = -1;
  for (std::size_t i = open + 1; i < calls.size(); ++i) {
    const Call& c = calls[i];
    if (fd < 0 && (c.nr == SYS_fstat || c.nr == SYS_newfstatat || c.nr == SYS_statx))
      fd = static_cast<int>(c.args[0]);
    if (fd < 0 || static_cast<int>(c.args[0]) != fd) continue;
    const bool on_dir = c.nr == SYS_fstat || c.nr == SYS_newfstatat || c.nr == SYS_statx ||
                        c.nr == SYS_getdents64 || c.nr == SYS_fcntl || c.nr == SYS_close;
    if (!on_dir) continue;
    sequence.push_back(c.nr == SYS_newfstatat || c.nr == SYS_statx ? SYS_fstat : c.nr);
    if (c.nr == SYS_close) break;
  }
  // One fstat, then getdents64 (entries, then the 0 that ends them), then close; no fcntl.
  const std::vector<long> expected{SYS_fstat, SYS_getdents64, SYS_getdents64, SYS_close};
  CHECK(sequence == expected);
  CHECK(run.op("ls").ops == 1);
  CHECK(run.op("ls").bytes > 0);
}

TEST_CASE("aiowrite's file is opened with O_SYNC under dsync") {
  const auto io_uring = iobench::make_io_uring_engine(iobench::EngineSpec{.name = "io_uring"});
  if (const std::string why = io_uring->unavailable_reason(); !why.empty()) {
    WARN("skipped: io_uring is not available here: " << why);
    return;
  }
  FlowopRun run(
      "define file name=f,size=64k,prealloc\n"
      "define process name=p {thread name=t,memsize=4k {\n"
      "  flowop aiowrite name=aw,filename=f,fd=1,iosize=4k,random,dsync\n"
      "  flowop aiowait name=wait\n"
      "}}\n",
      4);
  run.run();
  // Both descriptors of the file (the flowop's and the engine's) are still open: O_SYNC on each.
  std::size_t seen = 0;
  for (const auto& entry : fs::directory_iterator("/proc/self/fd")) {
    std::error_code ec;
    const fs::path to = fs::read_symlink(entry.path(), ec);
    if (ec || to.filename() != "f" || to.parent_path() != run.target()) continue;
    std::ifstream info("/proc/self/fdinfo/" + entry.path().filename().string());
    for (std::string line; std::getline(info, line);) {
      if (line.rfind("flags:", 0) != 0) continue;
      const int flags = std::stoi(line.substr(6), nullptr, 8);
      INFO("fdinfo flags 0" << std::oct << flags);
      CHECK((flags & O_SYNC) == O_SYNC);
      ++seen;
    }
  }
  CHECK(seen == 2);
  CHECK(run.op("aw").ops == 2);
}

TEST_CASE("readwholefile without iosize refuses a file above memsize as filebench's iobufsetup") {
  // filebench reads such a file in one I/O of its size, which its thread's memsize must hold.
  FlowopRun run(
      "define file name=f,size=10000,prealloc\n"
      "define process name=p {thread name=t,memsize=4k {\n"
      "  flowop readwholefile name=all,filename=f,fd=1\n"
      "}}\n",
      1);
  CHECK_THROWS_WITH(run.run(), Catch::Contains("flowop all moves the whole file, 10000 bytes") &&
                                   Catch::Contains("give iosize= or raise memsize"));
}

TEST_CASE("readwholefile without iosize or memsize reads a file above 1 MiB in 1 MiB pieces") {
  // filebench's default memsize 0 gives such an I/O a buffer of its size; iobench's default
  // buffer is 1 MiB, so the file moves in whole 1 MiB reads rather than failing.
  FlowopRun run(
      "define file name=f,size=3m,prealloc\n"
      "define process name=p {thread name=t {\n"
      "  flowop readwholefile name=all,filename=f,fd=1\n"
      "}}\n",
      1);
  RUN_TRACED(run);
  // Three 1 MiB reads of data, one meeting EOF.
  CHECK(sizes_of(calls_on(run.calls(), "/f", SYS_read)) ==
        std::vector<std::uint64_t>(4, std::uint64_t{1} << 20));
  CHECK(run.op("all").ops == 1);
  CHECK(run.op("all").bytes == std::uint64_t{3} << 20);
}

TEST_CASE(
    "openfile of files in several directories is one openat2 of the whole path beneath the run "
    "directory and closefile one close") {
  SKIP_UNLESS_TRACEABLE();
  // 32 files, 2 a directory (dirgamma 0: every directory as deep as the mean): the rotor opens
  // files 0..15 in order, in 8 directories, more than a thread keeps open.
  FlowopRun run(
      "define fileset name=s,size=1k,entries=32,dirwidth=2,dirgamma=0,prealloc\n"
      "define process name=p {thread name=t,memsize=4k {\n"
      "  flowop openfile name=o,filesetname=s,fd=1\n"
      "  flowop readwholefile name=r,fd=1,iosize=1k\n"
      "  flowop closefile name=x,fd=1\n"
      "}}\n",
      48);
  RUN_TRACED(run);
  if (iobench::resolve_method() != iobench::ResolveMethod::kOpenat2) {
    WARN("skipped: the kernel has no openat2 (names are resolved a component at a time)");
    return;
  }
  std::vector<std::string> opened;
  std::set<std::string> dirs;
  std::size_t closes = 0;
  for (const Call& c : run.calls()) {
    if (is_open(c) && in_fileset_s(opened_path(c))) {
      INFO("open of '" << c.name << "' in " << c.fd_path << " flags 0" << std::oct << c.open_flags);
      // filebench's one open(2) of the path: the whole path from the run directory, confined.
      CHECK(c.nr == SYS_openat2);
      CHECK(std::string(c.fd_path) == fs::canonical(run.target()).string());
      CHECK((c.open_flags & (O_PATH | O_DIRECTORY)) == 0);
      CHECK((c.open_flags & O_NOFOLLOW) == O_NOFOLLOW);
      CHECK((c.resolve & (RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS)) ==
            (RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS));
      opened.emplace_back(c.name);
      dirs.insert(fs::path(c.name).parent_path().string());
    }
    if (c.nr == SYS_close && in_fileset_s(c.fd_path)) {
      CHECK(fs::is_regular_file(c.fd_path));
      ++closes;
    }
  }
  CHECK(opened.size() == 16);
  CHECK(dirs.size() == 8);
  for (const std::string& name : opened) {
    INFO(name);
    CHECK(name.rfind("s/", 0) == 0);
    CHECK(fs::file_size(run.target() / name) == 1024);
  }
  CHECK(closes == 16);
  CHECK(run.op("o").ops == 16);
  CHECK(run.op("r").bytes == 16 * 1024);
}

TEST_CASE("openfile refuses a symbolic link planted in the fileset, as a file or a directory") {
  // What a link would lead to: files named as the fileset's, 4 bytes each.
  const iobench::test::TempDir outside("fbout");
  filebench_test::write_file(outside.path() / "00000001", "out\n");
  filebench_test::write_file(outside.path() / "00000002", "out\n");
  // 4 files, s/0000000{1,2}/0000000{1,2} (dirgamma 0: depth ln 4 / ln 2 = 2).
  const std::string text =
      "define fileset name=s,size=1k,entries=4,dirwidth=2,dirgamma=0,prealloc\n"
      "define process name=p {thread name=t,memsize=4k {\n"
      "  flowop openfile name=o,filesetname=s,fd=1\n"
      "  flowop readwholefile name=r,fd=1,iosize=1k\n"
      "  flowop closefile name=x,fd=1\n"
      "}}\n";
  const auto open_errno = [](FlowopRun& run) {
    try {
      run.run();
    } catch (const iobench::IoError& e) {
      INFO(e.what());
      CHECK(std::string(e.what()).find("flowop o (open)") != std::string::npos);
      return e.error_number();
    }
    return 0;
  };
  SECTION("every file replaced by a link to a file outside") {
    FlowopRun run(text, 12);
    std::vector<fs::path> files;
    for (const auto& e : fs::recursive_directory_iterator(run.target() / "s"))
      if (e.is_regular_file()) files.push_back(e.path());
    REQUIRE(files.size() == 4);
    for (const fs::path& f : files) {
      fs::remove(f);
      fs::create_symlink(outside.path() / "00000001", f);
    }
    CHECK(open_errno(run) == ELOOP);
    CHECK(run.op("r").bytes == 0);
  }
  SECTION("every directory replaced by a link to a directory outside") {
    FlowopRun run(text, 12);
    for (const char* d : {"00000001", "00000002"}) {
      REQUIRE(fs::is_regular_file(run.target() / "s" / d / "00000001"));
      fs::remove_all(run.target() / "s" / d);
      fs::create_directory_symlink(outside.path(), run.target() / "s" / d);
    }
    CHECK(open_errno(run) == ELOOP);
    CHECK(run.op("r").bytes == 0);
  }
  CHECK(fs::file_size(outside.path() / "00000001") == 4);
}
