#include <fmt/format.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstring>
#include <ctime>
#include <iobench/error.hpp>
#include <iobench/printable.hpp>
#include <iobench/result_history.hpp>
#include <iobench/result_json.hpp>
#include <set>
#include <utility>

namespace iobench {
namespace {

// "iobh": marks the file as iobench's for `file(1)` and for the check at open.
constexpr std::int32_t kApplicationId = 0x696f6268;
// The schema this code writes and reads; a newer file is refused, not guessed at.
constexpr std::int32_t kSchemaVersion = 1;
constexpr int kBusyTimeoutMs = 30'000;

constexpr const char* kCreateSchema =
    "CREATE TABLE runs ("
    " id INTEGER PRIMARY KEY AUTOINCREMENT,"
    " stored_at TEXT NOT NULL, started_at TEXT NOT NULL, hostname TEXT NOT NULL,"
    " kernel TEXT NOT NULL, fs_type TEXT NOT NULL, target TEXT NOT NULL, suite TEXT NOT NULL,"
    " workloads TEXT NOT NULL, status TEXT NOT NULL, iobench_version TEXT NOT NULL,"
    " document TEXT NOT NULL);";

std::string utc_now() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  ::gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

}  // namespace

// One sqlite3 handle; statements are prepared per call (a history call is rare and small).
struct detail::HistoryConnection {
  sqlite3* db = nullptr;
  std::string path;  // for messages
  ~HistoryConnection() { sqlite3_close_v2(db); }

  // Damage or another kind of file is bad input; anything else (I/O, full disk, locks that
  // outlast the timeout) a failure of this run.
  [[noreturn]] void fail(int rc, std::string_view doing) const {
    const std::string message =
        fmt::format("{}: {}: {}", printable(path), doing,
                    db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
    const int primary = rc & 0xff;
    if (primary == SQLITE_NOTADB || primary == SQLITE_CORRUPT) {
      throw ConfigError(message +
                        "; this is not an iobench history (or it is damaged): give a "
                        "new file name or one that --store made");
    }
    throw Error(message);
  }

  void exec(const char* sql, std::string_view doing) const {
    const int rc = sqlite3_exec(db, sql, nullptr, nullptr, nullptr);
    if (rc != SQLITE_OK) fail(rc, doing);
  }

  class Statement {
   public:
    Statement(const HistoryConnection& c, const char* sql, std::string_view doing)
        : c_(c), doing_(doing) {
      const int rc = sqlite3_prepare_v2(c.db, sql, -1, &stmt_, nullptr);
      if (rc != SQLITE_OK) c.fail(rc, doing);
    }
    ~Statement() { sqlite3_finalize(stmt_); }
    Statement(const Statement&) = delete;
    Statement& operator=(const Statement&) = delete;
    void bind(int index, std::string_view text) {
      check(sqlite3_bind_text(stmt_, index, text.data(), static_cast<int>(text.size()),
                              SQLITE_TRANSIENT));
    }
    void bind(int index, std::int64_t value) { check(sqlite3_bind_int64(stmt_, index, value)); }
    // True while there is a row.
    bool step() {
      const int rc = sqlite3_step(stmt_);
      if (rc == SQLITE_ROW) return true;
      if (rc == SQLITE_DONE) return false;
      c_.fail(rc, doing_);
    }
    [[nodiscard]] std::int64_t integer(int column) const {
      return sqlite3_column_int64(stmt_, column);
    }
    [[nodiscard]] std::string text(int column) const {
      const auto* p = sqlite3_column_text(stmt_, column);
      return p == nullptr
                 ? std::string()
                 : std::string(reinterpret_cast<const char*>(p),
                               static_cast<std::size_t>(sqlite3_column_bytes(stmt_, column)));
    }

   private:
    void check(int rc) const {
      if (rc != SQLITE_OK) c_.fail(rc, doing_);
    }
    const HistoryConnection& c_;
    std::string doing_;
    sqlite3_stmt* stmt_ = nullptr;
  };

  [[nodiscard]] std::int64_t pragma(const char* sql) const {
    Statement s(*this, sql, "reading its header");
    return s.step() ? s.integer(0) : 0;
  }

  [[nodiscard]] std::vector<std::string> tables() const {
    Statement s(*this, "SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name",
                "listing its tables");
    std::vector<std::string> names;
    while (s.step()) names.push_back(s.text(0));
    return names;
  }
};

namespace {

// Commits at the end of a scope that completed, rolls back otherwise.
class Transaction {
 public:
  Transaction(const detail::HistoryConnection& c, std::string_view doing) : c_(c) {
    c_.exec("BEGIN IMMEDIATE", doing);  // takes the write lock now: writers queue here
  }
  ~Transaction() {
    if (!committed_) sqlite3_exec(c_.db, "ROLLBACK", nullptr, nullptr, nullptr);
  }
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  void commit(std::string_view doing) {
    c_.exec("COMMIT", doing);
    committed_ = true;
  }

