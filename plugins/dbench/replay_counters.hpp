#pragma once

#include <array>
#include <iobench/workload.hpp>
#include <string_view>

namespace iobench::plugins::dbench {

/// Per-worker counters of the "execute" phase (PhaseSpec::counter_names), summed over workers.
enum ReplayCounter : CounterId {
  /// Loadfile operation lines executed (per client, REPEATs and LOOPs counted as executed).
  kCounterLines,
  /// Bytes counted by ReadX/WriteX that completed before the last whole-second tick of the execute
  /// period: what dbench's final "Throughput" figure is computed from (dbench.md §3.2).
  kCounterTickBytes,
  /// Times a client reached the end of its loadfile and started over.
  kCounterPasses,
  /// Expected-status mismatches, per operation (dbench only warns for NTCreateX; Unlink, Rmdir and
  /// Rename mismatches stop the run unless status_mismatch=count).
  kCounterMismatchNtCreateX,
  kCounterMismatchUnlink,
  kCounterMismatchRmdir,
  kCounterMismatchRename,
  /// Operations skipped because their handle was not open (status_mismatch=count only).
  kCounterMissingHandle,
  /// ReadX calls that returned a byte count other than the loadfile's expected size.
  kCounterShortRead,
  /// WriteX calls that failed or wrote less than expected (status_mismatch=count only).
  kCounterShortWrite,
  /// Entries a Deltree could not remove.
  kCounterDeltreeErrors,
  /// Failed DOS-attribute xattr writes (xattr=true, status_mismatch=count only).
  kCounterXattrErrors,
  kCounterCount,
};

/// Names of the ReplayCounter values, in order.
inline constexpr std::array<std::string_view, kCounterCount> kCounterNames{
    "lines",
    "bytes_to_last_tick",
    "loadfile_passes",
    "mismatch.NTCreateX",
    "mismatch.Unlink",
    "mismatch.Rmdir",
    "mismatch.Rename",
    "missing_handle",
    "short_read.ReadX",
    "short_write.WriteX",
    "deltree_errors",
    "xattr_errors",
};

}  // namespace iobench::plugins::dbench
