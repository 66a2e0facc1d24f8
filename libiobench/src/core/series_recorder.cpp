#include "core/series_recorder.hpp"

#include <algorithm>
#include <iobench/latency_histogram.hpp>
#include <iobench/metrics.hpp>
#include <span>

namespace iobench::detail {

namespace {

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return a / b + (a % b != 0); }

// `into` += `from`, op by op (`into` grows to `from`'s size).
void add_op_points(std::vector<SeriesOpPoint>& into, std::span<const SeriesOpPoint> from) {
  if (into.size() < from.size()) into.resize(from.size());
  for (std::size_t k = 0; k < from.size(); ++k) into[k].add(from[k]);
}

}  // namespace

SparseBuckets merge_buckets(const SparseBuckets& a, const SparseBuckets& b) {
  SparseBuckets merged;
  merged.reserve(a.size() + b.size());
  auto x = a.begin();
  auto y = b.begin();
  while (x != a.end() || y != b.end()) {
    if (y == b.end() || (x != a.end() && x->first < y->first)) {
      merged.push_back(*x++);
    } else if (x == a.end() || y->first < x->first) {
      merged.push_back(*y++);
    } else {
      merged.emplace_back(x->first, x->second + y->second);
      ++x;
      ++y;
    }
  }
  return merged;
}

SeriesLatency series_figures(SeriesHistogram::Uint128 sum_ns, std::uint64_t max_ns,
                             const SparseBuckets& buckets) {
  SeriesLatency out;
  // Not the point's op count: with latency sampling only some of its ops have a latency.
  std::uint64_t ops = 0;
  for (const auto& bucket : buckets) ops += bucket.second;
  if (ops == 0) return out;
  out.mean = LatencyHistogram::mean_of(ops, sum_ns);
  out.max = max_ns;
  const auto at = [&](double p) -> std::uint64_t {
    const std::uint64_t rank = LatencyHistogram::nearest_rank(p, ops);
    std::uint64_t seen = 0;
    for (const auto& [index, count] : buckets) {
      seen += count;
      if (seen >= rank) {
        const std::uint64_t mid = IntervalHistogram::bucket_lower(index) +
                                  (IntervalHistogram::bucket_width(index) - 1) / 2;
        return std::min(mid, max_ns);
      }
    }
    return max_ns;
  };
  out.p50 = at(50);
  out.p99 = at(99);
  out.p99_9 = at(99.9);
  return out;
}

void SeriesRecorder::Cell::merge(const Cell& other) {
  bytes += other.bytes;
  ops += other.ops;
  errors += other.errors;
  latency_sum += other.latency_sum;
  latency_max = std::max(latency_max, other.latency_max);
  buckets = merge_buckets(buckets, other.buckets);
}

SeriesRecorder::SeriesRecorder(std::uint64_t interval_ns, std::size_t workers, std::size_t cap)
    : interval_ns_(std::max<std::uint64_t>(interval_ns, 1)),
      workers_(workers),
      cap_(std::max<std::size_t>(
          std::min(cap,
                   std::max(kSeriesMinPoints, kSeriesCellCap / std::max<std::size_t>(workers, 1))),
          2)) {}

void SeriesRecorder::begin_group(std::size_t first, std::size_t count, std::uint64_t warmup_ns) {
  warmup_segment_ = SIZE_MAX;
  if (warmup_ns > 0) {
    warmup_segment_ = segments_.size();
    segments_.push_back(Segment{.first_worker = first,
                                .workers = count,
                                .warmup = true,
                                .last_index = ceil_div(warmup_ns, interval_ns_) - 1,
                                .origin_ns = group_offset_ns_});
  }
  measure_segment_ = segments_.size();
  segments_.push_back(Segment{.first_worker = first, .workers = count});
}

