#include "plugins/bonnie/file_workers.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <iobench/confined_dir.hpp>
#include <iobench/error.hpp>
#include <iobench/file_util.hpp>
#include <string>
#include <vector>

#include "plugins/bonnie/file_names.hpp"

namespace iobench::plugins::bonnie {
namespace {

std::string where(const std::filesystem::path& dir, const char* name) {
  return (dir / name).string();
}

/// Opens every directory files live in (the test directory itself when there are no
/// subdirectories) beneath the test directory: the per-file calls then act on one name in one of
/// these (and fsync(2) them with -b).
std::vector<OwnedConfinedDir> open_all_dirs(const ConfinedDir& test_dir, const FileArgs& args) {
  std::vector<OwnedConfinedDir> dirs;
  if (args.spec.dirs == 1) {
    dirs.push_back(test_dir.open_dir("."));
    return dirs;
  }
  NameBuffer name;
  for (std::uint32_t d = 0; d < args.spec.dirs; ++d) {
    FileNamer::dir_name(d, name);
    dirs.push_back(test_dir.open_dir(name.data()));
  }
  return dirs;
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

/// lstat the file `name` (one component) in directory `dir_fd`, read its data if it is a regular
/// file with any; returns the bytes read. Neither call follows a link.
std::uint64_t stat_and_read(int dir_fd, const char* name, std::vector<std::byte>& buf,
                            const FileArgs& args) {
  struct stat st {};
  if (::fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
    throw IoError(errno, "stat", where(args.test_dir, name));
  // A symlink of the symlink test names the empty file 0: bonnie++ reads nothing either.
  const auto size = S_ISLNK(st.st_mode) ? 0 : static_cast<std::uint64_t>(st.st_size);
  if (size == 0) return 0;
  const int fd = ::openat(dir_fd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) throw IoError(errno, "open", where(args.test_dir, name));
  UniqueFd file(fd);
  read_file_data(fd, size, buf, name, args);
  close_file(file, name, args);
  return size;
}

void check_count(std::uint64_t found, const FileArgs& args, const char* what) {
  if (found != args.existing) {
    throw IoError(EIO,
                  fmt::format("{} (expected {} files but found {})", what, args.existing, found),
                  args.test_dir.string());
  }
}

/// Removes the subdirectories and the test directory (the delete phases' tail, timed).
void remove_test_dirs(OwnedConfinedDir& test_dir, const FileArgs& args) {
  if (args.spec.dirs > 1) {
    NameBuffer name;
    for (std::uint32_t d = 0; d < args.spec.dirs; ++d) {
      FileNamer::dir_name(d, name);
      if (::unlinkat(test_dir.fd(), name.data(), AT_REMOVEDIR) != 0) {
        throw IoError(errno, "rmdir", where(args.test_dir, name.data()));
      }
    }
  }
  test_dir = OwnedConfinedDir();
  args.run_dir.rmdir(args.test_name);
}

FileNamer make_namer(const FileArgs& args, bool random_names) {
  return FileNamer(args.seed, args.spec.count(), args.spec.dirs, random_names, args.spec.min_bytes,
                   args.spec.max_bytes);
}

class CreateWorker final : public PhaseWorker {
 public:
  CreateWorker(const FileArgs& args, bool random_names)
      : args_(args),
        namer_(make_namer(args, random_names)),
        // bonnie++ writes the files from a fresh buffer it never fills: zeros.
        data_(args.data.kind == DataPattern::Kind::kBonnie
                  ? DataPattern{DataPattern::Kind::kZeros, 0}
                  : args.data,
              std::max<std::size_t>(args.spec.chunk_bytes, 1), args.seed) {
    args.run_dir.mkdir(args.test_name, 0700);
    test_dir_ = args.run_dir.open_dir(args.test_name);
    if (args.spec.dirs > 1) {
      NameBuffer name;
      for (std::uint32_t d = 0; d < args.spec.dirs; ++d) {
        // Up to 99999 directories: a stop must not wait for them all (the runner removes
        // what was made with the run directory).
        if (args.ctx != nullptr && args.ctx->stop_requested()) {
          stopped_ = true;
          return;
        }
        FileNamer::dir_name(d, name);
        test_dir_.mkdir(name.data(), 0700);
      }
    }
    dirs_ = open_all_dirs(test_dir_, args);
    if (args.spec.kind == FileKind::kSymlink) {
      // The link text: file 0's name, through directory 00000 when there are subdirectories so
      // that it resolves from every directory.
      NameBuffer first;
      namer_.name_of(0, first);
      symlink_target_ =
          args.spec.dirs > 1 ? std::string("../00000/") + first.data() : std::string(first.data());
    }
  }

  /// The run was stopped during set-up: the worker must not run.
  [[nodiscard]] bool stopped() const noexcept { return stopped_; }

  void run(WorkerContext& ctx) override {
    const std::uint64_t count = namer_.count();
    NameBuffer name;
    NameBuffer first;
    namer_.name_of(0, first);
    OpTimer timer;
    std::uint64_t i = 0;
    for (; i < count && ctx.keep_going(); ++i) {
      namer_.name_of(i, name);
      std::uint64_t bytes = 0;
      if (args_.spec.kind == FileKind::kRegular || i == 0) {
        bytes = args_.spec.kind == FileKind::kRegular ? namer_.size_of(i) : 0;
        create_file(name.data(), bytes, i);
      } else {
        link_file(first.data(), name.data(), i);
      }
      timer.lap(ctx, kFileOp, bytes);
    }
    if (!ctx.stop_requested()) ::sync();  // not on the way out of a stopped run
    ctx.add_counter(kFilesCreatedCounter, i);
  }

 private:
  /// The path of file `i` for a message (built only on error).
  std::string shown(std::uint64_t i) const {
    NameBuffer path;
    namer_.path_of(i, path);
    return where(args_.test_dir, path.data());
  }

  void create_file(const char* name, std::uint64_t size, std::uint64_t i) {
    const int fd = ::openat(dirs_[namer_.dir_of(i)].fd(), name,
                            O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) throw IoError(errno, "create", shown(i));
    UniqueFd file(fd);
    for (std::uint64_t done = 0; done < size;) {
      const std::size_t want =
          static_cast<std::size_t>(std::min<std::uint64_t>(data_.block_bytes(), size - done));
      const ssize_t n = ::write(fd, data_.block(chunks_written_++).data(), want);
      if (n < 0) {
        if (errno == EINTR) continue;
        throw IoError(errno, "write", shown(i));
      }
      if (n == 0) throw IoError(ENOSPC, "write", shown(i));
      done += static_cast<std::uint64_t>(n);
    }
    if (args_.fsync) {
      if (::fsync(fd) != 0) throw IoError(errno, "fsync", shown(i));
      fsync_dir(dirs_[namer_.dir_of(i)].fd(), args_);
    }
    if (::close(file.release()) != 0 && errno != EINTR) throw IoError(errno, "close", shown(i));
  }

  // linkat(2) without AT_SYMLINK_FOLLOW and symlinkat(2) follow no link; the link text is never
  // followed by iobench (the stat phases lstat).
  void link_file(const char* first, const char* name, std::uint64_t i) {
    const int dir = dirs_[namer_.dir_of(i)].fd();
    const int rc = args_.spec.kind == FileKind::kHardLink
                       ? ::linkat(dirs_[0].fd(), first, dir, name, 0)
                       : ::symlinkat(symlink_target_.c_str(), dir, name);
    if (rc != 0) {
      throw IoError(errno, args_.spec.kind == FileKind::kHardLink ? "link" : "symlink", shown(i));
    }
    if (args_.fsync) fsync_dir(dir, args_);
  }

  FileArgs args_;
  FileNamer namer_;
  PatternBuffer data_;
  std::uint64_t chunks_written_ = 0;  ///< over all files: every chunk gets its own block
  OwnedConfinedDir test_dir_;
  std::vector<OwnedConfinedDir> dirs_;  ///< the directories files live in, by index
  std::string symlink_target_;
  bool stopped_ = false;
};

std::unique_ptr<PhaseWorker> make_create_worker(const FileArgs& args, bool random_names) {
  auto worker = std::make_unique<CreateWorker>(args, random_names);
  if (worker->stopped()) return nullptr;
  return worker;
}

/// The directory stream of one directory; closedir on destruction.
class DirStream {
 public:
  DirStream(const ConfinedDir& parent, const char* name, const FileArgs& args) : dir_(nullptr) {
    int fd = -1;
    if (const int err = parent.try_open_dir(name, fd); err != 0) {
      throw IoError(err, "open directory", where(args.test_dir, name));
    }
    dir_ = ::fdopendir(fd);
    if (dir_ == nullptr) {
      const int err = errno;
      ::close(fd);
      throw IoError(err, "opendir", where(args.test_dir, name));
    }
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
        test_dir_(args.run_dir.open_dir(args.test_name)),
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
      DirStream dir(test_dir_, dir_name.data(), args_);
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
      remove_test_dirs(test_dir_, args_);
      check_count(found, args_, "unlink");
      if (!ctx.stop_requested()) ::sync();  // not on the way out of a stopped run
    } else {
      check_count(found, args_, "stat");
    }
  }

 private:
  FileArgs args_;
  bool remove_;
  OwnedConfinedDir test_dir_;
  std::vector<std::byte> buffer_;
};

/// Random stat or delete: all names in a pseudo-random order.
class RandomOrderWorker final : public PhaseWorker {
 public:
  RandomOrderWorker(const FileArgs& args, bool remove)
      : args_(args),
        remove_(remove),
        namer_(make_namer(args, true)),
        order_(args.existing,
               stream_value(args.seed, remove ? kSaltDeleteOrder : kSaltStatOrder, 0)),
        test_dir_(args.run_dir.open_dir(args.test_name)),
        dirs_(open_all_dirs(test_dir_, args)),
        buffer_(args.spec.chunk_bytes) {}

  void run(WorkerContext& ctx) override {
    const std::uint64_t count = order_.size();
    NameBuffer name;
    OpTimer timer;
    std::uint64_t k = 0;
    for (; k < count && ctx.keep_going(); ++k) {
      const std::uint64_t i = order_.at(k);
      namer_.name_of(i, name);
      const int dir = dirs_[namer_.dir_of(i)].fd();
      std::uint64_t bytes = 0;
      if (remove_) {
        if (::unlinkat(dir, name.data(), 0) != 0) {
          const int err = errno;
          NameBuffer path;
          namer_.path_of(i, path);
          throw IoError(err, "unlink", where(args_.test_dir, path.data()));
        }
        if (args_.fsync) fsync_dir(dir, args_);
      } else {
        bytes = stat_and_read(dir, name.data(), buffer_, args_);
      }
      timer.lap(ctx, kFileOp, bytes);
    }
    if (remove_ && k == count) {
      dirs_.clear();
      remove_test_dirs(test_dir_, args_);
      if (!ctx.stop_requested()) ::sync();  // not on the way out of a stopped run
    }
  }

 private:
  FileArgs args_;
  bool remove_;
  FileNamer namer_;
  Permutation order_;
  OwnedConfinedDir test_dir_;
  std::vector<OwnedConfinedDir> dirs_;  ///< the directories files live in, by index
  std::vector<std::byte> buffer_;
};

}  // namespace

std::unique_ptr<PhaseWorker> make_file_worker(PhaseId id, const FileArgs& args) {
  switch (id) {
    case PhaseId::kSeqCreate:
      return make_create_worker(args, false);
    case PhaseId::kRandCreate:
      return make_create_worker(args, true);
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
