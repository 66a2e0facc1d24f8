#pragma once

// The runner's hook for issue 29: one call before a phase (describe the targets' storage, take
// a snapshot) and one after (take another, attach the explanation to the PhaseResult). The
// snapshots bracket the whole phase, workers' set-up and warm-up included: what the kernel and
// the devices did while the phase ran, of which the measured window is the larger part.
#include <iobench/explain.hpp>
#include <iobench/result.hpp>
#include <iobench/workload.hpp>
#include <span>

namespace iobench::explain {

/// Whether an op kind moves data read, written or both (see op_kind).
struct OpKind {
  bool read = false;
  bool write = false;
};
/// The kind of op `op` of phase `phase`, from an explicit table of the families' op names
/// (phase_observer.cpp): bonnie's "rewrite" both, its "chunk" by phase (putc / getc), any name
/// starting with "read" / "write" in any case (dbench's ReadX / WriteX) read / write.
[[nodiscard]] OpKind op_kind(std::string_view phase, std::string_view op);

/// What a phase's PhaseResult says the application did (op bytes by op_kind).
[[nodiscard]] ApplicationFigures application_figures(const PhaseResult& phase);

class PhaseObserver {
 public:
  /// Describes each target's storage and takes the starting snapshot.
  explicit PhaseObserver(std::span<const Target> targets);
  /// Takes the closing snapshot and sets `phase.explanation`. Call once. `had_warmup`: the
  /// phase had a warm-up, which the snapshots cover and the op bytes do not (no ratio then).
  /// `files_bytes`: the bytes of the files the workers use (Workload::planned_bytes over the
  /// targets; 0 unknown), ApplicationFigures::largest_file_bytes, for page_cache_reads' "fits in
  /// RAM".
  void finish(PhaseResult& phase, bool had_warmup, std::uint64_t files_bytes = 0) const;
  /// The kernel names of the targets' chains' devices (chain_device_names), for the series.
  [[nodiscard]] std::span<const std::string> devices() const noexcept { return devices_; }

 private:
  std::vector<StorageChain> chains_;
  std::vector<std::string> devices_;
  SystemSnapshot start_;
};

}  // namespace iobench::explain
