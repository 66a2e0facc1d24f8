#include "tests/support/test_support.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <iobench/error.hpp>
#include <iobench/workloads.hpp>
#include <random>
#include <sstream>
#include <stdexcept>

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

Registry make_full_registry() { return make_builtin_registry(); }

const Registry& shared_full_registry() {
  static const Registry registry = make_full_registry();
  return registry;
}

const std::string& tiny_loadfile_path() {
  static const TempDir dir("tiny-loadfile");
  static const std::string path = [] {
    const auto file = dir.path() / "tiny.txt";
    std::ofstream(file) << kTinyLoadfile;
    return file.string();
  }();
  return path;
}

CliResult run_command(const std::vector<std::string>& argv_text) {
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
  std::vector<std::string> text = argv_text;
  std::vector<char*> argv;
  for (auto& a : text) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = -1;
  const int rc = posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return CliResult{127, "", std::string("cannot run ") + argv_text.at(0)};
  int status = 0;
  ::waitpid(pid, &status, 0);
  CliResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.out = read_file(out_path);
  result.err = read_file(err_path);
  return result;
}

CliResult run_cli(const std::vector<std::string>& args) {
  std::vector<std::string> argv{IOBENCH_CLI_PATH};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_command(argv);
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// RFC 4180 reader: quoted fields may hold commas, doubled quotes and line breaks. Lines end in
// LF (a CRLF is accepted). Throws on a malformed quote.
std::vector<CsvRecord> parse_csv(const std::string& text) {
  std::vector<CsvRecord> records;
  CsvRecord record;
  std::string field;
  bool quoted = false;
  bool field_started = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
        if (i + 1 < text.size() && text[i + 1] != ',' && text[i + 1] != '\n' &&
            text[i + 1] != '\r') {
          throw std::runtime_error("text after a closing quote at offset " + std::to_string(i));
        }
      } else {
        field += c;
      }
    } else if (c == '"' && !field_started) {
      quoted = true;
      field_started = true;
    } else if (c == ',') {
      record.push_back(field);
      field.clear();
      field_started = false;
    } else if (c == '\n' || c == '\r') {
      if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      record.push_back(field);
      records.push_back(record);
      record.clear();
      field.clear();
      field_started = false;
    } else if (c == '"') {
      throw std::runtime_error("quote inside an unquoted field at offset " + std::to_string(i));
    } else {
      field += c;
      field_started = true;
    }
  }
  if (quoted) throw std::runtime_error("unterminated quoted field");
  if (field_started || !record.empty()) {
    record.push_back(field);
    records.push_back(record);
  }
  return records;
}

OwnedConfinedDir open_confined(const std::filesystem::path& dir) {
  UniqueFd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!fd) throw IoError(errno, "open directory", dir.string());
  return OwnedConfinedDir(std::move(fd), dir);
}

}  // namespace iobench::test
