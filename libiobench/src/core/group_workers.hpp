#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <thread>
#include <vector>

#include "core/phase_executor.hpp"
#include "core/phase_memory.hpp"

namespace iobench::detail {

/// One worker process of a group: workers [first, first + count), run as its threads.
struct WorkerProcess {
  std::size_t first = 0;
  std::size_t count = 1;
  pid_t pid = 0;  ///< 0: none started; -pid: reaped
};

/// The processes of the group [first, first + count) of a kProcesses phase, from
/// PhaseSpec::process_workers clipped to the group (one per worker when it is empty, or when
/// the counts do not sum to the phase's workers).
[[nodiscard]] std::vector<WorkerProcess> worker_processes(const PhaseSpec& spec, std::size_t first,
                                                          std::size_t count);

/// Moves the phase state forward to `to` (never back: a stop is not undone by a late warm-up
/// end) and wakes the workers. False if it was already there or beyond.
bool advance_state(std::atomic<std::uint32_t>& state, std::uint32_t to) noexcept;

/// The workers [first, first + count) of one group of a phase, as threads or forked processes
/// (PhaseSpec::mode): each makes its PhaseWorker, waits at the barrier, runs, tears down, and
/// reports every stage through its slot in `memory`. A worker process that dies before it
/// finished is brought to kFinished here, failed (or hurried, when killed on a second stop
/// request), and its death stops the others. Not copyable; join() before destruction.
class GroupWorkers {
 public:
  GroupWorkers(const PhaseRequest& request, const PhaseMemory& memory, std::size_t first,
               std::size_t count);
  GroupWorkers(const GroupWorkers&) = delete;
  GroupWorkers& operator=(const GroupWorkers&) = delete;

  /// Starts every worker. Forking stops at a stop request (the workers not started never run
  /// and count as finished); a failed fork fails that worker.
  void start();
  /// Reaps the worker processes that ended; with `block`, waits for all of them. A second stop
  /// request first kills the processes still running. Threads: nothing to do.
  void reap(bool block);
  /// Joins the threads and reaps every process (blocking).
  void join();

 private:
  void start_threads();
  void start_processes();
  void hurry_if_asked();
  void reaped(const WorkerProcess& process, pid_t pid, int status);

  const PhaseRequest& request_;
  const PhaseMemory& memory_;
  std::size_t first_;
  std::size_t count_;
  bool processes_;
  bool hurried_ = false;  ///< a second stop request killed the processes still running
  std::vector<std::thread> threads_;
  std::vector<WorkerProcess> children_;  ///< the worker processes, in worker order
};

}  // namespace iobench::detail
