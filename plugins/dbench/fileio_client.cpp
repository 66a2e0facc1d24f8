#include "plugins/dbench/fileio_client.hpp"

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

#include "plugins/dbench/dir_util.hpp"
#include "plugins/dbench/replay_counters.hpp"

namespace iobench::plugins::dbench {

namespace {

constexpr const char* kDosAttrib = "user.DosAttrib";
constexpr std::size_t kDosAttribBytes = 44;
constexpr std::size_t kPathMax = 4096;
/// Buffer size when some transfer size is a modifier expression (dbench HEAD's rw_buf).
constexpr std::size_t kExprBufferBytes = 16U << 20;
constexpr int kOpenFlags = O_CLOEXEC | O_NOFOLLOW;
constexpr int kDirOpenFlags = O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW;

/// Appends loadfile path `text` to `out`, rewriting every "client1" to `client_name`.
void append_client_path(std::string& out, std::string_view text, std::string_view client_name) {
  constexpr std::string_view kClient1 = "client1";
  for (std::size_t pos = 0;;) {
    const std::size_t hit = text.find(kClient1, pos);
    if (hit == std::string_view::npos) {
      out.append(text.substr(pos));
      return;
    }
    out.append(text.substr(pos, hit - pos));
    out.append(client_name);
    pos = hit + kClient1.size();
  }
}

std::size_t buffer_bytes(std::uint64_t max_constant, bool has_expressions) {
  const std::uint64_t bytes = std::max<std::uint64_t>(
      {max_constant, has_expressions ? kExprBufferBytes : 0, std::uint64_t{1}});
  return static_cast<std::size_t>(bytes);
}

}  // namespace

FileioClient::FileioClient(const Loadfile& loadfile, const FileioOptions& options,
                           std::string base_dir, std::size_t client_id, std::size_t client_count,
                           std::uint64_t seed)
    : loadfile_(loadfile),
      options_(options),
      base_dir_(std::move(base_dir)),
      client_name_("client" + std::to_string(client_id)),
      id_(client_id),
      client_count_(client_count),
      rng_state_(seed ^ (0x9E3779B97F4A7C15ULL * (client_id + 1))),
      handles_(loadfile.handles.size()),
      write_buffer_(buffer_bytes(loadfile.stats.max_write_bytes, loadfile.stats.has_expr_sizes)),
      read_buffer_(buffer_bytes(loadfile.stats.max_read_bytes, loadfile.stats.has_expr_sizes)),
      dir_buffer_(32 * 1024) {
  paths_.resize(loadfile.paths.size());
  for (std::size_t i = 0; i < loadfile.paths.size(); ++i) {
    if (loadfile.paths[i].is_template) continue;
    std::string& out = paths_[i];
    out = base_dir_;
    append_client_path(out, loadfile.paths[i].text, client_name_);
    if (out.size() >= kPathMax) throw IoError(ENAMETOOLONG, "dbench path", out);
  }
  for (auto& s : scratch_) s.reserve(kPathMax);
  template_text_.reserve(kPathMax);
  for (auto& s : random_strings_) s.reserve(256);
  parent_.reserve(kPathMax);
}

FileioClient::~FileioClient() {
  for (const HandleSlot& slot : handles_) {
    if (slot.fd >= 0) ::close(slot.fd);
  }
}

std::uint64_t FileioClient::next_random() noexcept {
  // splitmix64: small, fast, and reproducible from the reported seed.
  std::uint64_t z = (rng_state_ += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

void FileioClient::evaluate(const Instruction& ins, std::array<std::int64_t, 3>& out) noexcept {
  const std::size_t count = value_count(ins.op);
  for (std::size_t i = 0; i < 3; ++i) {
    std::int64_t v = ins.value[i];
    if (i < count && ins.value_is_expr(i)) {
      const ValueExpr& expr = loadfile_.exprs[static_cast<std::size_t>(ins.value[i])];
      std::uint64_t x = expr.base == ValueExpr::Base::kRandom
                            ? next_random()
                            : static_cast<std::uint64_t>(previous_values_[expr.position]);
      for (std::uint32_t s = 0; s < expr.step_count; ++s) {
        const ExprStep& step = loadfile_.expr_steps[expr.first_step + s];
        std::uint64_t operand = step.constant;
        if (step.operand == ExprStep::Operand::kClientId) operand = id_;
        if (step.operand == ExprStep::Operand::kNumClients) operand = client_count_;
        switch (step.kind) {
          case ExprStep::Kind::kAlign:
            x = x / operand * operand;
            break;
          case ExprStep::Kind::kModulo:
            x %= operand;
            break;
          case ExprStep::Kind::kAdd:
            x += operand;
            break;
        }
      }
      v = static_cast<std::int64_t>(x);
    }
    out[i] = v;
    if (i < count) previous_values_[value_position(ins.op, i)] = v;
  }
}

const std::string& FileioClient::path(std::uint32_t id, int scratch) {
  const PathEntry& entry = loadfile_.paths[id];
  if (!entry.is_template) return paths_[id];
  template_text_.clear();
  const std::string& text = entry.text;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == kRandomRef) {
      const auto slot = static_cast<std::size_t>(text[++i] - '0');
      if (random_set_[slot]) {
        template_text_.append(random_strings_[slot]);
      } else {
        template_text_.push_back('$');
        template_text_.push_back(text[i]);
      }
    } else {
      template_text_.push_back(text[i]);
    }
  }
  std::string& out = scratch_[static_cast<std::size_t>(scratch)];
  out.assign(base_dir_);
  append_client_path(out, template_text_, client_name_);
  return out;
}

void FileioClient::write_pattern(const std::string& pattern) noexcept {
  for (std::size_t i = 0; i < write_buffer_.size(); ++i) {
    write_buffer_[i] = static_cast<std::byte>(pattern[i % pattern.size()]);
  }
}

void FileioClient::random_string(std::uint32_t slot, const std::string& templ) noexcept {
  std::string& out = random_strings_[slot];
  out.clear();
  for (std::size_t i = 0; i < templ.size(); ++i) {
    if (templ[i] != '[') {
      out.push_back(templ[i]);
      continue;
    }
    const std::size_t close = templ.find(']', i);
    const std::size_t set_size = close - i - 1;  // the parser guarantees ']' and a non-empty set
    out.push_back(templ[i + 1 + next_random() % set_size]);
    i = close;
  }
  // A drawn ".." would climb out of the client directory: replace it by a harmless name.
  if (out == "..") out = "_.";
  random_set_[slot] = true;
}

[[noreturn]] void FileioClient::fail(const Instruction& ins, const std::string& what) const {
  throw ReplayError(
      fmt::format("dbench client {}: {} line {}: {}", id_, loadfile_.name, ins.line, what));
}

FileioClient::NameState FileioClient::resolve_name(const std::string& path) noexcept {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    if (options_.xattr) {
      char value[kDosAttribBytes];
      (void)::getxattr(path.c_str(), kDosAttrib, value, sizeof value);
    }
    return {true, S_ISDIR(st.st_mode)};
  }
  if (options_.no_resolve) return {};
  // Samba's name resolution after a miss: scan the parent for a case-insensitive match.
  const std::size_t slash = path.rfind('/');
  if (slash == std::string::npos || slash == 0) return {};
  parent_.assign(path, 0, slash);
  (void)find_name_case_insensitive(parent_.c_str(), std::string_view(path).substr(slash + 1),
                                   dir_buffer_);
  return {};
}

