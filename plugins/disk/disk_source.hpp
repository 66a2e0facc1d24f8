#pragma once

// What one worker of one disk phase does, fed to the IoDriver (a template: the calls inline into
// its loop): which block next, of which file, read, write or trim, its size, each write's bytes,
// the verify check, the thinktime pauses.

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <iobench/clock.hpp>
#include <iobench/data_pattern.hpp>
#include <iobench/engine.hpp>
#include <iobench/error.hpp>
#include <iobench/workload.hpp>
#include <span>
#include <thread>
#include <vector>

#include "plugins/disk/block_distribution.hpp"
#include "plugins/disk/block_set.hpp"
#include "plugins/disk/block_size_split.hpp"
#include "plugins/disk/shared_file.hpp"
#include "plugins/disk/verify_pattern.hpp"

namespace iobench::plugins::disk {

// PhasePlan::iterations of a time_based phase: passes until the time or op limit ends it.
inline constexpr std::uint64_t kUntilLimit = UINT64_MAX;

// What one worker of one phase does, fed to the IoDriver: which block next, read or write, each
// write's bytes (the `data` pattern, or with verify the verify pattern), and the checking.
struct PhasePlan {
  bool sequential = true;
  BlockDistribution distribution;
  std::uint64_t blocks = 0;
  std::uint64_t block_size = 0;
  BlockPlacement placement;  ///< where the worker's blocks lie in its file
  std::uint64_t iterations = 1;
  std::uint32_t latency_sample = 1;  ///< time 1 op in this many (IoDriverOptions)
  enum class Ops { kRead, kWrite, kMixed, kTrim } ops = Ops::kRead;
  std::uint32_t read_percent = 0;
  std::uint32_t trim_percent = 0;  ///< kMixed: trims' share of ops
  OpId read_op = 0;
  OpId write_op = 0;
  OpId trim_op = 0;
  /// Files per worker (nrfiles): op i of a pass goes to file i % files (round robin), at
  /// offset file * file_span within the worker's DiskFileSet.
  std::uint32_t files = 1;
  std::uint64_t file_span = 0;
  /// bssplit (not owned; null: every op is block_size bytes, the block grid).
  const BlockSizeSplit* split = nullptr;
  /// Per request slot: 1 for a trim (the DiskFileSet's table); null when the phase has none.
  std::vector<char>* trim_slots = nullptr;
  std::uint64_t thinktime_ns = 0;
  std::uint64_t thinktime_spin_ns = 0;
  std::uint64_t thinktime_blocks = 1;
  /// Writes copy their bytes into the request's slot buffer (queues deeper than one, registered
  /// buffers); otherwise a write points at its PatternBuffer block, which stays put until the
  /// request completes.
  bool copy_writes = false;
  /// With verify: a write phase marks each block it writes here (one bit per block), and the
  /// verify phase after it reads only the marked ones, so blocks a random order with repetition
  /// or a time or op limit left unwritten are not taken for lost writes. Null: not tracked.
  BlockSet* written = nullptr;

  /// True for a verify phase that reads back only the blocks in `written`.
  [[nodiscard]] bool reads_written_only() const noexcept {
    return written != nullptr && ops == Ops::kRead;
  }
};

class DiskSource {
 public:
  DiskSource(const PhasePlan& plan, std::uint64_t seed, VerifyPattern* pattern, PatternBuffer* data,
             const std::filesystem::path& path, WorkerContext& ctx, std::uint32_t depth)
      : plan_(plan),
        seed_(seed),
        mix_state_(seed ^ 0x6d69786564ULL),
        size_state_(seed ^ 0x6273737074ULL),
        pattern_(pattern),
        data_(data),
        path_(path),
        ctx_(ctx),
        written_only_(plan.reads_written_only()),
        plain_reads_(plan.ops == PhasePlan::Ops::kRead && plan.files == 1 &&
                     plan.split == nullptr && plan.thinktime_ns == 0 && !written_only_ &&
                     plan.trim_slots == nullptr),
        size_slots_(plan.split != nullptr ? depth : 0) {
    orders_.reserve(plan_.files);
    start_pass();
  }

