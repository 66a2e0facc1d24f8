#include "tests/support/test_support.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>

#include "plugins/builtin_plugins.hpp"

extern char** environ;

namespace iobench::test {

TempDir::TempDir(const std::string& prefix) {
  std::random_device rd;
  const std::filesystem::path root = IOBENCH_TEST_TMP_ROOT;
  std::filesystem::create_directories(root);
  for (int attempt = 0; attempt < 100; ++attempt) {
    auto candidate =
        root / (prefix + "." + std::to_string(::getpid()) + "." + std::to_string(rd()));
    if (std::filesystem::create_directory(candidate)) {
      path_ = candidate;
      return;
    }
  }
  throw std::runtime_error("TempDir: cannot create a directory under " + root.string());
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::vector<std::string> TempDir::entries() const { return list(path_); }

std::vector<std::string> TempDir::list(const std::filesystem::path& dir) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

ScopedTmpfs::ScopedTmpfs(const std::string& size) {
  const std::string command =
      "mount -t tmpfs -o size=" + size + " iobench-test " + dir_.path().string() + " 2>/dev/null";
  mounted_ = ::geteuid() == 0 && std::system(command.c_str()) == 0;
}

ScopedTmpfs::~ScopedTmpfs() {
  if (mounted_) (void)std::system(("umount " + dir_.path().string()).c_str());
}

Registry make_full_registry() {
  Registry registry;
  register_builtins(registry);
  plugins::register_all(registry);
  return registry;
}

CliResult run_cli(const std::vector<std::string>& args) {
  // stdout and stderr go to temp files, so a large output on one cannot block the other.
  TempDir dir("cli");
  const std::string out_path = (dir.path() / "out").string();
  const std::string err_path = (dir.path() / "err").string();
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  std::vector<std::string> argv_text{IOBENCH_CLI_PATH};
  argv_text.insert(argv_text.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_text) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) throw std::runtime_error("run_cli: posix_spawn failed");
  int status = 0;
  ::waitpid(pid, &status, 0);
  CliResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.out = read_file(out_path);
  result.err = read_file(err_path);
  return result;
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace iobench::test
