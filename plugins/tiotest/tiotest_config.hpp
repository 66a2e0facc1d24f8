#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <iobench/data_pattern.hpp>
#include <iobench/rate_pacer.hpp>
#include <iobench/steady_state.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace iobench::plugins::tiotest {

/// The four tiotest phases, in the order tiotest runs them (and numbers them for `-k`).
enum class PhaseKind : std::uint8_t { kWrite = 0, kRandomWrite = 1, kRead = 2, kRandomRead = 3 };

inline constexpr std::array<PhaseKind, 4> kAllPhaseKinds{PhaseKind::kWrite, PhaseKind::kRandomWrite,
                                                         PhaseKind::kRead, PhaseKind::kRandomRead};

/// tiotest's row label: "Write", "Random Write", "Read", "Random Read".
[[nodiscard]] const char* phase_label(PhaseKind kind) noexcept;
/// tiotest's terse (-T) line key: "write", "rwrite", "read", "rread".
[[nodiscard]] const char* terse_key(PhaseKind kind) noexcept;
[[nodiscard]] constexpr bool is_write(PhaseKind kind) noexcept {
  return kind == PhaseKind::kWrite || kind == PhaseKind::kRandomWrite;
}
[[nodiscard]] constexpr bool is_random(PhaseKind kind) noexcept {
  return kind == PhaseKind::kRandomWrite || kind == PhaseKind::kRandomRead;
}
[[nodiscard]] constexpr std::size_t index_of(PhaseKind kind) noexcept {
  return static_cast<std::size_t>(kind);
}

/// Which of the four phases run; indexed by index_of(PhaseKind).
using PhaseMask = std::array<bool, 4>;

/// Parses the `skip` parameter: a comma- or space-separated list of phases to skip, each either
/// tiotest's `-k` number (0 write, 1 random write, 2 read, 3 random read) or a name (write,
/// random_write, read, random_read; also rwrite/rread as in tiotest's terse output), separated
/// by commas or blanks (split_list_param: an empty item is refused). Empty text skips nothing.
/// Returns the phases that RUN. Throws ConfigError naming `field` for an unknown entry (tiotest:
/// "Wrong test number").
[[nodiscard]] PhaseMask parse_skip_list(std::string_view text, std::string_view field);

/// What the workload's factory learned about one target by stat(2) (and, for a block device,
/// its size by ioctl(BLKGETSIZE64) on a read-only descriptor).
struct TargetProbe {
  std::filesystem::path path;  ///< as given
  bool exists = false;
  bool is_directory = false;
  bool is_block_device = false;
  bool is_regular_file = false;
  std::uint64_t size_bytes = 0;  ///< regular file or block device size
};

/// Probes `path` without reading or writing data. Never throws; `exists` false if stat failed.
[[nodiscard]] TargetProbe probe_target(const std::filesystem::path& path);

/// Largest number of targets a tiotest run takes (tiotest's `-d` limit, MAXDIRS 50).
inline constexpr std::size_t kMaxTargets = 50;
/// Largest thread count accepted (a sanity bound; tiotest has none beyond memory).
inline constexpr std::uint64_t kMaxThreads = 4096;

/// How the files are opened and driven; shared by every thread of a run (tiotest's flags).
struct IoOptions {
  bool sync = false;                ///< -S: O_SYNC on the write phases' opens
  bool direct = false;              ///< -X: O_DIRECT on every open
  bool mmap = false;                ///< -M: the mmap engine (memcpy to/from a MAP_SHARED mapping)
  bool verify = false;              ///< -c: stamp every written block, check every block read
  bool serial_write = false;        ///< -W: the Write phase runs its threads one after another
  bool drop_caches = false;         ///< -F: sync + drop the page cache before each phase (root)
  bool raw = false;                 ///< -R: targets are existing block devices or files
  std::uint64_t raw_gap_bytes = 0;  ///< -o: gap between thread regions on a raw target
  bool raw_offset_first = false;    ///< -O: the first region also starts after one gap
  bool raw_overwrite = false;       ///< explicit consent to write into raw targets (destroys data)
  std::uint32_t iodepth = 1;        ///< requests in flight per thread (asynchronous engines)
  bool async_engine = false;        ///< the step's engine completes asynchronously (slat/clat)
  /// EngineCaps::moves_data: false for the null engine, which opens no file, so none is sized
  /// (ftruncate) and no space is planned for one.
  bool moves_data = true;
  RateLimit rate;  ///< per thread; inactive: closed loop (as tiotest)
  /// steady_state= (with ss_dur, ss_ramp, ss_interval): each measured phase stops once steady.
  std::optional<SteadyStateConfig> steady_state;
  /// What the write phases write: tiotest writes its zeroed block, or random bytes with -c (the
  /// consistency check verifies reads against this pattern, so it needs kRandom).
  DataPattern data{DataPattern::Kind::kZeros, 0};
};

/// One tiotest invocation: `threads` threads, each with its own file (or raw region) of
/// `blocks` x `block_size` bytes, running the phases in `run_phase`.
struct RunPlan {
  std::size_t threads = 4;
  std::uint64_t block_size = 4096;
  std::uint64_t blocks = 0;           ///< per thread: floor(file size / block size)
  std::uint64_t random_ops = 100000;  ///< per thread, each random phase
  PhaseMask run_phase{true, true, true, true};
  /// Appended to the phase names (tiobench sweep points, e.g. " t=4 size=32M bs=4096 run=1");
  /// empty for a plain tiotest run.
  std::string name_suffix;

  [[nodiscard]] std::uint64_t file_bytes() const noexcept { return blocks * block_size; }
};

/// Checks `plan` and `io` against `targets` (tiotest's rules and iobench's safety rules), before
/// any I/O. Throws ConfigError with one clear message naming the parameter, the value and the fix:
/// block size larger than the file, random ops below 1, more than kMaxTargets targets, a target
/// of the wrong kind (raw: not a block device or regular file; otherwise not a directory), raw
/// regions that do not fit their target, writing into a raw target without `raw_overwrite`,
/// O_DIRECT with a block size that is not a multiple of 512, the consistency check without a
/// write phase on raw targets, and mmap with O_DIRECT or with raw targets.
/// `size_field` names the parameter that gave the file size ("size" for tiotest, "sizes" for
/// tiobench) so the message points at what the user typed. `can_skip`: the workload has the
/// `skip` param (tiotest); tiobench.pl always runs all four phases, so its messages offer no skip.
void validate_plan(const RunPlan& plan, const IoOptions& io, std::span<const TargetProbe> targets,
                   std::string_view size_field, bool can_skip = true);

/// Start of thread `thread`'s region on its raw target: threads are assigned to targets
/// round-robin; the k-th thread on a target starts at k x (file + gap), plus one gap when
/// `raw_offset_first` (tiotest -o/-O). 0 when not raw.
[[nodiscard]] std::uint64_t raw_region_offset(const RunPlan& plan, const IoOptions& io,
                                              std::size_t thread,
                                              std::size_t target_count) noexcept;

}  // namespace iobench::plugins::tiotest