void SeriesRecorder::add(std::size_t worker, const IntervalStats& interval,
                         std::span<const SeriesOpPoint> op_points) {
  if (interval.ops == 0 && interval.errors == 0) return;
  const std::size_t segment =
      interval.warmup != 0 && warmup_segment_ != SIZE_MAX ? warmup_segment_ : measure_segment_;
  if (segment >= segments_.size()) return;
  const Segment& seg = segments_[segment];
  if (worker < seg.first_worker || worker >= seg.first_worker + seg.workers) return;
  const std::uint64_t index = std::min(interval.index, seg.last_index);
  std::vector<Cell>& cells = points_[Key{segment, index / factor_}];
  if (cells.empty()) cells.resize(seg.workers);
  Cell cell;
  cell.bytes = interval.bytes;
  cell.ops = interval.ops;
  cell.errors = interval.errors;
  cell.latency_sum = interval.latency.sum();
  cell.latency_max = interval.latency.max();
  for (std::size_t i = 0; i < IntervalHistogram::kBucketCount; ++i) {
    if (const std::uint64_t n = interval.latency.bucket_count(i); n != 0) {
      cell.buckets.emplace_back(static_cast<std::uint16_t>(i), n);
    }
  }
  cells[worker - seg.first_worker].merge(cell);
  if (!op_points.empty()) add_op_points(op_points_[Key{segment, index / factor_}], op_points);
  if (over_cap()) merge_round();
}

void SeriesRecorder::add_devices(bool warmup, std::uint64_t index,
                                 const std::vector<SeriesDevicePoint>& devices) {
  if (devices.empty()) return;
  const std::size_t segment =
      warmup && warmup_segment_ != SIZE_MAX ? warmup_segment_ : measure_segment_;
  if (segment >= segments_.size()) return;
  const std::uint64_t at = std::min(index, segments_[segment].last_index) / factor_;
  std::vector<SeriesDevicePoint>& into = devices_[Key{segment, at}];
  if (into.empty()) {
    into = devices;
    return;
  }
  for (std::size_t d = 0; d < into.size() && d < devices.size(); ++d) into[d].add(devices[d]);
}

void SeriesRecorder::end_group(std::uint64_t measure_offset_ns, std::uint64_t length_ns) {
  const bool measured = measure_offset_ns != UINT64_MAX;
  if (warmup_segment_ != SIZE_MAX) {
    Segment& seg = segments_[warmup_segment_];
    seg.length_ns = measured ? std::min(measure_offset_ns, length_ns) : length_ns;
    seg.closed = true;
  }
  Segment& seg = segments_[measure_segment_];
  seg.origin_ns = group_offset_ns_ + (measured ? std::min(measure_offset_ns, length_ns) : 0);
  seg.length_ns = measured && length_ns > measure_offset_ns ? length_ns - measure_offset_ns : 0;
  seg.closed = true;
  group_offset_ns_ += length_ns;
  warmup_segment_ = measure_segment_ = SIZE_MAX;
  count_gaps();
  while (over_cap()) {
    const std::size_t before = point_count();
    merge_round();
    if (point_count() >= before) break;  // one point per part already: nothing left to merge
  }
}

std::uint64_t SeriesRecorder::keys_in(std::size_t segment) const {
  const auto next = points_.lower_bound(Key{segment + 1, 0});
  if (next == points_.begin()) return 0;
  const auto last = std::prev(next);
  return last->first.first == segment ? last->first.second + 1 : 0;
}

std::size_t SeriesRecorder::point_count() const { return points_.size() + closed_gaps_; }

bool SeriesRecorder::over_cap() const {
  // Every part (a serial phase has one per worker, two with a warm-up) keeps at least one
  // point however far it merges, so the cap is never below their number; and the merge factor
  // stops well before interval_ns_ * factor_ could overflow.
  constexpr std::uint64_t kMaxFactor = std::uint64_t{1} << 32;
  return point_count() > std::max(cap_, segments_.size()) && factor_ < kMaxFactor;
}

void SeriesRecorder::count_gaps() {
  // Points of closed parts that no op fell in: build() makes them too, so they count.
  closed_gaps_ = 0;
  for (std::size_t s = 0; s < segments_.size(); ++s) {
    const Segment& seg = segments_[s];
    if (!seg.closed) continue;
    const std::uint64_t span =
        std::max(ceil_div(seg.length_ns, interval_ns_ * factor_), keys_in(s));
    const auto present = static_cast<std::uint64_t>(
        std::distance(points_.lower_bound(Key{s, 0}), points_.lower_bound(Key{s + 1, 0})));
    closed_gaps_ += static_cast<std::size_t>(span - present);
  }
}

