// The operations a dbench client replays (FileioClient::execute() and its op_ helpers): the
// system calls of dbench's fileio backend, timed by the replay worker around execute().
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/time.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <iobench/runner.hpp>

#include "plugins/dbench/dir_util.hpp"
#include "plugins/dbench/fileio_client.hpp"
#include "plugins/dbench/replay_counters.hpp"

namespace iobench::plugins::dbench {

OpOutcome FileioClient::execute(const Instruction& ins, const std::array<std::int64_t, 3>& v,
                                WorkerContext& ctx) {
  OpOutcome outcome;
  int fd = -1;
  switch (ins.op) {
    case OpCode::kClose:
    case OpCode::kQfileinfo:
    case OpCode::kSfileinfo:
    case OpCode::kWriteX:
    case OpCode::kReadX:
    case OpCode::kLockX:
    case OpCode::kUnlockX:
    case OpCode::kFlush:
      fd = handle_fd(ins, ctx);
      if (fd < 0) {
        outcome.skipped = true;
        return outcome;
      }
      break;
    default:
      break;
  }
  switch (ins.op) {
    case OpCode::kNtCreateX:
      op_ntcreatex(ins, v, ctx);
      break;
    case OpCode::kClose:
      ::close(fd);
      handles_.erase(ins.a);
      break;
    case OpCode::kRename:
      op_rename(ins, ctx);
      break;
    case OpCode::kUnlink:
      op_unlink(ins, ctx);
      break;
    case OpCode::kDeltree:
      op_deltree(ins, ctx);
      break;
    case OpCode::kRmdir:
      op_rmdir(ins, ctx);
      break;
    case OpCode::kMkdir:
      op_mkdir(ins);
      break;
    case OpCode::kQpathinfo:
      (void)resolve_name(ins, path(ins.a), ins.a);
      break;
    case OpCode::kQfileinfo: {
      struct stat st {};
      (void)::fstat(fd, &st);
      if (options_.xattr) {
        char value[kDosAttribBytes];
        (void)::fgetxattr(fd, kDosAttrib, value, sizeof value);
      }
      break;
    }
    case OpCode::kQfsinfo: {
      struct statvfs vfs {};
      (void)::fstatvfs(run_dir_.fd(), &vfs);
      break;
    }
    case OpCode::kSfileinfo:
      op_sfileinfo(ins, fd, ctx);
      break;
    case OpCode::kFind:
      op_find(ins, v);
      break;
    case OpCode::kWriteX:
      outcome.bytes = op_writex(ins, fd, v, ctx);
      break;
    case OpCode::kReadX:
      outcome.bytes = op_readx(ins, fd, v, ctx);
      break;
    case OpCode::kLockX:
    case OpCode::kUnlockX: {
      struct flock lock {};
      lock.l_type = ins.op == OpCode::kLockX ? F_WRLCK : F_UNLCK;
      lock.l_whence = SEEK_SET;
      lock.l_start = v[0];
      lock.l_len = v[1];
      (void)::fcntl(fd, F_SETLKW, &lock);
      break;
    }
    case OpCode::kFlush:
      (void)::fsync(fd);
      break;
    default:
      break;
  }
  bytes_ += outcome.bytes;
  return outcome;
}

void FileioClient::op_ntcreatex(const Instruction& ins, const std::array<std::int64_t, 3>& v,
                                WorkerContext& ctx) {
  const std::string& p = path(ins.a);
  const NameState name = resolve_name(ins, p, ins.a);
  const auto create_options = static_cast<std::uint64_t>(v[0]);
  const std::int64_t disposition = v[1];
  int flags = O_RDWR | (options_.sync_open ? O_SYNC : 0);
  if (disposition == 2) {  // FILE_CREATE, without O_EXCL; with --stat-check an existing file opens
    if (!(options_.stat_check && name.exists)) flags |= O_CREAT;
  } else if (disposition == 4 || disposition == 5) {  // FILE_OVERWRITE(_IF)
    flags |= O_CREAT | O_TRUNC;
  }
  const bool directory = (create_options & 0x1) != 0;  // FILE_DIRECTORY_FILE
  if (directory) {
    if (!(options_.stat_check && name.exists)) guard(ins, mkdir(p, 0700), p, ins.a);
    flags = O_RDONLY | O_DIRECTORY;
  }
  int fd = -1;
  int err = parents_.apply(p, [&](const ConfinedDir& dir, std::string_view leaf) {
    return dir.try_open(leaf, flags, 0600, fd);
  });
  if (err == EISDIR) {
    err = parents_.apply(p, [&](const ConfinedDir& dir, std::string_view leaf) {
      return dir.try_open_dir(leaf, fd);
    });
  }
  guard(ins, err, p, ins.a);

  HandleSlot* slot = ins.b != kNoId ? &handles_.slot(ins.b) : nullptr;
  const Expect expect = ins.expect();
  if (fd < 0 || expect == Expect::kFailure) {
    if (expect == Expect::kOk || fd >= 0) {
      problem(ins, kCounterMismatchNtCreateX, 1, false, ctx, [&] {  // dbench only warns here
        const std::string& status = loadfile_.statuses[ins.status];
        if (fd >= 0) return fmt::format("NTCreateX {} succeeded, expected {}", shown(p), status);
        return fmt::format("NTCreateX {} failed ({}), expected {}", shown(p), std::strerror(err),
                           status);
      });
    }
    if (fd >= 0) ::close(fd);
    // dbench records nothing for an open that is not kept: a handle of the same number that is
    // still open stays usable (client.txt does this 5 times per pass).
    if (slot != nullptr && slot->fd < 0) *slot = HandleSlot{-1, ins.a, ins.line, err};
    return;
  }
  if (slot == nullptr) {  // success on dbench 2's handle -1 cannot happen: it expects failure
    ::close(fd);
    return;
  }
  // The trace reuses a handle that is still open: dbench would keep both and use the older one
  // first; here the newer replaces it (client.txt never does this).
  if (slot->fd >= 0) ::close(slot->fd);
  *slot = HandleSlot{fd, ins.a, 0, 0};
  // dbench fstat()s every kept handle and runs the xattr hook only for non-directories.
  struct stat st {};
  const bool is_dir = ::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode);
  if (!is_dir && options_.xattr) xattr_write_hook(ins, fd, ctx);
}

