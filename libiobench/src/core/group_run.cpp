// One group of a phase's workers (all of them, or one of a serial phase), from their start to
// their tear-down: the barrier (across ranks too), the warm-up, the measurement, the limits,
// stops and wear-out, and the window's CPU readings.
#include "core/group_run.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <iobench/clock.hpp>
#include <iobench/coordinator.hpp>
#include <iobench/runner.hpp>
#include <limits>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "core/device_series.hpp"
#include "core/futex.hpp"
#include "core/group_workers.hpp"
#include "core/progress_report.hpp"
#include "core/run_stop.hpp"
#include "core/steady_sampler.hpp"

namespace iobench::detail {
namespace {

using namespace std::chrono_literals;

// PhaseSpec::per_op_series: worker `index`'s op_points since the runner's last take, from its
// per-op `totals` (SeriesSlot::op_ring), which become the runner's taken totals.
std::vector<SeriesOpPoint> take_op_points(SeriesSlot& series, const SeriesOpPoint* totals) {
  std::vector<SeriesOpPoint> out(series.op_count);
  SeriesOpPoint* taken = series.op_ring + SeriesSlot::kRing * series.op_count;
  for (std::size_t k = 0; k < series.op_count; ++k) {
    const SeriesOpPoint& now = totals[k];
    out[k] = {.ops = now.ops - taken[k].ops,
              .bytes = now.bytes - taken[k].bytes,
              .errors = now.errors - taken[k].errors,
              .latency_samples = now.latency_samples - taken[k].latency_samples,
              .latency_sum_ns = now.latency_sum_ns - taken[k].latency_sum_ns};
    taken[k] = now;
  }
  return out;
}

// Takes the finished intervals worker `index` handed over (its ring's entries below
// `published`); with `finished`, also what it still held (the worker is done writing).
void drain_series(const PhaseMemory& memory, std::size_t index, SeriesRecorder& recorder,
                  bool finished) {
  SeriesSlot& series = memory.slot(index)->series;
  const std::uint64_t published = series.published.load(std::memory_order_acquire);
  for (std::uint64_t c = series.consumed.load(std::memory_order_relaxed); c < published; ++c) {
    const IntervalStats& entry = series.ring[c % SeriesSlot::kRing];
    if (series.op_ring != nullptr && entry.warmup == 0) {
      // Read before `consumed` frees the entry for the worker.
      const std::vector<SeriesOpPoint> op_points =
          take_op_points(series, series.op_ring + (c % SeriesSlot::kRing) * series.op_count);
      recorder.add(index, entry, op_points);
    } else {
      recorder.add(index, entry);
    }
    series.consumed.store(c + 1, std::memory_order_release);
  }
  if (finished) {
    recorder.add(index, series.warmup_tail);
    // A worker that first woke with the phase already over records into an interval no
    // restart placed (its closing fsync, say); the phase totals leave it out, so must the series.
    if (series.current.warmup != 0 || measured(*memory.slot(index))) {
      if (series.op_ring != nullptr && series.current.warmup == 0) {
        // The rest of the worker's totals: its OpStats, final now.
        std::vector<SeriesOpPoint> totals(series.op_count);
        const std::span<OpStats> stats = memory.ops(index);
        for (std::size_t k = 0; k < totals.size() && k < stats.size(); ++k)
          totals[k] = series_op_totals(stats[k]);
        const std::vector<SeriesOpPoint> op_points = take_op_points(series, totals.data());
        recorder.add(index, series.current, op_points);
      } else {
        recorder.add(index, series.current);
      }
    }
  }
}

// How long after the last rank reached the phase's barrier every rank releases its workers
// (GroupRun::pass_rank_barrier). A rank sees the barrier's end only at its next poll of the MPI
// collective, and the polls back off to 2 ms (MpiCoordinator::wait, two collectives per
// barrier): released on leaving it, 2 ranks on 2 CPUs, one with a longer set-up, began their
// windows 0.11-1.4 ms apart (start_skew_ns; 2-4 ms with the other CPU busy), and at a common
// release time on rank 0's clock 0.07-0.19 ms apart. A rank that leaves the barrier after that
// time releases at once, as before. The time rests on the clock offsets measured at start
// (Coordinator::clock_offset_ns), which drift apart over a long run; so no rank waits longer
// than this delay after it left the barrier, whatever the offsets say (the latest arrival is
// always before every rank leaves).
constexpr std::int64_t kRankReleaseDelayNs = 5'000'000;

// The latest of the ranks' barrier arrivals (decimal ns on rank 0's clock, as exchanged). The
// texts are every rank's, this rank's own among them (StepSync::exchange), so the latest is at
// least this rank's arrival; texts that are not a number are skipped.
std::int64_t latest_arrival(const std::vector<std::string>& texts) {
  std::int64_t latest = std::numeric_limits<std::int64_t>::min();
  for (const std::string& text : texts) {
    std::int64_t value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error == std::errc() && end == text.data() + text.size()) latest = std::max(latest, value);
  }
  return latest;
}

// Sleeps until monotonic_ns() reaches `until_ns` (at once if it has).
void sleep_until_ns(std::uint64_t until_ns) {
  const std::uint64_t now = monotonic_ns();
  if (until_ns > now) std::this_thread::sleep_for(std::chrono::nanoseconds(until_ns - now));
}

// The first failure among workers [first, first + count): "worker I: message", or "".
std::string group_failure(const PhaseMemory& memory, std::size_t first, std::size_t count) {
  for (std::size_t i = first; i < first + count; ++i) {
    const WorkerSlot& slot = *memory.slot(i);
    if (slot.failed != 0) return fmt::format("worker {}: {}", i, slot.message);
  }
  return {};
}

// run_group()'s state, its steps in the order run() takes them.
class GroupRun {
 public:
  GroupRun(const PhaseRequest& request, const PhaseMemory& memory, std::size_t first,
           std::size_t count, SeriesRecorder& series)
      : request_(request),
        memory_(memory),
        shared_(memory.shared()),
        first_(first),
        count_(count),
        series_(series),
        ranked_(request.sync != nullptr && request.sync->active()),
        has_warmup_(request.warmup.count() > 0),
        workers_(request, memory, first, count),
        progress_(request, memory, first, count, series),
        devices_(request.series_devices, memory.slot(first)->series.interval_ns, series) {
    if (request.spec.steady_state && request.spec.measured) {
      steady_.emplace(*request.spec.steady_state, memory, first, count);
    }
  }

