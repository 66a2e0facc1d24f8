#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <iobench/error.hpp>
#include <iobench/result_history.hpp>
#include <iobench/result_json.hpp>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "tests/support/test_support.hpp"

namespace {

using Catch::Matchers::Contains;
using iobench::ConfigError;
using iobench::HistoryFilter;
using iobench::ResultHistory;

std::string sample_document() { return iobench::test::read_file(IOBENCH_SAMPLE_RUN_JSON); }

// The sample document with another host name and the first step's workload renamed.
std::string document_of(const std::string& host, const std::string& workload) {
  nlohmann::ordered_json doc = nlohmann::ordered_json::parse(sample_document());
  doc["environment"]["hostname"] = host;
  for (auto& step : doc["steps"]) step["workload"] = workload;
  return doc.dump(2);
}

// Runs `sql` on `path` with SQLite itself (another application's file).
void sqlite_exec(const std::filesystem::path& path, const std::string& sql) {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
  REQUIRE(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr) == SQLITE_OK);
  sqlite3_close(db);
}

void write_text(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

}  // namespace

TEST_CASE("a stored document reads back byte for byte, its summary from its environment",
          "[history]") {
  iobench::test::TempDir dir;
  const auto path = dir.path() / "runs.db";
  const std::string text = sample_document();
  const iobench::ResultDocument parsed = iobench::parse_result_json(text);
  {
    ResultHistory history = ResultHistory::open(path, true);
    CHECK(history.store(text) == 1);
  }
  const ResultHistory history = ResultHistory::open(path, false);
  const auto runs = history.runs();
  REQUIRE(runs.size() == 1);
  CHECK(runs[0].id == 1);
  CHECK(runs[0].hostname == parsed.run.environment.hostname);
  CHECK(runs[0].kernel == parsed.run.environment.kernel);
  CHECK(runs[0].started_at == parsed.run.environment.start_time_utc);
  CHECK(runs[0].fs_type == parsed.run.environment.targets.at(0).fs_type);
  CHECK(runs[0].target == parsed.run.environment.targets.at(0).path);
  CHECK(runs[0].status == iobench::to_string(parsed.run.status));
  CHECK(runs[0].workloads == "disk,custom-meta");  // each once, in step order
  CHECK(runs[0].iobench_version == parsed.run.environment.iobench_version);
  CHECK(runs[0].stored_at.size() == 20);  // 2026-12-06T03:10:00Z
  CHECK(history.document(1) == text);
}

TEST_CASE("runs are numbered in order and selected by host, workload, kernel and last=N",
          "[history]") {
  iobench::test::TempDir dir;
  ResultHistory history = ResultHistory::open(dir.path() / "runs.db", true);
  history.store(document_of("alpha", "disk"));
  history.store(document_of("beta", "bonnie"));
  history.store(document_of("alpha", "dbench"));
  history.store(document_of("alpha", "disk"));
  const auto ids = [&](const HistoryFilter& filter) {
    std::vector<std::int64_t> out;
    for (const auto& run : history.runs(filter)) out.push_back(run.id);
    return out;
  };
  CHECK(ids({}) == std::vector<std::int64_t>{1, 2, 3, 4});
  CHECK(ids({.host = "alpha"}) == std::vector<std::int64_t>{1, 3, 4});
  CHECK(ids({.workload = "disk"}) == std::vector<std::int64_t>{1, 4});
  CHECK(ids({.workload = "dis"}).empty());  // a whole workload name, not a part of one
  CHECK(ids({.host = "alpha", .limit = 2}) == std::vector<std::int64_t>{3, 4});
  const std::string kernel_part = history.runs().at(0).kernel.substr(0, 3);
  CHECK(ids({.kernel = kernel_part}).size() == 4);
  CHECK(ids({.kernel = "no-such-kernel"}).empty());
  CHECK(ids({.fs_type = "no-such-fs"}).empty());
  CHECK_THROWS_WITH(history.document(9), Contains("no run #9") && Contains("#1 to #4"));
}

TEST_CASE("processes storing into one history at once lose nothing", "[history]") {
  iobench::test::TempDir dir;
  const auto path = dir.path() / "runs.db";
  const std::string text = sample_document();
  constexpr int kWriters = 3;
  constexpr int kRunsEach = 15;
  std::vector<pid_t> children;
  for (int w = 0; w < kWriters; ++w) {
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      int status = 0;
      try {
        // Each writer opens the file itself, the first ones racing to create it.
        ResultHistory history = ResultHistory::open(path, true);
        for (int i = 0; i < kRunsEach; ++i) history.store(text);
      } catch (...) {
        status = 1;
      }
      ::_exit(status);
    }
    children.push_back(pid);
  }
  for (const pid_t pid : children) {
    int status = 0;
    REQUIRE(::waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
  }
  const auto runs = ResultHistory::open(path, false).runs();
  REQUIRE(runs.size() == kWriters * kRunsEach);
  std::set<std::int64_t> ids;
  for (const auto& run : runs) ids.insert(run.id);
  CHECK(ids.size() == runs.size());
  CHECK(*ids.begin() == 1);
  CHECK(*ids.rbegin() == kWriters * kRunsEach);
}