void SeriesRecorder::merge_round() {
  factor_ *= 2;
  std::map<Key, std::vector<Cell>> merged;
  for (auto& [key, cells] : points_) {
    std::vector<Cell>& into = merged[Key{key.first, key.second / 2}];
    if (into.empty()) {
      into = std::move(cells);
    } else {
      for (std::size_t w = 0; w < into.size(); ++w) into[w].merge(cells[w]);
    }
  }
  points_ = std::move(merged);
  std::map<Key, std::vector<SeriesDevicePoint>> merged_devices;
  for (auto& [key, devices] : devices_) {
    std::vector<SeriesDevicePoint>& into = merged_devices[Key{key.first, key.second / 2}];
    if (into.empty()) {
      into = std::move(devices);
    } else {
      for (std::size_t d = 0; d < into.size() && d < devices.size(); ++d) into[d].add(devices[d]);
    }
  }
  devices_ = std::move(merged_devices);
  std::map<Key, std::vector<SeriesOpPoint>> merged_ops;
  for (auto& [key, ops] : op_points_)
    add_op_points(merged_ops[Key{key.first, key.second / 2}], ops);
  op_points_ = std::move(merged_ops);
  count_gaps();
}

std::optional<std::uint64_t> SeriesRecorder::latest_p99_ns() const {
  const std::optional<LatestFigures> latest = latest_figures();
  if (!latest) return std::nullopt;
  return latest->total.p99;
}

std::optional<SeriesRecorder::LatestFigures> SeriesRecorder::latest_figures() const {
  for (const std::size_t segment : {measure_segment_, warmup_segment_}) {
    if (segment == SIZE_MAX) continue;
    const auto first = points_.lower_bound(Key{segment, 0});
    const auto next = points_.lower_bound(Key{segment + 1, 0});
    if (first == next) continue;  // nothing in this part yet
    const auto newest = std::prev(next);
    if (newest == first) return std::nullopt;
    LatestFigures out;
    Cell total;
    for (const Cell& cell : std::prev(newest)->second) {
      total.merge(cell);
      out.workers.push_back(cell.ops == 0 ? std::nullopt : std::optional(figures(cell)));
    }
    out.total = figures(total);
    return out;
  }
  return std::nullopt;
}

SeriesLatency SeriesRecorder::figures(const Cell& cell) {
  return series_figures(cell.latency_sum, cell.latency_max, cell.buckets);
}

std::vector<SeriesDevicePoint> SeriesRecorder::devices_between(std::size_t segment,
                                                               std::uint64_t from,
                                                               std::uint64_t to) const {
  std::vector<SeriesDevicePoint> sum;
  const auto end = to == UINT64_MAX ? devices_.lower_bound(Key{segment + 1, 0})
                                    : devices_.lower_bound(Key{segment, to});
  for (auto it = devices_.lower_bound(Key{segment, from}); it != end; ++it) {
    if (sum.empty()) {
      sum = it->second;
    } else {
      for (std::size_t d = 0; d < sum.size() && d < it->second.size(); ++d) {
        sum[d].add(it->second[d]);
      }
    }
  }
  return sum;
}

