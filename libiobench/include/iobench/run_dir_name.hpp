#pragma once

/// The name of the directory a run makes inside each directory target (Target::run_dir), so that a
/// workload can know, before anything is written, how long the paths beneath it will be (the
/// paths=full PATH_MAX check of mdtest and io500).

#include <cstddef>
#include <cstdint>
#include <string>

namespace iobench {

/// The largest process id Linux hands out on a 64-bit kernel (PID_MAX_LIMIT, 4 x 1024 x 1024,
/// minus one): /proc/sys/kernel/pid_max is at most PID_MAX_LIMIT.
inline constexpr std::int64_t kMaxPid = 4 * 1024 * 1024 - 1;

/// The run directory's name for process `pid` and the random number `random`:
/// "iobench.<pid>.<random as 8 lower-case hex digits>" (e.g. "iobench.4242.0badf00d"). The
/// runner makes one such directory in each directory target, with its own pid and a fresh random
/// number (another on a name clash).
[[nodiscard]] std::string run_dir_name(std::int64_t pid, std::uint32_t random);

/// Bytes of run_dir_name(pid, r) for any r: 17 plus the decimal digits of `pid` (pid >= 0).
[[nodiscard]] std::size_t run_dir_name_length(std::int64_t pid) noexcept;

}  // namespace iobench
