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
#include <iobench/random_mix.hpp>
#include <iobench/runner.hpp>

#include "plugins/dbench/dir_util.hpp"
#include "plugins/dbench/replay_counters.hpp"

namespace iobench::plugins::dbench {

namespace {

constexpr const char* kDosAttrib = "user.DosAttrib";
constexpr std::size_t kDosAttribBytes = 44;
constexpr std::size_t kPathMax = 4096;
/// Buffer size when some transfer size is a modifier expression (dbench HEAD's rw_buf).
constexpr std::size_t kExprBufferBytes = 16U << 20;

/// True if `rel`, read component by component, climbs above where it starts (or is absolute).
bool leaves_directory(std::string_view rel) noexcept {
  if (!rel.empty() && rel.front() == '/') return true;
  std::int64_t depth = 0;
  for (std::size_t start = 0; start <= rel.size();) {
    std::size_t end = rel.find('/', start);
    if (end == std::string_view::npos) end = rel.size();
    const std::string_view part = rel.substr(start, end - start);
    if (part == "..") {
      if (--depth < 0) return true;
    } else if (!part.empty() && part != ".") {
      ++depth;
    }
    start = end + 1;
  }
  return false;
}

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

FileioClient::FileioClient(const Loadfile& loadfile, const LoadfileStats& sizes,
                           const FileioOptions& options, ConfinedDir run_dir, std::size_t client_id,
                           std::size_t client_count, std::uint64_t seed, ReplayReport* report)
    : loadfile_(loadfile),
      options_(options),
      run_dir_(std::move(run_dir)),
      // The fstat() that tells a removed directory from a missing name, only where another
      // client can remove one: 0.4 fstat a client.txt line otherwise (dbench does none).
      parents_(run_dir_, sizes.removes_shared_dirs),
      report_(report),
      client_name_("client" + std::to_string(client_id)),
      id_(client_id),
      client_count_(client_count),
      rng_state_(seed ^ (0x9E3779B97F4A7C15ULL * (client_id + 1))),
      write_data_(options.data, buffer_bytes(sizes.max_write_bytes, sizes.has_expr_sizes),
                  seed ^ (0xC2B2AE3D27D4EB4FULL * (client_id + 1))),
      read_bytes_(buffer_bytes(sizes.max_read_bytes, sizes.has_expr_sizes)),
      read_buffer_(new std::byte[read_bytes_]),
      dir_buffer_(new std::byte[kDirBufferBytes]) {
  for (auto& s : scratch_) s.reserve(kPathMax);
  template_text_.reserve(kPathMax);
  for (auto& s : random_strings_) s.reserve(256);
}

void FileioClient::resolve_new_paths() {
  std::size_t i = paths_.size();
  paths_.resize(loadfile_.paths.size());
  for (; i < loadfile_.paths.size(); ++i) {
    if (loadfile_.paths[i].is_template) continue;  // resolved at each use (RANDOMSTRING)
    // Loadfile paths start with '/': the name beneath the run directory is what follows.
    append_client_path(paths_[i], std::string_view(loadfile_.paths[i].text).substr(1),
                       client_name_);
  }
}

FileioClient::~FileioClient() {
  handles_.for_each([](const HandleSlot& slot) {
    if (slot.fd >= 0) ::close(slot.fd);
  });
}

std::uint64_t FileioClient::next_random() noexcept {
  return splitmix64(rng_state_);  // small, fast, and reproducible from the reported seed
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
  out.clear();
  append_client_path(out, std::string_view(template_text_).substr(1), client_name_);
  return out;
}

std::string FileioClient::loadfile_spelling(std::uint32_t id) const {
  std::string out;
  const std::string& text = loadfile_.paths[id].text;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '/') {
      out.push_back('\\');
    } else if (text[i] == kRandomRef && i + 1 < text.size()) {
      out.push_back('$');
      out.push_back(text[++i]);
    } else {
      out.push_back(text[i]);
    }
  }
  return out;
}

std::string FileioClient::shown(std::string_view rel) const { return run_dir_.shown(rel).string(); }

int FileioClient::mkdir(const std::string& rel, mode_t mode) {
  return parents_.apply(rel, [&](const ConfinedDir& dir, std::string_view leaf) {
    return dir.try_mkdir(leaf, mode);
  });
}