void FileioClient::op_unlink(const Instruction& ins, WorkerContext& ctx) {
  const std::string& p = path(ins.a);
  (void)resolve_name(ins, p, ins.a);
  const int err = parents_.apply(
      p, [](const ConfinedDir& dir, std::string_view leaf) { return dir.try_unlink(leaf); });
  guard(ins, err, p, ins.a);
  if (options_.sync_dirs) sync_parent_directory(run_dir_, p);
  check_status(ins, err, p, nullptr, kCounterMismatchUnlink, ctx);
}

void FileioClient::op_deltree(const Instruction& ins, WorkerContext& ctx) {
  const std::string& p = path(ins.a);
  int root_error = 0;
  const std::uint64_t failures = unlink_files_below(run_dir_, p, root_error);
  guard(ins, root_error, p, ins.a);
  if (failures > 0) {
    problem(ins, kCounterDeltreeErrors, failures, false, ctx, [&] {
      return fmt::format("Deltree {}: {} entr{} could not be removed", shown(p), failures,
                         failures == 1 ? "y" : "ies");
    });
  }
}

void FileioClient::op_rmdir(const Instruction& ins, WorkerContext& ctx) {
  const std::string& p = path(ins.a);
  const NameState name = resolve_name(ins, p, ins.a);
  if (options_.stat_check && !name.is_dir) return;  // "pointless" rmdir skipped
  const int err = parents_.apply(
      p, [](const ConfinedDir& dir, std::string_view leaf) { return dir.try_rmdir(leaf); });
  guard(ins, err, p, ins.a);
  if (err == 0) parents_.clear();  // a cached directory may be the one removed
  if (options_.sync_dirs) sync_parent_directory(run_dir_, p);
  check_status(ins, err, p, nullptr, kCounterMismatchRmdir, ctx);
}

