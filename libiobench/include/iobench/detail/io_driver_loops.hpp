#pragma once

/// IoDriver's I/O loops: the definitions of IoDriver::run() and the templates it calls, kept out
/// of <iobench/io_driver.hpp> (which declares them and includes this file) so that the class can
/// be read on its own. Header-only because they are templates over the Source: its next() and
/// completed() and WorkerContext's recording inline into the loop, with no call per op. Not to
/// be included directly.

#include <algorithm>
#include <cstdint>
#include <iobench/clock.hpp>
#include <iobench/detail/psync_fast_path.hpp>
#include <iobench/io_driver.hpp>
#include <span>

namespace iobench {

template <class Source>
void IoDriver::run(WorkerContext& ctx, Source& source) {
  if (options_.depth == 1 && !options_.async && options_.pacer == nullptr) {
    with_transfer([&](auto transfer) {
      if (options_.latency_sample > 1) {
        run_one_at_a_time_sampled(ctx, source, transfer);
      } else {
        run_one_at_a_time(ctx, source, transfer);
      }
    });
    return;
  }
  // --explain=ops splits one op at a time: here ops overlap (or, open loop, wait for their time).
  ctx.ops_overlap();
  std::uint64_t now = monotonic_ns();
  RatePacer* const pacer = options_.pacer;
  if (pacer != nullptr) pacer->start(now);
  bool more = true;   // the source may have more ops and the phase goes on
  bool held = false;  // slots_[held_] holds a built request not issued yet (open loop: not due)
  while (true) {
    // Fill the queue with requests that are due.
    std::size_t batch = 0;
    while (queue_.in_flight() + batch < options_.depth) {
      if (held && !more) {
        free_.push_back(held_);  // the phase ended while it waited for its time
        held = false;
      }
      if (!held) {
        if (!more || !ctx.keep_going(queue_.in_flight() + batch)) {
          more = false;
          break;
        }
        const std::uint32_t slot = free_.back();
        Slot& s = slots_[slot];
        s.request.buffer = buffers_.data() + std::size_t{slot} * buffer_bytes_;
        s.request.buffer_index = slot;
        s.request.tag = slot;
        if (!source.next(s.request, s.op)) {
          more = false;
          break;
        }
        free_.pop_back();
        if (options_.untimed_work_between_ops) now = monotonic_ns();
        if (pacer != nullptr) s.intended_ns = pacer->next(s.request.length);
        held = true;
        held_ = slot;
      }
      Slot& s = slots_[held_];
      if (pacer != nullptr && s.intended_ns > now) {
        // Not due: submit what is, and collect completions while waiting (below).
        if (batch > 0 || queue_.in_flight() > 0) break;
        if (!sleep_until(ctx, s.intended_ns)) {
          free_.push_back(held_);
          held = more = false;
          break;
        }
        now = monotonic_ns();
      }
      if (!issued_.empty()) {
        // serialize_overlaps: an overlapping request issued before goes first; submit the batch
        // and reap until it has completed, holding this one.
        if (overlaps_issued(s.request)) break;
        issued_[held_] = 1;
      }
      if (pacer != nullptr) ctx.record_issue_lag(now - std::min(now, s.intended_ns));
      s.issue_ns = now;
      batch_[batch++] = s.request;
      held = false;
    }
    if (batch > 0) {
      queue_.submit(std::span<const IoRequest>(batch_.data(), batch));
      if (options_.async) {
        now = monotonic_ns();
        for (std::size_t i = 0; i < batch; ++i) slots_[batch_[i].tag].submit_ns = now;
      }
    }
    if (queue_.in_flight() == 0) {
      if (!more && !held) break;
      continue;  // an open loop with its next op not due: the fill loop sleeps until it is
    }
    // Reap: block for a completion unless the next op falls due first (open loop), in which
    // case poll in short sleeps so that completions are still timed within a few us.
    const bool next_due_later = held && slots_[held_].intended_ns > now;
    const std::size_t n =
        queue_.reap(completions_, next_due_later && queue_.in_flight() < options_.depth ? 0 : 1);
    if (n == 0) {
      now = monotonic_ns();
      const std::uint64_t until =
          std::min<std::uint64_t>(slots_[held_].intended_ns, now + kPollWhilePacedNs);
      if (until > now && !sleep_until(ctx, until)) more = false;
      now = monotonic_ns();
      continue;
    }
    now = monotonic_ns();
    for (std::size_t i = 0; i < n; ++i) complete(ctx, source, completions_[i], now);
    if (options_.untimed_work_between_ops) now = monotonic_ns();
  }
  if (held) free_.push_back(held_);
  if (pacer != nullptr) {
    if (ctx.phase_ended()) {
      ctx.record_backlog(pacer->due_by(monotonic_ns(), buffer_bytes_));
    } else {
      // Out of ops (the source's last, or the op limit): none is due and never issued. The
      // last op's interval is waited out, so N ops at rate R span N / R and report R.
      ctx.record_backlog(0);
      wait_out_interval(ctx, pacer->next_due_ns());
    }
  }
  throw_if_blocked();
}

template <class Loop>
void IoDriver::with_transfer(Loop loop) {
  const int psync_fd = detail::psync_queue_fd(queue_);
  if (psync_fd >= 0) {
    loop([this, psync_fd](const IoRequest& request) {
      return detail::psync_transfer(queue_, psync_fd, request);
    });
    return;
  }
  loop([this](const IoRequest& request) {
    queue_.submit(std::span<const IoRequest>(&request, 1));
    // A synchronous queue's request completed inside submit(): this returns it at once.
    IoCompletion completion{};
    if (queue_.reap(std::span<IoCompletion>(&completion, 1), 1) != 1) {
      throw Error("a synchronous engine's queue returned no completion for its request");
    }
    return completion;
  });
}

template <class Source, class Transfer>
void IoDriver::run_one_at_a_time(WorkerContext& ctx, Source& source, Transfer transfer) {
  Slot s{};
  std::uint64_t now = monotonic_ns();
  while (ctx.keep_going(0)) {
    s.request.buffer = buffers_.data();  // the source may point a write elsewhere
    s.request.buffer_index = 0;
    s.request.tag = 0;
    if (!source.next(s.request, s.op)) break;
    if (options_.untimed_work_between_ops) {
      now = monotonic_ns();
      ctx.op_begins(now);
    }
    s.issue_ns = now;
    const IoCompletion completion = transfer(s.request);
    now = monotonic_ns();
    finish(ctx, source, s, completion, now);
    if (options_.untimed_work_between_ops) now = monotonic_ns();
  }
  throw_if_blocked();
}

template <class Source, class Transfer>
void IoDriver::run_one_at_a_time_sampled(WorkerContext& ctx, Source& source, Transfer transfer) {
  Slot s{};
  while (ctx.keep_going(0)) {
    s.request.buffer = buffers_.data();  // the source may point a write elsewhere
    s.request.buffer_index = 0;
    s.request.tag = 0;
    if (!source.next(s.request, s.op)) break;
    const bool timed = sampler_.take();
    if (timed) {
      s.issue_ns = monotonic_ns();
      ctx.op_begins(s.issue_ns);
    }
    const IoCompletion completion = transfer(s.request);
    if (timed) {
      finish(ctx, source, s, completion, monotonic_ns());
    } else {
      finish_untimed(ctx, source, s, completion);
    }
  }
  throw_if_blocked();
}

template <class Source>
void IoDriver::complete(WorkerContext& ctx, Source& source, const IoCompletion& completion,
                        std::uint64_t now) {
  const auto slot = static_cast<std::uint32_t>(completion.tag);
  free_.push_back(slot);
  if (!issued_.empty()) issued_[slot] = 0;
  if (options_.latency_sample > 1 && !sampler_.take()) {
    finish_untimed(ctx, source, slots_[slot], completion);
  } else {
    finish(ctx, source, slots_[slot], completion, now);
  }
}

template <class Source>
void IoDriver::finish_untimed(WorkerContext& ctx, Source& source, const Slot& s,
                              const IoCompletion& completion) {
  if (!settle(ctx, s, completion)) return;
  ctx.record_unsampled(s.op, s.request.length);
  ++completed_;
  source.completed(s.request, s.op);
}

template <class Source>
void IoDriver::finish(WorkerContext& ctx, Source& source, const Slot& s,
                      const IoCompletion& completion, std::uint64_t now) {
  if (!settle(ctx, s, completion)) return;
  // An op that began before the recording did (warm-up ending meanwhile) counts from there.
  const std::uint64_t from = std::max(ctx.recording_start_ns(), s.issue_ns);
  OpTimes times;
  times.latency_ns = now - from;
  if (options_.async) {
    const std::uint64_t submitted = std::max(from, s.submit_ns);
    times.submission_ns = submitted - from;
    times.completion_ns = now - submitted;
  }
  if (options_.pacer != nullptr) {
    times.service_ns = times.latency_ns;
    times.latency_ns = now - std::max(ctx.recording_start_ns(), std::min(s.intended_ns, from));
    if (options_.lateness != nullptr) {
      options_.lateness->record(ctx.recording_start_ns(), now, now - std::min(now, s.intended_ns));
    }
  }
  ctx.record(s.op, s.request.length, times, now);
  ++completed_;
  source.completed(s.request, s.op);
}

}  // namespace iobench