 private:
  const detail::HistoryConnection& c_;
  bool committed_ = false;
};

// Checks that the open file is an iobench history, making it one if it is empty and `create`.
void check_or_create(const detail::HistoryConnection& c, bool create) {
  const std::int64_t id = c.pragma("PRAGMA application_id");
  if (id == 0) {
    const auto refuse_foreign_tables = [&c] {
      const std::vector<std::string> tables = c.tables();
      if (!tables.empty()) {
        throw ConfigError(fmt::format(
            "{}: an SQLite database of another application (tables: {}); iobench keeps its "
            "history in a file of its own: give a new file name",
            printable(c.path), printable(fmt::format("{}", fmt::join(tables, ", ")))));
      }
    };
    if (!create) {
      refuse_foreign_tables();
      throw ConfigError(fmt::format(
          "{}: an empty database, not an iobench history; store runs with run --store FILE",
          printable(c.path)));
    }
    Transaction t(c, "creating the history");
    // Another process may have made it meanwhile: the write lock is ours now, look again, and
    // look at its tables under the same lock (read before, they could be another writer's
    // schema committed between the two reads, refused as a foreign database).
    if (c.pragma("PRAGMA application_id") == 0) {
      refuse_foreign_tables();
      c.exec(kCreateSchema, "creating the history");
      c.exec(fmt::format("PRAGMA application_id = {}", kApplicationId).c_str(),
             "creating the history");
      c.exec(fmt::format("PRAGMA user_version = {}", kSchemaVersion).c_str(),
             "creating the history");
    }
    t.commit("creating the history");
    return;
  }
  if (id != kApplicationId) {
    throw ConfigError(fmt::format(
        "{}: an SQLite database of another application (application_id 0x{:08x}, iobench's "
        "is 0x{:08x}); give a new file name",
        printable(c.path), static_cast<std::uint32_t>(id),
        static_cast<std::uint32_t>(kApplicationId)));
  }
  const std::int64_t version = c.pragma("PRAGMA user_version");
  if (version > kSchemaVersion) {
    throw ConfigError(fmt::format(
        "{}: a history of a newer iobench (schema version {}; this iobench reads {}); use that "
        "iobench or a new file",
        printable(c.path), version, kSchemaVersion));
  }
  const std::vector<std::string> tables = c.tables();
  if (std::find(tables.begin(), tables.end(), "runs") == tables.end()) {
    throw ConfigError(
        fmt::format("{}: an iobench history without its table of runs (damaged); "
                    "give a new file name",
                    printable(c.path)));
  }
}

// The summary columns of a document.
HistoryRun summary_of(const ResultDocument& doc) {
  HistoryRun r;
  const Environment& env = doc.run.environment;
  r.started_at = env.start_time_utc;
  r.hostname = env.hostname;
  r.kernel = env.kernel;
  if (!env.targets.empty()) {
    r.fs_type = env.targets.front().fs_type;
    r.target = env.targets.front().path;
  }
  if (doc.suite) r.suite = doc.suite->name;
  std::vector<std::string> workloads;
  for (const StepResult& step : doc.run.steps) {
    if (std::find(workloads.begin(), workloads.end(), step.workload) == workloads.end())
      workloads.push_back(step.workload);
  }
  r.workloads = fmt::format("{}", fmt::join(workloads, ","));
  r.status = to_string(doc.run.status);
  r.iobench_version = env.iobench_version;
  return r;
}

}  // namespace

ResultHistory::ResultHistory(std::filesystem::path path,
                             std::unique_ptr<detail::HistoryConnection> connection)
    : path_(std::move(path)), connection_(std::move(connection)) {}
ResultHistory::ResultHistory(ResultHistory&&) noexcept = default;
ResultHistory& ResultHistory::operator=(ResultHistory&&) noexcept = default;
ResultHistory::~ResultHistory() = default;

ResultHistory ResultHistory::open(const std::filesystem::path& path, bool create) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
    throw ConfigError(
        fmt::format("{}: a symbolic link; give the history file itself", printable(path.string())));
  }
  if (::stat(path.c_str(), &st) != 0) {
    if (errno != ENOENT) throw IoError(errno, "stat", path.string());
    if (!create) {
      throw ConfigError(fmt::format("{}: no such history file; run ... --store {} makes one",
                                    printable(path.string()), printable(path.string())));
    }
  } else if (!S_ISREG(st.st_mode)) {
    throw ConfigError(fmt::format("{}: not a regular file; a history is one SQLite file",
                                  printable(path.string())));
  }
  auto c = std::make_unique<detail::HistoryConnection>();
  c->path = path.string();
  const int flags = SQLITE_OPEN_NOFOLLOW | SQLITE_OPEN_FULLMUTEX |
                    (create ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE : SQLITE_OPEN_READONLY);
  const int rc = sqlite3_open_v2(path.c_str(), &c->db, flags, nullptr);
  if (rc != SQLITE_OK) c->fail(rc, "opening it");
  if (create && sqlite3_db_readonly(c->db, "main") == 1) {
    throw Error(fmt::format("{}: the history cannot be written (read-only)", printable(c->path)));
  }
  sqlite3_busy_timeout(c->db, kBusyTimeoutMs);
  check_or_create(*c, create);
  // WAL lets readers go on while a run is stored; the mode is kept in the file.
  if (create) c->exec("PRAGMA journal_mode = WAL", "setting its journal");
  return ResultHistory(path, std::move(c));
}

