// --explain in a build without its BPF program (IOBENCH_BPF off: cmake/IobenchBpf.cmake): every
// phase says why, and nothing is loaded.
#include "explain_bpf/session.hpp"

#ifndef IOBENCH_BPF_WHY
#define IOBENCH_BPF_WHY "IOBENCH_BPF is off"
#endif

namespace iobench {
std::string explain_bpf_build_gap() { return IOBENCH_BPF_WHY; }
}  // namespace iobench

namespace iobench::detail {

void explain_bpf_phase_begin(ExplainMode) {}

ExplainBpfPhase explain_bpf_phase_end(const std::vector<std::string>&) {
  return {.unavailable = "this build has no eBPF support (" + explain_bpf_build_gap() + ")",
          .calls = {}};
}

void explain_bpf_phase_close() noexcept {}
bool explain_bpf_phase_open() noexcept { return false; }

ExplainOps* explain_bpf_worker_begin(std::size_t) noexcept { return nullptr; }
// WorkerContext calls these only with the state explain_bpf_worker_begin() returned: never here.
void explain_op_end(ExplainOps&, std::uint16_t, std::uint64_t, std::uint64_t) noexcept {}
void explain_op_begin(ExplainOps&, std::uint64_t) noexcept {}
void explain_ops_overlap(ExplainOps&) noexcept {}
void explain_bpf_worker_end() noexcept {}
bool explain_bpf_loaded() noexcept { return false; }

}  // namespace iobench::detail
