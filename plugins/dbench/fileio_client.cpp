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

/// Capacity reserved for a template path's text (it grows once for a longer one): a 4 KiB
/// reserve each would cost a page of memory per string in every client process.
constexpr std::size_t kTemplatePathBytes = 256;
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
  for (auto& s : scratch_) s.reserve(kTemplatePathBytes);
  template_text_.reserve(kTemplatePathBytes);
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

}  // namespace iobench::plugins::dbench
