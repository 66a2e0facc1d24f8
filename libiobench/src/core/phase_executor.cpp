#include "core/phase_executor.hpp"

#include <fmt/format.h>
#include <malloc.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <iobench/clock.hpp>
#include <iobench/format.hpp>
#include <iobench/printable.hpp>
#include <iobench/runner.hpp>
#include <new>
#include <thread>
#include <type_traits>
#include <vector>

#include "core/futex.hpp"
#include "core/progress_estimate.hpp"
#include "core/series_recorder.hpp"
#include "core/shared_region.hpp"
#include "core/worker_slot.hpp"
#include "explain_bpf/session.hpp"

namespace iobench::detail {
namespace {

using namespace std::chrono_literals;

constexpr std::size_t kCacheLine = 64;

constexpr std::size_t round_up(std::size_t n, std::size_t to) { return (n + to - 1) / to * to; }

// Layout of a phase's shared memory: PhaseShared, then per worker a WorkerSlot followed by its
// OpStats array and, if the phase records latency parts, its OpLatencyParts array, each
// cache-line aligned so workers never share a line.
// Worker processes write them in shared memory and the runner copies them out.
static_assert(std::is_trivially_copyable_v<OpStats> && std::is_trivially_destructible_v<OpStats>);
static_assert(std::is_trivially_copyable_v<OpLatencyParts> &&
              std::is_trivially_destructible_v<OpLatencyParts>);

class PhaseMemory {
 public:
  PhaseMemory(std::size_t workers, std::size_t op_count, bool with_parts)
      : op_count_(op_count),
        parts_count_(with_parts ? op_count : 0),
        header_bytes_(round_up(sizeof(PhaseShared), kCacheLine)),
        stats_bytes_(round_up(sizeof(OpStats) * std::max<std::size_t>(op_count, 1), kCacheLine)),
        slot_bytes_(round_up(sizeof(WorkerSlot), kCacheLine) + stats_bytes_ +
                    round_up(sizeof(OpLatencyParts) * parts_count_, kCacheLine)),
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

