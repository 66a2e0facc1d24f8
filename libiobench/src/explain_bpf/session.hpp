#pragma once
// The process's `--explain` BPF session: loaded at the first phase that asks for it, kept until
// the process ends (a second load per phase would cost more than a phase of a quick run).
#include <iobench/explain_bpf.hpp>

namespace iobench::detail {

/// Loads and attaches the program if not yet done (once per process; a failure is remembered
/// and not retried), then forgets every figure: this phase's figures start at zero.
void explain_bpf_phase_begin();
/// The figures since explain_bpf_phase_begin(), or `unavailable` with the reason.
[[nodiscard]] ExplainBpfPhase explain_bpf_phase_end();
/// Closes the phase without reading its figures (a phase that ended by an exception): workers
/// started later register nothing until the next explain_bpf_phase_begin().
void explain_bpf_phase_close() noexcept;
/// Whether a phase is open (between explain_bpf_phase_begin() and its end or close; tests).
[[nodiscard]] bool explain_bpf_phase_open() noexcept;

/// Closes the phase on scope exit unless end() read its figures: an exception out of the phase
/// leaves no phase open.
class ExplainBpfPhaseGuard {
 public:
  /// Opens the phase (explain_bpf_phase_begin()) if `explain`; otherwise does nothing.
  explicit ExplainBpfPhaseGuard(bool explain) : open_(explain) {
    if (open_) explain_bpf_phase_begin();
  }
  ExplainBpfPhaseGuard(const ExplainBpfPhaseGuard&) = delete;
  ExplainBpfPhaseGuard& operator=(const ExplainBpfPhaseGuard&) = delete;
  ~ExplainBpfPhaseGuard() {
    if (open_) explain_bpf_phase_close();
  }
  /// The phase's figures (explain_bpf_phase_end()); call once, only if opened.
  [[nodiscard]] ExplainBpfPhase end() {
    open_ = false;
    return explain_bpf_phase_end();
  }

 private:
  bool open_;
};

/// The calling thread's system calls are measured from now (a worker when its measurement
/// starts, after any warm-up: WorkerContext::on_state_change; a no-op unless a session is loaded,
/// or if the thread is registered already). In a forked worker process too: the map is shared.
void explain_bpf_worker_begin() noexcept;
/// ... until now (the worker's run ended).
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