  // The request for the next op into `request` (direction, length, offset) and its kind into
  // `op`; false when the phase has no more. The common read (whole blocks of one file, no think
  // time, no verify bookkeeping) is computed here, inlined into the driver's loop; everything
  // else (a pass's end, writes, mixes, bssplit, several files, thinktime) in next_general(),
  // which gives the same blocks for it.
  [[gnu::hot, gnu::always_inline]] bool next(IoRequest& request, OpId& op) {
    if (plain_reads_ && index_ != plan_.blocks) [[likely]] {
      const std::uint64_t block = orders_.front().block(index_++);
      request.direction = IoDirection::kRead;
      request.length = static_cast<std::uint32_t>(plan_.block_size);
      request.offset = plan_.placement.file_block(block) * plan_.block_size;
      op = plan_.read_op;
      ++issued_;
      return true;
    }
    return next_general(request, op);
  }

  [[gnu::noinline]] bool next_general(IoRequest& request, OpId& op) {
    if (plan_.thinktime_ns > 0 && issued_ > 0 && issued_ % plan_.thinktime_blocks == 0 &&
        thought_at_ != issued_) {
      think();  // after the previous op (or block of ops), before the next or the end
    }
    if (written_only_) {
      while (index_ < plan_.blocks && !plan_.written->contains(index_)) ++index_;
    }
    if (index_ == plan_.blocks) {
      if (++pass_ == plan_.iterations) return false;
      start_pass();
      if (written_only_) return next_general(request, op);
    }
    // Round robin over the files; each file's own order gives its next block.
    const std::uint64_t i = index_++;
    const std::size_t file = plan_.files == 1 ? 0 : static_cast<std::size_t>(i % plan_.files);
    const std::uint64_t block = orders_[file].block(plan_.files == 1 ? i : i / plan_.files);
    const std::uint64_t offset =
        file * plan_.file_span + plan_.placement.file_block(block) * plan_.block_size;
    auto kind = PhasePlan::Ops::kRead;
    switch (plan_.ops) {
      case PhasePlan::Ops::kMixed: {
        // Lemire's bound on 64 random bits: a percentile in [0, 100); reads below read_percent,
        // then trims, then writes.
        const std::uint64_t percent = ((splitmix64(mix_state_) >> 32) * 100) >> 32;
        kind = percent < plan_.read_percent                        ? PhasePlan::Ops::kRead
               : percent < plan_.read_percent + plan_.trim_percent ? PhasePlan::Ops::kTrim
                                                                   : PhasePlan::Ops::kWrite;
        break;
      }
      default:
        kind = plan_.ops;
    }
    const bool read = kind == PhasePlan::Ops::kRead;
    const bool trim = kind == PhasePlan::Ops::kTrim;
    request.direction = read ? IoDirection::kRead : IoDirection::kWrite;
    request.length = static_cast<std::uint32_t>(plan_.block_size);
    if (plan_.split != nullptr) {
      const auto list = read   ? BlockSizeSplit::List::kRead
                        : trim ? BlockSizeSplit::List::kTrim
                               : BlockSizeSplit::List::kWrite;
      const std::uint8_t size = plan_.split->pick(list, splitmix64(size_state_));
      size_slots_[request.tag] = size;
      request.length = static_cast<std::uint32_t>(plan_.split->sizes()[size]);
    }
    request.offset = offset;
    if (plan_.trim_slots != nullptr) (*plan_.trim_slots)[request.tag] = trim ? 1 : 0;
    op = read ? plan_.read_op : trim ? plan_.trim_op : plan_.write_op;
    ++issued_;
    if (!read && !trim) {
      if (pattern_ != nullptr) {
        // Generation: the pass, from 1 (the untimed fill of a file to read writes 0).
        pattern_->fill({request.buffer, request.length}, offset,
                       static_cast<std::uint32_t>(pass_ + 1));  // untimed (see the driver)
      } else if (data_ != nullptr) {
        const std::span<const std::byte> bytes = data_->block(block);
        if (plan_.copy_writes) {
          std::memcpy(request.buffer, bytes.data(), request.length);
        } else {
          // Engines only read a write's buffer; IoRequest has one pointer type for both ways.
          request.buffer = const_cast<std::byte*>(bytes.data());
        }
      }
    }
    return true;
  }