TimeSeries SeriesRecorder::build() const {
  TimeSeries series;
  series.requested_interval_ns = interval_ns_;
  series.merged_intervals = factor_;
  series.interval_ns = interval_ns_ * factor_;
  const std::uint64_t width = series.interval_ns;
  for (std::size_t s = 0; s < segments_.size(); ++s) {
    const Segment& seg = segments_[s];
    const auto first = points_.lower_bound(Key{s, 0});
    const auto next = points_.lower_bound(Key{s + 1, 0});
    const std::uint64_t count = std::max(ceil_div(seg.length_ns, width), keys_in(s));
    std::vector<const std::vector<Cell>*> cells_at(count, nullptr);
    for (auto it = first; it != next; ++it) cells_at[it->first.second] = &it->second;
    // The part's last interval is as long as what is left of the part: a remainder shorter
    // than half an interval (a 3 s limit's last 0.1 ms, ops that completed past the part's end)
    // folds into the point before it, whose rate is then over its real, longer duration_ns.
    const std::uint64_t part_end = seg.origin_ns + seg.length_ns;
    const std::uint64_t last_start = seg.origin_ns + (count == 0 ? 0 : count - 1) * width;
    const bool fold = count >= 2 && (part_end > last_start ? part_end - last_start : 0) <
                                        width / kSeriesFoldDivisor;
    const std::uint64_t shown = count - (fold ? 1 : 0);
    for (std::uint64_t k = 0; k < shown; ++k) {
      SeriesPoint point;
      point.start_ns = seg.origin_ns + k * width;
      const std::uint64_t end =
          k + 1 == shown ? std::max(part_end, point.start_ns) : point.start_ns + width;
      point.duration_ns = end - point.start_ns;
      point.warmup = seg.warmup;
      std::vector<Cell> cells(seg.workers);
      for (std::uint64_t from = k; from < (k + 1 == shown ? count : k + 1); ++from) {
        if (cells_at[from] == nullptr) continue;
        for (std::size_t w = 0; w < seg.workers; ++w) cells[w].merge((*cells_at[from])[w]);
      }
      Cell total;
      for (std::size_t w = 0; w < seg.workers; ++w) {
        SeriesWorkerPoint worker;
        worker.index = seg.first_worker + w;
        const Cell& cell = cells[w];
        worker.bytes = cell.bytes;
        worker.ops = cell.ops;
        worker.errors = cell.errors;
        worker.latency_ns = figures(cell);
        total.merge(cell);
        point.workers.push_back(worker);
      }
      point.bytes = total.bytes;
      point.ops = total.ops;
      point.errors = total.errors;
      point.latency_ns = figures(total);
      point.histogram = {.sum_ns = total.latency_sum, .buckets = std::move(total.buckets)};
      // The last point also takes the device readings past the part's points (its final
      // reading comes a little after the last worker's end).
      point.devices = devices_between(s, k, k + 1 == shown ? UINT64_MAX : k + 1);
      const auto ops_end = k + 1 == shown ? op_points_.lower_bound(Key{s + 1, 0})
                                          : op_points_.lower_bound(Key{s, k + 1});
      for (auto it = op_points_.lower_bound(Key{s, k}); it != ops_end; ++it)
        add_op_points(point.op_points, it->second);
      series.points.push_back(std::move(point));
    }
  }
  return series;
}

}  // namespace iobench::detail

namespace iobench {

double SeriesDevicePoint::util_percent() const noexcept {
  if (sampled_ns == 0) return 0;
  return std::min(100.0,
                  100.0 * static_cast<double>(io_time_ms) * 1e6 / static_cast<double>(sampled_ns));
}
double SeriesDevicePoint::avg_queue_size() const noexcept {
  if (sampled_ns == 0) return 0;
  return static_cast<double>(weighted_io_time_ms) * 1e6 / static_cast<double>(sampled_ns);
}
double SeriesDevicePoint::r_await_ms() const noexcept {
  return reads == 0 ? 0 : static_cast<double>(read_time_ms) / static_cast<double>(reads);
}
double SeriesDevicePoint::w_await_ms() const noexcept {
  return writes == 0 ? 0 : static_cast<double>(write_time_ms) / static_cast<double>(writes);
}
void SeriesDevicePoint::add(const SeriesDevicePoint& other) noexcept {
  sampled_ns += other.sampled_ns;
  reads += other.reads;
  writes += other.writes;
  read_bytes += other.read_bytes;
  write_bytes += other.write_bytes;
  read_time_ms += other.read_time_ms;
  write_time_ms += other.write_time_ms;
  io_time_ms += other.io_time_ms;
  weighted_io_time_ms += other.weighted_io_time_ms;
}

double SeriesPoint::throughput_bytes_per_s() const noexcept {
  return iobench::throughput_bytes_per_s(bytes, duration_ns);
}
double SeriesPoint::ops_per_s() const noexcept { return iobench::ops_per_s(ops, duration_ns); }

}  // namespace iobench
