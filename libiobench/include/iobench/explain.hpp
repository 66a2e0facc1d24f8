#pragma once

// "Explain the number" (issue 29), the always-on part: what the storage under each target is, and
// what the kernel, the page cache and the devices did during each phase, as figures and as named
// findings. Everything here reads /proc and /sys (a few files per phase, never per I/O) and needs
// no privileges; what cannot be read is left empty, never an error.
//
// The parsers take text, so tests feed them captured files (tests/data/explain/) and the fuzzer
// feeds them garbage: they never throw, and skip lines that do not have the kernel's shape.

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace iobench::explain {

// ---------------------------------------------------------------------------------------------
// /proc parsers

/// One line of /proc/diskstats (Documentation/admin-guide/iostats.rst). Times are ms, sizes in
/// 512-byte sectors as the kernel counts them. Kernels before 4.18 have no discard fields and
/// before 5.5 no flush fields: those stay 0.
struct DiskCounters {
  unsigned major = 0;
  unsigned minor = 0;
  std::string name;  ///< e.g. "vda", "sda1", "loop0", "dm-0"
  std::uint64_t reads_completed = 0;
  std::uint64_t reads_merged = 0;
  std::uint64_t sectors_read = 0;
  std::uint64_t read_time_ms = 0;
  std::uint64_t writes_completed = 0;
  std::uint64_t writes_merged = 0;
  std::uint64_t sectors_written = 0;
  std::uint64_t write_time_ms = 0;
  std::uint64_t in_flight = 0;            ///< requests in flight at the time of reading
  std::uint64_t io_time_ms = 0;           ///< time the device had any request in flight
  std::uint64_t weighted_io_time_ms = 0;  ///< sum of every request's time in flight
  std::uint64_t discards_completed = 0;
  std::uint64_t discards_merged = 0;
  std::uint64_t sectors_discarded = 0;
  std::uint64_t discard_time_ms = 0;
  std::uint64_t flushes_completed = 0;
  std::uint64_t flush_time_ms = 0;
};
/// Parses /proc/diskstats: lines with a major, minor, name and at least 11 counters.
[[nodiscard]] std::vector<DiskCounters> parse_diskstats(std::string_view text);

/// Parses "name value" lines (/proc/vmstat) into a map; other lines are skipped.
[[nodiscard]] std::map<std::string, std::uint64_t> parse_vmstat(std::string_view text);

/// The dirty page figures of /proc/meminfo, in bytes (the file says kB, which is KiB).
struct MemInfo {
  bool valid = false;  ///< both fields were found
  std::uint64_t dirty_bytes = 0;
  std::uint64_t writeback_bytes = 0;
  std::uint64_t mem_total_bytes = 0;  ///< 0 if absent
};
/// Parses /proc/meminfo's Dirty, Writeback and MemTotal lines.
[[nodiscard]] MemInfo parse_meminfo(std::string_view text);

/// One /proc/pressure/{io,memory,cpu} file (PSI, Documentation/accounting/psi.rst).
struct Pressure {
  bool valid = false;     ///< a "some" line was found
  double some_avg10 = 0;  ///< % of the last 10 s some task stalled
  std::uint64_t some_total_us = 0;
  bool has_full = false;
  double full_avg10 = 0;
  std::uint64_t full_total_us = 0;
};
/// Parses a PSI file ("some avg10=.. avg60=.. avg300=.. total=..", the same for "full").
[[nodiscard]] Pressure parse_pressure(std::string_view text);

/// One line of /proc/self/cgroup: "hierarchy-id:controllers:path".
struct CgroupMembership {
  std::string controllers;  ///< e.g. "blkio", "cpu,cpuacct", "" (cgroup v2)
  std::string path;         ///< e.g. "/", "/user.slice"
};
[[nodiscard]] std::vector<CgroupMembership> parse_proc_cgroup(std::string_view text);

/// A device's I/O limits in one cgroup; 0 means no limit. Rates in bytes/s and ops/s.
struct CgroupIoLimit {
  std::string cgroup;  ///< the cgroup directory the limit was read from
  std::string source;  ///< "blkio.throttle" (cgroup v1) or "io.max" (cgroup v2)
  std::string device;  ///< "major:minor"
  std::uint64_t read_bytes_per_s = 0;
  std::uint64_t write_bytes_per_s = 0;
  std::uint64_t read_iops = 0;
  std::uint64_t write_iops = 0;
};
/// Parses a cgroup v1 blkio.throttle.{read,write}_{bps,iops}_device file ("8:0 1048576" lines)
/// into (device, value) pairs.
[[nodiscard]] std::vector<std::pair<std::string, std::uint64_t>> parse_blkio_throttle(
    std::string_view text);
/// Parses a cgroup v2 io.max file ("8:0 rbps=max wbps=1048576 riops=max wiops=max" lines).
/// Fields are left 0 for "max"; `cgroup` and `source` are left for the caller.
[[nodiscard]] std::vector<CgroupIoLimit> parse_io_max(std::string_view text);

// ---------------------------------------------------------------------------------------------
// The storage under a target

/// One block device in a target's chain, with its queue's settings from /sys/block/<disk>/queue.
struct BlockDevice {
  std::string name;    ///< kernel name, e.g. "sda1", "loop0", "dm-0"
  std::string device;  ///< "major:minor"
  /// How it joins the chain: "filesystem" (the mount's), "target" (a device given as target),
  /// "whole disk" (of a partition), "loop backing" (under a loop's file), "slave" (dm/md),
  /// "overlay upper" / "overlay lower" (under an overlayfs layer: StorageChain::overlay).
  std::string role;
  std::string model;  ///< device/model, empty if the device has none (virtio, loop)
  std::optional<bool> rotational;
  std::uint64_t logical_block_size = 0;   ///< bytes; 0 unknown
  std::uint64_t physical_block_size = 0;  ///< bytes; 0 unknown
  std::string scheduler;                  ///< the active one, e.g. "mq-deadline", "none"
  std::uint64_t nr_requests = 0;          ///< queue depth of the scheduler; 0 unknown
  std::string write_cache;                ///< "write back" or "write through"
  std::string backing_file;               ///< loop devices: the file behind them
};

/// One layer of an overlayfs mount (StorageChain::overlay): a directory and the file system it is
/// on, from the overlay's superblock options in /proc/self/mountinfo.
struct OverlayLayer {
  std::string role;         ///< "upper" (written to) or "lower" (read only; top one first)
  std::string dir;          ///< as the overlay's upperdir= / lowerdir= names it
  std::string mount_point;  ///< of the file system holding `dir`; empty if not found
  std::string fs_type;      ///< e.g. "tmpfs", "ext4"
  std::string device;       ///< its block device "major:minor"; empty if it has none
};

/// Where a target's data goes: its mount and the chain of block devices under it.
struct StorageChain {
  std::string path;  ///< the target as given
  std::string mount_point;
  std::string fs_type;
  std::string mount_options;
  std::string source;  ///< mount source, e.g. "/dev/vda"
  /// Non-empty when the file system has no block device (tmpfs, FUSE, NFS, ...): why, e.g.
  /// "tmpfs: no block device: page cache only".
  std::string no_block_device;
  std::vector<BlockDevice> devices;  ///< the file system's device first, then down the chain
  /// overlayfs: its layers, upper first, then the lower ones top down; their block devices (and
  /// the chains under them) are in `devices`, role "overlay upper" / "overlay lower". Empty for
  /// other file systems.
  std::vector<OverlayLayer> overlay;
  std::vector<CgroupIoLimit> limits;  ///< limits of this process's cgroups on `devices`
};

/// Describes the storage under `path` (a directory or file; a missing path by its nearest
/// existing parent) from /proc/self/mountinfo, /sys/dev/block and this process's cgroups (v1
/// blkio at /sys/fs/cgroup/blkio, v2 at /sys/fs/cgroup/unified or /sys/fs/cgroup). Never throws.
[[nodiscard]] StorageChain describe_storage(const std::filesystem::path& path);

/// The kernel names of every device in `chains`, each once, in order of appearance.
[[nodiscard]] std::vector<std::string> chain_device_names(std::span<const StorageChain> chains);

// ---------------------------------------------------------------------------------------------
// Snapshots and per-phase deltas

/// What the kernel counted at one instant.
struct SystemSnapshot {
  std::uint64_t time_ns = 0;        ///< CLOCK_MONOTONIC
  std::vector<DiskCounters> disks;  ///< only the devices asked for, in /proc/diskstats order
  std::map<std::string, std::uint64_t> vmstat;
  MemInfo meminfo;
  Pressure io_pressure, memory_pressure, cpu_pressure;
};
/// Reads /proc/diskstats (keeping `devices`), /proc/vmstat, /proc/meminfo and /proc/pressure/*.
[[nodiscard]] SystemSnapshot take_snapshot(std::span<const std::string> devices);

/// One device's activity over a phase: the counters' differences and what iostat derives from
/// them (sysstat's formulas: r_await = read ms / reads, util = io ms / interval, aqu-sz =
/// weighted io ms / interval).
struct DeviceDelta {
  std::string name;
  /// false when a 64-bit count went back between the snapshots (the device was re-created):
  /// every difference is then 0 and nothing is derived from this device. The ms fields wrap at
  /// 2^32 (the kernel prints them as 32-bit values) and are taken modulo 2^32, as sysstat does.
  bool valid = true;
  std::uint64_t reads = 0, reads_merged = 0, read_bytes = 0, read_time_ms = 0;
  std::uint64_t writes = 0, writes_merged = 0, write_bytes = 0, write_time_ms = 0;
  std::uint64_t discards = 0, discards_merged = 0, discard_bytes = 0, discard_time_ms = 0;
  std::uint64_t flushes = 0, flush_time_ms = 0;
  std::uint64_t io_time_ms = 0, weighted_io_time_ms = 0;
  std::uint64_t in_flight_end = 0;   ///< requests in flight when the phase ended
  double util_percent = 0;           ///< io_time over the interval, 0..100
  double avg_queue_size = 0;         ///< aqu-sz
  double r_await_ms = 0;             ///< mean read time, 0 without reads
  double w_await_ms = 0;             ///< mean write time, 0 without writes
  std::vector<std::size_t> targets;  ///< indexes of the targets whose chain holds this device
};

/// A finding: a named rule that fired, and its sentence with the evidence.
struct Finding {
  std::string name;  ///< e.g. "page_cache_reads", "device_saturated"
  std::string text;
};

/// The vmstat counters a phase keeps (their deltas), in this order.
[[nodiscard]] std::span<const std::string_view> kept_vmstat_counters() noexcept;

/// What the application did in a phase (from its PhaseResult), for the derived figures.
struct ApplicationFigures {
  std::uint64_t read_bytes = 0;   ///< bytes of read op kinds (phase_observer.cpp's op_kind table)
  std::uint64_t write_bytes = 0;  ///< bytes of write op kinds
  /// The same per target index (WorkerResult::target_index); empty: not known per target, every
  /// target's bytes are taken as on a device.
  std::vector<std::uint64_t> target_read_bytes{}, target_write_bytes{};
  /// The phase had a warm-up: the snapshots cover it, the bytes above do not, so no ratio.
  bool warmup = false;
  double workers_cpu_percent = 0;  ///< workers' CPU time over the wall time, % of one core
  std::size_t workers = 0;
  std::uint64_t largest_file_bytes = 0;  ///< optional: the phase's file size, 0 unknown
};

/// Everything one phase's explanation holds: JSON key "explain" of a phase.
struct PhaseExplanation {
  std::uint64_t interval_ns = 0;                                   ///< between the two snapshots
  std::vector<StorageChain> chains;                                ///< one per target
  std::vector<DeviceDelta> devices;                                ///< one per device of the chains
  std::vector<std::pair<std::string, std::int64_t>> vmstat_delta;  ///< kept counters present
  MemInfo meminfo_start, meminfo_end;
  /// PSI stall time over the phase, µs; nullopt where the kernel has no PSI.
  std::optional<std::uint64_t> io_some_us, io_full_us, memory_some_us, memory_full_us, cpu_some_us;
  ApplicationFigures application;
  std::uint64_t device_read_bytes = 0;  ///< of the file systems' devices (first of each chain)
  /// The application's bytes on targets with a block device (the ratios' denominators).
  std::uint64_t device_backed_read_bytes = 0, device_backed_write_bytes = 0;
  /// Why no ratio was derived (e.g. the warm-up), empty if none: JSON derived.note.
  std::string derived_note;
  std::uint64_t device_write_bytes = 0;
  std::optional<double> read_amplification;       ///< device / application read bytes
  std::optional<double> write_amplification;      ///< device / application write bytes
  std::optional<double> page_cache_read_percent;  ///< share of app reads the device did not do
  bool shared_device = false;  ///< several targets are on one device: figures are shared
  /// vmstat's nr_dirty_threshold at the end, in bytes (4 KiB pages): where writers get throttled.
  std::uint64_t dirty_threshold_bytes = 0;
  std::vector<Finding> findings;
};

/// The deltas between `start` and `end`, the derived figures and the findings, for targets
/// described by `chains` and an application that did `app`.
[[nodiscard]] PhaseExplanation explain_phase(std::vector<StorageChain> chains,
                                             const SystemSnapshot& start, const SystemSnapshot& end,
                                             const ApplicationFigures& app);

/// Adds the findings to `explanation` from its figures (explain_phase calls it). Rules:
/// no_block_device, page_cache_reads, device_reads, writes_absorbed_by_page_cache,
/// writes_partly_reached_device, writes_reached_device, write_amplification, dirty_throttled,
/// device_saturated, cgroup_throttled, shared_device, cpu_bound, memory_pressure.
void add_findings(PhaseExplanation& explanation);

/// The findings as text, one line each, "<indent>explain: <name>: <text>\n" (for the text
/// reporters; empty if there are none).
[[nodiscard]] std::string findings_text(const PhaseExplanation& explanation,
                                        std::string_view indent = "  ");

}  // namespace iobench::explain
