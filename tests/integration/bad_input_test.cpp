// Bad input is refused before anything is created or touched, with a message that names the
// real cause and shows the input escaped and bounded.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "tests/support/test_support.hpp"

using iobench::test::read_file;
using iobench::test::run_cli;
using iobench::test::TempDir;
namespace fs = std::filesystem;

namespace {

// Sets an environment variable for the life of the object (run_cli passes the environment on).
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old_) {
      ::setenv(name_, old_->c_str(), 1);
    } else {
      ::unsetenv(name_);
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

}  // namespace

TEST_CASE("the -o file is opened for real before the run: devices, FIFOs, /proc refused",
          "[integration][bad-input]") {
  TempDir dir("badout");
  TempDir files("badout-files");
  const std::string d = dir.path().string();
  const auto fifo = files.path() / "fifo";
  REQUIRE(::mkfifo(fifo.c_str(), 0644) == 0);
  fs::create_symlink(files.path() / "missing.json", files.path() / "dangling.json");
  struct Case {
    std::string output;
    std::string expected;
  };
  const std::vector<Case> cases{
      {"/dev/full", "-o: '/dev/full' is a character device; the results go to a regular file"},
      {fifo.string(), "is a FIFO; the results go to a regular file"},
      {"/proc/version", "-o: cannot create a file beside '/proc/version'"},
      {(files.path() / "dangling.json").string(), "is a symbolic link to nothing"},
      {d, "-o: '" + d + "' is a directory"},
      {d + "/nodir/r.json", "-o: directory '" + d + "/nodir' of '" + d + "/nodir/r.json'"},
  };
  for (const Case& c : cases) {
    // A FIFO with no reader would block an open for writing forever: the run must not hang.
    const auto result = run_cli({"run", "disk", "-d", d, "size=1m", "-o", c.output});
    INFO(c.output << ": " << result.err);
    CHECK(result.exit_code == 2);
    CHECK_THAT(result.err, Catch::StartsWith("iobench: error: ") && Catch::Contains(c.expected));
    CHECK(result.out.empty());  // refused before the run started
    CHECK(dir.entries().empty());
  }
  CHECK(iobench::test::TempDir::list(files.path()) ==
        std::vector<std::string>{"dangling.json", "fifo"});
}

