#pragma once

// Issue 29, per interval: the devices of a phase's storage chains beside its time series. The
// runner's thread reads /proc/diskstats once at each interval boundary of the current part
// (warm-up or measurement; never in a worker) and hands the differences to the SeriesRecorder,
// so the device can be plotted on the application's time axis.
#include <cstdint>
#include <iobench/explain.hpp>
#include <span>
#include <string>
#include <vector>

#include "core/series_recorder.hpp"

namespace iobench::detail {

/// The activity between two readings of one device (sysstat's differences: the 64-bit counts
/// as they are, the ms fields modulo 2^32; all 0 if a count went back: the device was re-created).
[[nodiscard]] SeriesDevicePoint device_interval(const explain::DiskCounters& before,
                                                const explain::DiskCounters& after,
                                                std::uint64_t sampled_ns);

/// Samples `devices` for one group of a phase, at the boundaries of its parts' intervals.
/// Without devices it never reads anything.
class DeviceSeries {
 public:
  DeviceSeries(std::span<const std::string> devices, std::uint64_t interval_ns,
               SeriesRecorder& series);
  /// A part begins at `origin_ns` (monotonic): the first reading, or the one that closes the
  /// previous part's last interval.
  void begin_part(bool warmup, std::uint64_t origin_ns);
  /// Reads the devices if `now_ns` passed the current interval's end.
  void poll(std::uint64_t now_ns);
  /// The group's workers ended: the last reading, into the current interval.
  void end(std::uint64_t now_ns);
  /// When poll() next has something to do (UINT64_MAX: never).
  [[nodiscard]] std::uint64_t next_ns() const noexcept;

 private:
  void read_into_current(std::uint64_t now_ns);

  std::vector<std::string> devices_;
  std::uint64_t interval_ns_;
  SeriesRecorder& series_;
  bool started_ = false;
  bool warmup_ = false;
  std::uint64_t origin_ns_ = 0;
  std::uint64_t index_ = 0;  // the interval the next reading closes
  std::uint64_t last_ns_ = 0;
  std::vector<explain::DiskCounters> last_;
};

}  // namespace iobench::detail