 private:
  std::size_t op_count_;
  std::size_t parts_count_;
  std::size_t header_bytes_;
  std::size_t stats_bytes_;
  std::size_t slot_bytes_;
  SharedRegion region_;
};

// Keeps the failure's message in the slot's fixed buffer. A message too long for it (a path of
// thousands of bytes) is cut in the middle, never at its end, where the errno text is.
void store_failure(WorkerSlot& slot, const char* what) noexcept {
  slot.failed = 1;
  try {
    const std::string text = printable(what, sizeof slot.message - 1);
    std::memcpy(slot.message, text.c_str(), text.size() + 1);
  } catch (...) {  // no memory for the copy: a plain cut is better than nothing
    std::strncpy(slot.message, what, sizeof slot.message - 1);
  }
}

// Moves the phase state forward to `to` (never back: a stop is not undone by a late warm-up
// end) and wakes the workers. False if it was already there or beyond.
bool advance_state(std::atomic<std::uint32_t>& state, std::uint32_t to) noexcept {
  for (std::uint32_t s = state.load(); s < to;) {
    if (state.compare_exchange_weak(s, to)) {
      futex_wake_all(state);
      return true;
    }
  }
  return false;
}

// Blocks the stop signals in the calling thread (the runner's thread handles them).
void block_stop_signals() noexcept {
  sigset_t set;
  sigemptyset(&set);
  for (const int signo : stop_signals()) sigaddset(&set, signo);
  ::pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

// Moves `slot` to `stage`, bumping the shared counter of every stage it passes (once each).
void advance(PhaseShared& shared, WorkerSlot& slot, WorkerStage stage) noexcept {
  for (std::uint32_t s = slot.stage.load(); s < stage; s = slot.stage.load()) {
    if (!slot.stage.compare_exchange_strong(s, s + 1)) continue;
    std::atomic<std::uint32_t>& counter = s + 1 == kReady   ? shared.ready
                                          : s + 1 == kEnded ? shared.ended
                                                            : shared.finished;
    counter.fetch_add(1);
    futex_wake_all(counter);
  }
}

// The life of one worker, the same in a thread and in a forked child: untimed set-up, barrier,
// timed run, untimed tear-down.
void worker_main(const PhaseRequest& request, const PhaseMemory& memory, std::size_t index) {
  PhaseShared& shared = memory.shared();
  WorkerSlot& slot = *memory.slot(index);
  WorkerContext ctx = WorkerContextAccess::make(
      request.phase_index, index, request.spec.workers, request.targets, request.engine,
      worker_seed(request.step_seed, request.phase_index, index), shared.state, slot,
      memory.ops(index), request.ops_limit, memory.parts(index), request.spec.latency_parts);
  std::unique_ptr<PhaseWorker> worker;
  try {
    worker = request.workload.make_worker(request.phase_index, ctx);
  } catch (const std::exception& e) {
    store_failure(slot, e.what());
  }
  advance(shared, slot, kReady);
  for (std::uint32_t s; (s = shared.state.load()) == kWaiting;) futex_wait(shared.state, s, 100ms);

  // A phase abandoned before it began (stop request, another worker failed) runs nothing.
  if (worker && !slot.failed && shared.state.load() != kAbort) {
    (void)ctx.keep_going();  // takes the measure start (clock and CPU baseline)
    // --explain hook: this thread's system calls are measured from here to its end below.
    explain_bpf_worker_begin();
    try {
      worker->run(ctx);
    } catch (const std::exception& e) {
      store_failure(slot, e.what());
    }
    explain_bpf_worker_end();
    // CPU first, clock second: the CPU window lies inside [start_ns, end_ns].
    slot.cpu_end = slot.whole_process != 0 ? read_process_cpu() : read_thread_cpu();
    slot.end_ns = monotonic_ns();
  }
  if (slot.failed) {
    // One worker failing ends the phase for all: the others see keep_going() turn false.
    advance_state(shared.state, kAbort);
  }
  advance(shared, slot, kEnded);
  try {
    worker.reset();  // untimed tear-down
  } catch (...) {
  }
  advance(shared, slot, kFinished);
}

// The live display's per-worker view: the counters the workers keep for progress anyway and
// the series' newest complete point.
void fill_worker_progress(const PhaseMemory& memory, std::size_t first, std::size_t count,
                          const SeriesRecorder& series, ProgressSnapshot& snapshot) {
  const std::optional<SeriesRecorder::LatestFigures> latest = series.latest_figures();
  if (latest) snapshot.interval_latency_ns = latest->total;
  snapshot.worker_progress.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    const WorkerSlot& slot = *memory.slot(first + i);
    WorkerProgress worker{.worker = first + i,
                          .bytes = slot.live_bytes.load(std::memory_order_relaxed),
                          .ops = slot.live_ops.load(std::memory_order_relaxed),
                          .ended = slot.stage.load() >= kEnded,
                          .in_fsync = slot.in_fsync.load(std::memory_order_relaxed) != 0};
    if (latest && i < latest->workers.size()) worker.interval_latency_ns = latest->workers[i];
    snapshot.worker_progress.push_back(worker);
  }
}

// Takes the finished intervals worker `index` handed over (its ring's entries below
// `published`); with `finished`, also what it still held (the worker is done writing).
bool measured(const WorkerSlot& slot) noexcept;

void drain_series(const PhaseMemory& memory, std::size_t index, SeriesRecorder& recorder,
                  bool finished) {
  SeriesSlot& series = memory.slot(index)->series;
  const std::uint64_t published = series.published.load(std::memory_order_acquire);
  for (std::uint64_t c = series.consumed.load(std::memory_order_relaxed); c < published; ++c) {
    recorder.add(index, series.ring[c % SeriesSlot::kRing]);
    series.consumed.store(c + 1, std::memory_order_release);
  }
  if (finished) {
    recorder.add(index, series.warmup_tail);
    // A worker that first woke with the phase already over records into an interval no
    // restart placed (its closing fsync, say); the phase totals leave it out, so must the series.
    if (series.current.warmup != 0 || measured(*memory.slot(index))) {
      recorder.add(index, series.current);
    }
  }
}

// What the runner saw of one group of workers (all of a phase, or one of a serial phase).
struct GroupOutcome {
  /// The measurement began (the barrier released the workers, or their warm-up ended, before
  /// the phase ended): the fields below describe its window.
  bool measured = false;
  std::uint64_t released_ns = 0;  ///< barrier release (0: stopped before it)
  std::uint64_t measure_start_ns = 0;
  CpuReading runner_start;          ///< the runner's own thread, right after measure_start_ns
  CpuReading runner_end;            ///< ... after the last worker's run() ended
  std::uint64_t runner_end_ns = 0;  ///< clock right after runner_end
  SystemCpuSample system_begin;
  SystemCpuSample system_end;
  bool interrupted = false;
  /// Another rank's problem that ended this group (empty: none): at the barrier, or a stop it
  /// raised while the group ran.
  std::string peer_problem;
  /// The wear-out's target (measured ops per worker); 0: none.
  std::uint64_t wear_out_ops = 0;
};

// The first failure among workers [first, first + count): "worker I: message", or "".
std::string group_failure(const PhaseMemory& memory, std::size_t first, std::size_t count) {
  for (std::size_t i = first; i < first + count; ++i) {
    const WorkerSlot& slot = *memory.slot(i);
    if (slot.failed != 0) return fmt::format("worker {}: {}", i, slot.message);
  }
  return {};
}

// Starts workers [first, first + count) and drives them until they all finish. The measured
// window runs from the measure start (barrier release, or the end of the warm-up) until the
// last worker's run() ends; the runner reads its own CPU time and /proc/stat at both ends.
// Results are left in `memory`.
GroupOutcome run_group(const PhaseRequest& request, const PhaseMemory& memory, std::size_t first,
                       std::size_t count, SeriesRecorder& series) {
  PhaseShared& shared = memory.shared();
  shared.state.store(kWaiting);
  shared.ready.store(0);
  shared.ended.store(0);
  shared.finished.store(0);
  const bool processes = request.spec.mode == WorkerMode::kProcesses;
  for (std::size_t i = first; i < first + count; ++i) memory.slot(i)->whole_process = processes;
  GroupOutcome outcome;

  const auto stop_workers = [&] { advance_state(shared.state, kAbort); };
  std::vector<std::thread> threads;
  std::vector<pid_t> children;
  if (!processes) {
    for (std::size_t i = first; i < first + count; ++i) {
      threads.emplace_back([&request, &memory, i] {
        // Stop signals go to the runner's thread: a worker's I/O call is never cut short by one.
        block_stop_signals();
        worker_main(request, memory, i);
      });
    }
  } else {
    const pid_t parent = ::getpid();
    // Free heap pages the runner still holds (a validation's parse, earlier steps) would be
    // copied into every worker's memory: give them back first.
    (void)::malloc_trim(0);
    for (std::size_t i = first; i < first + count; ++i) {
      if (stop_requested()) {
        // Forking hundreds of processes takes seconds: a stop ends it; the workers not yet
        // started never run (and did nothing).
        stop_workers();
        for (std::size_t rest = i; rest < first + count; ++rest) {
          advance(shared, *memory.slot(rest), kFinished);
          children.push_back(0);
        }
        break;
      }
      const pid_t pid = ::fork();
      if (pid == 0) {
        // The parent turns the stop signals into a stop of the phase; children just follow it.
        for (const int signo : stop_signals()) ::signal(signo, SIG_IGN);
        // If the runner itself dies (SIGKILL, crash), its workers must not go on doing I/O.
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (::getppid() != parent) ::_exit(1);
        worker_main(request, memory, i);
        ::_exit(0);
      }
      if (pid < 0) {
        store_failure(*memory.slot(i), fmt::format("fork: {}", std::strerror(errno)).c_str());
        advance(shared, *memory.slot(i), kFinished);
        children.push_back(0);
        continue;
      }
      children.push_back(pid);
    }
  }

  // A second stop request hurries the end: worker processes still running are killed rather
  // than awaited (the run's files are removed all the same, after they are gone).
  bool hurried = false;
  const auto hurry_if_asked = [&] {
    if (hurried || !processes || stop_request_count() < 2) return;
    hurried = true;
    stop_workers();
    for (const pid_t pid : children) {
      if (pid > 0) ::kill(pid, SIGKILL);
    }
  };
  auto reap_children = [&](bool block) {
    hurry_if_asked();
    for (pid_t& pid : children) {
      if (pid <= 0) continue;
      int status = 0;
      const pid_t r = ::waitpid(pid, &status, block ? 0 : WNOHANG);
      if (r != pid) continue;
      pid = -pid;  // reaped
      const std::size_t index = first + static_cast<std::size_t>(&pid - children.data());
      WorkerSlot& slot = *memory.slot(index);
      const bool clean = WIFEXITED(status) && WEXITSTATUS(status) == 0;
      if (!clean && hurried && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL &&
          slot.stage.load() < kFinished) {
        // Killed by us on the second stop request: interrupted, not failed.
        slot.hurried = 1;
        if (slot.start_ns != 0 && slot.end_ns == 0) {
          slot.cpu_end = slot.cpu_start;  // its CPU time since is unknown: none is counted
          slot.end_ns = monotonic_ns();
        }
      } else if (!clean) {
        // Died before finishing (killed, crashed): count it and stop the others.
        if (!slot.failed && slot.stage.load() < kFinished) {
          const std::string why =
              WIFSIGNALED(status) ? fmt::format("worker process {} killed by signal {} ({})", -pid,
                                                WTERMSIG(status), ::strsignal(WTERMSIG(status)))
                                  : fmt::format("worker process {} exited with status {}", -pid,
                                                WEXITSTATUS(status));
          store_failure(slot, why.c_str());
          if (slot.start_ns != 0 && slot.end_ns == 0) {
            slot.cpu_end = slot.cpu_start;  // its CPU time since is unknown: none is counted
            slot.end_ns = monotonic_ns();
          }
        }
        stop_workers();
      }
      advance(shared, slot, kFinished);
    }
  };

  // Progress: at each state change and every progress interval, from the set-up on.
  GroupProgress progress{.set_up_start_ns = monotonic_ns(),
                         .first = first,
                         .count = count,
                         .workers = request.spec.workers,
                         .time_limit_ns = static_cast<std::uint64_t>(request.time_limit.count()),
                         .warmup_ns = static_cast<std::uint64_t>(request.warmup.count()),
                         .ops_limit = request.ops_limit};
  const auto interval_ns = static_cast<std::uint64_t>(request.progress_interval.count());
  std::uint64_t next_progress_ns =
      request.on_progress && interval_ns > 0 ? progress.set_up_start_ns + interval_ns : UINT64_MAX;
  const auto live_sum = [&](auto member) {
    std::uint64_t sum = 0;
    for (std::size_t i = first; i < first + count; ++i)
      sum += (memory.slot(i)->*member).load(std::memory_order_relaxed);
    return sum;
  };
  std::optional<std::uint64_t> last_p99;
  const auto report = [&](bool changed) {
    progress.now_ns = monotonic_ns();
    // Each worker's counters are read once: the totals are their sum, so a snapshot's workers
    // always add up to its totals while the workers run on.
    ProgressSnapshot snapshot;
    fill_worker_progress(memory, first, count, series, snapshot);
    progress.bytes = 0;
    progress.ops = 0;
    for (const WorkerProgress& w : snapshot.worker_progress) {
      progress.bytes += w.bytes;
      progress.ops += w.ops;
    }
    bool all_planned = true;
    for (std::size_t i = first; i < first + count; ++i) {
      const WorkerSlot& slot = *memory.slot(i);
      all_planned = all_planned && (slot.planned_ops.load(std::memory_order_relaxed) != 0 ||
                                    slot.planned_bytes.load(std::memory_order_relaxed) != 0);
    }
    progress.planned_ops = all_planned ? live_sum(&WorkerSlot::planned_ops) : 0;
    progress.planned_bytes = all_planned ? live_sum(&WorkerSlot::planned_bytes) : 0;
    fill_progress(progress, snapshot);
    snapshot.state_changed = changed;
    // The display keeps its p99 field from frame to frame: a frame that finds no complete
    // point (a new part just began) shows the last one known.
    if (const auto p99 = series.latest_p99_ns()) last_p99 = p99;
    snapshot.interval_p99_ns = last_p99;
    request.on_progress(snapshot);
  };
  // Reports a state change at once, and the interval's line when due.
  const auto show = [&](ProgressState state) {
    if (!request.on_progress) return;
    if (state != progress.state || progress.now_ns == 0) {
      progress.state = state;
      report(true);
    }
    if (monotonic_ns() >= next_progress_ns) {
      report(false);
      while (next_progress_ns <= progress.now_ns) next_progress_ns += interval_ns;
    }
  };
  // The timed loop's state: fsync once every worker still running announced its closing fsync.
  const auto running_state = [&] {
    if (shared.state.load() == kWarmup) return ProgressState::kWarmUp;
    std::size_t running = 0, syncing = 0;
    for (std::size_t i = first; i < first + count; ++i) {
      const WorkerSlot& slot = *memory.slot(i);
      if (slot.stage.load() >= kEnded) continue;
      ++running;
      syncing += slot.in_fsync.load(std::memory_order_relaxed);
    }
    return running > 0 && syncing == running ? ProgressState::kFsync : ProgressState::kMeasuring;
  };
  show(ProgressState::kSetUp);

  // Barrier: wait until every worker finished its untimed set-up; a stop request ends the
  // set-up of all (they see it through WorkerContext::stop_requested()).
  for (std::uint32_t r; (r = shared.ready.load()) < count;) {
    if (stop_requested() && shared.state.load() != kAbort) {
      outcome.interrupted = true;
      stop_workers();
    }
    const std::uint64_t now = monotonic_ns();
    futex_wait(shared.ready, r,
               std::chrono::nanoseconds(std::min<std::uint64_t>(
                   20'000'000ULL, next_progress_ns > now ? next_progress_ns - now : 0)));
    if (processes) reap_children(false);
    show(ProgressState::kSetUp);
  }

  // Across ranks, this is the phase's barrier: no rank starts measuring before every rank's
  // workers are set up, and none starts if a rank failed or was stopped in its set-up.
  const bool ranked = request.sync != nullptr && request.sync->active();
  if (ranked && !request.sync->ended()) {
    // Before the barrier: a stop another rank raises after it is then of this epoch here.
    request.sync->coordinator().begin_epoch();
    const std::string failure = group_failure(memory, first, count);
    const auto kind = !failure.empty()      ? StepSync::Kind::kFailed
                      : outcome.interrupted ? StepSync::Kind::kInterrupted
                                            : StepSync::Kind::kNone;
    const auto verdict = request.sync->sync(
        kind, kind == StepSync::Kind::kInterrupted ? "interrupted by a stop request" : failure);
    if (verdict && kind == StepSync::Kind::kNone) {
      outcome.peer_problem = *verdict;
      if (request.sync->worst() == StepSync::Kind::kInterrupted) outcome.interrupted = true;
      stop_workers();
    }
  }
  bool stop_raised = false;  // this rank told the others it failed

  // The measurement window opens here, or when the warm-up ends. Clock first, then the system
  // sample, then the runner's CPU reading (so that reading /proc/stat is not in its CPU time).
  // The time limit counts from the measurement's real start, however late the runner saw the
  // warm-up end on a loaded machine.
  std::uint64_t deadline_ns = UINT64_MAX;
  const auto set_series_origin = [&](int part, std::uint64_t ns) {
    for (std::size_t i = first; i < first + count; ++i) {
      memory.slot(i)->series.origin_ns[part].store(ns, std::memory_order_release);
    }
  };
  const auto begin_measurement = [&] {
    const std::uint64_t now = monotonic_ns();
    set_series_origin(1, now);  // before the state: a worker reads it when it sees kMeasure
    if (!advance_state(shared.state, kMeasure)) return;  // stopped meanwhile
    if (request.time_limit.count() > 0) {
      deadline_ns = now + static_cast<std::uint64_t>(request.time_limit.count());
    }
    outcome.measured = true;
    outcome.measure_start_ns = now;
    progress.measure_start_ns = now;
    progress.ops_at_measure_start = live_sum(&WorkerSlot::live_ops);
    outcome.system_begin = sample_system_cpu();
    outcome.runner_start = read_thread_cpu();
  };
  const bool has_warmup = request.warmup.count() > 0;
  const std::uint64_t released_ns = monotonic_ns();
  const std::uint64_t warmup_end_ns =
      released_ns + static_cast<std::uint64_t>(request.warmup.count());
  if (shared.state.load() < kStop) {
    outcome.released_ns = released_ns;
    progress.released_ns = released_ns;
    if (has_warmup) {
      set_series_origin(0, released_ns);
      advance_state(shared.state, kWarmup);
    } else {
      begin_measurement();
    }
  }

  // The timed loop's opening state is reported even if the workers are already past it (a phase
  // of a few ops may be in its closing fsync) or done before the loop below looks.
  if (outcome.released_ns != 0) {
    show(has_warmup ? ProgressState::kWarmUp : ProgressState::kMeasuring);
    show(running_state());
  }
  // Wear-out: every rank that passed the barrier shares once what its workers did, at its time
  // limit or, if its workers all end before it, then; the others are waiting for it there.
  // (A barrier that ended the step on some rank ended it on every rank: none of them is due.)
  bool wear_out_due = request.wear_out && outcome.peer_problem.empty() &&
                      outcome.released_ns != 0 && !(ranked && request.sync->ended());
  const auto begin_wear_out = [&] {
    wear_out_due = false;
    std::uint64_t most = 0;
    for (std::size_t i = first; i < first + count; ++i) {
      const WorkerSlot& slot = *memory.slot(i);
      const std::uint64_t base = slot.measure_base_ops.load(std::memory_order_relaxed);
      const std::uint64_t live = slot.live_ops.load(std::memory_order_relaxed);
      if (base != UINT64_MAX && live > base) most = std::max(most, live - base);
    }
    if (ranked) {
      try {
        for (const std::string& theirs :
             request.sync->coordinator().all_gather(std::to_string(most))) {
          most = std::max<std::uint64_t>(most, std::strtoull(theirs.c_str(), nullptr, 10));
        }
      } catch (const CoordinationError& e) {
        outcome.peer_problem = e.what();
        stop_workers();
        return;
      }
    }
    if (shared.state.load() >= kStop) return;  // stopped meanwhile: nothing to wear out
    outcome.wear_out_ops = most;
    deadline_ns = UINT64_MAX;
    for (std::size_t i = first; i < first + count; ++i) {
      memory.slot(i)->wear_out_ops.store(most, std::memory_order_relaxed);
    }
    advance_state(shared.state, kWearOut);  // releases the targets stored above
  };
  for (std::uint32_t done; (done = shared.ended.load()) < count;) {
    const std::uint64_t now = monotonic_ns();
    if (shared.state.load() == kWarmup && now >= warmup_end_ns) begin_measurement();
    if (now >= deadline_ns) {
      if (wear_out_due && shared.state.load() == kMeasure) {
        begin_wear_out();
      } else {
        advance_state(shared.state, kStop);
      }
    }
    if (stop_wanted(request.stop) && shared.state.load() != kAbort) {
      outcome.interrupted = true;
      stop_workers();
    }
    if (processes) reap_children(false);
    for (std::size_t i = first; i < first + count; ++i) drain_series(memory, i, series, false);
    if (ranked && outcome.peer_problem.empty()) {
      // A local failure stops the other ranks at their next look; theirs stops this one.
      Coordinator& coordinator = request.sync->coordinator();
      if (!stop_raised && shared.state.load() == kAbort) {
        if (const std::string failure = group_failure(memory, first, count); !failure.empty()) {
          coordinator.raise_stop(failure, StopKind::kFailure);
          stop_raised = true;
        }
      }
      if (!stop_raised) {
        if (auto peer = coordinator.stop_raised()) {
          if (peer->kind == StopKind::kStonewall) {
            advance_state(shared.state, kStop);  // a normal end, as a time limit's
            stop_raised = true;                  // nothing more to tell or hear this phase
          } else {
            outcome.peer_problem = peer->text;
            stop_workers();
          }
        }
      }
    }
    // Stonewalling: this group's first worker done ends the others' run here and on every rank.
    if (request.stonewall && shared.state.load() == kMeasure && shared.ended.load() > 0 &&
        group_failure(memory, first, count).empty()) {
      advance_state(shared.state, kStop);
      if (ranked && !stop_raised) {
        request.sync->coordinator().raise_stop("stonewall: its first worker is done",
                                               StopKind::kStonewall);
        stop_raised = true;
      }
    }
    if (outcome.released_ns != 0) show(running_state());
    std::uint64_t wake =
        std::min<std::uint64_t>({deadline_ns, next_progress_ns, now + 20'000'000ULL});
    if (shared.state.load() == kWarmup) wake = std::min(wake, warmup_end_ns);
    futex_wait(shared.ended, done, std::chrono::nanoseconds(wake > now ? wake - now : 0));
  }
  // A failure in the group's last moments (its last worker failing ends the loop above at once)
  // still stops the other ranks.
  if (ranked && outcome.peer_problem.empty() && !stop_raised) {
    if (const std::string failure = group_failure(memory, first, count); !failure.empty()) {
      request.sync->coordinator().raise_stop(failure, StopKind::kFailure);
    } else if (request.stonewall && outcome.measured) {
      request.sync->coordinator().raise_stop("stonewall: its first worker is done",
                                             StopKind::kStonewall);
    }
  }
  // The others' wear-out waits for this rank (after the stop above, which ends their phase).
  if (wear_out_due && ranked) begin_wear_out();
  // The last worker's run() has ended: the window closes (CPU first, then /proc/stat).
  if (outcome.measured) {
    outcome.runner_end = read_thread_cpu();
    outcome.runner_end_ns = monotonic_ns();
    outcome.system_end = sample_system_cpu();
  }
  // Untimed tear-down.
  show(ProgressState::kCleanUp);
  for (std::uint32_t done; (done = shared.finished.load()) < count;) {
    if (processes) reap_children(false);
    futex_wait(shared.finished, done, 20ms);
    show(ProgressState::kCleanUp);
  }
  for (auto& t : threads) t.join();
  reap_children(true);
  for (std::size_t i = first; i < first + count; ++i) drain_series(memory, i, series, true);
  if (stop_wanted(request.stop)) outcome.interrupted = true;
  return outcome;
}

// A worker measured something: it was recording when the measurement began, and its run ended.
bool measured(const WorkerSlot& slot) noexcept {
  return slot.measuring != 0 && slot.start_ns != 0 && slot.end_ns >= slot.start_ns;
}

CpuTimes operator+(const CpuTimes& a, const CpuTimes& b) noexcept {
  return {a.user_ns + b.user_ns, a.system_ns + b.system_ns};
}

// The runner's CPU time inside a window that closed at `window_end_ns`. Its last reading comes
// a little after (it wakes up when the last worker ends); a thread uses at most the wall time
// that passed, so that much is taken off, keeping the figure a lower bound of what it used in
// the window and every sum of CPU times within wall time x CPUs.
CpuTimes runner_cpu_in_window(const GroupOutcome& outcome, std::uint64_t window_end_ns) noexcept {
  const CpuTimes cpu = cpu_between(outcome.runner_start, outcome.runner_end);
  const std::uint64_t total = cpu.user_ns + cpu.system_ns;
  const std::uint64_t late =
      outcome.runner_end_ns > window_end_ns ? outcome.runner_end_ns - window_end_ns : 0;
  if (late >= total) return {};
  const std::uint64_t kept = total - late;
  const auto user = static_cast<std::uint64_t>(static_cast<long double>(cpu.user_ns) * kept /
                                               static_cast<long double>(total));
  return {user, kept - user};
}

}  // namespace

std::uint64_t worker_seed(std::uint64_t step_seed, std::size_t phase, std::size_t worker) noexcept {
  std::uint64_t z = step_seed + 0x9E3779B97F4A7C15ULL * (1 + phase * 0x10001ULL + worker);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

PhaseResult execute_phase(const PhaseRequest& request, PhaseWindow* window) {
  const PhaseSpec& spec = request.spec;
  PhaseMemory memory(spec.workers, spec.op_names.size(), spec.latency_parts.any());
  const auto series_interval = static_cast<std::uint64_t>(
      std::clamp(request.series_interval, kMinSeriesInterval, kMaxSeriesInterval).count());
  for (std::size_t i = 0; i < spec.workers; ++i)
    memory.slot(i)->series.interval_ns = series_interval;
  SeriesRecorder series(series_interval, spec.workers);

  PhaseResult result;
  result.name = spec.name;
  result.op_names = spec.op_names;
  result.counter_names = spec.counter_names;
  result.mode = spec.mode;

  std::uint64_t wall_ns = 0;
  std::uint64_t stonewall_ns = UINT64_MAX;
  CpuTimes runner_cpu;
  SystemCpuSample system_busy;  // summed over the groups' windows
  bool interrupted = false;
  std::string peer_problem;
  std::uint64_t first_measure_ns = 0;
  std::uint64_t wear_out_ops = 0;
  // Serial phases run one worker at a time (tiotest's -W); their wall time is the sum.
  const std::size_t group = spec.serial ? 1 : spec.workers;
  for (std::size_t first = 0; first < spec.workers; first += group) {
    const std::size_t count = std::min(group, spec.workers - first);
    series.begin_group(first, count, static_cast<std::uint64_t>(request.warmup.count()));
    const GroupOutcome outcome = run_group(request, memory, first, count, series);
    {
      // The group's time on the series' axis: from its release to its last worker's end.
      std::uint64_t last_end = outcome.released_ns;
      for (std::size_t i = first; i < first + count; ++i)
        last_end = std::max(last_end, memory.slot(i)->end_ns);
      const std::uint64_t length = outcome.released_ns == 0 ? 0 : last_end - outcome.released_ns;
      series.end_group(
          outcome.measured ? outcome.measure_start_ns - outcome.released_ns : UINT64_MAX, length);
    }
    interrupted = interrupted || outcome.interrupted;
    bool group_failed = false;
    for (std::size_t i = first; i < first + count; ++i) group_failed |= memory.slot(i)->failed != 0;
    if (peer_problem.empty()) peer_problem = outcome.peer_problem;
    if (outcome.measured && first_measure_ns == 0) first_measure_ns = outcome.measure_start_ns;
    wear_out_ops = std::max(wear_out_ops, outcome.wear_out_ops);
    if (outcome.measured) {
      std::uint64_t group_end = outcome.measure_start_ns;
      for (std::size_t i = first; i < first + count; ++i) {
        const WorkerSlot& slot = *memory.slot(i);
        if (!measured(slot)) continue;
        const std::uint64_t end = std::max(slot.end_ns, outcome.measure_start_ns);
        group_end = std::max(group_end, end);
        stonewall_ns = std::min(stonewall_ns, wall_ns + (end - outcome.measure_start_ns));
      }
      wall_ns += group_end - outcome.measure_start_ns;
      runner_cpu = runner_cpu + runner_cpu_in_window(outcome, group_end);
      if (outcome.system_end.total_ticks >= outcome.system_begin.total_ticks &&
          outcome.system_end.busy_ticks >= outcome.system_begin.busy_ticks) {
        system_busy.busy_ticks += outcome.system_end.busy_ticks - outcome.system_begin.busy_ticks;
        system_busy.total_ticks +=
            outcome.system_end.total_ticks - outcome.system_begin.total_ticks;
      }
    }
    if (interrupted || group_failed || !peer_problem.empty()) break;
    // Across ranks, the groups of a serial phase end together: one more checkpoint per group.
    if (request.sync != nullptr && request.sync->active() && first + group < spec.workers) {
      if (auto verdict = request.sync->sync(StepSync::Kind::kNone, "")) {
        peer_problem = *verdict;
        break;
      }
    }
  }

  result.wall_ns = wall_ns;
  result.time_series = series.build();
  result.stonewall_ns = stonewall_ns == UINT64_MAX ? wall_ns : stonewall_ns;
  result.system_busy_percent = system_busy_percent(SystemCpuSample{}, system_busy);
  result.ops.resize(spec.op_names.size());
  result.latency_parts_kind = spec.latency_parts;
  if (spec.latency_parts.any()) result.latency_parts.resize(spec.op_names.size());
  result.counters.assign(spec.counter_names.size(), 0);

  bool any_measured = false;
  bool any_warmup = false;          // some worker recorded warm-up ops
  std::uint64_t warmup_ran_ns = 0;  // the longest a worker ran in a warm-up it never left
  for (std::size_t i = 0; i < spec.workers; ++i) {
    const WorkerSlot& slot = *memory.slot(i);
    WorkerResult worker;
    worker.index = i;
    worker.target_index = target_index_of(i, request.targets.size());
    worker.seed = worker_seed(request.step_seed, request.phase_index, i);
    const auto stats = memory.ops(i);
    const auto parts = memory.parts(i);
    worker.ops.resize(stats.size());
    worker.latency_parts.resize(parts.size());
    worker.counters.assign(spec.counter_names.size(), 0);
    const bool ran_warmup_only = !measured(slot) && slot.start_ns != 0 && slot.end_ns != 0;
    if (measured(slot)) {
      any_measured = true;
      worker.elapsed_ns = slot.end_ns - slot.start_ns;
      worker.cpu = cpu_between(slot.cpu_start, slot.cpu_end);
      // Merged into compact results: a merge reads only the buckets between a histogram's
      // minimum's and maximum's, so the shared pages no sample reached are never made resident.
      for (std::size_t k = 0; k < stats.size(); ++k) worker.ops[k].merge(stats[k]);
      for (std::size_t k = 0; k < parts.size(); ++k) worker.latency_parts[k].merge(parts[k]);
      worker.counters.assign(slot.counters, slot.counters + spec.counter_names.size());
      worker.pacing = slot.pacing;
    } else {
      // What it recorded (if anything) was warm-up: discarded, like every warm-up (left empty).
      if (ran_warmup_only) {
        any_warmup = true;
        warmup_ran_ns = std::max(warmup_ran_ns, slot.end_ns - slot.start_ns);
      }
    }
    result.pacing.merge(worker.pacing);
    for (std::size_t k = 0; k < worker.latency_parts.size(); ++k) {
      result.latency_parts[k].merge(worker.latency_parts[k]);
    }
    if (slot.failed) {
      worker.status = Status::kFailed;
      worker.message = slot.message;
    } else if (slot.hurried != 0) {
      worker.status = Status::kInterrupted;
      worker.message =
          "worker process killed on a second stop request: its CPU time is not known and its "
          "last op may be partly recorded";
    } else if (interrupted) {
      worker.status = Status::kInterrupted;
    } else if (ran_warmup_only) {
      worker.status = Status::kNoMeasurement;
      worker.message =
          fmt::format("ended {} into its {} warm-up: none of its ops are measured",
                      format_duration(slot.end_ns - slot.start_ns),
                      format_duration(static_cast<std::uint64_t>(request.warmup.count())));
    }
    for (std::size_t k = 0; k < worker.ops.size(); ++k) result.ops[k].merge(worker.ops[k]);
    for (std::size_t k = 0; k < worker.counters.size(); ++k)
      result.counters[k] += worker.counters[k];
    result.workers_cpu = result.workers_cpu + worker.cpu;
    if (worker.status == Status::kFailed && result.status != Status::kFailed) {
      result.status = Status::kFailed;
      result.message = fmt::format("worker {}: {}", i, worker.message);
    }
    result.workers.push_back(std::move(worker));
  }
  // The process's CPU in the window: its runner thread plus every worker (thread, or worker
  // process over its own measured time; not RUSAGE_CHILDREN, which counts whole lives).
  result.process_cpu = runner_cpu + result.workers_cpu;
  if (window != nullptr) {
    window->start_ns = first_measure_ns;
    window->stopped_by_peer = !peer_problem.empty();
    window->wear_out_ops = wear_out_ops;
  }
  if (!peer_problem.empty() && result.status == Status::kOk && !interrupted) {
    result.status = Status::kFailed;
    result.message = fmt::format("stopped because of another rank: {}", peer_problem);
  } else if (result.status == Status::kOk && interrupted) {
    result.status = Status::kInterrupted;
    result.message =
        any_measured ? "interrupted by a stop request (SIGINT/SIGTERM/SIGHUP)"
        : any_warmup
            ? "interrupted by a stop request (SIGINT/SIGTERM/SIGHUP) during the warm-up: no "
              "measured ops"
            : "interrupted by a stop request (SIGINT/SIGTERM/SIGHUP) before the measurement "
              "started: no measured ops";
  } else if (result.status == Status::kOk && !any_measured && spec.workers > 0) {
    result.status = Status::kNoMeasurement;
    result.message = fmt::format(
        "ended {} into its {} warm-up, so it has no measured ops (the warm-up's are "
        "discarded); shorten the warm-up (--warmup) or make the phase longer",
        format_duration(warmup_ran_ns),
        format_duration(static_cast<std::uint64_t>(request.warmup.count())));
  }
  return result;
}

}  // namespace iobench::detail