TEST_CASE("what is not an iobench history is refused and left as it was", "[history]") {
  iobench::test::TempDir dir;
  SECTION("a text file") {
    const auto path = dir.path() / "notes.db";
    write_text(path, "hello\n");
    CHECK_THROWS_AS(ResultHistory::open(path, true), ConfigError);
    CHECK_THROWS_WITH(ResultHistory::open(path, true), Contains("not an iobench history"));
    CHECK(iobench::test::read_file(path) == "hello\n");
  }
  SECTION("another application's database, by its tables") {
    const auto path = dir.path() / "other.db";
    sqlite_exec(path, "CREATE TABLE photos (x)");
    CHECK_THROWS_WITH(ResultHistory::open(path, true),
                      Contains("another application") && Contains("tables: photos"));
  }
  SECTION("another application's database, by its application_id") {
    const auto path = dir.path() / "other.db";
    sqlite_exec(path, "PRAGMA application_id = 1234");
    CHECK_THROWS_WITH(ResultHistory::open(path, true), Contains("application_id 0x000004d2"));
  }
  SECTION("a history of a newer iobench") {
    const auto path = dir.path() / "runs.db";
    { (void)ResultHistory::open(path, true); }
    sqlite_exec(path, "PRAGMA user_version = 7");
    CHECK_THROWS_WITH(ResultHistory::open(path, false), Contains("schema version 7"));
  }
  SECTION("a missing file without create, and a directory") {
    CHECK_THROWS_WITH(ResultHistory::open(dir.path() / "none.db", false),
                      Contains("no such history file"));
    CHECK_FALSE(std::filesystem::exists(dir.path() / "none.db"));
    CHECK_THROWS_WITH(ResultHistory::open(dir.path(), true), Contains("not a regular file"));
  }
  SECTION("a document that is not a result stores nothing") {
    ResultHistory history = ResultHistory::open(dir.path() / "runs.db", true);
    CHECK_THROWS_AS(history.store("{\"schema\": \"something-else\"}"), ConfigError);
    CHECK(history.runs().empty());
  }
}

TEST_CASE("db:FILE#ID references", "[history]") {
  std::filesystem::path path;
  std::int64_t id = 0;
  CHECK_FALSE(iobench::parse_history_reference("runs.json", path, id));
  REQUIRE(iobench::parse_history_reference("db:/var/lib/runs.db#12", path, id));
  CHECK(path == "/var/lib/runs.db");
  CHECK(id == 12);
  REQUIRE(iobench::parse_history_reference("db:a#b.db#3", path, id));  // the last '#' counts
  CHECK(path == "a#b.db");
  for (const char* bad : {"db:runs.db", "db:#3", "db:runs.db#0", "db:runs.db#x", "db:runs.db#"}) {
    CAPTURE(bad);
    CHECK_THROWS_WITH(iobench::parse_history_reference(bad, path, id), Contains("db:FILE.db#ID"));
  }
}

TEST_CASE("run --store's check before the run takes a new name or an empty file, refuses a link",
          "[history]") {
  iobench::test::TempDir dir;
  CHECK_NOTHROW(iobench::check_history_for_store(dir.path() / "new.db"));
  CHECK_FALSE(std::filesystem::exists(dir.path() / "new.db"));  // touched nothing
  const auto empty = dir.path() / "empty.db";
  write_text(empty, "");
  CHECK_NOTHROW(iobench::check_history_for_store(empty));
  {
    ResultHistory history = ResultHistory::open(empty, true);  // an empty file becomes one
    CHECK(history.store(sample_document()) == 1);
  }
  CHECK_NOTHROW(iobench::check_history_for_store(empty));
  const auto notes = dir.path() / "notes.txt";
  write_text(notes, "notes\n");
  CHECK_THROWS_WITH(iobench::check_history_for_store(notes), Contains("not an iobench history"));
  const auto link = dir.path() / "link.db";
  std::filesystem::create_symlink(empty, link);
  CHECK_THROWS_WITH(iobench::check_history_for_store(link), Contains("symbolic link"));
  CHECK_THROWS_WITH(ResultHistory::open(link, false), Contains("symbolic link"));
  CHECK_THROWS_AS(iobench::check_history_for_store(dir.path() / "no-dir" / "x.db"), ConfigError);
}
