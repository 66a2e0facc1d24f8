// Worker spawning and reaping: the life of one worker (the same in a thread and in a forked
// child) and the runner's side of starting, killing and reaping them.
#include "core/group_workers.hpp"

#include <fmt/format.h>
#include <malloc.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <exception>
#include <iobench/clock.hpp>
#include <iobench/printable.hpp>
#include <iobench/runner.hpp>
#include <memory>
#include <string>

#include "core/futex.hpp"
#include "explain_bpf/session.hpp"

namespace iobench::detail {
namespace {

using namespace std::chrono_literals;

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
    // Takes the measure start (clock and CPU baseline); with no warm-up, --explain's split of
    // this thread's calls begins there too (WorkerContext::on_state_change), ending below.
    (void)ctx.keep_going();
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
  // A table of its own (WorkerContext::own_descriptor_table()) holds no file past the phase.
  release_own_descriptor_table();
  advance(shared, slot, kFinished);
}

// A worker process that ended before its run() did: its CPU time since is unknown (none is
// counted) and its run ends now.
void close_cut_run(WorkerSlot& slot) noexcept {
  if (slot.start_ns != 0 && slot.end_ns == 0) {
    slot.cpu_end = slot.cpu_start;
    slot.end_ns = monotonic_ns();
  }
}

}  // namespace

std::vector<WorkerProcess> worker_processes(const PhaseSpec& spec, std::size_t first,
                                            std::size_t count) {
  std::vector<WorkerProcess> out;
  std::size_t sum = 0;
  for (const std::size_t n : spec.process_workers) sum += n;
  if (spec.process_workers.empty() || sum != spec.workers) {
    for (std::size_t i = first; i < first + count; ++i) out.push_back(WorkerProcess{i, 1});
    return out;
  }
  std::size_t begin = 0;
  for (const std::size_t n : spec.process_workers) {
    const std::size_t lo = std::max(begin, first);
    const std::size_t hi = std::min(begin + n, first + count);
    if (lo < hi) out.push_back(WorkerProcess{lo, hi - lo});
    begin += n;
  }
  return out;
}

bool advance_state(std::atomic<std::uint32_t>& state, std::uint32_t to) noexcept {
  for (std::uint32_t s = state.load(); s < to;) {
    if (state.compare_exchange_weak(s, to)) {
      futex_wake_all(state);
      return true;
    }
  }
  return false;
}

GroupWorkers::GroupWorkers(const PhaseRequest& request, const PhaseMemory& memory,
                           std::size_t first, std::size_t count)
    : request_(request),
      memory_(memory),
      first_(first),
      count_(count),
      processes_(request.spec.mode == WorkerMode::kProcesses) {}

void GroupWorkers::start() {
  if (processes_) {
    start_processes();
  } else {
    start_threads();
  }
}

void GroupWorkers::start_threads() {
  for (std::size_t i = first_; i < first_ + count_; ++i) {
    threads_.emplace_back([&request = request_, &memory = memory_, i] {
      // Stop signals go to the runner's thread: a worker's I/O call is never cut short by one.
      block_stop_signals();
      worker_main(request, memory, i);
    });
  }
}

// A worker process of several workers runs each in a thread of its own and ends when all did.
static void process_main(const PhaseRequest& request, const PhaseMemory& memory,
                         const WorkerProcess& process) {
  if (process.count == 1) {
    worker_main(request, memory, process.first);
    return;
  }
  std::vector<std::thread> threads;
  threads.reserve(process.count);
  for (std::size_t i = process.first; i < process.first + process.count; ++i)
    threads.emplace_back([&request, &memory, i] { worker_main(request, memory, i); });
  for (std::thread& t : threads) t.join();
}

void GroupWorkers::start_processes() {
  PhaseShared& shared = memory_.shared();
  const pid_t parent = ::getpid();
  // Free heap pages the runner still holds (a validation's parse, earlier steps) would be
  // copied into every worker's memory: give them back first.
  (void)::malloc_trim(0);
  children_ = worker_processes(request_.spec, first_, count_);
  for (WorkerProcess& process : children_) {
    if (stop_requested()) {
      // Forking hundreds of processes takes seconds: a stop ends it; the workers not yet
      // started never run (and did nothing).
      advance_state(shared.state, kAbort);
      for (std::size_t i = process.first; i < first_ + count_; ++i)
        advance(shared, *memory_.slot(i), kFinished);
      break;
    }
    const pid_t pid = ::fork();
    if (pid == 0) {
      // The parent turns the stop signals into a stop of the phase; children just follow it.
      for (const int signo : stop_signals()) ::signal(signo, SIG_IGN);
      // If the runner itself dies (SIGKILL, crash), its workers must not go on doing I/O.
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent) ::_exit(1);
      process_main(request_, memory_, process);
      ::_exit(0);
    }
    if (pid < 0) {
      const std::string why = fmt::format("fork: {}", std::strerror(errno));
      for (std::size_t i = process.first; i < process.first + process.count; ++i) {
        store_failure(*memory_.slot(i), why.c_str());
        advance(shared, *memory_.slot(i), kFinished);
      }
      continue;
    }
    process.pid = pid;
  }
}

// A second stop request hurries the end: worker processes still running are killed rather
// than awaited (the run's files are removed all the same, after they are gone).
void GroupWorkers::hurry_if_asked() {
  if (hurried_ || !processes_ || stop_request_count() < 2) return;
  hurried_ = true;
  advance_state(memory_.shared().state, kAbort);
  for (const WorkerProcess& process : children_) {
    if (process.pid > 0) ::kill(process.pid, SIGKILL);
  }
}

void GroupWorkers::reap(bool block) {
  hurry_if_asked();
  for (WorkerProcess& process : children_) {
    if (process.pid <= 0) continue;
    int status = 0;
    const pid_t r = ::waitpid(process.pid, &status, block ? 0 : WNOHANG);
    if (r != process.pid) continue;
    process.pid = -process.pid;  // reaped
    reaped(process, r, status);
  }
}

// Worker process `pid` (of the workers of `process`) ended with `status`.
void GroupWorkers::reaped(const WorkerProcess& process, pid_t pid, int status) {
  const bool clean = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  for (std::size_t i = process.first; i < process.first + process.count; ++i) {
    WorkerSlot& slot = *memory_.slot(i);
    if (!clean && hurried_ && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL &&
        slot.stage.load() < kFinished) {
      // Killed by us on the second stop request: interrupted, not failed.
      slot.hurried = 1;
      close_cut_run(slot);
    } else if (!clean && !slot.failed && slot.stage.load() < kFinished) {
      // Died before finishing (killed, crashed): count it and stop the others.
      const std::string why =
          WIFSIGNALED(status)
              ? fmt::format("worker process {} killed by signal {} ({})", pid, WTERMSIG(status),
                            ::strsignal(WTERMSIG(status)))
              : fmt::format("worker process {} exited with status {}", pid, WEXITSTATUS(status));
      store_failure(slot, why.c_str());
      close_cut_run(slot);
    }
    advance(memory_.shared(), slot, kFinished);
  }
  if (!clean && !(hurried_ && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL))
    advance_state(memory_.shared().state, kAbort);
}

void GroupWorkers::join() {
  for (auto& t : threads_) t.join();
  reap(true);
}

}  // namespace iobench::detail