void FileioClient::op_mkdir(const Instruction& ins) {
  const std::string& p = path(ins.a);
  const NameState name = resolve_name(ins, p, ins.a);
  if (options_.stat_check && name.exists) return;
  guard(ins, mkdir(p, 0777), p, ins.a);
}

void FileioClient::op_rename(const Instruction& ins, WorkerContext& ctx) {
  const std::string& from = path(ins.a, 0);
  const std::string& to = path(ins.b, 1);
  const NameState source = resolve_name(ins, from, ins.a);
  (void)resolve_name(ins, to, ins.b);
  if (options_.stat_check && !source.exists && ins.expect() == Expect::kOk) {
    problem(ins, kCounterMismatchRename, 1, true, ctx, [&] {
      return fmt::format("Rename {} -> {}: the source does not exist (stat-check), expected {}",
                         shown(from), shown(to), loadfile_.statuses[ins.status]);
    });
  }
  const ConfinedDir* from_dir = nullptr;
  const ConfinedDir* to_dir = nullptr;
  std::string_view from_name;
  std::string_view to_name;
  int err = parents_.find(from, from_dir, from_name);
  guard(ins, err, from, ins.a);
  if (err == 0) {
    // The source's entry was used last, so finding the destination never evicts it.
    err = parents_.find(to, to_dir, to_name);
    guard(ins, err, to, ins.b);
  }
  if (err == 0) err = from_dir->try_rename(from_name, *to_dir, to_name);
  if (err == ELOOP) refuse(ins, err, from, ins.a);
  parents_.clear();  // a renamed directory would stay cached under its old name
  if (options_.sync_dirs) sync_parent_directory(run_dir_, to);
  check_status(ins, err, from, &to, kCounterMismatchRename, ctx);
}

std::uint64_t FileioClient::op_writex(const Instruction& ins, int fd,
                                      const std::array<std::int64_t, 3>& v, WorkerContext& ctx) {
  const std::int64_t offset = v[0];
  const auto size = static_cast<std::uint64_t>(v[1]);
  const std::int64_t expected = v[2];
  if (options_.fake_io) return static_cast<std::uint64_t>(expected);
  const std::byte* source = next_write_chunk();
  if (options_.one_byte_write_fix && size == 1) {
    struct stat st {};
    if (::fstat(fd, &st) == 0 && st.st_size > offset) {
      std::byte current{};
      if (::pread(fd, &current, 1, offset) == 1 && current == source[0]) return size;
    } else if (source[0] == std::byte{0}) {
      (void)::ftruncate(fd, offset + 1);
      return size;
    }
  }
  // Short writes are retried, so a full disk names its errno (ENOSPC) instead of only a short
  // count; dbench itself compares a single pwrite's result with the expected size.
  std::uint64_t written = 0;
  int err = 0;
  const std::size_t chunk_bytes = write_data_.block_bytes();
  for (std::uint64_t in_chunk = 0; written < size;) {
    if (in_chunk == chunk_bytes) {
      source = next_write_chunk();
      in_chunk = 0;
    }
    const std::size_t chunk =
        static_cast<std::size_t>(std::min<std::uint64_t>(size - written, chunk_bytes - in_chunk));
    const ssize_t n =
        ::pwrite(fd, source + in_chunk, chunk, offset + static_cast<std::int64_t>(written));
    if (n < 0) {
      if (errno == EINTR) continue;
      err = errno;
      break;
    }
    if (n == 0) {
      err = ENOSPC;
      break;
    }
    written += static_cast<std::uint64_t>(n);
    in_chunk += static_cast<std::uint64_t>(n);
  }
  if (err != 0 || static_cast<std::int64_t>(written) != expected) {
    problem(ins, kCounterShortWrite, 1, true, ctx, [&] {
      if (err != 0) {
        return fmt::format("WriteX of {} bytes at offset {} on {} failed after {} bytes: {}", size,
                           offset, handle_text(ins), written, std::strerror(err));
      }
      return fmt::format("WriteX wrote {} bytes, expected {} on {}", written, expected,
                         handle_text(ins));
    });
  }
  if (options_.fsync_writes) (void)::fsync(fd);
  return written;
}

