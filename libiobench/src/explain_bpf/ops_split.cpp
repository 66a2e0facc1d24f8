// --explain=ops, the workers' side (ops_split.hpp). The slot is memory the BPF program writes
// from any CPU: every access is an atomic_ref (the program's writes are plain 8-byte stores).
#include "explain_bpf/ops_split.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <iobench/clock.hpp>
#include <iobench/latency_histogram.hpp>
#include <iobench/worker_context.hpp>
#include <vector>

namespace iobench::detail {

struct ExplainOps {
  iob_op_slot* slot = nullptr;          // null: not splitting (ended, or its ops overlap)
  iob_op_slot* zero = nullptr;          // slot 0: the phase's counters
  std::uint64_t seq = 0;                // the op in progress
  std::size_t kinds = 0;                // op kinds split (rows)
  std::vector<iob_bucket> rows;         // [op][latency bucket]
  std::vector<iob_call_totals> totals;  // [op]
  // The slot's cumulative request times at the previous op's end.
  std::uint64_t req_completed = 0, req_queue_ns = 0, req_device_ns = 0;
};

namespace {

thread_local ExplainOps t_ops;

using Ref = std::atomic_ref<unsigned long long>;

unsigned long long load(unsigned long long& field,
                        std::memory_order order = std::memory_order_relaxed) {
  return Ref(field).load(order);
}

// The next op begins at `start_ns` (0: none, the worker is between ops or done).
void publish_begin(ExplainOps& e, std::uint64_t start_ns) noexcept {
  Ref(e.slot->start).store(start_ns, std::memory_order_relaxed);
  Ref(e.slot->seq).store(++e.seq, std::memory_order_release);  // read by the program first
}

}  // namespace

std::uint32_t ops_take_slot(iob_op_slot& zero) noexcept {
  const auto slot = static_cast<std::uint32_t>(Ref(zero.pad[0]).fetch_add(1) + 1);
  if (slot < IOB_MAX_SLOTS) return slot;
  Ref(zero.pad[2]).fetch_add(1);
  return 0;
}

ExplainOps* ops_worker_begin(iob_op_slot& zero, iob_op_slot& slot, std::size_t op_kinds) noexcept {
  ExplainOps& e = t_ops;
  e.zero = &zero;
  e.kinds = std::min<std::size_t>(op_kinds, IOB_NCALLS);
  try {
    e.rows.assign(e.kinds * IOB_NBUCKETS, iob_bucket{});
    e.totals.assign(e.kinds, iob_call_totals{});
  } catch (...) {
    return nullptr;
  }
  e.slot = &slot;
  e.seq = load(slot.seq);
  e.req_completed = e.req_queue_ns = e.req_device_ns = 0;
  publish_begin(e, monotonic_ns());
  return &e;
}

void explain_op_begin(ExplainOps& e, std::uint64_t start_ns) noexcept {
  if (e.slot != nullptr) publish_begin(e, start_ns);
}

void explain_op_end(ExplainOps& e, std::uint16_t op, std::uint64_t latency_ns,
                    std::uint64_t end_ns) noexcept {
  iob_op_slot* const slot = e.slot;
  if (slot == nullptr) return;
  // The layers the program charged to this op, if it ran during it (res_seq is its last write).
  std::uint64_t queue = 0, device = 0, off = 0, requests = 0;
  if (load(slot->res_seq, std::memory_order_acquire) == e.seq) {
    queue = load(slot->queue_ns);
    device = load(slot->device_ns);
    off = load(slot->off_cpu_ns);
    requests = load(slot->requests);
  }
  const std::uint64_t completed = load(slot->req_completed, std::memory_order_acquire);
  publish_begin(e, end_ns);  // back-to-back: the next op begins where this one ended
  if (op >= e.kinds) return;
  iob_bucket& b = e.rows[op * IOB_NBUCKETS + LatencyHistogram::bucket_index(latency_ns)];
  iob_call_totals& t = e.totals[op];
  if (queue + device + off > latency_ns) {
    // More than the op lasted: part of it is the op before's (a request of that op whose
    // completion the program charged only after user space had ended that op and begun this
    // one). Trim the excess, off CPU first, then queue, then device, so that the layers still
    // sum to the latency exactly; `clamped` counts such ops.
    ++t.clamped;
    std::uint64_t excess = queue + device + off - latency_ns;
    for (std::uint64_t* layer : {&off, &queue, &device}) {
      const std::uint64_t cut = std::min(excess, *layer);
      *layer -= cut;
      excess -= cut;
    }
  }
  const std::uint64_t layers = queue + device + off;
  ++b.count;
  b.total_ns += latency_ns;
  b.fs_kernel_ns += latency_ns - layers;
  b.queue_ns += queue;
  b.device_ns += device;
  b.off_cpu_ns += off;
  if (requests != 0) {
    ++t.calls_with_requests;
    t.block_requests += requests;
  }
  if (completed != e.req_completed) {
    const std::uint64_t q = load(slot->req_queue_ns), d = load(slot->req_device_ns);
    t.requests_completed += completed - e.req_completed;
    t.request_queue_ns += q - e.req_queue_ns;
    t.request_device_ns += d - e.req_device_ns;
    e.req_completed = completed;
    e.req_queue_ns = q;
    e.req_device_ns = d;
  }
}

void explain_ops_overlap(ExplainOps& e) noexcept {
  if (e.slot == nullptr) return;
  publish_begin(e, 0);
  Ref(e.zero->pad[1]).fetch_add(1);
  e.slot = nullptr;
}

void ops_worker_end(iob_bucket* buckets, iob_call_totals* totals) noexcept {
  ExplainOps& e = t_ops;
  if (e.slot != nullptr) publish_begin(e, 0);
  e.slot = nullptr;
  for (std::size_t op = 0; op < e.kinds && op < e.totals.size(); ++op) {
    for (std::size_t i = 0; i < IOB_NBUCKETS; ++i) {
      const iob_bucket& from = e.rows[op * IOB_NBUCKETS + i];
      if (from.count == 0) continue;
      iob_bucket& to = buckets[op * IOB_NBUCKETS + i];
      Ref(to.count).fetch_add(from.count);
      Ref(to.total_ns).fetch_add(from.total_ns);
      Ref(to.fs_kernel_ns).fetch_add(from.fs_kernel_ns);
      Ref(to.queue_ns).fetch_add(from.queue_ns);
      Ref(to.device_ns).fetch_add(from.device_ns);
      Ref(to.off_cpu_ns).fetch_add(from.off_cpu_ns);
    }
    const iob_call_totals& from = e.totals[op];
    iob_call_totals& to = totals[op];
    Ref(to.calls_with_requests).fetch_add(from.calls_with_requests);
    Ref(to.block_requests).fetch_add(from.block_requests);
    Ref(to.clamped).fetch_add(from.clamped);
    Ref(to.requests_completed).fetch_add(from.requests_completed);
    Ref(to.request_queue_ns).fetch_add(from.request_queue_ns);
    Ref(to.request_device_ns).fetch_add(from.request_device_ns);
  }
  e.rows = {};
  e.totals = {};
  e.kinds = 0;
}

std::string ops_phase_gap(const iob_op_slot& zero) {
  if (zero.pad[1] != 0) {
    return fmt::format(
        "{} worker(s) kept several ops in flight (queue depth > 1, an asynchronous engine or an "
        "open loop): the per-op split needs one op at a time; --explain=syscalls splits their "
        "system calls",
        zero.pad[1]);
  }
  if (zero.pad[2] != 0) {
    return fmt::format("{} worker(s) beyond the {} the per-op split has slots for", zero.pad[2],
                       IOB_MAX_SLOTS - 1);
  }
  return {};
}

}  // namespace iobench::detail
