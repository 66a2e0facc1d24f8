#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iobench/confined_dir.hpp>
#include <iobench/registry.hpp>
#include <iobench/reporter.hpp>
#include <string>
#include <string_view>
#include <vector>

// True in a ThreadSanitizer build (GCC and clang). Its shadow memory inflates RSS figures, and
// its interceptors stand between a SIGBUS and the mmap engine's guard: tests of either skip there
// (with the reason printed); the ASan build runs them.
#if defined(__SANITIZE_THREAD__)
#define IOBENCH_TEST_UNDER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define IOBENCH_TEST_UNDER_TSAN 1
#endif
#endif
#ifndef IOBENCH_TEST_UNDER_TSAN
#define IOBENCH_TEST_UNDER_TSAN 0
#endif

namespace iobench::test {

/// Bytes in a MiB; ns in a second: the units test data is written in.
inline constexpr std::uint64_t kMiB = 1024 * 1024;
inline constexpr std::uint64_t kSecond = 1'000'000'000;

/// A fresh directory under the build tree's tests/tmp, removed (recursively) on destruction.
class TempDir {
 public:
  explicit TempDir(const std::string& prefix = "t");
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  [[nodiscard]] const std::filesystem::path& path() const noexcept { return path_; }
  /// Entries directly inside the directory (names only, sorted).
  [[nodiscard]] std::vector<std::string> entries() const;
  /// Entries directly inside `dir` (names only, sorted).
  [[nodiscard]] static std::vector<std::string> list(const std::filesystem::path& dir);

 private:
  std::filesystem::path path_;
};

/// A tmpfs of `size` (e.g. "4m") mounted on a fresh TempDir for the life of the object; root
/// only. `mounted()` is false where mount(8) is refused (then tests skip with a WARN).
class ScopedTmpfs {
 public:
  explicit ScopedTmpfs(const std::string& size);
  ~ScopedTmpfs();
  ScopedTmpfs(const ScopedTmpfs&) = delete;
  ScopedTmpfs& operator=(const ScopedTmpfs&) = delete;
  [[nodiscard]] bool mounted() const noexcept { return mounted_; }
  [[nodiscard]] const std::filesystem::path& path() const noexcept { return dir_.path(); }

 private:
  TempDir dir_{"tmpfs"};
  bool mounted_ = false;
};

/// Keeps every result it is given.
class CapturingReporter final : public Reporter {
 public:
  void on_run_start(const Environment& env) override { environment = env; }
  void on_step_end(const StepResult& step) override { steps.push_back(step); }
  void on_run_end(const RunResult& run) override {
    final_run = run;
    ended = true;
  }
  Environment environment;
  std::vector<StepResult> steps;
  RunResult final_run;
  bool ended = false;
};

/// A registry with the built-in engines and every built-in plugin family registered.
[[nodiscard]] Registry make_full_registry();

/// Outcome of running the iobench CLI.
struct CliResult {
  int exit_code = -1;  ///< exit status, or 128+signal if killed
  std::string out;
  std::string err;
};
/// Runs the built `iobench` binary with `args` (no shell), capturing stdout and stderr.
[[nodiscard]] CliResult run_cli(const std::vector<std::string>& args);
/// Runs `argv` (argv[0] looked up in PATH, no shell), capturing stdout and stderr; exit code 127
/// if it cannot be started.
[[nodiscard]] CliResult run_command(const std::vector<std::string>& argv);

/// Directory `dir` opened O_RDONLY | O_DIRECTORY as a ConfinedDir (as the runner opens a run
/// directory). Throws IoError.
[[nodiscard]] OwnedConfinedDir open_confined(const std::filesystem::path& dir);

/// One CSV record: its fields.
using CsvRecord = std::vector<std::string>;
/// RFC 4180 reader: quoted fields may hold commas, doubled quotes and line breaks. Lines end in
/// LF (a CRLF is accepted). Throws std::runtime_error on a malformed quote.
[[nodiscard]] std::vector<CsvRecord> parse_csv(const std::string& text);

/// Reads a whole file.
[[nodiscard]] std::string read_file(const std::filesystem::path& path);

/// A small NBench loadfile that loops quickly (dbench's client.txt takes seconds to parse in a
/// debug build): one client's directory, a file written, read and removed.
inline constexpr std::string_view kTinyLoadfile = R"(Deltree "\clients\client1" NT_STATUS_OK
Mkdir "\clients" NT_STATUS_OK
Mkdir "\clients\client1" NT_STATUS_OK
NTCreateX "\clients\client1\f.doc" 0x40 0x2 9938 NT_STATUS_OK
WriteX 9938 0 4096 4096 NT_STATUS_OK
ReadX 9938 0 4096 4096 NT_STATUS_OK
Close 9938 NT_STATUS_OK
Unlink "\clients\client1\f.doc" 0x6 NT_STATUS_OK
)";

/// kTinyLoadfile written once per test executable (into a TempDir removed at exit): its path.
[[nodiscard]] const std::string& tiny_loadfile_path();

/// make_full_registry(), built once per test executable.
[[nodiscard]] const Registry& shared_full_registry();

}  // namespace iobench::test
