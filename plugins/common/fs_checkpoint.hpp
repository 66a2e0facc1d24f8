// A journalling file system's checkpoint on demand, for the cold-cache metadata phases (issue 30):
// after sync(2) ext4 and xfs still hold the metadata a phase wrote in their journals until the
// next checkpoint writes it home, and a page-cache drop cannot free those buffers, so whether a
// later stat phase reads its inodes from the device depends on when the journal last
// checkpointed. Freezing the file system forces that checkpoint.

#pragma once

#include <string>

namespace iobench::plugins {

/// Freezes the file system holding directory descriptor `dir_fd` and thaws it at once (ioctl
/// FIFREEZE, then FITHAW: what util-linux's `fsfreeze -f` and `fsfreeze -u` do), with every
/// signal blocked in between so that no handler of this thread can wait on the frozen file
/// system. Freezing syncs the file system and has a journalling one (ext4, xfs) write its
/// journal's blocks home, so a page-cache drop that follows frees the metadata buffers the
/// journal held. Every writer to that file system (any process) blocks while it is frozen: from
/// the freeze's writeback to the thaw. Needs CAP_SYS_ADMIN.
/// Returns true when both calls succeeded. Otherwise false, `why` naming the call and its errno
/// text, with the reason where it is known: "FIFREEZE: Operation not supported (the file system
/// cannot be frozen: tmpfs, for one, has no journal to checkpoint)", "...: Operation not permitted
/// (freezing a file system needs root)", "FIFREEZE: Device or resource busy (already frozen by
/// someone else: left as it was)"; a failed FITHAW after the freeze (retried 3 times) says the
/// file system is left frozen and how to thaw it (`fsfreeze -u MOUNTPOINT`).
[[nodiscard]] bool checkpoint_file_system(int dir_fd, std::string& why);

}  // namespace iobench::plugins