TEST_CASE("an existing -o file keeps its content until the run has results",
          "[integration][bad-input]") {
  TempDir dir("keepout");
  TempDir files("keepout-files");
  const auto result_path = files.path() / "result.json";
  { std::ofstream(result_path) << "previous results"; }
  REQUIRE(::chmod(result_path.c_str(), 0640) == 0);
  fs::create_symlink(result_path, files.path() / "latest.json");
  const std::string d = dir.path().string();

  // Bad input: the file is not touched at all.
  auto bad = run_cli({"run", "disk", "-d", d, "bs=zz", "--format", "json", "-o",
                      (files.path() / "latest.json").string()});
  CHECK(bad.exit_code == 2);
  CHECK(read_file(result_path) == "previous results");

  // During a run it still holds the old results; at the end, through the link, the new ones.
  const auto out = files.path() / "out";
  const std::string command = std::string(IOBENCH_CLI_PATH) + " run disk -d " + d +
                              " size=4m bs=4k operation=read seek=random iterations=1000000 " +
                              "--time 1s --format json -q -o " +
                              (files.path() / "latest.json").string() + " > " + out.string();
  std::thread runner([&] { CHECK(std::system(command.c_str()) == 0); });
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  CHECK(read_file(result_path) == "previous results");
  runner.join();
  CHECK(fs::is_symlink(files.path() / "latest.json"));
  const auto doc = nlohmann::json::parse(read_file(result_path));
  CHECK(doc.at("status") == "ok");
  struct stat st {};
  REQUIRE(::stat(result_path.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0640);
  // No temporary file is left beside it.
  CHECK(iobench::test::TempDir::list(files.path()) ==
        std::vector<std::string>{"latest.json", "out", "result.json"});
}

TEST_CASE("without -d, bad input is reported before a temporary target is made",
          "[integration][bad-input]") {
  TempDir tmp("tmpdir");
  {
    ScopedEnv env("TMPDIR", tmp.path().string());
    const auto result = run_cli({"run", "disk", "bz=4k"});
    CHECK(result.exit_code == 2);
    CHECK_THAT(result.err, Catch::Contains("did you mean 'bs'"));
    CHECK(tmp.entries().empty());  // no iobench-target.* was made for it
  }
  {
    // An unusable TMPDIR does not hide the bad param; both are named, exit 2.
    ScopedEnv env("TMPDIR", (tmp.path() / "missing").string());
    const auto result = run_cli({"run", "disk", "bz=4k"});
    CHECK(result.exit_code == 2);
    CHECK_THAT(result.err, Catch::Contains("unknown parameter 'bz'; did you mean 'bs'?"));
    CHECK_THAT(result.err, Catch::Contains("no -d given: the target would be a new directory in '" +
                                           (tmp.path() / "missing").string() +
                                           "' (TMPDIR or /tmp), which cannot be used: No such "
                                           "file or directory; give -d DIR or set TMPDIR"));
    const auto good = run_cli({"run", "disk", "size=1m"});
    CHECK(good.exit_code == 2);
    CHECK_THAT(good.err, Catch::Contains("no -d given"));
  }
}

TEST_CASE("echoed input is escaped and bounded", "[integration][bad-input]") {
  TempDir dir("echo");
  const std::string hostile = "\x1b]0;pwned\x07\x1b[2J" + std::string(10'000, 'x');
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"run", "disk", "-d", dir.path().string(), "bs=" + hostile},
        std::vector<std::string>{"run", "disk", "-d", dir.path().string(), hostile + "=1"},
        std::vector<std::string>{"run", "disk", "-d", dir.path().string() + "/" + hostile},
        std::vector<std::string>{"run", hostile}}) {
    const auto result = run_cli(args);
    INFO(result.err.substr(0, 400));
    CHECK(result.exit_code == 2);
    CHECK(result.err.find('\x1b') == std::string::npos);
    CHECK(result.err.find('\x07') == std::string::npos);
    CHECK_THAT(result.err, Catch::Contains("\\x1b]0;pwned\\x07\\x1b[2J"));
    CHECK(result.err.size() < 800);
  }
}

TEST_CASE("contradictory or empty options are refused", "[integration][bad-input]") {
  TempDir dir("contra");
  const std::string d = dir.path().string();
  struct Case {
    std::vector<std::string> args;
    std::string expected;
  };
  const std::vector<Case> cases{
      {{"run", "dbench", "-d", d, "--time", "30s", "time_limit=10s"},
       "--time 30s and time_limit=10s both given"},
      {{"run", "dbench", "-d", d, "--warmup", "3s", "warmup=1s"},
       "--warmup 3s and warmup=1s both given"},
      {{"run", "quick", "-d", d, "--time", "30s", "dbench.time_limit=10s"},
       "--time 30s and dbench.time_limit=10s both given"},
      {{"run", "bonnie", "-d", d, "--seed", "5", "seed=7"}, "--seed 5 and seed=7 both given"},
      {{"run", "disk", "-d", d, "--time", "0"}, "--time: 0 is no limit"},
      {{"run", "disk", "-d", d, "-q", "--progress", "1s"}, "-q and --progress 1s contradict"},
      {{"run", "disk", "-d", ""}, "-d: the directory name is empty"},
      // The param's engine ran while the results named the option's.
      {{"run", "disk", "-d", d, "--engine", "pvsync2", "engine=io_uring"},
       "--engine pvsync2 and engine=io_uring both given: both set the workload's engine"},
      {{"run", "tiotest", "-d", d, "--engine", "io_uring", "engine=psync"},
       "--engine io_uring and engine=psync both given"},
      {{"run", "disk", "-d", d, "--engine", ""}, "--engine: the engine name is empty"},
      // Empty list items were dropped (tiobench then ran at 2 x RAM) or refused, by param.
      {{"run", "tiobench", "-d", d, "threads=1,,2"},
       "threads '1,,2': item 2 is empty (two commas in a row, or a comma at an end); separate "
       "items by single commas, e.g. 1,2,4,8"},
      {{"run", "tiobench", "-d", d, "threads=1,2,"}, "threads '1,2,': item 3 is empty"},
      {{"run", "tiobench", "-d", d, "sizes=2m,,4m"}, "tiobench: sizes '2m,,4m': item 2 is empty"},
      {{"run", "tiotest", "-d", d, "skip=read,"}, "skip 'read,': item 2 is empty"},
      {{"run", "bonnie", "-d", d, "phases=put_block,,get_block"},
       "phases 'put_block,,get_block': item 2 is empty"},
      // A bad value is named before the RAM check it would fail as well.
      {{"run", "bonnie", "-d", d, "size=4m", "phases=nope"}, "phases: unknown phase 'nope'"},
  };
  for (const Case& c : cases) {
    const auto result = run_cli(c.args);
    INFO(result.err);
    CHECK(result.exit_code == 2);
    CHECK_THAT(result.err, Catch::StartsWith("iobench: error: ") && Catch::Contains(c.expected));
    CHECK(std::count(result.err.begin(), result.err.end(), '\n') == 1);
    CHECK(result.out.empty());
    CHECK(dir.entries().empty());
  }
}