std::int64_t ResultHistory::store(std::string_view json_text) {
  const ResultDocument doc = parse_result_json(json_text);  // ConfigError if it is not one
  HistoryRun r = summary_of(doc);
  r.stored_at = utc_now();
  Transaction t(*connection_, "storing a run");
  detail::HistoryConnection::Statement s(
      *connection_,
      "INSERT INTO runs (stored_at, started_at, hostname, kernel, fs_type, "
      "target, suite, workloads, status, iobench_version, document) "
      "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
      "storing a run");
  int i = 0;
  for (const std::string* text :
       {&r.stored_at, &r.started_at, &r.hostname, &r.kernel, &r.fs_type, &r.target, &r.suite,
        &r.workloads, &r.status, &r.iobench_version}) {
    s.bind(++i, *text);
  }
  s.bind(++i, json_text);
  (void)s.step();
  const std::int64_t id = sqlite3_last_insert_rowid(connection_->db);
  t.commit("storing a run");
  return id;
}

std::vector<HistoryRun> ResultHistory::runs(const HistoryFilter& filter) const {
  // The newest `limit` (all with 0), listed oldest first; each empty filter field matches all.
  detail::HistoryConnection::Statement s(
      *connection_,
      "SELECT * FROM (SELECT id, stored_at, started_at, hostname, kernel, fs_type, target, suite, "
      "workloads, status, iobench_version FROM runs "
      "WHERE (?1 = '' OR instr(',' || workloads || ',', ',' || ?1 || ',') > 0) "
      "AND (?2 = '' OR hostname = ?2) AND (?3 = '' OR fs_type = ?3) "
      "AND (?4 = '' OR instr(kernel, ?4) > 0) ORDER BY id DESC LIMIT ?5) ORDER BY id",
      "listing runs");
  s.bind(1, filter.workload);
  s.bind(2, filter.host);
  s.bind(3, filter.fs_type);
  s.bind(4, filter.kernel);
  s.bind(5, filter.limit == 0 ? std::int64_t{-1} : static_cast<std::int64_t>(filter.limit));
  std::vector<HistoryRun> out;
  while (s.step()) {
    HistoryRun r;
    r.id = s.integer(0);
    r.stored_at = s.text(1);
    r.started_at = s.text(2);
    r.hostname = s.text(3);
    r.kernel = s.text(4);
    r.fs_type = s.text(5);
    r.target = s.text(6);
    r.suite = s.text(7);
    r.workloads = s.text(8);
    r.status = s.text(9);
    r.iobench_version = s.text(10);
    out.push_back(std::move(r));
  }
  return out;
}

