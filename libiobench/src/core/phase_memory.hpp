#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <new>
#include <span>
#include <type_traits>

#include "core/shared_region.hpp"
#include "core/worker_slot.hpp"

namespace iobench::detail {

inline constexpr std::size_t kCacheLine = 64;

constexpr std::size_t round_up(std::size_t n, std::size_t to) { return (n + to - 1) / to * to; }

// Worker processes write their figures in shared memory and the runner copies them out.
static_assert(std::is_trivially_copyable_v<SeriesOpPoint> &&
              std::is_trivially_destructible_v<SeriesOpPoint>);
static_assert(std::is_trivially_copyable_v<OpStats> && std::is_trivially_destructible_v<OpStats>);
static_assert(std::is_trivially_copyable_v<OpLatencyParts> &&
              std::is_trivially_destructible_v<OpLatencyParts>);

/// A phase's shared memory (MAP_SHARED, so forked workers write it too): PhaseShared, then per
/// worker a WorkerSlot followed by its OpStats array and, if the phase records latency parts,
/// its OpLatencyParts array and, if the phase splits its series by op (PhaseSpec::per_op_series),
/// its per-op series snapshots (SeriesSlot::op_ring: kRing + 1 arrays of op_count entries), each
/// cache-line aligned so workers never share a line.
class PhaseMemory {
 public:
  /// Throws IoError if the memory cannot be mapped.
  PhaseMemory(std::size_t workers, std::size_t op_count, bool with_parts,
              bool per_op_series = false)
      : op_count_(op_count),
        parts_count_(with_parts ? op_count : 0),
        header_bytes_(round_up(sizeof(PhaseShared), kCacheLine)),
        stats_bytes_(round_up(sizeof(OpStats) * std::max<std::size_t>(op_count, 1), kCacheLine)),
        parts_bytes_(round_up(sizeof(OpLatencyParts) * parts_count_, kCacheLine)),
        series_ops_bytes_(
            per_op_series && op_count > 0
                ? round_up(sizeof(SeriesOpPoint) * op_count * (SeriesSlot::kRing + 1), kCacheLine)
                : 0),
        slot_bytes_(round_up(sizeof(WorkerSlot), kCacheLine) + stats_bytes_ + parts_bytes_ +
                    series_ops_bytes_),
        region_(header_bytes_ + slot_bytes_ * workers) {
    new (region_.data()) PhaseShared();
    // The region is fresh anonymous memory, all zero: the histograms are made without writing
    // their buckets (InZeroedMemory), since writing them would make every page of their
    // ~39 KiB resident in every process (dbench: 17 op kinds a client) where only the buckets
    // samples reach need to be.
    constexpr LatencyHistogram::InZeroedMemory zeroed;
    for (std::size_t i = 0; i < workers; ++i) {
      new (slot(i)) WorkerSlot();
      OpStats* stats = ops(i).data();
      for (std::size_t k = 0; k < op_count_; ++k) new (stats + k) OpStats(zeroed);
      OpLatencyParts* split = parts(i).data();
      for (std::size_t k = 0; k < parts_count_; ++k) new (split + k) OpLatencyParts(zeroed);
      if (series_ops_bytes_ != 0) {
        auto* snapshots = reinterpret_cast<SeriesOpPoint*>(
            region_.data() + header_bytes_ + slot_bytes_ * i +
            round_up(sizeof(WorkerSlot), kCacheLine) + stats_bytes_ + parts_bytes_);
        const std::size_t entries = op_count_ * (SeriesSlot::kRing + 1);
        for (std::size_t k = 0; k < entries; ++k) new (snapshots + k) SeriesOpPoint();
        slot(i)->series.op_ring = std::launder(snapshots);
        slot(i)->series.op_count = op_count_;
      }
    }
  }
  [[nodiscard]] PhaseShared& shared() const {
    return *std::launder(reinterpret_cast<PhaseShared*>(region_.data()));
  }
  [[nodiscard]] WorkerSlot* slot(std::size_t i) const {
    return std::launder(
        reinterpret_cast<WorkerSlot*>(region_.data() + header_bytes_ + slot_bytes_ * i));
  }
  [[nodiscard]] std::span<OpStats> ops(std::size_t i) const {
    auto* base =
        region_.data() + header_bytes_ + slot_bytes_ * i + round_up(sizeof(WorkerSlot), kCacheLine);
    return {std::launder(reinterpret_cast<OpStats*>(base)), op_count_};
  }
  [[nodiscard]] std::span<OpLatencyParts> parts(std::size_t i) const {
    auto* base = region_.data() + header_bytes_ + slot_bytes_ * i +
                 round_up(sizeof(WorkerSlot), kCacheLine) + stats_bytes_;
    return {std::launder(reinterpret_cast<OpLatencyParts*>(base)), parts_count_};
  }
  /// The sum of one live counter over workers [first, first + count) (relaxed reads: the
  /// workers go on counting).
  [[nodiscard]] std::uint64_t live_sum(std::size_t first, std::size_t count,
                                       std::atomic<std::uint64_t> WorkerSlot::*member) const {
    std::uint64_t sum = 0;
    for (std::size_t i = first; i < first + count; ++i)
      sum += (slot(i)->*member).load(std::memory_order_relaxed);
    return sum;
  }

 private:
  std::size_t op_count_;
  std::size_t parts_count_;
  std::size_t header_bytes_;
  std::size_t stats_bytes_;
  std::size_t parts_bytes_;
  std::size_t series_ops_bytes_;
  std::size_t slot_bytes_;
  SharedRegion region_;
};

/// A worker measured something: it was recording when the measurement began, and its run ended.
inline bool measured(const WorkerSlot& slot) noexcept {
  return slot.measuring != 0 && slot.start_ns != 0 && slot.end_ns >= slot.start_ns;
}

}  // namespace iobench::detail
