#include "plugins/dbench/replay_worker.hpp"

#include <fmt/format.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <iobench/clock.hpp>

#include "plugins/dbench/replay_counters.hpp"

namespace iobench::plugins::dbench {

ReplayWorker::ReplayWorker(std::unique_ptr<LoadfileStream> stream, const ReplayTiming& timing,
                           std::vector<std::unique_ptr<FileioClient>> clients)
    : stream_(std::move(stream)),
      timing_(timing),
      clients_(std::move(clients)),
      pacing_(clients_.size()),
      parent_pid_(::getppid()) {
  loops_.reserve(64);
}

void ReplayWorker::start_pass(std::uint64_t now) {
  for (Pacing& p : pacing_) {
    p.pass_start_ns = now;
    p.rate_started = false;  // dbench resets the rate state at every pass
  }
  loops_.clear();
}

void ReplayWorker::run(WorkerContext& ctx) {
  const std::uint64_t start = monotonic_ns();
  measure_start_ns_ = start + timing_.warmup_ns;
  tick_end_ns_ = measure_start_ns_ + timing_.tick_window_ns;
  start_pass(start);

  const Loadfile& loadfile = stream_->tables();
  std::uint32_t ip = 0;
  for (;;) {
    // An ENDLOOP jumps back to just after its LOOP: what comes before may be forgotten.
    stream_->release_before(loops_.empty() ? ip : loops_.front().begin);
    const Instruction* next = stream_->at(ip);
    if (next == nullptr) {
      if (timing_.run_once) return;
      for (std::size_t c = 0; c < clients_.size(); ++c) ctx.add_counter(kCounterPasses, 1);
      stream_->rewind();
      start_pass(monotonic_ns());
      ip = 0;
      continue;
    }
    if (!ctx.keep_going()) return;
    // Valid until the next stream_->at(): a REPEAT copies what it needs first.
    const Instruction& ins = *next;
    switch (ins.op) {
      case OpCode::kLoopBegin:
        if (ins.value[0] <= 0) {
          ip = ins.a + 1;
        } else {
          loops_.push_back({ip, ins.value[0]});
          ++ip;
        }
        break;
      case OpCode::kLoopEnd: {
        LoopFrame& frame = loops_.back();
        if (--frame.remaining > 0) {
          ip = frame.begin + 1;
        } else {
          loops_.pop_back();
          ++ip;
        }
        break;
      }
      case OpCode::kRepeat: {
        const std::int64_t times = ins.value[0];
        const std::uint32_t repeat_line = ins.line;
        const Instruction* line = stream_->at(ip + 1);  // validated: REPEAT has its line
        if (line == nullptr) {
          throw ReplayError(fmt::format("dbench: loadfile {} ends after the REPEAT on line {}",
                                        loadfile.name, repeat_line));
        }
        const Instruction repeated = *line;
        for (std::int64_t n = 0; n < times; ++n) {
          if (!run_line(repeated, ctx)) return;
        }
        ip += 2;
        break;
      }
      case OpCode::kWritePattern:
        for (auto& client : clients_) client->write_pattern(loadfile.strings[ins.a]);
        ++ip;
        break;
      case OpCode::kRandomString:
        for (auto& client : clients_) client->random_string(ins.a, loadfile.strings[ins.b]);
        ++ip;
        break;
      default:
        if (!run_line(ins, ctx)) return;
        ++ip;
        break;
    }
  }
}

bool ReplayWorker::pace(std::size_t c, const Instruction& ins, WorkerContext& ctx,
                        std::uint64_t& intended_ns) {
  intended_ns = 0;
  Pacing& p = pacing_[c];
  const bool timed_line = ins.timestamp_ns > 0 && timing_.rate_bytes_per_s <= 0;
  if (timed_line) {
    intended_ns = p.pass_start_ns + static_cast<std::uint64_t>(ins.timestamp_ns);
  } else if (timing_.rate_bytes_per_s > 0) {
    // dbench -R: the next op is due when the bytes moved since the previous one fit the rate,
    // counted from when that one really started (the core's pacer in its closed-loop form).
    const std::uint64_t now = monotonic_ns();
    const std::uint64_t bytes = clients_[c]->bytes();
    if (!p.rate_started) {
      p.rate_started = true;
      p.rate.emplace(RateLimit{.bytes_per_s = timing_.rate_bytes_per_s}, 1);
      p.rate->start(now);
      p.last_bytes = bytes;
      return true;
    }
    intended_ns = p.rate->advance(bytes - p.last_bytes);
    p.last_bytes = bytes;
    if (intended_ns > now) {
      if (!sleep_until(ctx, intended_ns)) return false;
      p.rate->rebase(monotonic_ns());
    } else {
      p.rate->rebase(now);
    }
    return true;
  } else {
    return true;  // unpaced
  }
  if (intended_ns > monotonic_ns()) {
    if (!sleep_until(ctx, intended_ns)) return false;
  }
  return true;
}

bool ReplayWorker::run_line(const Instruction& ins, WorkerContext& ctx) {
  std::array<std::int64_t, 3> values{};
  const auto op = static_cast<OpId>(ins.op);
  if (::kill(parent_pid_, 0) != 0 && errno == ESRCH) {
    throw ReplayError(
        fmt::format("dbench clients {}-{}: the process that started them (pid {}) "
                    "is gone; stopping at {} line {}",
                    clients_.front()->id(), clients_.back()->id(), parent_pid_,
                    stream_->tables().name, ins.line));
  }
  for (std::size_t c = 0; c < clients_.size(); ++c) {
    if (!ctx.keep_going()) return false;
    std::uint64_t intended_ns = 0;
    if (!pace(c, ins, ctx, intended_ns)) return false;
    FileioClient& client = *clients_[c];
    client.catch_up();
    ctx.add_counter(kCounterLines, 1);
    // What dbench 4.00 times (child.c): child_op() reads the clock first (child->lasttime), after
    // the pacing, then parses the arguments (ival), dispatches and runs the op; finish_op() reads
    // it again right after the call. So here: from just before the arguments are evaluated to
    // just after execute(); the bookkeeping between ops (recording the previous one, the parent
    // check, the stop check, pacing) is in no op's latency, as in dbench.
    const std::uint64_t start = monotonic_ns();
    // --explain=ops: a paced op's latency begins before `start` (its intended time), so no span
    // of this worker's time is that op's alone; an unpaced one begins here, after the untimed
    // bookkeeping above.
    if (intended_ns != 0) {
      ctx.ops_overlap();
    } else {
      ctx.op_begins(start);
    }
    client.evaluate(ins, values);
    if (ins.op == OpCode::kSleep) {
      if (!sleep_until(ctx, start + static_cast<std::uint64_t>(values[0]) * 1000)) return false;
      continue;
    }
    const OpOutcome outcome = client.execute(ins, values, ctx);
    const std::uint64_t end = monotonic_ns();
    if (outcome.skipped) {
      ctx.record_error(op);
      continue;
    }
    // One record per op: the service time is what dbench times; a paced op's latency runs from
    // its intended start (as the core's open-loop drivers do: not from before the recording
    // began, and never shorter than the service time).
    const std::uint64_t from =
        intended_ns == 0 ? start : std::min(start, std::max(intended_ns, ctx.recording_start_ns()));
    ctx.record(op, outcome.bytes, OpTimes{.latency_ns = end - from, .service_ns = end - start},
               end);
    if (outcome.bytes != 0 && end >= measure_start_ns_ && end < tick_end_ns_) {
      ctx.add_counter(kCounterTickBytes, outcome.bytes);
    }
  }
  return true;
}

}  // namespace iobench::plugins::dbench
