#include "plugins/dbench/loadfile_reader.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iobench/error.hpp>
#include <iobench/format.hpp>
#include <memory>

namespace iobench::plugins::dbench {

namespace {

/// `bytes` as a size param value: "128m" for whole MiB, else the byte count.
std::string size_param(std::uint64_t bytes) {
  return bytes % (1 << 20) == 0 ? fmt::format("{}m", bytes >> 20) : fmt::format("{}", bytes);
}

/// What a stat(2) mode names, for the message refusing a loadfile that is not a regular file.
const char* file_kind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a pipe (FIFO)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "a special file";
}

/// Every pass of every client process reads the loadfile again from its start: it must be a
/// regular file.
[[noreturn]] void refuse_not_regular(const std::filesystem::path& path, mode_t mode) {
  const std::string fix =
      S_ISDIR(mode) ? "give a loadfile in it (e.g. " + (path / "client.txt").string() + ")"
                    : "save it to a file first (e.g. zcat client.txt.gz > client.txt, "
                      "or give the .gz file itself)";
  throw ConfigError("loadfile '" + path.string() + "' is " + file_kind(mode) +
                    ", not a regular file: each client reads it again for every pass; " + fix);
}

FileIdentity identity_of(const struct stat& st) {
  return FileIdentity{.device = st.st_dev,
                      .inode = st.st_ino,
                      .size = st.st_size,
                      .mtime_ns = st.st_mtim.tv_sec * 1'000'000'000LL + st.st_mtim.tv_nsec,
                      .ctime_ns = st.st_ctim.tv_sec * 1'000'000'000LL + st.st_ctim.tv_nsec};
}

}  // namespace

LoadfileTextReader::LoadfileTextReader(const std::filesystem::path& path, std::size_t max_bytes)
    : path_(path), max_bytes_(max_bytes) {
  const auto refuse = [&](int err) {
    throw ConfigError("loadfile '" + path.string() +
                      "' cannot be opened: " + (err != 0 ? std::strerror(err) : "out of memory") +
                      "; give an existing dbench loadfile (e.g. /usr/share/dbench/client.txt)");
  };
  // O_NONBLOCK: a FIFO is refused below rather than waited on for a writer. A file another
  // process holds a lease on refuses a non-blocking open (EWOULDBLOCK): open it as usual.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0 && errno == EWOULDBLOCK) fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  struct stat st {};
  if (fd < 0) {
    const int err = errno;
    // A socket cannot be opened at all (ENXIO): say what it is rather than "no such device".
    if (err == ENXIO && ::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
      refuse_not_regular(path, st.st_mode);
    }
    refuse(err);
  }
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    refuse(err);
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    refuse_not_regular(path, st.st_mode);
  }
  // Reads block as usual from here (a FUSE file system may honour the flag).
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0) (void)::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  stat_fd_ = fd;
  identity_ = identity_of(st);
  // Plain text is read straight into the caller's buffer; zlib (and its ~200 KiB of buffers in
  // every client process) only for a gzip file, known by its magic bytes.
  unsigned char magic[2] = {};
  if (::pread(fd, magic, sizeof magic, 0) != 2 || magic[0] != 0x1f || magic[1] != 0x8b) {
    fd_ = fd;
    return;
  }
  errno = 0;
  file_ = gzdopen(fd, "rb");  // owns fd from here: gzclose closes it
  if (file_ == nullptr) {
    const int err = errno;
    ::close(fd);
    refuse(err);
  }
  gzbuffer(file_, 64 * 1024);
}

LoadfileTextReader::~LoadfileTextReader() {
  if (file_ != nullptr) gzclose(file_);
  if (fd_ >= 0) ::close(fd_);
}

FileIdentity LoadfileTextReader::identity_now() const {
  struct stat st {};
  if (::fstat(stat_fd_, &st) != 0) {
    const int err = errno;
    throw ConfigError("loadfile '" + path_.string() + "' cannot be read: " + std::strerror(err));
  }
  return identity_of(st);
}

int LoadfileTextReader::read_plain(char* out, std::size_t want) {
  while (true) {
    const ssize_t n = ::read(fd_, out, want);
    if (n >= 0 || errno != EINTR) return static_cast<int>(n);
  }
}

bool LoadfileTextReader::read(std::string& out, std::size_t chunk) {
  if (done_) return false;
  if (total_ > max_bytes_) {
    throw ConfigError(fmt::format(
        "loadfile '{}' holds more than {} of text (max_loadfile_size={}); give a dbench "
        "loadfile (client.txt has 25 MiB) or raise max_loadfile_size (e.g. "
        "max_loadfile_size={})",
        path_.string(), format_bytes(max_bytes_), size_param(max_bytes_),
        size_param(std::max<std::uint64_t>(max_bytes_ * 4, 1 << 30))));
  }
  // Never more than one byte past the limit: that byte proves the file is too large.
  const std::size_t want = std::min(chunk, max_bytes_ + 1 - total_);
  const std::size_t old_size = out.size();
  out.resize(old_size + want);
  int got = 0;
  if (file_ == nullptr) {
    got = read_plain(out.data() + old_size, want);
    if (got < 0) {
      const int err = errno;
      out.resize(old_size);
      throw ConfigError("loadfile '" + path_.string() + "' cannot be read: " + std::strerror(err) +
                        "; expected a plain or gzip-compressed dbench loadfile");
    }
  } else {
    got = gzread(file_, out.data() + old_size, static_cast<unsigned>(want));
    // A gzip stream cut short ends with a 0 read and Z_BUF_ERROR set, not with -1.
    int zerr = Z_OK;
    const char* what = gzerror(file_, &zerr);
    if (got < 0 || (zerr != Z_OK && zerr != Z_STREAM_END)) {
      out.resize(old_size);
      const std::string reason = zerr == Z_ERRNO ? std::strerror(errno) : what;
      throw ConfigError("loadfile '" + path_.string() + "' cannot be read: " + reason +
                        "; expected a plain or gzip-compressed dbench loadfile");
    }
  }
  out.resize(old_size + static_cast<std::size_t>(got));
  total_ += static_cast<std::size_t>(got);
  if (got == 0) {
    done_ = true;
    // A file rewritten in place keeps its inode: its size or times tell that the text just
    // read is not all one version (a pass of the replay, or the validation, would be mixed).
    if (identity_now() != identity_) {
      throw ConfigError("loadfile '" + path_.string() +
                        "' changed while it was read (its size, times or inode); run again once "
                        "nothing writes to it");
    }
  }
  return got != 0;
}

std::string read_loadfile_text(const std::filesystem::path& path, std::size_t max_bytes) {
  LoadfileTextReader reader(path, max_bytes);
  std::string text;
  // Room for the whole text up front (up to 256 MiB), so growing never copies it: the memory
  // used is the text read so far. Pages not written are never touched.
  text.reserve(std::min<std::size_t>(max_bytes, std::size_t{256} << 20) + 1);
  while (reader.read(text, std::size_t{1} << 20)) {
  }
  return text;
}

}  // namespace iobench::plugins::dbench
