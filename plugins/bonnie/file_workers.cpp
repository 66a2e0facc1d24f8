#include "plugins/bonnie/file_workers.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <iobench/error.hpp>
#include <iobench/file_util.hpp>
#include <string>
#include <vector>

#include "plugins/bonnie/file_names.hpp"

namespace iobench::plugins::bonnie {
namespace {

constexpr int kDirFlags = O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW;

std::string where(const std::filesystem::path& dir, const char* name) {
  return (dir / name).string();
}

UniqueFd open_dir_at(int parent, const char* name, const std::filesystem::path& parent_path) {
  const int fd = ::openat(parent, name, kDirFlags);
  if (fd < 0) throw IoError(errno, "open directory", where(parent_path, name));
  return UniqueFd(fd);
}

UniqueFd open_dir(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), kDirFlags);
  if (fd < 0) throw IoError(errno, "open directory", path.string());
  return UniqueFd(fd);
}

/// Opens every directory files live in (the test directory itself when there are no
/// subdirectories), for fsync(2) of directories.
std::vector<UniqueFd> open_all_dirs(int test_fd, const FileArgs& args) {
  std::vector<UniqueFd> fds;
  if (args.spec.dirs == 1) {
    fds.push_back(open_dir_at(test_fd, ".", args.test_dir));
    return fds;
  }
  NameBuffer name;
  for (std::uint32_t d = 0; d < args.spec.dirs; ++d) {
    FileNamer::dir_name(d, name);
    fds.push_back(open_dir_at(test_fd, name.data(), args.test_dir));
  }
  return fds;
}

/// close(2) with the error naming the file; the path is built only on error (this is per file, in
/// the timed loop).
void close_file(UniqueFd& file, const char* name, const FileArgs& args) {
  if (::close(file.release()) != 0 && errno != EINTR) {
    throw IoError(errno, "close", where(args.test_dir, name));
  }
}

void fsync_dir(int fd, const FileArgs& args) {
  if (::fsync(fd) != 0) throw IoError(errno, "fsync directory", args.test_dir.string());
}

/// Reads `size` bytes of an open file in chunk pieces (bonnie++'s stat test reads what it finds).
void read_file_data(int fd, std::uint64_t size, std::vector<std::byte>& buf, const char* name,
                    const FileArgs& args) {
  for (std::uint64_t done = 0; done < size;) {
    const std::size_t want =
        static_cast<std::size_t>(std::min<std::uint64_t>(buf.size(), size - done));
    const ssize_t n = ::read(fd, buf.data(), want);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw IoError(errno, "read", where(args.test_dir, name));
    }
    if (n == 0) throw IoError(EIO, "read (short read: end of file)", where(args.test_dir, name));
    done += static_cast<std::uint64_t>(n);
  }
}

