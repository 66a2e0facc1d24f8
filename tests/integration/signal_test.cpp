#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "tests/support/test_support.hpp"

extern char** environ;

using iobench::test::TempDir;

namespace {

// Starts iobench with stdout/stderr in files; returns its pid.
pid_t spawn_cli(std::vector<std::string> args, const std::filesystem::path& out,
                const std::filesystem::path& err) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  args.insert(args.begin(), IOBENCH_CLI_PATH);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = -1;
  REQUIRE(posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ) == 0);
  posix_spawn_file_actions_destroy(&actions);
  return pid;
}

// Polls (bounded) until the run has started measuring: a progress line has been printed.
bool wait_for_progress(const std::filesystem::path& err) {
  for (int i = 0; i < 3000; ++i) {
    if (iobench::test::read_file(err).find(" MiB/s") != std::string::npos) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

}  // namespace

TEST_CASE("SIGINT stops the run, removes its files and prints the partial result",
          "[integration]") {
  // One target, and two workers sharing one directory.
  for (const int targets : {1, 2}) {
    TempDir dir("sigint");
    TempDir logs("sigint-logs");
    { std::ofstream(dir.path() / "precious") << "survive"; }
    std::vector<std::string> args{"run",
                                  "disk",
                                  "bs=4k",
                                  "size=16m",
                                  "operation=read",
                                  "seek=random",
                                  "iterations=1000000",
                                  "--progress",
                                  "100ms"};
    for (int i = 0; i < targets; ++i) args.insert(args.end(), {"-d", dir.path().string()});
    const pid_t pid = spawn_cli(args, logs.path() / "out", logs.path() / "err");
    REQUIRE(wait_for_progress(logs.path() / "err"));
    REQUIRE(::kill(pid, SIGINT) == 0);
    int status = 0;
    REQUIRE(::waitpid(pid, &status, 0) == pid);
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 130);
    const std::string out = iobench::test::read_file(logs.path() / "out");
    INFO(iobench::test::read_file(logs.path() / "err"));
    CHECK_THAT(out, Catch::Contains("Interrupted reading"));
    CHECK(dir.entries() == std::vector<std::string>{"precious"});
    CHECK(iobench::test::read_file(dir.path() / "precious") == "survive");
  }
}

TEST_CASE("SIGTERM mid-suite writes the runs so far as JSON marked incomplete", "[integration]") {
  TempDir dir("sigterm-suite");
  TempDir logs("sigterm-suite-logs");
  { std::ofstream(dir.path() / "precious") << "survive"; }
  const auto suite = logs.path() / "two.json";
  std::ofstream(suite) << R"({"steps": [
      {"name": "short", "workload": "disk", "params": {"size": "1m", "bs": "64k"}},
      {"name": "long", "workload": "disk", "params": {"bs": "4k", "size": "16m",
       "operation": "read", "seek": "random", "iterations": 1000000}},
      {"name": "never", "workload": "disk", "params": {"size": "1m"}}]})";
  const auto json = logs.path() / "result.json";
  const pid_t pid = spawn_cli({"run", suite.string(), "-d", dir.path().string(), "--progress",
                               "100ms", "--format", "json", "-o", json.string()},
                              logs.path() / "out", logs.path() / "err");
  // A progress line of the second run ("run 2/3") means the first has finished.
  bool second_running = false;
  for (int i = 0; i < 3000 && !second_running; ++i) {
    const std::string err = iobench::test::read_file(logs.path() / "err");
    second_running =
        err.find("2/3") != std::string::npos && err.find(" MiB/s") != std::string::npos;
    if (!second_running) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  REQUIRE(second_running);
  REQUIRE(::kill(pid, SIGTERM) == 0);
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 130);
  INFO(iobench::test::read_file(logs.path() / "err"));
  const auto doc = nlohmann::json::parse(iobench::test::read_file(json));
  CHECK(doc.at("suite").at("complete") == false);
  CHECK_THAT(iobench::test::read_file(logs.path() / "out"),
             Catch::Contains("Suite 'two' incomplete: 1 of 3 runs finished, 1 interrupted"));
  CHECK(doc.at("suite").at("planned_runs") == 3);
  CHECK(doc.at("suite").at("completed_runs") == 2);  // runs with a result, the interrupted one too
  REQUIRE(doc.at("steps").size() == 2);
  CHECK(doc.at("steps").at(0).at("status") == "ok");
  CHECK(doc.at("steps").at(1).at("status") == "interrupted");
  CHECK(dir.entries() == std::vector<std::string>{"precious"});
  CHECK(iobench::test::read_file(dir.path() / "precious") == "survive");
}

namespace {

// Child pids of `pid` (from /proc/PID/task/*/children).
std::vector<pid_t> children_of(pid_t pid) {
  std::vector<pid_t> children;
  const auto tasks = std::filesystem::path("/proc") / std::to_string(pid) / "task";
  for (const auto& task : std::filesystem::directory_iterator(tasks)) {
    std::ifstream in(task.path() / "children");
    for (pid_t child = 0; in >> child;) children.push_back(child);
  }
  return children;
}

// True once `pid` is gone or a zombie (it no longer runs).
bool stopped_running(pid_t pid) {
  std::ifstream in(std::filesystem::path("/proc") / std::to_string(pid) / "stat");
  std::string line;
  if (!std::getline(in, line)) return true;
  const auto close = line.rfind(')');
  return close != std::string::npos && close + 2 < line.size() && line[close + 2] == 'Z';
}

}  // namespace

TEST_CASE("worker processes end when the runner is killed outright", "[integration]") {
  TempDir dir("sigkill");
  TempDir logs("sigkill-logs");
  TempDir results("sigkill-results");
  const auto loadfile = logs.path() / "load.txt";
  std::ofstream(loadfile) << iobench::test::kTinyLoadfile;
  { std::ofstream(results.path() / "r.json") << "previous results"; }
  const pid_t pid = spawn_cli({"run", "dbench", "-d", dir.path().string(), "procs=2",
                               "time_limit=60s", "warmup=0s", "loadfile=" + loadfile.string(),
                               "--progress", "100ms", "-o", (results.path() / "r.json").string()},
                              logs.path() / "out", logs.path() / "err");
  REQUIRE(wait_for_progress(logs.path() / "err"));
  const std::vector<pid_t> workers = children_of(pid);
  INFO(iobench::test::read_file(logs.path() / "err"));
  REQUIRE(workers.size() == 2);
  // The results' temporary file is unnamed until the run's end: none shows beside r.json.
  CHECK(TempDir::list(results.path()) == std::vector<std::string>{"r.json"});
  REQUIRE(::kill(pid, SIGKILL) == 0);
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  // A run killed outright leaves nothing beside the -o file, which keeps its old content.
  CHECK(TempDir::list(results.path()) == std::vector<std::string>{"r.json"});
  CHECK(iobench::test::read_file(results.path() / "r.json") == "previous results");
  for (const pid_t worker : workers) {
    bool gone = false;
    for (int i = 0; i < 500 && !gone; ++i) {
      gone = stopped_running(worker);
      if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    CHECK(gone);
  }
}
