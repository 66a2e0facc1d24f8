#pragma once
// --explain=ops in user space: each worker thread publishes its op boundaries to its slot of the
// BPF program's mapped `slots` array and, at each op's end, takes the layers the program charged
// to it (block queue, device, off CPU; 0 when the program never ran: a page cache hit) and adds
// the op to its own split by latency bucket; at the worker's end that split joins the phase's
// (the mapped bucket and totals arrays, shared with forked workers).
#include <cstddef>
#include <cstdint>
#include <string>

#include "explain_bpf/explain_bpf_shared.h"

namespace iobench::detail {

struct ExplainOps;

/// A free slot index (1..IOB_MAX_SLOTS-1) from slot 0's counter (slot 0 is no worker's: its
/// pad[] counts the phase's slots handed out, workers whose ops overlapped and workers left
/// without a slot); 0: none left (counted).
[[nodiscard]] std::uint32_t ops_take_slot(iob_op_slot& zero) noexcept;
/// The calling thread's split starts (its first op begins now) in `slot` (`zero`: slot 0), for
/// ops of `op_kinds` kinds (the first IOB_NCALLS are split); null if its memory cannot be had.
[[nodiscard]] ExplainOps* ops_worker_begin(iob_op_slot& zero, iob_op_slot& slot,
                                           std::size_t op_kinds) noexcept;
/// The calling thread's split (if it has one) ends and is added to `buckets` and `totals`.
void ops_worker_end(iob_bucket* buckets, iob_call_totals* totals) noexcept;
/// "" if every worker of the phase had its ops split; otherwise why not.
[[nodiscard]] std::string ops_phase_gap(const iob_op_slot& zero);

}  // namespace iobench::detail
