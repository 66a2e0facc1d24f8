#pragma once

/// The one I/O loop of block workloads (disk, tiotest, and plugins): keeps an engine's queue at
/// its depth, times every op, and records it. The same loop serves synchronous engines (depth 1:
/// the I/O happens inside submit) and asynchronous ones (io_uring, libaio), closed-loop and
/// open-loop (rate-limited) phases.
///
/// Timing, in CLOCK_MONOTONIC ns (fio's definitions, ../reference fio §1.2):
/// - latency (OpStats::latency): from the op's issue to the reap that saw it complete; in an
///   open-loop phase from its intended issue time instead (response time), so a stall shows in
///   every op it delays.
/// - submission (slat) and completion (clat), asynchronous engines only: issue to the return of
///   the submit call; that return to the reap.
/// - service, open-loop phases only: actual issue to completion.
/// An open-loop worker that runs out of ops (the source's last, or the op limit) returns from
/// run() only at the end of its last op's interval (wait_out_interval()): its window then holds
/// N intended intervals, and a phase of N ops at R per second reports R ops/s, not R x N / (N-1).
/// Clock reads are shared: the completion time of one reap is the issue time of the requests
/// submitted right after it, so a synchronous op costs one clock read and an asynchronous batch
/// two (after submit, after reap). Work a source does between ops that must not be timed
/// (stamping or checking a verify pattern) makes the driver read the clock afresh before the
/// next issue (IoDriverOptions::untimed_work_between_ops).
///
/// Latency sampling (IoDriverOptions::latency_sample = N > 1, fio's gtod_reduce analogue): 1 op
/// in N is timed and recorded in the latency histograms; the others are only counted (ops and
/// bytes stay exact, WorkerContext::record_unsampled). In each run of N consecutive ops one op,
/// at a random position, is timed (stratified sampling: a periodic pattern in the ops, such as
/// readahead every 32 pages, cannot line up with the samples), so a phase of k * N ops has
/// exactly k samples. At depth 1 on a synchronous engine an untimed op reads no clock at all,
/// and a timed op reads it afresh just before its issue (no previous op's end time to share),
/// so its latency is issue to completion without the loop's own work between ops (~10 ns that
/// the shared reads of N = 1 count). On queues (asynchronous engines, depth > 1) the clock is
/// still read once per submit and once per reap, shared by the batch: sampling spares the
/// histogram updates only. Not with a pacer: every op's intended issue time matters there.

#include <fmt/format.h>

#include <cerrno>
#include <cstdint>
#include <iobench/engine.hpp>
#include <iobench/error.hpp>
#include <iobench/lateness_trend.hpp>
#include <iobench/random_mix.hpp>
#include <iobench/rate_pacer.hpp>
#include <iobench/workload.hpp>
#include <span>
#include <string>
#include <vector>