void FileioClient::write_pattern(const std::string& pattern) noexcept {
  // Sized once, at the first WRITEPATTERN, like the buffer it replaces (dbench's rw_buf).
  write_pattern_.resize(write_data_.block_bytes());
  for (std::size_t i = 0; i < write_pattern_.size(); ++i) {
    write_pattern_[i] = static_cast<std::byte>(pattern[i % pattern.size()]);
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
  random_set_[slot] = true;
}

std::string FileioClient::message(const Instruction& ins, const std::string& what) const {
  return fmt::format("dbench client {}: {} line {}: {}", id_, loadfile_.name, ins.line, what);
}

[[noreturn]] void FileioClient::fail(const Instruction& ins, const std::string& what) const {
  throw ReplayError(message(ins, what));
}

[[noreturn]] void FileioClient::refuse(const Instruction& ins, int err, const std::string& rel,
                                       std::uint32_t id) const {
  std::string why;
  if (err == ELOOP) {
    why = fmt::format(
        "goes through a symbolic link ({}); links inside the run directory are never followed",
        shown(rel));
  } else if (leaves_directory(rel)) {
    why = fmt::format("resolves outside the run directory (here '{}')", rel);
  } else if (ConfinedDir::check_name(rel) == EXDEV) {
    why = fmt::format("has a '..' component (here '{}'); loadfile paths may not climb with '..'",
                      rel);
  } else {
    why = fmt::format("resolves outside the run directory (here '{}'; refused by the kernel)", rel);
  }
  fail(ins, fmt::format("{}: '{}' {}", loadfile_name(ins.op), loadfile_spelling(id), why));
}

FileioClient::NameState FileioClient::resolve_name(const Instruction& ins, const std::string& rel,
                                                   std::uint32_t id) {
  struct stat st {};
  const int err = parents_.apply(
      rel, [&](const ConfinedDir& dir, std::string_view leaf) { return dir.try_stat(leaf, st); });
  if (err == 0) {
    if (options_.xattr) {
      std::byte value[kDosAttribBytes];
      std::size_t size = 0;
      (void)parents_.apply(rel, [&](const ConfinedDir& dir, std::string_view leaf) {
        return dir.try_get_xattr(leaf, kDosAttrib, value, size);
      });
    }
    return {true, S_ISDIR(st.st_mode)};
  }
  guard(ins, err, rel, id);
  if (options_.no_resolve) return {};
  // Samba's name resolution after a miss: scan the parent for a case-insensitive match.
  guard(ins,
        parents_.apply(rel,
                       [&](const ConfinedDir& dir, std::string_view leaf) {
                         return find_name_case_insensitive(
                             dir, ".", leaf, std::span(dir_buffer_.get(), kDirBufferBytes));
                       }),
        rel, id);
  return {};
}

int FileioClient::handle_fd(const Instruction& ins, WorkerContext& ctx) {
  static constexpr HandleSlot kUnused{};
  const HandleSlot* held = handles_.find(ins.a);
  const HandleSlot& slot = held != nullptr ? *held : kUnused;
  if (slot.fd >= 0) return slot.fd;
  problem(ins, kCounterMissingHandle, 1, true, ctx, [&] {
    const std::string_view op = loadfile_name(ins.op);
    const std::int64_t handle = loadfile_.handles[ins.a];
    if (slot.open_line == 0) {
      return fmt::format(
          "{} on handle {}, which is not open (no NTCreateX opened it, or it was closed)", op,
          handle);
    }
    if (slot.open_errno != 0) {
      return fmt::format("{} on handle {}, but the NTCreateX of that handle at line {} failed ({})",
                         op, handle, slot.open_line, std::strerror(slot.open_errno));
    }
    return fmt::format(
        "{} on handle {}, but the NTCreateX of that handle at line {} succeeded although a "
        "failure was expected, so the handle was not kept",
        op, handle, slot.open_line);
  });
  return -1;
}

std::string FileioClient::handle_text(const Instruction& ins) {
  const HandleSlot* slot = handles_.find(ins.a);
  return fmt::format("handle {} ({})", loadfile_.handles[ins.a],
                     shown(path(slot != nullptr ? slot->path : kNoId)));
}

void FileioClient::check_status(const Instruction& ins, int err, const std::string& rel,
                                const std::string* rel2, CounterId counter, WorkerContext& ctx) {
  const Expect expect = ins.expect();
  if (expect == Expect::kAny) return;
  const bool ok = err == 0;
  if (ok == (expect == Expect::kOk)) return;
  problem(ins, counter, 1, true, ctx, [&] {
    const std::string& status = loadfile_.statuses[ins.status];
    const std::string_view op = loadfile_name(ins.op);
    const std::string names = rel2 != nullptr ? shown(rel) + " -> " + shown(*rel2) : shown(rel);
    if (ok) return fmt::format("{} {} succeeded, expected {}", op, names, status);
    return fmt::format("{} {} failed ({}), expected {}", op, names, std::strerror(err), status);
  });
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
  problem(ins, kCounterXattrErrors, 1, true, ctx, [&] {
    return fmt::format("{}: fsetxattr {} failed ({})", loadfile_name(ins.op), kDosAttrib,
                       std::strerror(err));
  });
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
      handles_.erase(ins.a);
      break;
    case OpCode::kRename:
      op_rename(ins, ctx);
      break;
    case OpCode::kUnlink: {
      const std::string& p = path(ins.a);
      (void)resolve_name(ins, p, ins.a);
      const int err = parents_.apply(
          p, [](const ConfinedDir& dir, std::string_view leaf) { return dir.try_unlink(leaf); });
      guard(ins, err, p, ins.a);
      if (options_.sync_dirs) sync_parent_directory(run_dir_, p);
      check_status(ins, err, p, nullptr, kCounterMismatchUnlink, ctx);
      break;
    }
    case OpCode::kDeltree: {
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
      break;
    }
    case OpCode::kRmdir: {
      const std::string& p = path(ins.a);
      const NameState name = resolve_name(ins, p, ins.a);
      if (options_.stat_check && !name.is_dir) break;  // "pointless" rmdir skipped
      const int err = parents_.apply(
          p, [](const ConfinedDir& dir, std::string_view leaf) { return dir.try_rmdir(leaf); });
      guard(ins, err, p, ins.a);
      if (err == 0) parents_.clear();  // a cached directory may be the one removed
      if (options_.sync_dirs) sync_parent_directory(run_dir_, p);
      check_status(ins, err, p, nullptr, kCounterMismatchRmdir, ctx);
      break;
    }
    case OpCode::kMkdir: {
      const std::string& p = path(ins.a);
      const NameState name = resolve_name(ins, p, ins.a);
      if (options_.stat_check && name.exists) break;
      guard(ins, mkdir(p, 0777), p, ins.a);
      break;
    }
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