int FileioClient::handle_fd(const Instruction& ins, WorkerContext& ctx) {
  const HandleSlot& slot = handles_[ins.a];
  if (slot.fd >= 0) return slot.fd;
  ctx.add_counter(kCounterMissingHandle, 1);
  if (!options_.stop_on_mismatch) return -1;
  const std::string_view op = loadfile_name(ins.op);
  const std::int64_t handle = loadfile_.handles[ins.a];
  if (slot.open_line == 0) {
    fail(ins, fmt::format("{} on handle {}, which is not open (no NTCreateX opened it, or it was "
                          "closed)",
                          op, handle));
  }
  if (slot.open_errno != 0) {
    fail(ins, fmt::format("{} on handle {}, but the NTCreateX of that handle at line {} failed "
                          "({})",
                          op, handle, slot.open_line, std::strerror(slot.open_errno)));
  }
  fail(ins, fmt::format("{} on handle {}, but the NTCreateX of that handle at line {} succeeded "
                        "although a failure was expected, so the handle was not kept",
                        op, handle, slot.open_line));
}

void FileioClient::check_status(const Instruction& ins, int rc, int err, const std::string& path,
                                const std::string* path2, CounterId counter, WorkerContext& ctx) {
  const Expect expect = ins.expect();
  if (expect == Expect::kAny) return;
  const bool ok = rc == 0;
  if (ok == (expect == Expect::kOk)) return;
  ctx.add_counter(counter, 1);
  if (!options_.stop_on_mismatch) return;
  const std::string& status = loadfile_.statuses[ins.status];
  const std::string_view op = loadfile_name(ins.op);
  const std::string shown = path2 != nullptr ? path + " -> " + *path2 : path;
  if (ok) fail(ins, fmt::format("{} {} succeeded, expected {}", op, shown, status));
  fail(ins, fmt::format("{} {} failed ({}), expected {}", op, shown, std::strerror(err), status));
}

