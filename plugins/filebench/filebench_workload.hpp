#pragma once

#include <iobench/workload.hpp>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "plugins/filebench/fileset.hpp"
#include "plugins/filebench/flowop_thread.hpp"
#include "plugins/filebench/wml_model.hpp"

namespace iobench::plugins::filebench {

/// The filebench workload's parameters.
[[nodiscard]] std::vector<ParamSpec> filebench_param_specs();

/// Step attribute keys the workload sets (read by the text formatter).
inline constexpr const char* kReadFlowopsAttr = "filebench.read_flowops";    ///< names, by ','
inline constexpr const char* kWriteFlowopsAttr = "filebench.write_flowops";  ///< names, by ','
inline constexpr const char* kOtherFlowopsAttr = "filebench.other_flowops";  ///< delay etc.
/// 1 with `enable lathist`: the text report gives each flowop's latency histogram.
inline constexpr const char* kLathistAttr = "filebench.lathist";
/// `psrun`: its period in seconds (the text report prints a line per period); absent: `run`.
inline constexpr const char* kPsrunPeriodAttr = "filebench.psrun_period_s";
/// `psrun -P`: 1 (each period's line covers that period), else 0 (the run so far).
inline constexpr const char* kPsrunResetAttr = "filebench.psrun_reset";
/// Seconds (a double, as measured) the `sleep` statements above `create files` paused the run
/// before its filesets were made; absent without such a sleep.
inline constexpr const char* kSleptBeforeCreateAttr = "filebench.slept_before_create_s";
/// Seconds (a double, as measured) the `sleep` statements below `create files` paused the run
/// after its filesets were made, before its processes started; absent without such a sleep.
inline constexpr const char* kSleptAfterCreateAttr = "filebench.slept_after_create_s";

/// The "filebench" workload: runs a parsed .f file (WmlModel).
///
/// prepare() draws every fileset's layout from the step seed (fileset i from the seed mixed with
/// i) and creates it beneath the target's run directory (<run dir>/<fileset name>/...; the .f
/// file's path= is not used), telling its progress (report_prepare_progress(): entries walked
/// of all).
/// Phase "run" (measured, time limit = `run N` or time_limit; none for a bare `run` under `set mode
/// quit firstdone|alldone`, which end it when their threads are done) runs one worker process per
/// process instance and in it one worker thread per thread instance (PhaseSpec::process_workers),
/// started together at the runner's barrier; a process's threads run at its `nice`. What
/// filebench keeps in its shared memory is shared by all processes (shared_memory.hpp): the
/// filesets' pick state, the semblock semaphores, the event generator and the run's totals for
/// finishon* and the limits. Op names are the flowop names (flowops of the same name in several
/// threads count together, as filebench's). The runner removes the run directory, fileset
/// included, at the end unless --keep.
class FilebenchWorkload final : public Workload {
 public:
  /// `aio_engine`: the engine of the file's aiowrite flowops (make_aio_engine), or null.
  FilebenchWorkload(WmlModel model, std::chrono::nanoseconds time_limit,
                    std::unique_ptr<Engine> aio_engine = nullptr);

  [[nodiscard]] std::vector<PhaseSpec> phases() const override;
  /// Every file at its drawn mean size: entries x mean size summed over the filesets;
  /// UINT64_MAX if that sum reaches 2^64 (make_filebench_workload refuses such a file).
  [[nodiscard]] std::uint64_t planned_bytes(std::size_t target_index) const override;
  void prepare(PrepareContext& ctx) override;
  [[nodiscard]] std::unique_ptr<PhaseWorker> make_worker(std::size_t phase,
                                                         WorkerContext& ctx) override;
  void after_phase(std::size_t phase, const PhaseResult& result, PrepareContext& ctx) override;

  [[nodiscard]] const WmlModel& model() const noexcept { return model_; }

 private:
  struct WorkerPlan {
    const ThreadDef* thread;
    std::vector<OpId> op_ids;
  };
  WmlModel model_;
  std::chrono::nanoseconds time_limit_;
  std::vector<std::string> op_names_;
  std::vector<WorkerPlan> plans_;
  std::vector<std::unique_ptr<FilesetState>> filesets_;
  std::vector<FilesetState*> fileset_ptrs_;
  /// Workers of each process instance, in worker order (PhaseSpec::process_workers), and the
  /// nice of each worker's process.
  std::vector<std::size_t> process_workers_;
  std::vector<int> nice_;
  SharedArray<RunTotals> totals_;       ///< one, shared by all threads (finishon*, rate limits)
  SharedArray<EventGenerator> events_;  ///< one for `eventgen rate=N` (N > 0), else none
  /// One per semblock flowop of each thread instance; links_[w]: worker w's share of them.
  SharedArray<FlowopSemaphore> semaphores_;
  /// One per block flowop of each thread instance, in worker order (shared like the semaphores).
  SharedArray<FlowopBlock> blocks_;
  std::vector<SemaphoreLinks> links_;
  std::unique_ptr<Engine> aio_engine_;
  void link_semaphores();
};

/// Builds a FilebenchWorkload: reads and parses the .f file named by param "file" (ConfigError
/// "FILE:LINE:COL: ..." on any problem, before any I/O) and checks what the model asks (one
/// target; each flowop's iosize at most its thread's memsize; at least one process; filesets
/// below 2^64 bytes in all; for aiowrite flowops the engine of param "aio_engine", available
/// here and able to serve them: make_aio_engine).
[[nodiscard]] std::unique_ptr<Workload> make_filebench_workload(const WorkloadSetup& setup);

/// Bytes of all filesets, each file at its mean size (entries x size summed, computed without
/// overflow), or nullopt if that reaches 2^64.
[[nodiscard]] std::optional<std::uint64_t> fileset_plan_bytes(const WmlModel& model) noexcept;

/// Seed of fileset `index` from the step seed: same step seed, same layouts.
[[nodiscard]] std::uint64_t fileset_seed(std::uint64_t step_seed, std::size_t index) noexcept;

/// Lowers the calling thread's priority by `nice` (filebench's nice(2) in each process before
/// it starts its threads; Linux keeps a nice value per thread). 0: nothing. Throws IoError
/// (setpriority's errno) if it cannot.
void apply_nice(int nice);

}  // namespace iobench::plugins::filebench
