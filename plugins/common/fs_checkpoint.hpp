// A journalling file system's checkpoint on demand, for the cold-cache metadata phases (issue 30):
// after sync(2) ext4 still holds the metadata a phase wrote in its journal until the next
// checkpoint writes it home, and a page-cache drop cannot free those buffers, so whether a later
// stat phase reads its inodes from the device depends on when the journal last checkpointed.
// Freezing the file system forces that checkpoint.

#pragma once

#include <string>

namespace iobench::plugins {

/// What checkpoint_file_system() did.
enum class CheckpointOutcome {
  kDone,        ///< frozen and thawed (or thawed meanwhile by someone else: FITHAW's EINVAL)
  kNotFrozen,   ///< FIFREEZE refused: nothing changed; `why` says why
  kLeftFrozen,  ///< FITHAW failed after the freeze: the file system stays frozen; `why` says so
};

/// Writes the file system holding directory descriptor `dir_fd` back (syncfs), then freezes it
/// and thaws it at once (ioctl FIFREEZE, then FITHAW: what util-linux's `fsfreeze -f` and
/// `fsfreeze -u` do). Freezing has a journalling file system (ext4, xfs) write its journal's
/// blocks home, so a page-cache drop that follows frees the metadata buffers the journal held.
/// Every writer to that file system (any process) blocks while it is frozen. Between the two
/// calls every signal of the calling thread is blocked, so that no signal delivered to it ends the
/// process with the file system frozen; a signal directed at the process that another thread
/// takes (under mpirun, MPI's threads) and whose action ends the process, or a SIGKILL, still
/// leaves it frozen: `fsfreeze -u PATH` (any directory on it) thaws it. Call it only where no
/// other thread of the process writes to that file system (it would block until the thaw, and
/// one that the caller waits for would deadlock). Needs CAP_SYS_ADMIN.
/// `shown` is a path on the file system, named in `why`. kNotFrozen's reasons: "FIFREEZE of
/// SHOWN: Operation not supported (this file system type cannot be frozen: tmpfs, overlayfs and
/// NFS cannot)", "...: Operation not permitted (freezing a file system needs CAP_SYS_ADMIN: root
/// outside a container)", "...: Device or resource busy (already frozen by someone else: left as
/// it was)", other errnos by their text.
[[nodiscard]] CheckpointOutcome checkpoint_file_system(int dir_fd, const std::string& shown,
                                                       std::string& why);

}  // namespace iobench::plugins