void FileioClient::xattr_write_hook(const Instruction& ins, int fd, WorkerContext& ctx) {
  char value[kDosAttribBytes];
  (void)::fgetxattr(fd, kDosAttrib, value, sizeof value);
  // dbench stores a zeroed 44-byte buffer starting with time() two times in ten ("some
  // probability of sharing") and with a struct timeval otherwise.
  std::memset(value, 0, sizeof value);
  if (next_random() % 10 < 2) {
    const std::time_t now = std::time(nullptr);
    std::memcpy(value, &now, sizeof now);
  } else {
    timeval now{};
    ::gettimeofday(&now, nullptr);
    std::memcpy(value, &now, sizeof now);
  }
  if (::fsetxattr(fd, kDosAttrib, value, sizeof value, 0) == 0) return;
  const int err = errno;
  ctx.add_counter(kCounterXattrErrors, 1);
  if (options_.stop_on_mismatch) {
    fail(ins, fmt::format("{}: fsetxattr {} failed ({})", loadfile_name(ins.op), kDosAttrib,
                          std::strerror(err)));
  }
}

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
      handles_[ins.a] = HandleSlot{};
      break;
    case OpCode::kRename:
      op_rename(ins, ctx);
      break;
    case OpCode::kUnlink: {
      const std::string& p = path(ins.a);
      (void)resolve_name(p);
      const int rc = ::unlink(p.c_str());
      const int err = errno;
      if (options_.sync_dirs) sync_parent_directory(p);
      check_status(ins, rc, err, p, nullptr, kCounterMismatchUnlink, ctx);
      break;
    }
    case OpCode::kDeltree:
      ctx.add_counter(kCounterDeltreeErrors, unlink_files_below(path(ins.a).c_str()));
      break;
    case OpCode::kRmdir: {
      const std::string& p = path(ins.a);
      const NameState name = resolve_name(p);
      if (options_.stat_check && !name.is_dir) break;  // "pointless" rmdir skipped
      const int rc = ::rmdir(p.c_str());
      const int err = errno;
      if (options_.sync_dirs) sync_parent_directory(p);
      check_status(ins, rc, err, p, nullptr, kCounterMismatchRmdir, ctx);
      break;
    }
    case OpCode::kMkdir: {
      const std::string& p = path(ins.a);
      const NameState name = resolve_name(p);
      if (options_.stat_check && name.exists) break;
      (void)::mkdir(p.c_str(), 0777);
      break;
    }
    case OpCode::kQpathinfo:
      (void)resolve_name(path(ins.a));
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
      (void)::statvfs(base_dir_.c_str(), &vfs);
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
      outcome.bytes = op_readx(fd, v, ctx);
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
  const NameState name = resolve_name(p);
  const auto create_options = static_cast<std::uint64_t>(v[0]);
  const std::int64_t disposition = v[1];
  int flags = O_RDWR | kOpenFlags | (options_.sync_open ? O_SYNC : 0);
  if (disposition == 2) {  // FILE_CREATE, without O_EXCL; with --stat-check an existing file opens
    if (!(options_.stat_check && name.exists)) flags |= O_CREAT;
  } else if (disposition == 4 || disposition == 5) {  // FILE_OVERWRITE(_IF)
    flags |= O_CREAT | O_TRUNC;
  }
  const bool directory = (create_options & 0x1) != 0;  // FILE_DIRECTORY_FILE
  if (directory) {
    if (!(options_.stat_check && name.exists)) (void)::mkdir(p.c_str(), 0700);
    flags = kDirOpenFlags;
  }
  int fd = ::open(p.c_str(), flags, 0600);
  if (fd < 0 && errno == EISDIR) fd = ::open(p.c_str(), kDirOpenFlags);
  const int err = fd < 0 ? errno : 0;

  HandleSlot* slot = ins.b != kNoId ? &handles_[ins.b] : nullptr;
  const Expect expect = ins.expect();
  if (fd < 0 || expect == Expect::kFailure) {
    if (expect == Expect::kOk || fd >= 0) {
      ctx.add_counter(kCounterMismatchNtCreateX, 1);  // dbench only warns here
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

void FileioClient::op_rename(const Instruction& ins, WorkerContext& ctx) {
  const std::string& from = path(ins.a, 0);
  const std::string& to = path(ins.b, 1);
  const NameState source = resolve_name(from);
  (void)resolve_name(to);
  if (options_.stat_check && !source.exists && ins.expect() == Expect::kOk) {
    ctx.add_counter(kCounterMismatchRename, 1);
    if (options_.stop_on_mismatch) {
      fail(ins, fmt::format("Rename {} -> {}: the source does not exist (stat-check), expected {}",
                            from, to, loadfile_.statuses[ins.status]));
    }
  }
  const int rc = ::rename(from.c_str(), to.c_str());
  const int err = errno;
  if (options_.sync_dirs) sync_parent_directory(to);
  check_status(ins, rc, err, from, &to, kCounterMismatchRename, ctx);
}

std::uint64_t FileioClient::op_writex(const Instruction& ins, int fd,
                                      const std::array<std::int64_t, 3>& v, WorkerContext& ctx) {
  const std::int64_t offset = v[0];
  const auto size = static_cast<std::uint64_t>(v[1]);
  const std::int64_t expected = v[2];
  if (options_.fake_io) return static_cast<std::uint64_t>(expected);
  if (options_.one_byte_write_fix && size == 1) {
    struct stat st {};
    if (::fstat(fd, &st) == 0 && st.st_size > offset) {
      std::byte current{};
      if (::pread(fd, &current, 1, offset) == 1 && current == write_buffer_[0]) return size;
    } else if (write_buffer_[0] == std::byte{0}) {
      (void)::ftruncate(fd, offset + 1);
      return size;
    }
  }
  std::int64_t written = 0;
  int err = 0;
  for (std::uint64_t done = 0; done < size;) {
    const std::size_t chunk =
        static_cast<std::size_t>(std::min<std::uint64_t>(size - done, write_buffer_.size()));
    const ssize_t n =
        ::pwrite(fd, write_buffer_.data(), chunk, offset + static_cast<std::int64_t>(done));
    if (n < 0) {
      err = errno;
      written = -1;
      break;
    }
    written += n;
    done += static_cast<std::uint64_t>(n);
    if (static_cast<std::size_t>(n) != chunk) break;
  }
  if (written != expected) {
    ctx.add_counter(kCounterShortWrite, 1);
    if (options_.stop_on_mismatch) {
      const std::int64_t handle = loadfile_.handles[ins.a];
      if (written < 0) {
        fail(ins, fmt::format("WriteX of {} bytes at offset {} on handle {} ({}) failed ({})", size,
                              offset, handle, path(handles_[ins.a].path), std::strerror(err)));
      }
      fail(ins, fmt::format("WriteX wrote {} bytes, expected {} on handle {} ({})", written,
                            expected, handle, path(handles_[ins.a].path)));
    }
  }
  if (options_.fsync_writes) (void)::fsync(fd);
  return size;
}

std::uint64_t FileioClient::op_readx(int fd, const std::array<std::int64_t, 3>& v,
                                     WorkerContext& ctx) {
  const std::int64_t offset = v[0];
  const auto size = static_cast<std::uint64_t>(v[1]);
  const std::int64_t expected = v[2];
  if (options_.fake_io) return static_cast<std::uint64_t>(expected);
  std::int64_t got = 0;
  for (std::uint64_t done = 0; done < size;) {
    const std::size_t chunk =
        static_cast<std::size_t>(std::min<std::uint64_t>(size - done, read_buffer_.size()));
    const ssize_t n =
        ::pread(fd, read_buffer_.data(), chunk, offset + static_cast<std::int64_t>(done));
    if (n < 0) {
      got = -1;
      break;
    }
    got += n;
    done += static_cast<std::uint64_t>(n);
    if (static_cast<std::size_t>(n) != chunk) break;
  }
  if (got != expected) ctx.add_counter(kCounterShortRead, 1);  // dbench only warns
  return size;                                                 // dbench counts the requested size
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
    (void)::utimensat(AT_FDCWD, path(handles_[ins.a].path).c_str(), times, 0);
  }
  if (options_.xattr && have_stat && !S_ISDIR(st.st_mode)) xattr_write_hook(ins, fd, ctx);
}

void FileioClient::op_find(const Instruction& ins, const std::array<std::int64_t, 3>& v) {
  const std::string& pattern = path(ins.a);
  (void)resolve_name(pattern);
  if (pattern.find_first_of("<>*?\"", base_dir_.size()) == std::string::npos) return;
  const std::size_t slash = pattern.rfind('/');
  parent_.assign(pattern, 0, slash);
  (void)read_dir_entries(parent_.c_str(),
                         static_cast<std::uint64_t>(std::max<std::int64_t>(v[1], 0)), dir_buffer_);
}

}  // namespace iobench::plugins::dbench