std::string ResultHistory::document(std::int64_t id) const {
  {
    detail::HistoryConnection::Statement s(*connection_, "SELECT document FROM runs WHERE id = ?",
                                           "reading a run");
    s.bind(1, id);
    if (s.step()) return s.text(0);
  }
  detail::HistoryConnection::Statement range(
      *connection_, "SELECT count(*), min(id), max(id) FROM runs", "reading a run");
  (void)range.step();
  const std::string held = range.integer(0) == 0
                               ? "it holds no runs"
                               : fmt::format("it holds {} run(s), #{} to #{}", range.integer(0),
                                             range.integer(1), range.integer(2));
  throw ConfigError(fmt::format("{}: there is no run #{} ({}); `iobench history {}` lists them",
                                printable(path_.string()), id, held, printable(path_.string())));
}

void check_history_for_store(const std::filesystem::path& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno != ENOENT) throw IoError(errno, "stat", path.string());
    // A new file: made after the run, in a directory that must take it.
    const std::filesystem::path dir =
        path.parent_path().empty() ? std::filesystem::path(".") : path.parent_path();
    if (::access(dir.c_str(), W_OK | X_OK) != 0) {
      throw ConfigError(fmt::format("--store {}: the directory '{}' cannot take a new file: {}",
                                    printable(path.string()), printable(dir.string()),
                                    std::strerror(errno)));
    }
    return;
  }
  if (S_ISREG(st.st_mode) && st.st_size == 0) return;  // made into a history at the store
  (void)ResultHistory::open(path, false);              // every other refusal, with its own words
  if (::access(path.c_str(), W_OK) != 0) {
    throw ConfigError(fmt::format("--store {}: the history cannot be written: {}",
                                  printable(path.string()), std::strerror(errno)));
  }
}

bool parse_history_reference(std::string_view text, std::filesystem::path& path, std::int64_t& id) {
  constexpr std::string_view kPrefix = "db:";
  if (!text.starts_with(kPrefix)) return false;
  const std::string_view rest = text.substr(kPrefix.size());
  const auto hash = rest.rfind('#');
  const auto bad = [&] {
    return ConfigError(
        fmt::format("'{}': a history reference is db:FILE.db#ID with ID a run "
                    "number >= 1 (see `iobench history FILE.db`)",
                    printable(text)));
  };
  if (hash == std::string_view::npos || hash == 0) throw bad();
  const std::string_view number = rest.substr(hash + 1);
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
  if (number.empty() || ec != std::errc() || end != number.data() + number.size() || value < 1) {
    throw bad();
  }
  path = std::string(rest.substr(0, hash));
  id = value;
  return true;
}

}  // namespace iobench