  // Inlined where the driver calls it: with latency sampling the driver has two call sites,
  // and an out-of-line call costs ~20 instructions per op.
  [[gnu::hot, gnu::always_inline]] void completed(const IoRequest& request, OpId /*op*/) const {
    if (!size_slots_.empty()) ctx_.add_counter(size_slots_[request.tag], 1);
    if (plan_.trim_slots != nullptr && (*plan_.trim_slots)[request.tag] != 0) return;
    if (request.direction == IoDirection::kWrite) {
      // Only a write that completed in full counts for verify (a paced request built but never
      // issued when the phase ended wrote nothing).
      if (plan_.written != nullptr) {
        const std::uint64_t index = block_index(request.offset);
        if (pattern_ != nullptr) {
          plan_.written->insert(
              index, VerifyPattern::generation_of({request.buffer, VerifyPattern::kHeaderBytes}));
        } else {
          plan_.written->insert(index);
        }
      }
      return;
    }
    if (pattern_ == nullptr) return;
    // After a write phase, its last write of the block; otherwise (a mixed phase may or may
    // not have rewritten it) any of this run's.
    const std::uint32_t expected = written_only_
                                       ? plan_.written->generation(block_index(request.offset))
                                       : VerifyPattern::kAnyGeneration;
    VerifyFinding finding =
        pattern_->check({request.buffer, request.length}, request.offset, expected);
    if (finding.failure != VerifyFailure::kNone) {
      if (++bad_blocks_ <= kFindingsShown) {
        findings_.push_back(fmt::format("offset {}: {}: {}", request.offset,
                                        failure_name(finding.failure), finding.detail));
      }
    }
  }

  /// With verify, after the driver's loop: throws Error naming the blocks read back wrong
  /// (offset, kind, what each holds; the first kFindingsShown), if any. Not an errno: the reads
  /// succeeded and returned the wrong bytes.
  void finish_verify() const {
    if (bad_blocks_ == 0) return;
    throw Error(fmt::format("verify: {}: {} block{} of {} bytes read back wrong: {}{}",
                            path_.string(), bad_blocks_, bad_blocks_ == 1 ? "" : "s",
                            plan_.block_size, fmt::join(findings_, "; "),
                            bad_blocks_ > findings_.size() ? "; ..." : ""));
  }

 private:
  static constexpr std::uint64_t kFindingsShown = 10;

  // The worker's block index of a file offset (its placement in a shared file undone).
  [[nodiscard]] std::uint64_t block_index(std::uint64_t offset) const noexcept {
    return (offset / plan_.block_size - plan_.placement.first) / plan_.placement.stride;
  }

  void start_pass() {
    index_ = 0;
    const std::uint64_t per_file = plan_.blocks / plan_.files;
    orders_.clear();
    for (std::uint32_t file = 0; file < plan_.files; ++file) {
      // File 0 keeps the seed a single file has always had.
      std::uint64_t state = seed_ + pass_ + file * 0x9E3779B97F4A7C15ULL;
      orders_.emplace_back(plan_.sequential, plan_.distribution, per_file, splitmix64(state));
    }
  }

  // fio's thinktime: spin the first part, sleep the rest (in slices, so a stop is seen soon).
  void think() {
    thought_at_ = issued_;
    const std::uint64_t start = monotonic_ns();
    const std::uint64_t spin_end = start + plan_.thinktime_spin_ns;
    const std::uint64_t end = start + plan_.thinktime_ns;
    while (monotonic_ns() < spin_end) {
    }
    constexpr std::uint64_t kSliceNs = 50'000'000;
    for (std::uint64_t now = monotonic_ns(); now < end && !ctx_.stop_requested();
         now = monotonic_ns()) {
      std::this_thread::sleep_for(std::chrono::nanoseconds(std::min(end - now, kSliceNs)));
    }
  }

  PhasePlan plan_;
  std::uint64_t seed_;
  std::uint64_t mix_state_;
  std::uint64_t size_state_;
  VerifyPattern* pattern_;
  PatternBuffer* data_;
  std::filesystem::path path_;
  WorkerContext& ctx_;
  bool written_only_;               // plan_.reads_written_only(), asked once rather than per op
  bool plain_reads_;                // next()'s inline case applies (whole-block reads, one file)
  std::vector<BlockOrder> orders_;  // one per file
  std::uint64_t pass_ = 0;
  std::uint64_t index_ = 0;
  std::uint64_t issued_ = 0;      // ops handed out
  std::uint64_t thought_at_ = 0;  // issued_ at the last pause
  /// Per request slot: the index of its size in the split (the result counter it counts in).
  std::vector<std::uint8_t> size_slots_;
  /// verify: blocks read back wrong, and the first kFindingsShown of them described.
  mutable std::uint64_t bad_blocks_ = 0;
  mutable std::vector<std::string> findings_;
};

}  // namespace iobench::plugins::disk
