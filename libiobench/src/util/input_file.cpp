// The one reader of the files the CLI takes as input (result files, classic tools' outputs,
// suite files): a device or a FIFO would be read forever (/dev/zero grew the buffer by
// 160 MB/s), and a huge file would be copied into memory whole, so both are refused.
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iobench/error.hpp>
#include <iobench/file_util.hpp>
#include <iobench/format.hpp>
#include <iobench/printable.hpp>

namespace iobench {
namespace {

const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

}  // namespace

std::string read_input_file(const std::filesystem::path& path, std::string_view what,
                            std::uint64_t max_bytes) {
  InputFileIdentity unused;
  return read_input_file(path, what, max_bytes, unused);
}

std::string read_input_file(const std::filesystem::path& path, std::string_view what,
                            std::uint64_t max_bytes, InputFileIdentity& opened) {
  const std::string shown = printable(path.string());
  const auto refuse = [&](int err) {
    return ConfigError(fmt::format("cannot read {} '{}': {}", what, shown, std::strerror(err)));
  };
  const auto refuse_kind = [&](mode_t mode) {
    // "Is a directory" as strerror says it, so a directory reads as it did before.
    if (S_ISDIR(mode)) return refuse(EISDIR);
    return ConfigError(fmt::format("cannot read {} '{}': it is {}, not a regular file; give a file",
                                   what, shown, kind_of(mode)));
  };
  // O_NONBLOCK: a FIFO is refused below rather than waited on for a writer. A file another
  // process holds a lease on refuses a non-blocking open (EWOULDBLOCK): open it as usual.
  int raw = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (raw < 0 && errno == EWOULDBLOCK) raw = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  struct stat st {};
  if (raw < 0) {
    const int err = errno;
    // A socket cannot be opened at all (ENXIO): say what it is rather than "no such device".
    if (err == ENXIO && ::stat(path.c_str(), &st) == 0) throw refuse_kind(st.st_mode);
    throw refuse(err);
  }
  const UniqueFd fd(raw);
  if (::fstat(fd.get(), &st) != 0) throw refuse(errno);
  if (!S_ISREG(st.st_mode)) throw refuse_kind(st.st_mode);
  const auto too_large = [&](const std::string& size) {
    return ConfigError(fmt::format(
        "{} '{}' holds {}, more than the {} an input file may hold{}; check the file name", what,
        shown, size, format_bytes(max_bytes),
        max_bytes == kMaxInputFileBytes ? " (iobench's result and suite files are far smaller)"
                                        : ""));
  };
  const auto size = static_cast<std::uint64_t>(st.st_size);
  if (size > max_bytes) throw too_large(fmt::format("{} ({} bytes)", format_bytes(size), size));
  const int flags = ::fcntl(fd.get(), F_GETFL);
  if (flags >= 0) (void)::fcntl(fd.get(), F_SETFL, flags & ~O_NONBLOCK);
  // Read to the end, not to st_size (a file that grows meanwhile), but never past the cap: one
  // byte more proves the file too large.
  std::string text;
  text.resize(static_cast<std::size_t>(size) + 1);
  std::size_t done = 0;
  while (true) {
    if (done == text.size()) {
      if (text.size() > max_bytes) throw too_large("more than that (it grew while read)");
      text.resize(static_cast<std::size_t>(
          std::min<std::uint64_t>(max_bytes + 1, std::max<std::uint64_t>(text.size() * 2, 4096))));
    }
    const ssize_t n = ::read(fd.get(), text.data() + done, text.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      // A device error (EIO) while reading is a failure, not bad input: exit 1.
      throw IoError(errno, "read", path.string());
    }
    if (n == 0) break;
    done += static_cast<std::size_t>(n);
  }
  text.resize(done);
  opened = InputFileIdentity{static_cast<std::uint64_t>(st.st_dev),
                             static_cast<std::uint64_t>(st.st_ino)};
  return text;
}

}  // namespace iobench