/// stat(2) the file `name` relative to `dir_fd`, read its data if it has any; returns the bytes
/// read.
std::uint64_t stat_and_read(int dir_fd, const char* name, std::vector<std::byte>& buf,
                            const FileArgs& args) {
  struct stat st {};
  if (::fstatat(dir_fd, name, &st, 0) != 0)
    throw IoError(errno, "stat", where(args.test_dir, name));
  const auto size = static_cast<std::uint64_t>(st.st_size);
  if (size == 0) return 0;
  const int fd = ::openat(dir_fd, name, O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw IoError(errno, "open", where(args.test_dir, name));
  UniqueFd file(fd);
  read_file_data(fd, size, buf, name, args);
  close_file(file, name, args);
  return size;
}

void check_count(std::uint64_t found, const FileArgs& args, const char* what) {
  if (found != args.spec.count()) {
    throw IoError(
        EIO, fmt::format("{} (expected {} files but found {})", what, args.spec.count(), found),
        args.test_dir.string());
  }
}

/// Removes the subdirectories and the test directory (the delete phases' tail, timed).
void remove_test_dirs(UniqueFd& test_fd, const FileArgs& args) {
  if (args.spec.dirs > 1) {
    NameBuffer name;
    for (std::uint32_t d = 0; d < args.spec.dirs; ++d) {
      FileNamer::dir_name(d, name);
      if (::unlinkat(test_fd.get(), name.data(), AT_REMOVEDIR) != 0) {
        throw IoError(errno, "rmdir", where(args.test_dir, name.data()));
      }
    }
  }
  test_fd.close(args.test_dir);
  if (::rmdir(args.test_dir.c_str()) != 0) throw IoError(errno, "rmdir", args.test_dir.string());
}

FileNamer make_namer(const FileArgs& args, bool random_names) {
  return FileNamer(args.seed, args.spec.count(), args.spec.dirs, random_names, args.spec.min_bytes,
                   args.spec.max_bytes);
}

class CreateWorker final : public PhaseWorker {
 public:
  CreateWorker(const FileArgs& args, bool random_names)
      : args_(args), namer_(make_namer(args, random_names)), buffer_(args.spec.chunk_bytes) {
    if (::mkdir(args.test_dir.c_str(), 0700) != 0) {
      throw IoError(errno, "mkdir", args.test_dir.string());
    }
    test_fd_ = open_dir(args.test_dir);
    if (args.spec.dirs > 1) {
      NameBuffer name;
      for (std::uint32_t d = 0; d < args.spec.dirs; ++d) {
        FileNamer::dir_name(d, name);
        if (::mkdirat(test_fd_.get(), name.data(), 0700) != 0) {
          throw IoError(errno, "mkdir", where(args.test_dir, name.data()));
        }
      }
    }
    if (args.fsync) dir_fds_ = open_all_dirs(test_fd_.get(), args);
    if (args.spec.kind == FileKind::kSymlink) {
      // The link text: file 0's name, through directory 00000 when there are subdirectories so
      // that it resolves from every directory.
      NameBuffer first;
      namer_.name_of(0, first);
      symlink_target_ =
          args.spec.dirs > 1 ? std::string("../00000/") + first.data() : std::string(first.data());
    }
  }

  void run(WorkerContext& ctx) override {
    const std::uint64_t count = namer_.count();
    NameBuffer path;
    NameBuffer first;
    namer_.path_of(0, first);
    OpTimer timer;
    for (std::uint64_t i = 0; i < count && ctx.keep_going(); ++i) {
      namer_.path_of(i, path);
      std::uint64_t bytes = 0;
      if (args_.spec.kind == FileKind::kRegular || i == 0) {
        bytes = args_.spec.kind == FileKind::kRegular ? namer_.size_of(i) : 0;
        create_file(path.data(), bytes, i);
      } else {
        link_file(first.data(), path.data(), i);
      }
      timer.lap(ctx, kFileOp, bytes);
    }
    ::sync();
  }

 private:
  void create_file(const char* path, std::uint64_t size, std::uint64_t i) {
    const int fd =
        ::openat(test_fd_.get(), path, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) throw IoError(errno, "create", where(args_.test_dir, path));
    UniqueFd file(fd);
    for (std::uint64_t done = 0; done < size;) {
      const std::size_t want =
          static_cast<std::size_t>(std::min<std::uint64_t>(buffer_.size(), size - done));
      const ssize_t n = ::write(fd, buffer_.data(), want);
      if (n < 0) {
        if (errno == EINTR) continue;
        throw IoError(errno, "write", where(args_.test_dir, path));
      }
      if (n == 0) throw IoError(ENOSPC, "write", where(args_.test_dir, path));
      done += static_cast<std::uint64_t>(n);
    }
    if (args_.fsync) {
      if (::fsync(fd) != 0) throw IoError(errno, "fsync", where(args_.test_dir, path));
      fsync_dir(dir_fds_[namer_.dir_of(i)].get(), args_);
    }
    close_file(file, path, args_);
  }

  void link_file(const char* first, const char* path, std::uint64_t i) {
    const int rc = args_.spec.kind == FileKind::kHardLink
                       ? ::linkat(test_fd_.get(), first, test_fd_.get(), path, 0)
                       : ::symlinkat(symlink_target_.c_str(), test_fd_.get(), path);
    if (rc != 0) {
      throw IoError(errno, args_.spec.kind == FileKind::kHardLink ? "link" : "symlink",
                    where(args_.test_dir, path));
    }
    if (args_.fsync) fsync_dir(dir_fds_[namer_.dir_of(i)].get(), args_);
  }

  FileArgs args_;
  FileNamer namer_;
  std::vector<std::byte> buffer_;
  UniqueFd test_fd_;
  std::vector<UniqueFd> dir_fds_;
  std::string symlink_target_;
};

/// The directory stream of one directory; closedir on destruction.
class DirStream {
 public:
  DirStream(int parent, const char* name, const FileArgs& args) : dir_(nullptr) {
    UniqueFd fd = open_dir_at(parent, name, args.test_dir);
    dir_ = ::fdopendir(fd.get());
    if (dir_ == nullptr) throw IoError(errno, "opendir", where(args.test_dir, name));
    static_cast<void>(fd.release());
  }
  ~DirStream() {
    if (dir_ != nullptr) ::closedir(dir_);
  }
  DirStream(const DirStream&) = delete;
  DirStream& operator=(const DirStream&) = delete;
  /// The next entry not starting with '.', or nullptr at the end.
  const char* next(const FileArgs& args) {
    for (;;) {
      errno = 0;
      const dirent* entry = ::readdir(dir_);
      if (entry == nullptr) {
        if (errno != 0) throw IoError(errno, "readdir", args.test_dir.string());
        return nullptr;
      }
      if (entry->d_name[0] != '.') return entry->d_name;
    }
  }
  [[nodiscard]] int fd() const { return ::dirfd(dir_); }

 private:
  DIR* dir_;
};

/// Sequential stat or delete: every directory in turn, entries in readdir order.
class SequentialWorker final : public PhaseWorker {
 public:
  SequentialWorker(const FileArgs& args, bool remove)
      : args_(args),
        remove_(remove),
        test_fd_(open_dir(args.test_dir)),
        buffer_(args.spec.chunk_bytes) {}

  void run(WorkerContext& ctx) override {
    std::uint64_t found = 0;
    NameBuffer dir_name;
    OpTimer timer;
    for (std::uint32_t d = 0; d < args_.spec.dirs && ctx.keep_going(); ++d) {
      if (args_.spec.dirs == 1) {
        dir_name[0] = '.';
        dir_name[1] = '\0';
      } else {
        FileNamer::dir_name(d, dir_name);
      }
      DirStream dir(test_fd_.get(), dir_name.data(), args_);
      while (const char* name = dir.next(args_)) {
        std::uint64_t bytes = 0;
        if (remove_) {
          if (::unlinkat(dir.fd(), name, 0) != 0) {
            throw IoError(errno, "unlink", where(args_.test_dir, name));
          }
          if (args_.fsync) fsync_dir(dir.fd(), args_);
        } else {
          bytes = stat_and_read(dir.fd(), name, buffer_, args_);
        }
        ++found;
        timer.lap(ctx, kFileOp, bytes);
        if (!ctx.keep_going()) return;
      }
    }
    if (remove_) {
      remove_test_dirs(test_fd_, args_);
      check_count(found, args_, "unlink");
      ::sync();
    } else {
      check_count(found, args_, "stat");
    }
  }

 private:
  FileArgs args_;
  bool remove_;
  UniqueFd test_fd_;
  std::vector<std::byte> buffer_;
};

/// Random stat or delete: all names in a pseudo-random order.
class RandomOrderWorker final : public PhaseWorker {
 public:
  RandomOrderWorker(const FileArgs& args, bool remove)
      : args_(args),
        remove_(remove),
        namer_(make_namer(args, true)),
        order_(args.spec.count(),
               stream_value(args.seed, remove ? kSaltDeleteOrder : kSaltStatOrder, 0)),
        test_fd_(open_dir(args.test_dir)),
        buffer_(args.spec.chunk_bytes) {
    if (remove_ && args.fsync) dir_fds_ = open_all_dirs(test_fd_.get(), args);
  }

  void run(WorkerContext& ctx) override {
    const std::uint64_t count = order_.size();
    NameBuffer path;
    OpTimer timer;
    std::uint64_t k = 0;
    for (; k < count && ctx.keep_going(); ++k) {
      const std::uint64_t i = order_.at(k);
      namer_.path_of(i, path);
      std::uint64_t bytes = 0;
      if (remove_) {
        if (::unlinkat(test_fd_.get(), path.data(), 0) != 0) {
          throw IoError(errno, "unlink", where(args_.test_dir, path.data()));
        }
        if (args_.fsync) fsync_dir(dir_fds_[namer_.dir_of(i)].get(), args_);
      } else {
        bytes = stat_and_read(test_fd_.get(), path.data(), buffer_, args_);
      }
      timer.lap(ctx, kFileOp, bytes);
    }
    if (remove_ && k == count) {
      dir_fds_.clear();
      remove_test_dirs(test_fd_, args_);
      ::sync();
    }
  }

 private:
  FileArgs args_;
  bool remove_;
  FileNamer namer_;
  Permutation order_;
  UniqueFd test_fd_;
  std::vector<std::byte> buffer_;
  std::vector<UniqueFd> dir_fds_;
};

}  // namespace

std::unique_ptr<PhaseWorker> make_file_worker(PhaseId id, const FileArgs& args) {
  switch (id) {
    case PhaseId::kSeqCreate:
      return std::make_unique<CreateWorker>(args, false);
    case PhaseId::kRandCreate:
      return std::make_unique<CreateWorker>(args, true);
    case PhaseId::kSeqStat:
      return std::make_unique<SequentialWorker>(args, false);
    case PhaseId::kSeqDelete:
      return std::make_unique<SequentialWorker>(args, true);
    case PhaseId::kRandStat:
      return std::make_unique<RandomOrderWorker>(args, false);
    case PhaseId::kRandDelete:
      return std::make_unique<RandomOrderWorker>(args, true);
    default:
      break;
  }
  throw ConfigError("bonnie: internal error: not a file phase");
}

}  // namespace iobench::plugins::bonnie
