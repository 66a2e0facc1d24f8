#pragma once
// The process's `--explain` BPF session: loaded at the first phase that asks for it, kept until
// the process ends (a second load per phase would cost more than a phase of a quick run).
#include <iobench/explain_bpf.hpp>
#include <iobench/worker_context.hpp>
#include <string>
#include <vector>

namespace iobench::detail {

/// Loads and attaches the program if not yet done (once per process; a failure is remembered
/// and not retried), then forgets every figure: this phase's figures start at zero. `mode`:
/// split the workers' ops (their boundaries from iobench's clock) or their system calls (the
/// raw_syscalls tracepoints are attached for this phase only then).
void explain_bpf_phase_begin(ExplainMode mode = ExplainMode::kOps);
/// The figures since explain_bpf_phase_begin(), or `unavailable` with the reason. `op_names`
/// (PhaseResult::op_names) name the ops of an ops-mode split, by OpId.
[[nodiscard]] ExplainBpfPhase explain_bpf_phase_end(const std::vector<std::string>& op_names = {});
/// Closes the phase without reading its figures (a phase that ended by an exception): workers
/// started later register nothing until the next explain_bpf_phase_begin().
void explain_bpf_phase_close() noexcept;
/// Whether a phase is open (between explain_bpf_phase_begin() and its end or close; tests).
[[nodiscard]] bool explain_bpf_phase_open() noexcept;

/// Closes the phase on scope exit unless end() read its figures: an exception out of the phase
/// leaves no phase open.
class ExplainBpfPhaseGuard {
 public:
  /// Opens the phase (explain_bpf_phase_begin(mode)) if `explain`; otherwise does nothing.
  explicit ExplainBpfPhaseGuard(bool explain, ExplainMode mode = ExplainMode::kOps)
      : open_(explain) {
    if (open_) explain_bpf_phase_begin(mode);
  }
  ExplainBpfPhaseGuard(const ExplainBpfPhaseGuard&) = delete;
  ExplainBpfPhaseGuard& operator=(const ExplainBpfPhaseGuard&) = delete;
  ~ExplainBpfPhaseGuard() {
    if (open_) explain_bpf_phase_close();
  }
  /// The phase's figures (explain_bpf_phase_end()); call once, only if opened.
  [[nodiscard]] ExplainBpfPhase end(const std::vector<std::string>& op_names = {}) {
    open_ = false;
    return explain_bpf_phase_end(op_names);
  }

 private:
  bool open_;
};

/// The calling thread's system calls (or, ops mode, its ops of `op_kinds` kinds) are measured
/// from now (a worker when its measurement starts, after any warm-up:
/// WorkerContext::on_state_change; a no-op unless a session is loaded, or if the thread is
/// registered already). In a forked worker process too: the maps are shared. Ops mode: the
/// thread's state, which WorkerContext hands every op to; otherwise null.
[[nodiscard]] ExplainOps* explain_bpf_worker_begin(std::size_t op_kinds) noexcept;
/// ... until now (the worker's run ended); ops mode: its split is added to the phase's.
void explain_bpf_worker_end() noexcept;
/// Whether this process has loaded the BPF program (tests: --explain off loads nothing).
[[nodiscard]] bool explain_bpf_loaded() noexcept;

/// The system calls the program tracks, in the order of its call index (IOB_NCALLS of them):
/// name and this architecture's number.
struct ExplainCallName {
  const char* name;
  long number;
};
[[nodiscard]] const ExplainCallName* explain_bpf_call_names() noexcept;

}  // namespace iobench::detail