namespace iobench {

/// How an IoDriver runs.
struct IoDriverOptions {
  /// Requests in flight at most (the queue's depth).
  std::uint32_t depth = 1;
  /// The engine completes requests asynchronously (EngineCaps::async): record slat and clat.
  bool async = false;
  /// The source does untimed work in next()/completed(): read the clock afresh before issuing.
  bool untimed_work_between_ops = false;
  /// Open loop: issue each op at its intended time from this schedule (nullptr: closed loop).
  RatePacer* pacer = nullptr;
  /// Open loop: each completed op's lateness (its completion time past its intended issue
  /// time, the response time it records) also goes to this trend, restarted when the
  /// recording restarts (a warm-up ending). Owned by the caller; nullptr (the default, and
  /// always in a closed loop): nothing is kept and nothing is paid.
  LatenessTrend* lateness = nullptr;
  /// Time and record the latency of 1 op in this many (see the file comment); 1: every op.
  /// At least 1; above 1 only without a pacer.
  std::uint32_t latency_sample = 1;
  /// Seed of the random position of the timed op in each run of latency_sample ops.
  std::uint64_t sample_seed = 0;
  /// Never have two requests whose bytes overlap in flight at once: a request overlapping one in
  /// flight is held until that one completed (fio's serialize_overlap). Two writes of one block
  /// in flight together may reach the file in either order (or torn) whatever order they
  /// complete in, and a read beside a write may see either, so a source that checks what it
  /// reads against what it wrote (disk's verify) needs this at depth > 1: with a file of fewer
  /// blocks than the depth, or a random order's pass boundary, or with repetition, one block is
  /// written twice at once. Costs a scan of the requests in flight per op.
  bool serialize_overlaps = false;
};

/// Drives one IoQueue. Built untimed (it allocates its per-slot tables); run() is the timed loop
/// and does not allocate.
///
/// A Source supplies the ops and is called inline (a template, no virtual call):
/// - `bool next(IoRequest& request, OpId& op)`: sets request.direction, .length and .offset (the
///   buffer, buffer_index and tag are already set: the request's slot) and the op kind to record
///   it under; false when the workload has no more ops. A write may point request.buffer at
///   other memory holding its data (saving a copy), if that memory stays unchanged until the
///   request completes and the engine does not use registered buffers
///   (EngineCaps::registered_buffers).
/// - `void completed(const IoRequest& request, OpId op)`: after a request completed in full and
///   was recorded (e.g. to verify what a read returned); may throw IoError to fail the worker.
///
/// A failed request throws IoError naming the call, offset, errno and file, except EAGAIN (only
/// pvsync2:nowait produces it: the request would have blocked, e.g. a buffered read whose data is
/// not in the page cache), which is counted as an error op of its kind and moved no data; the
/// loop goes on, and when it ends run() throws IoError(EAGAIN) saying how many of the requests
/// would have blocked and where the first was, so a phase that did not do its I/O fails
/// (exit 1) instead of reporting a completed run. A short transfer is finished synchronously
/// (so a full disk reports ENOSPC, not "short write").
class IoDriver {
 public:
  /// `buffers` holds options.depth buffers of `buffer_bytes` each, back to back (slot i uses
  /// the i-th). REQUIRES: options.depth == queue.depth(); buffers.size() >= depth * buffer_bytes.
  /// Throws Error for options.latency_sample 0, or above 1 with a pacer (workloads refuse both
  /// as ConfigError first).
  IoDriver(IoFile& file, IoQueue& queue, std::span<std::byte> buffers, std::size_t buffer_bytes,
           const IoDriverOptions& options)
      : file_(file),
        queue_(queue),
        buffers_(buffers),
        buffer_bytes_(buffer_bytes),
        options_(options),
        slots_(options.depth),
        batch_(options.depth),
        completions_(options.depth),
        sampler_(options.latency_sample, options.sample_seed) {
    if (options.latency_sample == 0 || (options.latency_sample > 1 && options.pacer != nullptr)) {
      throw Error(fmt::format(
          "IoDriver: latency_sample={} must be at least 1, and 1 in an open-loop (paced) phase",
          options.latency_sample));
    }
    if (options.serialize_overlaps) issued_.assign(options.depth, 0);
    free_.reserve(options.depth);
    for (std::uint32_t i = options.depth; i > 0; --i) free_.push_back(i - 1);
  }

  /// Runs until the source has no more ops or ctx.keep_going() turns false, then waits for the
  /// requests in flight (they are recorded). Throws IoError as described above. Defined, with
  /// the loops it picks from, in <iobench/detail/io_driver_loops.hpp> (included below): a
  /// template, so that Source's calls and the recording inline into the I/O loop.
  template <class Source>
  [[gnu::hot]] void run(WorkerContext& ctx, Source& source);

 private:
  static constexpr std::uint64_t kPollWhilePacedNs = 20'000;

  // Picks the timed ops: one at a random position in each run of `n` consecutive ops.
  class Sampler {
   public:
    Sampler(std::uint32_t n, std::uint64_t seed) noexcept : n_(n), state_(seed) {
      if (n_ > 1) skip_ = pick();
    }
    // Whether the next op is timed.
    [[gnu::always_inline]] bool take() noexcept {
      if (skip_ != 0) {
        --skip_;
        return false;
      }
      // Timed at position `at_` of its run: the next run's timed op is `pick()` into it.
      const std::uint32_t rest = n_ - 1 - at_;
      skip_ = rest + pick();
      return true;
    }

   private:
    // A position in [0, n): splitmix64, scaled without a division (Lemire).
    std::uint32_t pick() noexcept {
      at_ = static_cast<std::uint32_t>(((splitmix64(state_) >> 32) * n_) >> 32);
      return at_;
    }

    std::uint32_t n_;
    std::uint64_t state_;
    std::uint32_t skip_ = 0;
    std::uint32_t at_ = 0;
  };

  struct Slot {
    IoRequest request{};
    OpId op = 0;
    std::uint64_t intended_ns = 0;
    std::uint64_t issue_ns = 0;
    std::uint64_t submit_ns = 0;
  };

  // serialize_overlaps: whether `r` overlaps a request issued (in flight, or in the batch about
  // to be submitted) and not yet completed.
  [[nodiscard]] bool overlaps_issued(const IoRequest& r) const noexcept {
    for (std::size_t i = 0; i < issued_.size(); ++i) {
      if (issued_[i] == 0) continue;
      const IoRequest& other = slots_[i].request;
      if (r.offset < other.offset + other.length && other.offset < r.offset + r.length) {
        return true;
      }
    }
    return false;
  }