TEST_CASE("an explicit --warmup 0 means no warm-up, also for dbench's own", "[integration]") {
  TempDir dir("warmup0");
  TempDir files("warmup0-files");
  const auto loadfile = files.path() / "load.txt";
  std::ofstream(loadfile) << iobench::test::kTinyLoadfile;
  // dbench's default warm-up is time_limit / 5; --warmup 0 was silently ignored before.
  const auto result = run_cli({"validate", "dbench", "-d", dir.path().string(),
                               "loadfile=" + loadfile.string(), "--time", "30s", "--warmup", "0"});
  INFO(result.err);
  CHECK(result.exit_code == 0);
  CHECK_THAT(result.out, Catch::Contains("time_limit=30s warmup=0s"));
}

TEST_CASE("an engine a workload cannot use, or O_DIRECT an engine cannot do, is refused",
          "[integration][bad-input]") {
  TempDir dir("engine");
  TempDir files("engine-files");
  const auto loadfile = files.path() / "load.txt";
  std::ofstream(loadfile) << iobench::test::kTinyLoadfile;
  const auto json = files.path() / "r.json";
  const auto dbench = run_cli({"run", "dbench", "-d", dir.path().string(), "--engine", "mmap",
                               "loadfile=" + loadfile.string(), "time_limit=200ms", "warmup=0",
                               "--format", "json", "-o", json.string(), "-q"});
  CHECK(dbench.exit_code == 2);
  CHECK_THAT(dbench.err, Catch::Contains("--engine mmap: workload 'dbench' does not take an "
                                         "engine: it replays the loadfile with the system calls"));
  CHECK_FALSE(fs::exists(json));
  const auto direct = run_cli({"run", "disk", "-d", dir.path().string(), "--engine", "mmap",
                               "mode=direct", "size=1m", "-q"});
  CHECK(direct.exit_code == 2);
  CHECK_THAT(direct.err, Catch::Contains("engine mmap cannot do O_DIRECT (mode=direct)"));
  CHECK(dir.entries().empty());
}