  GroupOutcome run();

 private:
  void stop_workers() noexcept { advance_state(shared_.state, kAbort); }
  [[nodiscard]] std::string failure() const { return group_failure(memory_, first_, count_); }
  void start();
  void await_set_up();
  void pass_rank_barrier();
  void release();
  void set_series_origin(int part, std::uint64_t ns);
  void begin_measurement();
  void begin_wear_out();
  void hold_workers();
  void drive();
  void check_clock_and_stop(std::uint64_t now);
  void sample_steady_state(std::uint64_t now);
  void hear_ranks();
  void stonewall_if_due();
  void tell_ranks_at_end();
  void close_window();
  void tear_down();

  const PhaseRequest& request_;
  const PhaseMemory& memory_;
  PhaseShared& shared_;
  std::size_t first_;
  std::size_t count_;
  SeriesRecorder& series_;
  bool ranked_;      ///< the step has other ranks to agree with
  bool has_warmup_;  ///< the timed loop begins with a warm-up
  GroupWorkers workers_;
  GroupReporter progress_;
  std::optional<SteadySampler> steady_;  ///< PhaseSpec::steady_state's sampling
  DeviceSeries devices_;                 ///< the storage chains' devices per series interval
  GroupOutcome outcome_;
  bool stop_raised_ = false;   ///< this rank told the others it failed (or its stonewall)
  bool wear_out_due_ = false;  ///< this rank is still to share its ops for the wear-out
  std::uint64_t deadline_ns_ = UINT64_MAX;  ///< the time limit's end (monotonic ns)
  std::uint64_t warmup_end_ns_ = 0;
};

GroupOutcome GroupRun::run() {
  start();
  await_set_up();
  pass_rank_barrier();
  release();
  drive();
  devices_.end(monotonic_ns());
  tell_ranks_at_end();
  // The others' wear-out waits for this rank (after the stop above, which ends their phase).
  if (wear_out_due_ && ranked_) begin_wear_out();
  close_window();
  tear_down();
  return std::move(outcome_);
}

void GroupRun::start() {
  shared_.state.store(kWaiting);
  shared_.ready.store(0);
  shared_.ended.store(0);
  shared_.finished.store(0);
  // A worker alone in its process counts the process's CPU time; one of several, its thread's.
  // Only a worker in a thread beside others may take a descriptor table of its own (a process
  // of one worker runs it in its main thread, whose table is already the process's alone).
  if (request_.spec.mode == WorkerMode::kProcesses) {
    for (const WorkerProcess& process : worker_processes(request_.spec, first_, count_)) {
      for (std::size_t i = process.first; i < process.first + process.count; ++i) {
        memory_.slot(i)->whole_process = process.count == 1;
        memory_.slot(i)->worker_thread = process.count == 1 ? 0 : 1;
      }
    }
  } else {
    for (std::size_t i = first_; i < first_ + count_; ++i) {
      memory_.slot(i)->whole_process = 0;
      memory_.slot(i)->worker_thread = 1;
    }
  }
  workers_.start();
  // Progress: at each state change and every progress interval, from the set-up on.
  progress_.begin_set_up();
  progress_.show(ProgressState::kSetUp);
}

// Barrier: wait until every worker finished its untimed set-up; a stop request ends the
// set-up of all (they see it through WorkerContext::stop_requested()).
void GroupRun::await_set_up() {
  for (std::uint32_t r; (r = shared_.ready.load()) < count_;) {
    if (stop_requested() && shared_.state.load() != kAbort) {
      outcome_.interrupted = true;
      stop_workers();
    }
    const std::uint64_t now = monotonic_ns();
    const std::uint64_t next = progress_.next_progress_ns();
    futex_wait(shared_.ready, r,
               std::chrono::nanoseconds(
                   std::min<std::uint64_t>(20'000'000ULL, next > now ? next - now : 0)));
    workers_.reap(false);
    progress_.show(ProgressState::kSetUp);
  }
}

// Across ranks, this is the phase's barrier: no rank starts measuring before every rank's
// workers are set up, and none starts if a rank failed or was stopped in its set-up.
void GroupRun::pass_rank_barrier() {
  if (!ranked_ || request_.sync->ended()) return;
  // Before the barrier: a stop another rank raises after it is then of this epoch here.
  request_.sync->coordinator().begin_epoch();
  const std::string own_failure = failure();
  const auto kind = !own_failure.empty()   ? StepSync::Kind::kFailed
                    : outcome_.interrupted ? StepSync::Kind::kInterrupted
                                           : StepSync::Kind::kNone;
  std::optional<std::string> verdict;
  if (kind == StepSync::Kind::kNone) {
    // Ready: tell when (rank 0's clock), and release with the others at the latest arrival
    // plus kRankReleaseDelayNs (see there).
    const std::int64_t offset = request_.sync->coordinator().clock_offset_ns();
    const std::int64_t arrived = static_cast<std::int64_t>(monotonic_ns()) - offset;
    if (const auto texts = request_.sync->exchange(std::to_string(arrived))) {
      // At least this rank's own arrival, should no text parse (INT64_MIN would overflow).
      const std::int64_t latest = std::max(latest_arrival(*texts), arrived);
      const std::int64_t release = latest + kRankReleaseDelayNs + offset;
      const std::uint64_t cap = monotonic_ns() + static_cast<std::uint64_t>(kRankReleaseDelayNs);
      sleep_until_ns(std::min(static_cast<std::uint64_t>(std::max<std::int64_t>(release, 0)), cap));
    } else {
      verdict = request_.sync->verdict();
    }
  } else {
    verdict = request_.sync->sync(
        kind, kind == StepSync::Kind::kInterrupted ? "interrupted by a stop request" : own_failure);
  }
  if (verdict && kind == StepSync::Kind::kNone) {
    outcome_.peer_problem = *verdict;
    if (request_.sync->worst() == StepSync::Kind::kInterrupted) outcome_.interrupted = true;
    stop_workers();
  }
}

// The measurement window opens here, or when the warm-up ends. Clock first, then the system
// sample, then the runner's CPU reading (so that reading /proc/stat is not in its CPU time).
// The time limit counts from the measurement's real start, however late the runner saw the
// warm-up end on a loaded machine.
void GroupRun::release() {
  const std::uint64_t released_ns = monotonic_ns();
  warmup_end_ns_ = released_ns + static_cast<std::uint64_t>(request_.warmup.count());
  if (shared_.state.load() < kStop) {
    outcome_.released_ns = released_ns;
    progress_.released(released_ns);
    if (has_warmup_) {
      set_series_origin(0, released_ns);
      advance_state(shared_.state, kWarmup);
    } else {
      begin_measurement();
    }
  }
  // The timed loop's opening state is reported even if the workers are already past it (a phase
  // of a few ops may be in its closing fsync) or done before the loop below looks.
  if (outcome_.released_ns != 0) {
    progress_.show(has_warmup_ ? ProgressState::kWarmUp : ProgressState::kMeasuring);
    progress_.show(progress_.running_state());
  }
  // Wear-out: every rank that passed the barrier shares once what its workers did, at its time
  // limit or, if its workers all end before it, then; the others are waiting for it there.
  // (A barrier that ended the step on some rank ended it on every rank: none of them is due.)
  wear_out_due_ = request_.wear_out && outcome_.peer_problem.empty() && outcome_.released_ns != 0 &&
                  !(ranked_ && request_.sync->ended());
}

void GroupRun::set_series_origin(int part, std::uint64_t ns) {
  for (std::size_t i = first_; i < first_ + count_; ++i) {
    memory_.slot(i)->series.origin_ns[part].store(ns, std::memory_order_release);
  }
  devices_.begin_part(part == 0, ns);
}

void GroupRun::begin_measurement() {
  const std::uint64_t now = monotonic_ns();
  set_series_origin(1, now);  // before the state: a worker reads it when it sees kMeasure
  if (!advance_state(shared_.state, kMeasure)) return;  // stopped meanwhile
  if (request_.time_limit.count() > 0) {
    deadline_ns_ = now + static_cast<std::uint64_t>(request_.time_limit.count());
  }
  outcome_.measured = true;
  outcome_.measure_start_ns = now;
  progress_.measurement_began(now);
  if (steady_) steady_->begin(now);
  outcome_.system_begin = sample_system_cpu();
  outcome_.runner_start = read_thread_cpu();
}

// The wear-out's target: the most measured ops any worker (of any rank) has done; every worker
// goes on until it has done as many. A workload's own wear-out (PhaseSpec::wear_out) holds the
// workers first, so that the counts are final and every worker ends exactly at the target.
void GroupRun::begin_wear_out() {
  wear_out_due_ = false;
  if (request_.spec.wear_out) hold_workers();
  std::uint64_t most = 0;
  for (std::size_t i = first_; i < first_ + count_; ++i) {
    const WorkerSlot& slot = *memory_.slot(i);
    const std::uint64_t base = slot.measure_base_ops.load(std::memory_order_relaxed);
    const std::uint64_t live = slot.live_ops.load(std::memory_order_relaxed);
    if (base != UINT64_MAX && live > base) most = std::max(most, live - base);
  }
  if (ranked_) {
    try {
      for (const std::string& theirs :
           request_.sync->coordinator().all_gather(std::to_string(most))) {
        most = std::max<std::uint64_t>(most, std::strtoull(theirs.c_str(), nullptr, 10));
      }
    } catch (const CoordinationError& e) {
      outcome_.peer_problem = e.what();
      stop_workers();
      return;
    }
  }
  if (shared_.state.load() >= kStop) return;  // stopped meanwhile: nothing to wear out
  outcome_.wear_out_ops = most;
  deadline_ns_ = UINT64_MAX;
  for (std::size_t i = first_; i < first_ + count_; ++i) {
    memory_.slot(i)->wear_out_ops.store(most, std::memory_order_relaxed);
  }
  advance_state(shared_.state, kWearOut);  // releases the targets stored above
}

// PhaseSpec::wear_out (mdtest's -W, IO500's ior writes): every worker stops at its next
// keep_going() (kHold) and waits there; returns once each is waiting or has ended, so that its
// count no longer moves while the ranks agree on the target (mdtest's ranks wait in their
// MPI_Allreduce). --wear-out does not hold: a workload's workers may wait on each other there.
void GroupRun::hold_workers() {
  if (!advance_state(shared_.state, kHold)) return;  // stopped meanwhile
  for (;;) {
    bool all_held = true;
    for (std::size_t i = first_; i < first_ + count_ && all_held; ++i) {
      const WorkerSlot& slot = *memory_.slot(i);
      all_held = slot.held.load(std::memory_order_acquire) != 0 || slot.stage.load() >= kEnded;
    }
    if (all_held || shared_.state.load() >= kStop) return;
    if (stop_wanted(request_.stop)) {
      outcome_.interrupted = true;
      stop_workers();
      return;
    }
    workers_.reap(false);  // a worker process that died counts as ended
    futex_wait(shared_.ended, shared_.ended.load(), 1ms);
  }
}

// The timed loop: until every worker's run() ended.
void GroupRun::drive() {
  for (std::uint32_t done; (done = shared_.ended.load()) < count_;) {
    const std::uint64_t now = monotonic_ns();
    check_clock_and_stop(now);
    sample_steady_state(now);
    devices_.poll(now);
    workers_.reap(false);
    for (std::size_t i = first_; i < first_ + count_; ++i) drain_series(memory_, i, series_, false);
    if (ranked_ && outcome_.peer_problem.empty()) hear_ranks();
    stonewall_if_due();
    if (outcome_.released_ns != 0) progress_.show(progress_.running_state());
    std::uint64_t wake =
        std::min<std::uint64_t>({deadline_ns_, progress_.next_progress_ns(), now + 20'000'000ULL});
    if (shared_.state.load() == kWarmup) wake = std::min(wake, warmup_end_ns_);
    if (steady_ && shared_.state.load() == kMeasure) wake = std::min(wake, steady_->next_ns());
    wake = std::min(wake, devices_.next_ns());
    futex_wait(shared_.ended, done, std::chrono::nanoseconds(wake > now ? wake - now : 0));
  }
}

// The warm-up's end, the time limit (or the wear-out it begins), and a stop request.
void GroupRun::check_clock_and_stop(std::uint64_t now) {
  if (shared_.state.load() == kWarmup && now >= warmup_end_ns_) begin_measurement();
  if (now >= deadline_ns_) {
    if (wear_out_due_ && shared_.state.load() == kMeasure) {
      begin_wear_out();
    } else {
      advance_state(shared_.state, kStop);
    }
  }
  if (stop_wanted(request_.stop) && shared_.state.load() != kAbort) {
    outcome_.interrupted = true;
    stop_workers();
  }
}

// Steady state: the samples due; once the detector is done (steady, or PTS's last round) the
// measurement ends as at a time limit. Only while measuring (not in a wear-out).
void GroupRun::sample_steady_state(std::uint64_t now) {
  if (!steady_ || shared_.state.load() != kMeasure) return;
  if (steady_->sample(now)) advance_state(shared_.state, kStop);
}

// A local failure stops the other ranks at their next look; theirs stops this one.
void GroupRun::hear_ranks() {
  Coordinator& coordinator = request_.sync->coordinator();
  if (!stop_raised_ && shared_.state.load() == kAbort) {
    if (const std::string own_failure = failure(); !own_failure.empty()) {
      coordinator.raise_stop(own_failure, StopKind::kFailure);
      stop_raised_ = true;
    }
  }
  if (stop_raised_) return;
  if (auto peer = coordinator.stop_raised()) {
    if (peer->kind == StopKind::kStonewall) {
      advance_state(shared_.state, kStop);  // a normal end, as a time limit's
      stop_raised_ = true;                  // nothing more to tell or hear this phase
    } else {
      outcome_.peer_problem = peer->text;
      stop_workers();
    }
  }
}

// Stonewalling: this group's first worker done ends the others' run here and on every rank.
void GroupRun::stonewall_if_due() {
  if (!request_.stonewall || shared_.state.load() != kMeasure || shared_.ended.load() == 0 ||
      !failure().empty()) {
    return;
  }
  advance_state(shared_.state, kStop);
  if (ranked_ && !stop_raised_) {
    request_.sync->coordinator().raise_stop("stonewall: its first worker is done",
                                            StopKind::kStonewall);
    stop_raised_ = true;
  }
}

// A failure in the group's last moments (its last worker failing ends the timed loop at once)
// still stops the other ranks.
void GroupRun::tell_ranks_at_end() {
  if (!ranked_ || !outcome_.peer_problem.empty() || stop_raised_) return;
  if (const std::string own_failure = failure(); !own_failure.empty()) {
    request_.sync->coordinator().raise_stop(own_failure, StopKind::kFailure);
  } else if (request_.stonewall && outcome_.measured) {
    request_.sync->coordinator().raise_stop("stonewall: its first worker is done",
                                            StopKind::kStonewall);
  }
}

// The last worker's run() has ended: the window closes (CPU first, then /proc/stat).
void GroupRun::close_window() {
  if (!outcome_.measured) return;
  if (steady_) outcome_.steady = steady_->result();
  outcome_.runner_end = read_thread_cpu();
  outcome_.runner_end_ns = monotonic_ns();
  outcome_.system_end = sample_system_cpu();
}

// Untimed tear-down: until every worker finished, then the series' rest.
void GroupRun::tear_down() {
  progress_.show(ProgressState::kCleanUp);
  for (std::uint32_t done; (done = shared_.finished.load()) < count_;) {
    workers_.reap(false);
    futex_wait(shared_.finished, done, 20ms);
    progress_.show(ProgressState::kCleanUp);
  }
  workers_.join();
  for (std::size_t i = first_; i < first_ + count_; ++i) drain_series(memory_, i, series_, true);
  if (stop_wanted(request_.stop)) outcome_.interrupted = true;
}

}  // namespace

GroupOutcome run_group(const PhaseRequest& request, const PhaseMemory& memory, std::size_t first,
                       std::size_t count, SeriesRecorder& series) {
  return GroupRun(request, memory, first, count, series).run();
}

}  // namespace iobench::detail
