#include "core/phase_executor.hpp"

#include <fmt/format.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <exception>
#include <iobench/clock.hpp>
#include <iobench/runner.hpp>
#include <new>
#include <thread>
#include <vector>

#include "core/futex.hpp"
#include "core/shared_region.hpp"
#include "core/worker_slot.hpp"

namespace iobench::detail {
namespace {

using namespace std::chrono_literals;

constexpr std::size_t kCacheLine = 64;

constexpr std::size_t round_up(std::size_t n, std::size_t to) { return (n + to - 1) / to * to; }

// Layout of a phase's shared memory: PhaseShared, then per worker a WorkerSlot followed by its
// OpStats array, each cache-line aligned so workers never share a line.
class PhaseMemory {
 public:
  PhaseMemory(std::size_t workers, std::size_t op_count)
      : op_count_(op_count),
        header_bytes_(round_up(sizeof(PhaseShared), kCacheLine)),
        slot_bytes_(round_up(sizeof(WorkerSlot), kCacheLine) +
                    round_up(sizeof(OpStats) * std::max<std::size_t>(op_count, 1), kCacheLine)),
        region_(header_bytes_ + slot_bytes_ * workers) {
    new (region_.data()) PhaseShared();
    for (std::size_t i = 0; i < workers; ++i) {
      new (slot(i)) WorkerSlot();
      OpStats* stats = ops(i).data();
      for (std::size_t k = 0; k < op_count_; ++k) new (stats + k) OpStats();
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

 private:
  std::size_t op_count_;
  std::size_t header_bytes_;
  std::size_t slot_bytes_;
  SharedRegion region_;
};

void store_failure(WorkerSlot& slot, const char* what) noexcept {
  slot.failed = 1;
  std::strncpy(slot.message, what, sizeof slot.message - 1);
}

void mark_finished(PhaseShared& shared) noexcept {
  shared.finished.fetch_add(1);
  futex_wake_all(shared.finished);
}

// The life of one worker, the same in a thread and in a forked child: untimed set-up, barrier,
// timed run, untimed tear-down.
void worker_main(const PhaseRequest& request, const PhaseMemory& memory, std::size_t index) {
  PhaseShared& shared = memory.shared();
  WorkerSlot& slot = *memory.slot(index);
  WorkerContext ctx(request.phase_index, index, request.spec.workers, request.targets,
                    request.engine, worker_seed(request.step_seed, request.phase_index, index),
                    shared.state, slot, memory.ops(index), request.ops_limit);
  std::unique_ptr<PhaseWorker> worker;
  try {
    worker = request.workload.make_worker(request.phase_index, ctx);
  } catch (const std::exception& e) {
    store_failure(slot, e.what());
  }
  shared.ready.fetch_add(1);
  futex_wake_all(shared.ready);
  for (std::uint32_t s; (s = shared.state.load()) == kWaiting;) futex_wait(shared.state, s, 100ms);

  if (worker && !slot.failed) {
    (void)ctx.keep_going();  // takes the measure start (clock and CPU baseline)
    try {
      worker->run(ctx);
    } catch (const std::exception& e) {
      store_failure(slot, e.what());
    }
  }
  slot.end_ns = monotonic_ns();
  const CpuTimes now = thread_cpu_times();
  slot.cpu = {now.user_ns - slot.cpu_start.user_ns, now.system_ns - slot.cpu_start.system_ns};
  if (slot.failed) {
    // One worker failing ends the phase for all: the others see keep_going() turn false.
    shared.state.store(kStop);
    futex_wake_all(shared.state);
  }
  try {
    worker.reset();  // untimed tear-down
  } catch (...) {
  }
  mark_finished(shared);
}

CpuTimes children_cpu_times() noexcept {
  rusage usage{};
  ::getrusage(RUSAGE_CHILDREN, &usage);
  auto ns = [](const timeval& tv) {
    return static_cast<std::uint64_t>(tv.tv_sec) * 1'000'000'000ULL +
           static_cast<std::uint64_t>(tv.tv_usec) * 1000ULL;
  };
  return {ns(usage.ru_utime), ns(usage.ru_stime)};
}

CpuTimes operator-(const CpuTimes& a, const CpuTimes& b) noexcept {
  return {a.user_ns - b.user_ns, a.system_ns - b.system_ns};
}

// Starts workers [first, first + count) and drives the phase until they all finish. Returns the
// measure start (ns) and leaves the results in `memory`.
struct GroupOutcome {
  std::uint64_t measure_start_ns = 0;
  bool interrupted = false;
};

GroupOutcome run_group(const PhaseRequest& request, const PhaseMemory& memory, std::size_t first,
                       std::size_t count) {
  PhaseShared& shared = memory.shared();
  shared.state.store(kWaiting);
  shared.ready.store(0);
  shared.finished.store(0);
  GroupOutcome outcome;

  std::vector<std::thread> threads;
  std::vector<pid_t> children;
  if (request.spec.mode == WorkerMode::kThreads) {
    for (std::size_t i = first; i < first + count; ++i) {
      threads.emplace_back([&request, &memory, i] { worker_main(request, memory, i); });
    }
  } else {
    const pid_t parent = ::getpid();
    for (std::size_t i = first; i < first + count; ++i) {
      const pid_t pid = ::fork();
      if (pid == 0) {
        // The parent turns SIGINT/SIGTERM into a stop of the phase; children just follow it.
        ::signal(SIGINT, SIG_IGN);
        ::signal(SIGTERM, SIG_IGN);
        // If the runner itself dies (SIGKILL, crash), its workers must not go on doing I/O.
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (::getppid() != parent) ::_exit(1);
        worker_main(request, memory, i);
        ::_exit(0);
      }
      if (pid < 0) {
        store_failure(*memory.slot(i), fmt::format("fork: {}", std::strerror(errno)).c_str());
        shared.ready.fetch_add(1);
        shared.finished.fetch_add(1);
        continue;
      }
      children.push_back(pid);
    }
  }

  auto reap_children = [&](bool block) {
    for (pid_t& pid : children) {
      if (pid <= 0) continue;
      int status = 0;
      const pid_t r = ::waitpid(pid, &status, block ? 0 : WNOHANG);
      if (r != pid) continue;
      pid = -pid;  // reaped
      const bool clean = WIFEXITED(status) && WEXITSTATUS(status) == 0;
      if (!clean) {
        // Died without reaching mark_finished (killed, crashed): count it and stop the others.
        const std::size_t index = first + static_cast<std::size_t>(&pid - children.data());
        WorkerSlot& slot = *memory.slot(index);
        if (!slot.failed) {
          const std::string why =
              WIFSIGNALED(status) ? fmt::format("worker process {} killed by signal {} ({})", -pid,
                                                WTERMSIG(status), ::strsignal(WTERMSIG(status)))
                                  : fmt::format("worker process {} exited with status {}", -pid,
                                                WEXITSTATUS(status));
          store_failure(slot, why.c_str());
          slot.end_ns = monotonic_ns();
          shared.ready.fetch_add(1);
          shared.finished.fetch_add(1);
        }
        shared.state.store(kStop);
        futex_wake_all(shared.state);
      }
    }
  };

  // Barrier: wait until every worker finished its untimed set-up.
  for (std::uint32_t r; (r = shared.ready.load()) < count;) {
    futex_wait(shared.ready, r, 20ms);
    if (!children.empty()) reap_children(false);
  }
  const bool has_warmup = request.warmup.count() > 0;
  outcome.measure_start_ns = monotonic_ns();
  const std::uint64_t warmup_end_ns =
      outcome.measure_start_ns + static_cast<std::uint64_t>(request.warmup.count());
  if (shared.state.load() != kStop) shared.state.store(has_warmup ? kWarmup : kMeasure);
  futex_wake_all(shared.state);

  std::uint64_t deadline_ns = request.time_limit.count() > 0
                                  ? (has_warmup ? warmup_end_ns : outcome.measure_start_ns) +
                                        static_cast<std::uint64_t>(request.time_limit.count())
                                  : UINT64_MAX;
  const auto interval_ns = static_cast<std::uint64_t>(request.progress_interval.count());
  std::uint64_t next_progress_ns =
      request.on_progress && interval_ns > 0 ? outcome.measure_start_ns + interval_ns : UINT64_MAX;

  for (std::uint32_t done; (done = shared.finished.load()) < count;) {
    const std::uint64_t now = monotonic_ns();
    if (shared.state.load() == kWarmup && now >= warmup_end_ns) {
      outcome.measure_start_ns = now;
      shared.state.store(kMeasure);
      futex_wake_all(shared.state);
    }
    if (now >= deadline_ns && shared.state.load() != kStop) {
      shared.state.store(kStop);
      futex_wake_all(shared.state);
    }
    if (stop_requested() && shared.state.load() != kStop) {
      outcome.interrupted = true;
      shared.state.store(kStop);
      futex_wake_all(shared.state);
    }
    if (now >= next_progress_ns) {
      std::uint64_t bytes = 0, ops = 0;
      for (std::size_t i = first; i < first + count; ++i) {
        bytes += memory.slot(i)->live_bytes.load(std::memory_order_relaxed);
        ops += memory.slot(i)->live_ops.load(std::memory_order_relaxed);
      }
      request.on_progress(now - outcome.measure_start_ns, bytes, ops,
                          shared.state.load() == kWarmup);
      next_progress_ns += interval_ns;
    }
    if (!children.empty()) reap_children(false);
    std::uint64_t wake =
        std::min<std::uint64_t>({deadline_ns, next_progress_ns, now + 50'000'000ULL});
    if (shared.state.load() == kWarmup) wake = std::min(wake, warmup_end_ns);
    futex_wait(shared.finished, done, std::chrono::nanoseconds(wake > now ? wake - now : 0));
  }
  for (auto& t : threads) t.join();
  reap_children(true);
  if (stop_requested()) outcome.interrupted = true;
  return outcome;
}

}  // namespace

std::uint64_t worker_seed(std::uint64_t step_seed, std::size_t phase, std::size_t worker) noexcept {
  std::uint64_t z = step_seed + 0x9E3779B97F4A7C15ULL * (1 + phase * 0x10001ULL + worker);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

PhaseResult execute_phase(const PhaseRequest& request) {
  const PhaseSpec& spec = request.spec;
  PhaseMemory memory(spec.workers, spec.op_names.size());

  PhaseResult result;
  result.name = spec.name;
  result.op_names = spec.op_names;
  result.counter_names = spec.counter_names;
  result.mode = spec.mode;

  const SystemCpuSample system_begin = sample_system_cpu();
  const CpuTimes self_begin = process_cpu_times();
  const CpuTimes children_begin = children_cpu_times();

  std::uint64_t wall_ns = 0;
  std::uint64_t stonewall_ns = UINT64_MAX;
  bool interrupted = false;
  // Serial phases run one worker at a time (tiotest's -W); their wall time is the sum.
  const std::size_t group = spec.serial ? 1 : spec.workers;
  for (std::size_t first = 0; first < spec.workers; first += group) {
    const std::size_t count = std::min(group, spec.workers - first);
    const GroupOutcome outcome = run_group(request, memory, first, count);
    std::uint64_t group_end = outcome.measure_start_ns;
    for (std::size_t i = first; i < first + count; ++i) {
      const WorkerSlot& slot = *memory.slot(i);
      const std::uint64_t end = std::max(slot.end_ns, outcome.measure_start_ns);
      group_end = std::max(group_end, end);
      stonewall_ns = std::min(stonewall_ns, wall_ns + (end - outcome.measure_start_ns));
    }
    wall_ns += group_end - outcome.measure_start_ns;
    interrupted = interrupted || outcome.interrupted;
    bool group_failed = false;
    for (std::size_t i = first; i < first + count; ++i) group_failed |= memory.slot(i)->failed != 0;
    if (interrupted || group_failed) break;
  }

  result.wall_ns = wall_ns;
  result.stonewall_ns = stonewall_ns == UINT64_MAX ? wall_ns : stonewall_ns;
  const CpuTimes self = process_cpu_times() - self_begin;
  const CpuTimes children = children_cpu_times() - children_begin;
  result.process_cpu = {self.user_ns + children.user_ns, self.system_ns + children.system_ns};
  result.system_busy_percent = system_busy_percent(system_begin, sample_system_cpu());
  result.ops.resize(spec.op_names.size());
  result.counters.assign(spec.counter_names.size(), 0);

  for (std::size_t i = 0; i < spec.workers; ++i) {
    const WorkerSlot& slot = *memory.slot(i);
    WorkerResult worker;
    worker.index = i;
    worker.target_index = request.targets.empty() ? 0 : i % request.targets.size();
    worker.seed = worker_seed(request.step_seed, request.phase_index, i);
    worker.elapsed_ns =
        slot.end_ns > slot.start_ns && slot.start_ns != 0 ? slot.end_ns - slot.start_ns : 0;
    worker.cpu = slot.start_ns != 0 ? slot.cpu : CpuTimes{};
    const auto stats = memory.ops(i);
    worker.ops.assign(stats.begin(), stats.end());
    worker.counters.assign(slot.counters, slot.counters + spec.counter_names.size());
    if (slot.failed) {
      worker.status = Status::kFailed;
      worker.message = slot.message;
    } else if (interrupted) {
      worker.status = Status::kInterrupted;
    }
    for (std::size_t k = 0; k < worker.ops.size(); ++k) result.ops[k].merge(worker.ops[k]);
    for (std::size_t k = 0; k < worker.counters.size(); ++k)
      result.counters[k] += worker.counters[k];
    result.workers_cpu.user_ns += worker.cpu.user_ns;
    result.workers_cpu.system_ns += worker.cpu.system_ns;
    if (worker.status == Status::kFailed && result.status != Status::kFailed) {
      result.status = Status::kFailed;
      result.message = fmt::format("worker {}: {}", i, worker.message);
    }
    result.workers.push_back(std::move(worker));
  }
  if (result.status == Status::kOk && interrupted) {
    result.status = Status::kInterrupted;
    result.message = "interrupted by a stop request (SIGINT/SIGTERM)";
  }
  return result;
}

}  // namespace iobench::detail