TEST_CASE("a target's message names the real cause", "[integration][bad-input]") {
  TempDir dir("cause");
  { std::ofstream(dir.path() / "file") << "x"; }
  const auto through_file = run_cli({"validate", "disk", "-d", (dir.path() / "file/sub").string()});
  CHECK(through_file.exit_code == 2);
  CHECK_THAT(through_file.err, Catch::Contains("/file/sub' cannot be used: Not a directory"));
  const auto missing = run_cli({"validate", "disk", "-d", (dir.path() / "missing").string()});
  CHECK_THAT(missing.err, Catch::Contains("/missing' does not exist; create the directory first"));

  // Permission denied is not "does not exist" (as an unprivileged user: root passes any mode).
  const fs::path locked = dir.path() / "locked";
  fs::create_directories(locked / "inside");
  REQUIRE(::chmod(locked.c_str(), 0700) == 0);
  if (::geteuid() != 0) {
    WARN("not root: cannot run iobench as another user; permission case skipped");
    return;
  }
  const std::string err_path = (dir.path() / "err").string();
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int fd = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0666);
    ::dup2(fd, 2);
    if (::setgid(65534) != 0 || ::setuid(65534) != 0) ::_exit(99);
    const std::string target = (locked / "inside").string();
    ::execl(IOBENCH_CLI_PATH, IOBENCH_CLI_PATH, "validate", "disk", "-d", target.c_str(),
            static_cast<char*>(nullptr));
    ::_exit(98);
  }
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFEXITED(status));
  const std::string err = read_file(err_path);
  INFO(err);
  CHECK(WEXITSTATUS(status) == 2);
  CHECK_THAT(err, Catch::Contains("/locked/inside' cannot be used: Permission denied"));
}

TEST_CASE("an option holding a message placeholder is refused, not looped on",
          "[integration][bad-input]") {
  // Boost.Program_options 1.81 substitutes "%original_token%" into its own message forever.
  const auto result = run_cli({"run", "-jx=%original_token%"});
  CHECK(result.exit_code == 2);
  CHECK_THAT(result.err, Catch::Contains("option '-jx=%original_token%': not valid as given"));
}

TEST_CASE("input files must be regular files within the size cap", "[integration][bad-input]") {
  TempDir dir("inputs");
  const auto fifo = dir.path() / "fifo.json";
  REQUIRE(::mkfifo(fifo.c_str(), 0644) == 0);
  // A sparse file past the 256 MiB cap: no disk space taken, but its size is refused unread.
  const auto huge = dir.path() / "huge.json";
  { std::ofstream(huge) << "{"; }
  fs::resize_file(huge, (std::uintmax_t{256} << 20) + 1);
  const std::string too_large =
      " holds 256 MiB (268435457 bytes), more than the 256 MiB an input file may hold";
  const auto good = dir.path() / "good.json";
  std::ofstream(good) << "{}";
  const auto out = (dir.path() / "out.html").string();
  struct Case {
    std::vector<std::string> args;
    std::string expected;
  };
  // compare and report of /dev/zero grew without bound (488 MB in 3 s) and never ended.
  const std::vector<Case> cases{
      {{"compare", "/dev/zero", good.string()},
       "cannot read result file '/dev/zero': it is a character device, not a regular file"},
      {{"report", "/dev/zero", "-o", out},
       "cannot read result file '/dev/zero': it is a character device"},
      {{"compare", fifo.string(), good.string()}, "it is a FIFO, not a regular file"},
      {{"compare", huge.string(), good.string()},
       "result file '" + huge.string() + "'" + too_large},
      {{"report", huge.string(), "-o", out}, "result file '" + huge.string() + "'" + too_large},
      {{"run", "--again", "/dev/zero"}, "cannot read result file '/dev/zero': it is a character"},
      {{"run", "--again", huge.string()}, too_large},
      {{"validate", huge.string()}, "suite file '" + huge.string() + "'" + too_large},
      {{"validate", fifo.string()}, "cannot read suite file '" + fifo.string() + "': it is a FIFO"},
  };
  for (const Case& c : cases) {
    const auto result = run_cli(c.args);
    INFO(result.err);
    CHECK(result.exit_code == 2);
    CHECK_THAT(result.err, Catch::StartsWith("iobench: error: ") && Catch::Contains(c.expected));
    CHECK(std::count(result.err.begin(), result.err.end(), '\n') == 1);
    CHECK_FALSE(fs::exists(out));
  }
}
