#pragma once

#include <array>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <iobench/confined_dir.hpp>
#include <iobench/data_pattern.hpp>
#include <iobench/error.hpp>
#include <iobench/workload.hpp>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "plugins/dbench/handle_table.hpp"
#include "plugins/dbench/loadfile_program.hpp"
#include "plugins/dbench/parent_cache.hpp"
#include "plugins/dbench/replay_report.hpp"

namespace iobench::plugins::dbench {

/// dbench options that change what the fileio replay does (dbench.md §2.1, §3.5).
struct FileioOptions {
  bool sync_open = false;     ///< -s: O_SYNC on NTCreateX opens of files
  bool sync_dirs = false;     ///< -S: fdatasync the parent directory after unlink/rmdir/rename
  bool fsync_writes = false;  ///< -F: fsync after every WriteX
  bool xattr = false;         ///< -x: DOS attributes in the user.DosAttrib xattr
  bool no_resolve = false;    ///< --no-resolve: no case-insensitive scan after a failed stat
  bool stat_check = false;    ///< --stat-check
  bool one_byte_write_fix = false;  ///< --one-byte-write-fix
  bool fake_io = false;             ///< --fake-io: no read/write I/O, bytes still counted
  /// Stop at the first Unlink/Rmdir/Rename status mismatch, failed write or use of a missing
  /// handle (dbench's behaviour); false counts them (ReplayCounter) and goes on.
  bool stop_on_mismatch = true;
  /// What WriteX writes until a WRITEPATTERN replaces it (dbench 4.00: a calloc'd, zeroed buffer).
  DataPattern data{DataPattern::Kind::kZeros, 0};
};

/// A replay failure that dbench treats as fatal. The message names the client, the loadfile and
/// line, the operation, the path or handle, and the expected and actual outcome.
class ReplayError : public Error {
 public:
  using Error::Error;
};

/// What one executed operation produced.
struct OpOutcome {
  std::uint64_t bytes = 0;  ///< bytes moved (ReadX read, WriteX written; ret_size with fake I/O)
  bool skipped = false;     ///< the handle was missing (lenient mode): not done, not timed
};

/// One dbench client replaying a loadfile with dbench's fileio semantics: its directory, its
/// handle table, its buffers, its random state. Built untimed in the worker process; execute() is
/// the timed part and does not allocate.
///
/// Paths: every "client1" in a loadfile path becomes "client<id>" (id 0-based), exactly as dbench
/// builds its file names, and the result is a name beneath the run directory, resolved there by
/// the kernel (ConfinedDir: no symbolic link followed, no `..`). A name that would leave the run
/// directory (a `..` drawn from RANDOMSTRING) or meet a link stops the client with a ReplayError
/// naming the loadfile line, whatever status_mismatch says.
///
/// Problems (operations that did not go as the loadfile expects) are counted in the phase
/// counters and in `report`, which also keeps the first one's description.
class FileioClient {
 public:
  /// `loadfile` holds the tables the instructions refer to (LoadfileStream::tables(), the
  /// validated file's; tables that grow as lines are read are caught up with catch_up());
  /// `sizes` are the whole file's statistics (its validation's), which size the buffers.
  /// REQUIRES: `loadfile` and `report` (may be null) outlive the client; `run_dir` stays open.
  FileioClient(const Loadfile& loadfile, const LoadfileStats& sizes, const FileioOptions& options,
               ConfinedDir run_dir, std::size_t client_id, std::size_t client_count,
               std::uint64_t seed, ReplayReport* report);
  ~FileioClient();
  FileioClient(const FileioClient&) = delete;
  FileioClient& operator=(const FileioClient&) = delete;

  /// Resolves the client's names of the loadfile paths read since the last call. Untimed: call
  /// before evaluate() and execute() of each line (a size compare when nothing is new).
  void catch_up() {
    if (paths_.size() < loadfile_.paths.size()) resolve_new_paths();
  }

  /// Evaluates the numeric arguments of `ins` (modifier expressions included) into `out` and
  /// remembers them as the "previous line" values for `+n` expressions.
  void evaluate(const Instruction& ins, std::array<std::int64_t, 3>& out) noexcept;

  /// Runs one tabulated operation with already evaluated `values`. Counts mismatches through
  /// `ctx`. Throws ReplayError when dbench would stop (and stop_on_mismatch is set) and IoError
  /// for failed writes.
  OpOutcome execute(const Instruction& ins, const std::array<std::int64_t, 3>& values,
                    WorkerContext& ctx);

  /// WRITEPATTERN: from now on WriteX writes `pattern` repeated (instead of the `data` pattern).
  void write_pattern(const std::string& pattern) noexcept;
  /// RANDOMSTRING: draws a new value for slot `slot` from `templ` ([set] -> one of its chars).
  void random_string(std::uint32_t slot, const std::string& templ) noexcept;

  [[nodiscard]] std::size_t id() const noexcept { return id_; }
  /// Bytes counted so far (for rate pacing).
  [[nodiscard]] std::uint64_t bytes() const noexcept { return bytes_; }
  /// The resolved name (relative to the run directory) of loadfile path `id` (templates resolved
  /// now).
  [[nodiscard]] const std::string& path(std::uint32_t id, int scratch = 0);
  /// How loadfile path `id` is written in the loadfile (`\` separators, `$n` references).
  [[nodiscard]] std::string loadfile_spelling(std::uint32_t id) const;

