#pragma once

/// How long the directory a run makes inside each directory target (Target::run_dir) will be, so
/// that a workload can know, before anything is written, how long the paths beneath it will be
/// (the paths=full PATH_MAX check of mdtest and io500).

#include <filesystem>

namespace iobench {

/// The run directory the runner will make in `target`, as a path names it (`target` as given /
/// the directory's name), at its longest, its random part shown as 'X's (its name is
/// "iobench.<pid>.<8 hex digits>"). `made_by_another_process`: false, named with this process's
/// pid (e.g. "DIR/iobench.4242.XXXXXXXX"); true (under mpirun, where every process works in the
/// run directory rank 0's process made), with the longest pid Linux hands out (4194303, its
/// PID_MAX_LIMIT minus one). The name's form is the runner's and may change with the library.
[[nodiscard]] std::filesystem::path longest_run_dir_path(const std::filesystem::path& target,
                                                         bool made_by_another_process);

}  // namespace iobench
