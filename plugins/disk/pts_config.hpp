#pragma once

// The `pts` workload's settings: SNIA PTS 2.0's IOPS, throughput and latency tests as a matrix of
// cells (R/W mix x block size) run round after round, each cell a disk main phase of its own.

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <iobench/params.hpp>
#include <iobench/steady_state.hpp>
#include <span>
#include <string>
#include <vector>

#include "plugins/disk/disk_config.hpp"

namespace iobench::plugins::disk {

/// The PTS 2.0 test a `pts` step runs.
enum class PtsTest {
  kIops,        ///< RND, 7 R/W mixes x 8 block sizes; tracks 4 KiB 0/100 IOPS
  kThroughput,  ///< SEQ, 100/0 and 0/100 at one block size (128 KiB or 1024 KiB); tracks the
                ///< 0/100 cell's throughput
  kLatency,     ///< RND, TC1 QD1, 3 R/W mixes x 3 block sizes; tracks 4 KiB 0/100 mean latency
  kWsat,        ///< write saturation: RND 4 KiB 0/100 after the purge (no preconditioning),
                ///< IOPS per round until 4 x capacity is written
  kDirth,       ///< demand intensity / response time histogram: RND 4 KiB 0/100 over a thread
                ///< count x queue depth grid, each round in descending OIO; tracks the IOPS of
                ///< the largest OIO (the highest TC at the highest QD)
};

/// "iops", "throughput", "latency", "wsat", "dirth".
[[nodiscard]] std::string_view to_string(PtsTest test) noexcept;

/// One cell of the matrix: a R/W mix at a block size, run by `threads` workers (TC) with
/// `queue_depth` requests in flight each (QD).
struct PtsCell {
  std::uint32_t read_percent = 0;  ///< the mix's read share; writes get the rest
  std::uint64_t block_size_bytes = 0;
  std::uint32_t threads = 1;
  std::uint32_t queue_depth = 1;
  /// Outstanding I/Os: TC x QD.
  [[nodiscard]] std::uint32_t oio() const noexcept { return threads * queue_depth; }
};

/// "65/35", "0/100".
[[nodiscard]] std::string mix_text(std::uint32_t read_percent);
/// PTS's block size names: 512 -> "0.5KiB", 4096 -> "4KiB", 1048576 -> "1024KiB".
[[nodiscard]] std::string pts_block_size_text(std::uint64_t bytes);

/// What the steady state of a `pts` step is judged on (PTS's tracking variable).
enum class PtsTracking {
  kIops,        ///< ops per second of the tracked cell's round
  kThroughput,  ///< bytes per second of it
  kMeanLatency  ///< its mean op latency, ns
};

/// A `pts` step's settings, validated.
struct PtsConfig {
  PtsTest test = PtsTest::kIops;
  std::vector<std::uint32_t> mixes;        ///< read percentages, in the order run
  std::vector<std::uint64_t> block_sizes;  ///< bytes, in the order run (inner loop)
  /// DIRTH's grid, ascending: thread counts (TC) and queue depths (QD). Other tests: empty
  /// (every cell runs at base.numjobs and base.iodepth).
  std::vector<std::uint32_t> thread_counts;
  std::vector<std::uint32_t> queue_depths;
  bool sequential = false;  ///< throughput: SEQ; the others RND
  /// How long each cell runs in each round (PTS: 1 minute).
  std::chrono::nanoseconds round_time{std::chrono::minutes(1)};
  /// Rounds at most (PTS: 25; WSAT: 1440, 24 hours of 1-minute rounds); the step stops
  /// earlier once steady (WSAT: once 4 x capacity is written).
  std::size_t max_rounds = kPtsMaxRounds;
  /// PTS's workload-dependent preconditioning: the test's own rounds run until the tracked cell
  /// is steady, the last kPtsWindowRounds of them the window. False (wdpc=false): only the
  /// window's rounds run (max_rounds = kPtsWindowRounds), whether steady or not; not PTS-valid.
  /// WSAT has none (its rounds are the test).
  bool wdpc = true;
  /// Bytes of the device (or file) the cells' random offsets span.
  std::uint64_t capacity_bytes = 0;
  /// The tracked cell (an index into cells()) and what of it is tracked.
  std::size_t tracked_cell = 0;
  PtsTracking tracking = PtsTracking::kIops;
  /// The disk config every cell starts from (operation mixed, time-based, no fsync); carries
  /// purge and precondition=wipc when they apply (destructive block device targets).
  DiskConfig base;
  /// Why the result is not PTS-valid (a file target, a shortened round, a capacity cap, ...);
  /// empty: valid as far as the settings go.
  std::vector<std::string> not_valid;
  /// What the step did instead of PTS's purge and preconditioning on a file target ("" if run).
  std::string purge_skipped;
  std::string precondition_skipped;

  /// Mixes outer, block sizes inner, as PTS's round sweeps them; DIRTH: every TC x QD of the
  /// grid at the one mix and block size, in descending OIO (the higher TC first among equals).
  [[nodiscard]] std::vector<PtsCell> cells() const;
};

/// The params of the `pts` workload: test, mixes, block_sizes, threads and depths (dirth's grid),
/// round_time, rounds, wdpc, capacity (size an alias), and of disk's: engine, iodepth, numjobs,
/// mode (direct|buffered), data, file, destructive, force_signature, purge (default auto),
/// precondition (default wipc).
[[nodiscard]] std::vector<ParamSpec> pts_param_specs();

/// "100/0,65/35" -> {100, 65}: each R/W, whole percentages adding up to 100. Throws ConfigError
/// naming mixes=, the value and the form.
[[nodiscard]] std::vector<std::uint32_t> parse_mixes(std::string_view text);

/// Builds and checks the config for `targets` (one: a directory, where capacity= is required,
/// or a block device, with --destructive). Throws ConfigError naming the field: an unknown mix,
/// round_time=0, a block size that is not a multiple of 512 or does not divide the capacity,
/// capacity bigger than the device or the directory's free space, latency with iodepth or
/// numjobs above 1, dirth with numjobs, iodepth or more than one mix or block size, threads or
/// depths with another test or not a list of counts, more than one target, wdpc=false with
/// rounds= or with test=wsat; and the disk workload's own refusals (make_disk_config) for the
/// device.
[[nodiscard]] PtsConfig make_pts_config(const Params& params,
                                        std::span<const std::filesystem::path> targets);

}  // namespace iobench::plugins::disk