  // A synchronous engine at depth 1 without pacing (psync, pvsync2, mmap: the most common run):
  // the same ops, times and errors as run()'s general loop, with less of the worker's memory
  // touched per op (one request on the stack; no free list, batch or completion tables). After
  // each system call the kernel's page-cache walk has evicted much of the worker's cache, and
  // every line touched again costs a miss (issue 11: iobench's cost per op grew with the file).
  // `transfer(request)` makes one request and returns its completion: the queue's submit() and
  // reap(), or for psync's queue the call itself, inline (detail/psync_fast_path.hpp).
  template <class Source, class Transfer>
  [[gnu::hot]] void run_one_at_a_time(WorkerContext& ctx, Source& source, Transfer transfer);
  // Picks the one-at-a-time loop's transfer (above) and runs `loop` with it.
  template <class Loop>
  void with_transfer(Loop loop);

  // After the loop: requests that would have blocked (EAGAIN) moved no data, so the worker did
  // not do its I/O; it fails, saying how many and where the first was.
  void throw_if_blocked() const {
    if (would_block_ == 0) return;
    throw IoError(EAGAIN,
                  fmt::format("{} of {} requests would have blocked (RWF_NOWAIT) and moved no "
                              "data, first the {}",
                              would_block_, would_block_ + completed_, call_text(first_blocked_)),
                  file_.path().string());
  }

  // run_one_at_a_time() with latency_sample > 1: an untimed op reads no clock; a timed one
  // reads it just before its issue and after its completion. A loop of its own, so that the
  // default (every op timed) pays nothing for sampling.
  template <class Source, class Transfer>
  [[gnu::noinline]] void run_one_at_a_time_sampled(WorkerContext& ctx, Source& source,
                                                   Transfer transfer);

  template <class Source>
  [[gnu::hot]] void complete(WorkerContext& ctx, Source& source, const IoCompletion& completion,
                             std::uint64_t now);

  // Counts the completed request of `s` without its latency (an op sampling left untimed). A
  // second call site of Source::completed(): a source whose completed() is not small should
  // mark it always_inline, or the compiler calls it out of line from finish() too.
  template <class Source>
  void finish_untimed(WorkerContext& ctx, Source& source, const Slot& s,
                      const IoCompletion& completion);

  // A completed request's outcome: false for EAGAIN (counted as an error op); a failure throws;
  // a short transfer is finished. True when the request moved all its bytes.
  [[gnu::always_inline]] bool settle(WorkerContext& ctx, const Slot& s,
                                     const IoCompletion& completion) {
    if (completion.result < 0) {
      const int err = static_cast<int>(-completion.result);
      if (err == EAGAIN) {
        if (would_block_++ == 0) first_blocked_ = s.request;
        ctx.record_error(s.op);
        return false;
      }
      throw IoError(err, call_text(s.request), file_.path().string());
    }
    if (static_cast<std::uint64_t>(completion.result) < s.request.length)
      finish_short(s, completion);
    return true;
  }

  // Records the completed request of `s` (or counts/throws its failure) at time `now`.
  template <class Source>
  [[gnu::hot]] void finish(WorkerContext& ctx, Source& source, const Slot& s,
                           const IoCompletion& completion, std::uint64_t now);

  // A short transfer (a full disk, a signal): finish it with a blocking call, which either moves
  // the rest or throws the failure's own errno.
  void finish_short(const Slot& s, const IoCompletion& completion) {
    const auto done = static_cast<std::size_t>(completion.result);
    const std::size_t rest = s.request.length - done;
    if (s.request.direction == IoDirection::kRead) {
      file_.read_at({s.request.buffer + done, rest}, s.request.offset + done);
    } else {
      file_.write_at({s.request.buffer + done, rest}, s.request.offset + done);
    }
  }

  static std::string call_text(const IoRequest& r) {
    return fmt::format("{} of {} bytes at offset {} in",
                       r.direction == IoDirection::kRead ? "read" : "write", r.length, r.offset);
  }

  IoFile& file_;
  IoQueue& queue_;
  std::span<std::byte> buffers_;
  std::size_t buffer_bytes_;
  IoDriverOptions options_;
  std::vector<Slot> slots_;
  std::vector<IoRequest> batch_;
  std::vector<IoCompletion> completions_;
  std::vector<std::uint32_t> free_;
  /// serialize_overlaps: per slot, 1 while its request is issued and not completed; else empty.
  std::vector<char> issued_;
  std::uint32_t held_ = 0;
  std::uint64_t completed_ = 0;    ///< requests that completed and were recorded
  std::uint64_t would_block_ = 0;  ///< requests that failed with EAGAIN
  IoRequest first_blocked_{};      ///< the first of them, for the message
  Sampler sampler_;
};

}  // namespace iobench

#include <iobench/detail/io_driver_loops.hpp>  // IWYU pragma: export
