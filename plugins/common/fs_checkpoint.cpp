#include "plugins/common/fs_checkpoint.hpp"

#include <fmt/format.h>
#include <linux/fs.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace iobench::plugins {

namespace {

// Why FIFREEZE failed, in terms a user can act on.
std::string freeze_refused(const std::string& shown, int err) {
  const char* known =
      err == EOPNOTSUPP ? " (this file system type cannot be frozen: tmpfs, overlayfs and NFS "
                          "cannot)"
      : err == EPERM    ? " (freezing a file system needs CAP_SYS_ADMIN: root outside a container)"
      : err == EACCES   ? " (refused by a security module)"
      : err == EBUSY    ? " (already frozen by someone else: left as it was)"
                        : "";
  return fmt::format("FIFREEZE of {}: {}{}", shown, std::strerror(err), known);
}

}  // namespace

CheckpointOutcome checkpoint_file_system(int dir_fd, const std::string& shown, std::string& why) {
  // Most of the write-back before the freeze, with signals still open: the frozen window (from
  // the freeze's own sync to the thaw) is then short.
  (void)::syncfs(dir_fd);
  sigset_t all;
  sigset_t before;
  ::sigfillset(&all);
  ::pthread_sigmask(SIG_BLOCK, &all, &before);
  CheckpointOutcome outcome = CheckpointOutcome::kDone;
  if (::ioctl(dir_fd, FIFREEZE, 0) != 0) {
    why = freeze_refused(shown, errno);
    outcome = CheckpointOutcome::kNotFrozen;
  } else if (::ioctl(dir_fd, FITHAW, 0) != 0 && errno != EINVAL) {
    // EINVAL: not frozen any more (someone ran fsfreeze -u meanwhile): the checkpoint was made.
    why = fmt::format(
        "FITHAW of {}: {}: the file system is left frozen; thaw it with `fsfreeze -u "
        "{}`",
        shown, std::strerror(errno), shown);
    outcome = CheckpointOutcome::kLeftFrozen;
  } else {
    why.clear();
  }
  ::pthread_sigmask(SIG_SETMASK, &before, nullptr);
  return outcome;
}

}  // namespace iobench::plugins