 private:
  /// The extended attribute dbench's xattr mode reads and writes (Samba's DOS attributes), and
  /// the bytes it holds.
  static constexpr const char* kDosAttrib = "user.DosAttrib";
  static constexpr std::size_t kDosAttribBytes = 44;

  struct NameState {
    bool exists = false;
    bool is_dir = false;
  };

  void resolve_new_paths();
  [[nodiscard]] std::uint64_t next_random() noexcept;
  NameState resolve_name(const Instruction& ins, const std::string& rel, std::uint32_t id);
  int handle_fd(const Instruction& ins, WorkerContext& ctx);
  /// Counts a status mismatch of Unlink/Rmdir/Rename (`err` 0: the call succeeded).
  void check_status(const Instruction& ins, int err, const std::string& rel,
                    const std::string* rel2, CounterId counter, WorkerContext& ctx);
  /// Stops with a ReplayError when `err` says the name was refused (EXDEV, ELOOP).
  void guard(const Instruction& ins, int err, const std::string& rel, std::uint32_t id) const {
    if (err == EXDEV || err == ELOOP) [[unlikely]]
      refuse(ins, err, rel, id);
  }
  [[noreturn]] void refuse(const Instruction& ins, int err, const std::string& rel,
                           std::uint32_t id) const;
  /// Counts `count` problems of `counter`; throws a ReplayError with describe()'s text if
  /// `may_stop` and stop_on_mismatch, else keeps the text if it is the run's first problem.
  template <typename Describe>
  void problem(const Instruction& ins, CounterId counter, std::uint64_t count, bool may_stop,
               WorkerContext& ctx, Describe&& describe) {
    ctx.add_counter(counter, count);
    if (report_ != nullptr) report_->problems[counter].fetch_add(count, std::memory_order_relaxed);
    if (may_stop && options_.stop_on_mismatch) fail(ins, describe());
    if (report_ != nullptr && report_->claim_first()) report_->set_first(message(ins, describe()));
  }
  [[nodiscard]] std::string message(const Instruction& ins, const std::string& what) const;
  [[noreturn]] void fail(const Instruction& ins, const std::string& what) const;
  [[nodiscard]] std::string shown(std::string_view rel) const;
  /// mkdir of `rel` through the parent cache; returns the errno (0: made).
  int mkdir(const std::string& rel, mode_t mode);
  [[nodiscard]] std::string handle_text(const Instruction& ins);
  void xattr_write_hook(const Instruction& ins, int fd, WorkerContext& ctx);

  void op_ntcreatex(const Instruction& ins, const std::array<std::int64_t, 3>& v,
                    WorkerContext& ctx);
  void op_unlink(const Instruction& ins, WorkerContext& ctx);
  /// Deltree: removes the files below the directory, counting those that could not be removed.
  void op_deltree(const Instruction& ins, WorkerContext& ctx);
  void op_rmdir(const Instruction& ins, WorkerContext& ctx);
  void op_mkdir(const Instruction& ins);
  void op_rename(const Instruction& ins, WorkerContext& ctx);
  std::uint64_t op_writex(const Instruction& ins, int fd, const std::array<std::int64_t, 3>& v,
                          WorkerContext& ctx);
  /// The bytes of the next write chunk (write_data_.block_bytes() of them).
  [[nodiscard]] const std::byte* next_write_chunk() noexcept {
    return write_pattern_.empty() ? write_data_.block(write_chunks_++).data()
                                  : write_pattern_.data();
  }
  std::uint64_t op_readx(const Instruction& ins, int fd, const std::array<std::int64_t, 3>& v,
                         WorkerContext& ctx);
  void op_sfileinfo(const Instruction& ins, int fd, WorkerContext& ctx);
  void op_find(const Instruction& ins, const std::array<std::int64_t, 3>& v);

  const Loadfile& loadfile_;
  FileioOptions options_;
  ConfinedDir run_dir_;
  ParentCache parents_;  ///< the directories of recent names, opened once beneath run_dir_
  ReplayReport* report_;
  std::string client_name_;  ///< "client<id>"
  std::size_t id_;
  std::size_t client_count_;
  std::uint64_t rng_state_;
  std::uint64_t bytes_ = 0;
  std::vector<std::string> paths_;      ///< resolved non-template names, by path id
  std::array<std::string, 2> scratch_;  ///< resolved template paths (two for Rename)
  std::string template_text_;
  std::array<std::string, 10> random_strings_;
  bool random_set_[10] = {};
  HandleTable handles_;  ///< by dense handle id: the open ones and failed opens remembered
  std::array<std::int64_t, 8> previous_values_{};
  /// The bytes of successive write chunks (FileioOptions::data), each chunk its own block.
  PatternBuffer write_data_;
  std::uint64_t write_chunks_ = 0;
  /// WRITEPATTERN's bytes once one ran (then used instead of write_data_), else empty.
  std::vector<std::byte> write_pattern_;
  // Left uninitialized (new std::byte[n], not a vector's zero fill): a page costs memory only
  // once a read or getdents fills it, as with dbench's malloc'd buffers.
  std::size_t read_bytes_;
  std::unique_ptr<std::byte[]> read_buffer_;
  static constexpr std::size_t kDirBufferBytes = 32 * 1024;
  std::unique_ptr<std::byte[]> dir_buffer_;
};

}  // namespace iobench::plugins::dbench
