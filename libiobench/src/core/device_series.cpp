#include "core/device_series.hpp"

#include <algorithm>

#include "explain/read_file.hpp"

namespace iobench::detail {
namespace {

constexpr std::uint64_t kSectorBytes = 512;  // diskstats counts 512-byte sectors on every device

std::uint64_t grew_ms32(std::uint64_t a, std::uint64_t b) {
  return static_cast<std::uint32_t>(static_cast<std::uint32_t>(b) - static_cast<std::uint32_t>(a));
}

// The devices' counters, one per name in `devices` (a device gone from the file: its name only,
// all counts 0).
std::vector<explain::DiskCounters> read_devices(std::span<const std::string> devices) {
  std::vector<explain::DiskCounters> out(devices.size());
  for (std::size_t i = 0; i < devices.size(); ++i) out[i].name = devices[i];
  for (explain::DiskCounters& d :
       explain::parse_diskstats(explain::read_kernel_file("/proc/diskstats"))) {
    const auto it = std::find(devices.begin(), devices.end(), d.name);
    if (it != devices.end()) out[static_cast<std::size_t>(it - devices.begin())] = std::move(d);
  }
  return out;
}

}  // namespace

SeriesDevicePoint device_interval(const explain::DiskCounters& a, const explain::DiskCounters& b,
                                  std::uint64_t sampled_ns) {
  SeriesDevicePoint p;
  p.name = b.name;
  p.sampled_ns = sampled_ns;
  if (b.reads_completed < a.reads_completed || b.sectors_read < a.sectors_read ||
      b.writes_completed < a.writes_completed || b.sectors_written < a.sectors_written) {
    return p;
  }
  p.reads = b.reads_completed - a.reads_completed;
  p.writes = b.writes_completed - a.writes_completed;
  p.read_bytes = (b.sectors_read - a.sectors_read) * kSectorBytes;
  p.write_bytes = (b.sectors_written - a.sectors_written) * kSectorBytes;
  p.read_time_ms = grew_ms32(a.read_time_ms, b.read_time_ms);
  p.write_time_ms = grew_ms32(a.write_time_ms, b.write_time_ms);
  p.io_time_ms = grew_ms32(a.io_time_ms, b.io_time_ms);
  p.weighted_io_time_ms = grew_ms32(a.weighted_io_time_ms, b.weighted_io_time_ms);
  return p;
}

DeviceSeries::DeviceSeries(std::span<const std::string> devices, std::uint64_t interval_ns,
                           SeriesRecorder& series)
    : devices_(devices.begin(), devices.end()),
      interval_ns_(std::max<std::uint64_t>(interval_ns, 1)),
      series_(series) {}

void DeviceSeries::read_into_current(std::uint64_t now_ns) {
  std::vector<explain::DiskCounters> now = read_devices(devices_);
  std::vector<SeriesDevicePoint> deltas;
  deltas.reserve(now.size());
  const std::uint64_t sampled = now_ns > last_ns_ ? now_ns - last_ns_ : 0;
  for (std::size_t d = 0; d < now.size(); ++d) {
    deltas.push_back(device_interval(last_[d], now[d], sampled));
  }
  series_.add_devices(warmup_, index_, deltas);
  last_ = std::move(now);
  last_ns_ = now_ns;
}

void DeviceSeries::begin_part(bool warmup, std::uint64_t origin_ns) {
  if (devices_.empty()) return;
  if (started_) {
    read_into_current(origin_ns);
  } else {
    last_ = read_devices(devices_);
    last_ns_ = origin_ns;
    started_ = true;
  }
  warmup_ = warmup;
  origin_ns_ = origin_ns;
  index_ = 0;
}

void DeviceSeries::poll(std::uint64_t now_ns) {
  if (!started_ || now_ns < next_ns()) return;
  read_into_current(now_ns);
  // A reading late by more than an interval (a stalled runner) goes to the interval it closes;
  // the next one closes the interval `now_ns` is in.
  index_ = (now_ns - origin_ns_) / interval_ns_;
}

void DeviceSeries::end(std::uint64_t now_ns) {
  if (!started_) return;
  read_into_current(now_ns);
  started_ = false;
}

std::uint64_t DeviceSeries::next_ns() const noexcept {
  if (!started_) return UINT64_MAX;
  return origin_ns_ + (index_ + 1) * interval_ns_;
}

}  // namespace iobench::detail
