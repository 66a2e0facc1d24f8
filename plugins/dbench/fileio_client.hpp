#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <iobench/error.hpp>
#include <iobench/workload.hpp>
#include <string>
#include <vector>

#include "plugins/dbench/loadfile_program.hpp"

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
};

/// A replay failure that dbench treats as fatal. The message names the client, the loadfile and
/// line, the operation, the path or handle, and the expected and actual outcome.
class ReplayError : public Error {
 public:
  using Error::Error;
};

/// What one executed operation produced.
struct OpOutcome {
  std::uint64_t bytes = 0;  ///< bytes to count (ReadX/WriteX size, or ret_size with fake I/O)
  bool skipped = false;     ///< the handle was missing (lenient mode): not done, not timed
};

/// One dbench client replaying a loadfile with dbench's fileio semantics: its directory, its
/// handle table, its buffers, its random state. Built untimed in the worker process; execute() is
/// the timed part and does not allocate.
///
/// Paths: the loadfile path is appended to `base_dir` and every "client1" in it becomes
/// "client<id>" (id 0-based), exactly as dbench builds its file names.
class FileioClient {
 public:
  /// REQUIRES: `loadfile` outlives the client. Throws IoError (ENAMETOOLONG) if a path would be
  /// too long.
  FileioClient(const Loadfile& loadfile, const FileioOptions& options, std::string base_dir,
               std::size_t client_id, std::size_t client_count, std::uint64_t seed);
  ~FileioClient();
  FileioClient(const FileioClient&) = delete;
  FileioClient& operator=(const FileioClient&) = delete;

  /// Evaluates the numeric arguments of `ins` (modifier expressions included) into `out` and
  /// remembers them as the "previous line" values for `+n` expressions.
  void evaluate(const Instruction& ins, std::array<std::int64_t, 3>& out) noexcept;

  /// Runs one tabulated operation with already evaluated `values`. Counts mismatches through
  /// `ctx`. Throws ReplayError when dbench would stop (and stop_on_mismatch is set) and IoError
  /// for failed writes.
  OpOutcome execute(const Instruction& ins, const std::array<std::int64_t, 3>& values,
                    WorkerContext& ctx);

  /// WRITEPATTERN: fills the write buffer with `pattern` repeated.
  void write_pattern(const std::string& pattern) noexcept;
  /// RANDOMSTRING: draws a new value for slot `slot` from `templ` ([set] -> one of its chars).
  void random_string(std::uint32_t slot, const std::string& templ) noexcept;

  [[nodiscard]] std::size_t id() const noexcept { return id_; }
  /// Bytes counted so far (for rate pacing).
  [[nodiscard]] std::uint64_t bytes() const noexcept { return bytes_; }
  /// The resolved path of loadfile path `id` (templates resolved now).
  [[nodiscard]] const std::string& path(std::uint32_t id, int scratch = 0);

 private:
  struct HandleSlot {
    int fd = -1;
    std::uint32_t path = kNoId;
    std::uint32_t open_line = 0;  ///< line of the NTCreateX that left the handle closed, or 0
    int open_errno = 0;           ///< its errno (0: it succeeded although failure was expected)
  };
  struct NameState {
    bool exists = false;
    bool is_dir = false;
  };

  [[nodiscard]] std::uint64_t next_random() noexcept;
  NameState resolve_name(const std::string& path) noexcept;
  int handle_fd(const Instruction& ins, WorkerContext& ctx);
  void check_status(const Instruction& ins, int rc, int err, const std::string& path,
                    const std::string* path2, CounterId counter, WorkerContext& ctx);
  [[noreturn]] void fail(const Instruction& ins, const std::string& what) const;
  void xattr_write_hook(const Instruction& ins, int fd, WorkerContext& ctx);

  void op_ntcreatex(const Instruction& ins, const std::array<std::int64_t, 3>& v,
                    WorkerContext& ctx);
  void op_rename(const Instruction& ins, WorkerContext& ctx);
  std::uint64_t op_writex(const Instruction& ins, int fd, const std::array<std::int64_t, 3>& v,
                          WorkerContext& ctx);
  std::uint64_t op_readx(int fd, const std::array<std::int64_t, 3>& v, WorkerContext& ctx);
  void op_sfileinfo(const Instruction& ins, int fd, WorkerContext& ctx);
  void op_find(const Instruction& ins, const std::array<std::int64_t, 3>& v);

  const Loadfile& loadfile_;
  FileioOptions options_;
  std::string base_dir_;
  std::string client_name_;  ///< "client<id>"
  std::size_t id_;
  std::size_t client_count_;
  std::uint64_t rng_state_;
  std::uint64_t bytes_ = 0;
  std::vector<std::string> paths_;      ///< resolved non-template paths, by path id
  std::array<std::string, 2> scratch_;  ///< resolved template paths (two for Rename)
  std::string template_text_;
  std::array<std::string, 10> random_strings_;
  bool random_set_[10] = {};
  std::vector<HandleSlot> handles_;
  std::array<std::int64_t, 8> previous_values_{};
  std::vector<std::byte> write_buffer_;
  std::vector<std::byte> read_buffer_;
  std::vector<std::byte> dir_buffer_;
  std::string parent_;  ///< scratch for parent directory paths
};

}  // namespace iobench::plugins::dbench