std::uint64_t FileioClient::op_readx(const Instruction& ins, int fd,
                                     const std::array<std::int64_t, 3>& v, WorkerContext& ctx) {
  const std::int64_t offset = v[0];
  const auto size = static_cast<std::uint64_t>(v[1]);
  const std::int64_t expected = v[2];
  if (options_.fake_io) return static_cast<std::uint64_t>(expected);
  std::uint64_t got = 0;
  int err = 0;
  for (std::uint64_t done = 0; done < size;) {
    const std::size_t chunk =
        static_cast<std::size_t>(std::min<std::uint64_t>(size - done, read_bytes_));
    const ssize_t n =
        ::pread(fd, read_buffer_.get(), chunk, offset + static_cast<std::int64_t>(done));
    if (n < 0) {
      err = errno;
      break;
    }
    got += static_cast<std::uint64_t>(n);
    done += static_cast<std::uint64_t>(n);
    if (static_cast<std::size_t>(n) != chunk) break;
  }
  if (err != 0 || static_cast<std::int64_t>(got) != expected) {
    problem(ins, kCounterShortRead, 1, false, ctx, [&] {  // dbench only warns
      if (err != 0) {
        return fmt::format("ReadX of {} bytes at offset {} on {} failed after {} bytes: {}", size,
                           offset, handle_text(ins), got, std::strerror(err));
      }
      return fmt::format("ReadX of {} bytes at offset {} on {} read {} bytes, expected {}", size,
                         offset, handle_text(ins), got, expected);
    });
  }
  return got;  // the bytes really read (dbench counts the requested size)
}

void FileioClient::op_sfileinfo(const Instruction& ins, int fd, WorkerContext& ctx) {
  if (options_.xattr) {
    char value[kDosAttribBytes];
    (void)::fgetxattr(fd, kDosAttrib, value, sizeof value);
  }
  struct stat st {};
  const bool have_stat = ::fstat(fd, &st) == 0;
  if (have_stat) {
    timespec times[2]{};
    times[0].tv_sec = st.st_atime - 10;
    times[1].tv_sec = st.st_mtime - 12;
    const HandleSlot* slot = handles_.find(ins.a);  // held: fd came from it
    const std::uint32_t id = slot != nullptr ? slot->path : kNoId;
    const std::string& p = path(id);
    guard(ins,
          parents_.apply(p, [&](const ConfinedDir& dir,
                                std::string_view leaf) { return dir.try_set_times(leaf, times); }),
          p, id);
  }
  if (options_.xattr && have_stat && !S_ISDIR(st.st_mode)) xattr_write_hook(ins, fd, ctx);
}

void FileioClient::op_find(const Instruction& ins, const std::array<std::int64_t, 3>& v) {
  const std::string& pattern = path(ins.a);
  (void)resolve_name(ins, pattern, ins.a);
  if (pattern.find_first_of("<>*?\"") == std::string::npos) return;
  std::int64_t count = 0;
  const auto max_entries = static_cast<std::uint64_t>(std::max<std::int64_t>(v[1], 0));
  guard(ins,
        parents_.apply(pattern,
                       [&](const ConfinedDir& dir, std::string_view) {
                         return read_dir_entries(dir, ".", max_entries,
                                                 std::span(dir_buffer_.get(), kDirBufferBytes),
                                                 count);
                       }),
        pattern, ins.a);
}

}  // namespace iobench::plugins::dbench
