#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include <catch2/catch.hpp>

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

TEST_CASE("SIGINT stops the run, removes its files and prints the partial result", "[integration]") {
  // One target, and two workers sharing one directory.
  for (const int targets : {1, 2}) {
    TempDir dir("sigint");
    TempDir logs("sigint-logs");
    { std::ofstream(dir.path() / "precious") << "survive"; }
    std::vector<std::string> args{"run", "disk", "bs=4k", "size=16m", "operation=read",
                                  "seek=random", "iterations=1000000", "--progress", "100ms"};
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
