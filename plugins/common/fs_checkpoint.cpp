#include "plugins/common/fs_checkpoint.hpp"

#include <fmt/format.h>
#include <linux/fs.h>
#include <signal.h>
#include <sys/ioctl.h>

#include <cerrno>
#include <cstring>

namespace iobench::plugins {

namespace {

// Why a call failed, in the terms a user can act on.
std::string reason(const char* call, int err) {
  const char* known = err == EOPNOTSUPP || err == ENOTTY || err == EINVAL
                          ? " (the file system cannot be frozen: tmpfs, for one, has no journal "
                            "to checkpoint)"
                      : err == EPERM || err == EACCES ? " (freezing a file system needs root)"
                      : err == EBUSY ? " (already frozen by someone else: left as it was)"
                                     : "";
  return fmt::format("{}: {}{}", call, std::strerror(err), known);
}

}  // namespace

bool checkpoint_file_system(int dir_fd, std::string& why) {
  // No handler may run while the file system is frozen: one that wrote to it (cleanup on
  // SIGINT) would wait for a thaw that this thread, stuck in the handler, never makes.
  sigset_t all;
  sigset_t before;
  ::sigfillset(&all);
  ::pthread_sigmask(SIG_BLOCK, &all, &before);
  bool done = false;
  if (::ioctl(dir_fd, FIFREEZE, 0) != 0) {
    why = reason("FIFREEZE", errno);
  } else {
    int err = 0;
    for (int attempt = 0; attempt < 3; ++attempt) {
      if (::ioctl(dir_fd, FITHAW, 0) == 0) {
        err = 0;
        break;
      }
      err = errno;
    }
    if (err != 0) {
      why = fmt::format(
          "FITHAW: {}: the file system is left frozen; thaw it with `fsfreeze -u "
          "MOUNTPOINT`",
          std::strerror(err));
    } else {
      why.clear();
      done = true;
    }
  }
  ::pthread_sigmask(SIG_SETMASK, &before, nullptr);
  return done;
}

}  // namespace iobench::plugins
