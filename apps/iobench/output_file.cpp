#include "output_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iobench/error.hpp>
#include <iobench/printable.hpp>
#include <random>

namespace iobench::cli {
namespace {

namespace fs = std::filesystem;

const char* kind_of(mode_t mode) {
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

std::string shown(const fs::path& path) { return printable(path.string()); }

// The directory the file is (or will be) in.
fs::path directory_of(const fs::path& path) {
  return path.has_parent_path() ? path.parent_path() : fs::path(".");
}

// The path the results end up at: `path`, or the regular file its symbolic link names.
fs::path checked_final_path(const std::string& text) {
  if (text.empty()) throw ConfigError("-o: the file name is empty; give a file name");
  const fs::path path(text);
  struct stat link {};
  if (::lstat(path.c_str(), &link) != 0) {
    if (errno != ENOENT) {
      throw ConfigError(fmt::format("-o: cannot use '{}': {}; choose another file", shown(path),
                                    std::strerror(errno)));
    }
    // A new file: its directory must exist and take it.
    const fs::path dir = directory_of(path);
    struct stat st {};
    if (::stat(dir.c_str(), &st) != 0) {
      if (errno == ENOENT) {
        throw ConfigError(fmt::format("-o: directory '{}' of '{}' does not exist; create it first",
                                      shown(dir), shown(path)));
      }
      throw ConfigError(fmt::format("-o: cannot reach directory '{}' of '{}': {}", shown(dir),
                                    shown(path), std::strerror(errno)));
    }
    if (!S_ISDIR(st.st_mode)) {
      throw ConfigError(
          fmt::format("-o: '{}' (in '{}') is not a directory", shown(dir), shown(path)));
    }
    return path;
  }
  fs::path final_path = path;
  struct stat st = link;
  if (S_ISLNK(link.st_mode)) {
    if (::stat(path.c_str(), &st) != 0) {
      throw ConfigError(fmt::format("-o: '{}' is a symbolic link to nothing ({}); give a file name",
                                    shown(path), std::strerror(errno)));
    }
    char resolved[PATH_MAX];
    if (::realpath(path.c_str(), resolved) == nullptr) {
      throw ConfigError(
          fmt::format("-o: cannot resolve the link '{}': {}", shown(path), std::strerror(errno)));
    }
    final_path = resolved;
  }
  if (S_ISDIR(st.st_mode)) {
    throw ConfigError(fmt::format("-o: '{}' is a directory; give a file name, e.g. {}/result.json",
                                  shown(path), shown(path)));
  }
  if (!S_ISREG(st.st_mode)) {
    throw ConfigError(fmt::format(
        "-o: '{}' is {}; the results go to a regular file (they replace it) or a new path",
        shown(path), kind_of(st.st_mode)));
  }
  return final_path;
}

// The directory must take a new file (the temporary one).
void check_directory_writable(const fs::path& final_path, const std::string& text) {
  const fs::path dir = directory_of(final_path);
  if (::access(dir.c_str(), W_OK | X_OK) != 0) {
    throw ConfigError(fmt::format(
        "-o: cannot write '{}': its directory '{}' does not take new files ({}); choose "
        "another file",
        printable(text), shown(dir), std::strerror(errno)));
  }
}

void write_all(int fd, std::string_view text, const fs::path& path) {
  while (!text.empty()) {
    const ssize_t n = ::write(fd, text.data(), text.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      throw IoError(errno, "write", path.string());
    }
    text.remove_prefix(static_cast<std::size_t>(n));
  }
}

// open(O_TMPFILE) fails so where the filesystem (or kernel) has no unnamed files.
bool tmpfile_unsupported(int err) { return err == EOPNOTSUPP || err == EISDIR || err == EINVAL; }

ConfigError cannot_create(const std::string& path, int err) {
  return ConfigError(fmt::format(
      "-o: cannot create a file beside '{}' ({}); the results are written there first and "
      "renamed over it; choose another file",
      printable(path), std::strerror(err)));
}

// Replaces the trailing "XXXXXX" of `name` with random letters and digits.
void fill_template(std::string& name) {
  static constexpr char kChars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  std::random_device random;
  for (std::size_t i = name.size() - 6; i < name.size(); ++i) {
    name[i] = kChars[random() % (sizeof kChars - 1)];
  }
}

mode_t current_umask() {
  const mode_t mask = ::umask(0);
  ::umask(mask);
  return mask;
}

}  // namespace

void OutputFile::check(const std::string& path) {
  check_directory_writable(checked_final_path(path), path);
}

OutputFile::OutputFile(const std::string& path) : final_path_(checked_final_path(path)) {
  check_directory_writable(final_path_, path);
  struct stat st {};
  replaces_existing_ = ::stat(final_path_.c_str(), &st) == 0;
  if (replaces_existing_) {
    // Prove it can be opened for writing (without truncating it), as the run's end would.
    const int fd = ::open(final_path_.c_str(), O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
      throw ConfigError(fmt::format("-o: cannot write '{}': {}; choose another file",
                                    printable(path), std::strerror(errno)));
    }
    ::close(fd);
  }
  // An unnamed file (O_TMPFILE) has no name until commit(): a run killed outright (SIGKILL)
  // leaves nothing beside the file. Filesystems without O_TMPFILE get a named one.
  fd_ = ::open(directory_of(final_path_).c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
  if (fd_ < 0 && !tmpfile_unsupported(errno)) throw cannot_create(path, errno);
  if (fd_ < 0) {
    std::string temp = temp_template();
    fd_ = ::mkostemp(temp.data(), O_CLOEXEC);
    if (fd_ < 0) throw cannot_create(path, errno);
    temp_path_ = temp;
  }
}

std::string OutputFile::temp_template() const {
  const std::string base = final_path_.filename().string();
  // ".NAME.iobench-XXXXXX", or a shorter name where NAME is near the 255-byte limit.
  const std::string name =
      base.size() + 16 <= NAME_MAX ? "." + base + ".iobench-XXXXXX" : ".iobench-out-XXXXXX";
  return (directory_of(final_path_) / name).string();
}

void OutputFile::name_unnamed_file(std::string_view text) {
  // linkat gives the unnamed file a name (it cannot replace a file, hence the rename after):
  // by its descriptor (AT_EMPTY_PATH, which needs CAP_DAC_READ_SEARCH), else through /proc.
  const std::string proc_path = fmt::format("/proc/self/fd/{}", fd_);
  int err = 0;
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::string temp = temp_template();
    fill_template(temp);
    err = ::linkat(fd_, "", AT_FDCWD, temp.c_str(), AT_EMPTY_PATH) == 0 ? 0 : errno;
    if (err != 0 && err != EEXIST) {
      err = ::linkat(AT_FDCWD, proc_path.c_str(), AT_FDCWD, temp.c_str(), AT_SYMLINK_FOLLOW) == 0
                ? 0
                : errno;
    }
    if (err == 0) {
      temp_path_ = temp;
      return;
    }
    if (err != EEXIST) break;
  }
  // Neither works (no /proc, no privilege): write the text again into a named file.
  std::string temp = temp_template();
  const int fd = ::mkostemp(temp.data(), O_CLOEXEC);
  if (fd < 0) throw IoError(errno, fmt::format("create (linkat: {})", std::strerror(err)), temp);
  ::close(fd_);
  fd_ = fd;
  temp_path_ = temp;
  write_all(fd_, text, temp_path_);
  if (::fsync(fd_) != 0) throw IoError(errno, "fsync", temp_path_.string());
}

OutputFile::~OutputFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_ && !temp_path_.empty()) ::unlink(temp_path_.c_str());
}

void OutputFile::commit(std::string_view text) {
  // (An unnamed file's errors name the file it would replace.)
  const fs::path& shown_path = temp_path_.empty() ? final_path_ : temp_path_;
  write_all(fd_, text, shown_path);
  if (::fsync(fd_) != 0) throw IoError(errno, "fsync", shown_path.string());
  if (temp_path_.empty()) name_unnamed_file(text);
  struct stat st {};
  if (replaces_existing_ && ::stat(final_path_.c_str(), &st) == 0) {
    (void)::fchmod(fd_, st.st_mode & 07777);
    if (::geteuid() == 0) (void)::fchown(fd_, st.st_uid, st.st_gid);
  } else {
    (void)::fchmod(fd_, 0666 & ~current_umask());
  }
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) throw IoError(errno, "close", temp_path_.string());
  if (::rename(temp_path_.c_str(), final_path_.c_str()) != 0) {
    throw IoError(errno, "rename to " + final_path_.string(), temp_path_.string());
  }
  committed_ = true;
}

}  // namespace iobench::cli
