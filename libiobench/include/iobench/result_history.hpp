#pragma once

/// A result history: every run's result document kept in one SQLite database file
/// (`iobench run ... --store FILE.db`, `iobench history FILE.db`, `compare db:FILE.db#ID`), so a
/// user can follow a file system, a kernel or a device over months. The file is iobench's own
/// (SQLite's application_id 0x696f6268, "iobh", and a schema version in user_version); several
/// processes may store into one file at once (WAL journal, writers wait for each other up to
/// 30 s).

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace iobench {
namespace detail {
struct HistoryConnection;  ///< the open SQLite handle (result_history.cpp)
}

/// One run as the history lists it: the document's summary, kept beside the document so that a
/// listing reads no JSON.
struct HistoryRun {
  std::int64_t id = 0;          ///< the run's number in this file: 1, 2, ... (never reused)
  std::string stored_at;        ///< when it was stored, UTC, ISO 8601 ("2026-12-06T03:10:00Z")
  std::string started_at;       ///< the run's own start (environment.start_time_utc)
  std::string hostname;         ///< environment.hostname
  std::string kernel;           ///< environment.kernel (uname -s -r -v)
  std::string fs_type;          ///< the first target's file system type ("" when unknown)
  std::string target;           ///< the first target's path as given
  std::string suite;            ///< the suite's name ("" for a single workload)
  std::string workloads;        ///< the steps' workloads, comma-separated, each once, in order
  std::string status;           ///< the run's status: ok, failed, interrupted, ...
  std::string iobench_version;  ///< the version that made the document
};

/// Which runs history() lists: each non-empty field must match (`workload`: one of the run's
/// workloads; `host`, `fs_type`: equal; `kernel`: a substring of it); `limit` > 0 keeps the
/// newest `limit`. Runs come in the order they were stored.
struct HistoryFilter {
  std::string workload;
  std::string host;
  std::string fs_type;
  std::string kernel;
  std::size_t limit = 0;
};

/// An open history file. Not copyable; movable. Every call is one transaction.
class ResultHistory {
 public:
  /// Opens the history at `path`, creating the file and its tables if `create` and it does not
  /// exist (or is empty). Throws ConfigError (exit 2, the file untouched) naming the path for: a
  /// missing file without `create`; a directory or other non-regular file; a file that is not
  /// an SQLite database or is damaged (SQLite's own words); an SQLite database of another
  /// application (its application_id or tables named); a history made by a newer iobench (its
  /// version named). Throws IoError when the file cannot be created or read (errno text).
  [[nodiscard]] static ResultHistory open(const std::filesystem::path& path, bool create);

  ResultHistory(ResultHistory&&) noexcept;
  ResultHistory& operator=(ResultHistory&&) noexcept;
  ~ResultHistory();

  /// Stores one result document (iobench's JSON, as `run -f json` writes it) with its summary
  /// and returns its id. Throws ConfigError if `json_text` is not a result document (the reader's
  /// message), IoError if the database cannot be written (disk full, read-only: SQLite's words);
  /// nothing is stored then.
  std::int64_t store(std::string_view json_text);

  /// The runs `filter` selects, oldest first.
  [[nodiscard]] std::vector<HistoryRun> runs(const HistoryFilter& filter = {}) const;

  /// The document of run `id` as it was stored. Throws ConfigError naming the file and the id
  /// (and the ids it has) if there is no such run.
  [[nodiscard]] std::string document(std::int64_t id) const;

  /// The file as opened.
  [[nodiscard]] const std::filesystem::path& path() const noexcept { return path_; }

 private:
  ResultHistory(std::filesystem::path path, std::unique_ptr<detail::HistoryConnection> connection);
  std::filesystem::path path_;
  std::unique_ptr<detail::HistoryConnection> connection_;
};

/// Checks, touching nothing, that `path` can take a run's document later (`run --store`,
/// before the run): a new name, an empty file, or an iobench history that can be written. Throws
/// ConfigError naming the path otherwise, as ResultHistory::open does, and for a file or
/// directory that cannot be written (access(2)) or a symbolic link.
void check_history_for_store(const std::filesystem::path& path);

/// A history reference as compare and report take it: "db:FILE.db#ID". Returns true and sets
/// `path` and `id` if `text` starts with "db:"; throws ConfigError naming `text` and the form
/// if it does but the rest is not FILE#ID with ID >= 1; false for any other text (a file name).
[[nodiscard]] bool parse_history_reference(std::string_view text, std::filesystem::path& path,
                                           std::int64_t& id);

}  // namespace iobench
