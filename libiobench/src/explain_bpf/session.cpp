// The --explain session with libbpf: loads explain.bpf.c's skeleton, attaches its tracepoints,
// and reads the call and bucket arrays through their mappings (no system call per bucket).
// Ops mode (explain_ops.cpp) hands each worker a slot of the mapped `slots` array.
#include "explain_bpf/session.hpp"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdarg>
#include <cstring>
#include <filesystem>
#include <iobench/latency_histogram.hpp>
#include <mutex>
#include <string>
#include <vector>

#include "explain.skel.h"
#include "explain_bpf/explain_bpf_shared.h"
#include "explain_bpf/ops_split.hpp"

namespace iobench::detail {
namespace {

static_assert(IOB_NBUCKETS == LatencyHistogram::kBucketCount &&
                  IOB_SUB_BITS == LatencyHistogram::kSubBits,
              "the BPF program buckets as LatencyHistogram does");

static_assert(sizeof(iob_op_slot) == 128, "one slot per 128 bytes");
constexpr std::size_t kBucketBytes = sizeof(iob_bucket) * IOB_NCALLS * IOB_NBUCKETS;
constexpr std::size_t kTotalsBytes = sizeof(iob_call_totals) * IOB_NCALLS;
constexpr std::size_t kSlotsBytes = sizeof(iob_op_slot) * IOB_MAX_SLOTS;

// libbpf's last warning, for the unavailable reason (its messages go nowhere else).
std::string& libbpf_warning() {
  static std::string text;
  return text;
}
int keep_warning(enum libbpf_print_level level, const char* format, va_list args) {
  if (level != LIBBPF_WARN) return 0;
  char line[512];
  const int n = std::vsnprintf(line, sizeof line, format, args);
  if (n > 0) {
    std::string text(line);
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
    libbpf_warning() = text;
  }
  return 0;
}

struct Session {
  explain_bpf* skel = nullptr;
  iob_bucket* buckets = nullptr;
  iob_call_totals* totals = nullptr;
  iob_outside* outside = nullptr;
  iob_op_slot* slots = nullptr;
  int workers_fd = -1;
  ExplainMode mode = ExplainMode::kOps;  // this phase's
  std::string phase_unavailable;         // this phase's reason (the attach of its mode failed)
  std::string unavailable;               // set once a load failed
};

Session& session() {
  static Session s;
  return s;
}
// workers_fd, read by the workers; written once, before the first phase starts its workers.
int g_workers_fd = -1;
// Between explain_bpf_phase_begin() and _end(): a later phase of a run without --explain in the
// same process registers no worker (and costs nothing but this check).
std::atomic<bool> g_phase_open{false};

std::string load_failure(const char* what, int err) {
  const std::string why =
      err == EPERM || err == EACCES ? " (needs root, or CAP_BPF and CAP_PERFMON)" : std::string{};
  std::string text = fmt::format("{}: {}{}", what, std::strerror(err), why);
  if (!libbpf_warning().empty()) text += fmt::format(" [libbpf: {}]", libbpf_warning());
  return text;
}

template <typename T>
T* map_array(bpf_map* map, std::size_t bytes) {
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, bpf_map__fd(map), 0);
  return p == MAP_FAILED ? nullptr : static_cast<T*>(p);
}

std::string load_program(Session& s) {
  s.skel = explain_bpf__open();
  if (s.skel == nullptr) return load_failure("opening the BPF program", errno);
  const ExplainCallName* calls = explain_bpf_call_names();
  for (std::uint32_t i = 0; i < IOB_NCALLS; ++i) {
    const auto nr = static_cast<std::uint32_t>(calls[i].number);
    if (nr < IOB_MAX_SYSCALL_NR) s.skel->rodata->call_of_nr[nr] = static_cast<std::uint8_t>(i + 1);
  }
  // The raw_syscalls programs are attached by the phases of --explain=syscalls only.
  bpf_program__set_autoattach(s.skel->progs.iob_sys_enter, false);
  bpf_program__set_autoattach(s.skel->progs.iob_sys_exit, false);
  if (const int err = explain_bpf__load(s.skel); err != 0) {
    return load_failure("loading the BPF program", -err);
  }
  if (bpf_map__value_size(s.skel->maps.workers) > 256)
    return "the BPF program's worker state outgrew explain_bpf_worker_begin()'s 256 bytes";
  s.buckets = map_array<iob_bucket>(s.skel->maps.buckets, kBucketBytes);
  s.totals = map_array<iob_call_totals>(s.skel->maps.totals, kTotalsBytes);
  s.outside = map_array<iob_outside>(s.skel->maps.outside, sizeof(iob_outside));
  s.slots = map_array<iob_op_slot>(s.skel->maps.slots, kSlotsBytes);
  if (s.buckets == nullptr || s.totals == nullptr || s.outside == nullptr || s.slots == nullptr)
    return load_failure("mapping the BPF arrays", errno);
  if (const int err = explain_bpf__attach(s.skel); err != 0) {
    return load_failure("attaching the BPF tracepoints", -err);
  }
  // Workers register by a pidfd of their thread (explain_bpf_worker_begin()).
  const int probe = static_cast<int>(::syscall(SYS_pidfd_open, ::syscall(SYS_gettid), O_EXCL));
  if (probe < 0) return load_failure("opening a thread's pidfd (PIDFD_THREAD: Linux 6.9)", errno);
  ::close(probe);
  s.workers_fd = bpf_map__fd(s.skel->maps.workers);
  return {};
}

std::string load(Session& s) {
  std::error_code ec;
  if (!std::filesystem::exists("/sys/kernel/btf/vmlinux", ec)) {
    return "no kernel BTF at /sys/kernel/btf/vmlinux (needs CONFIG_DEBUG_INFO_BTF)";
  }
  // libbpf's messages are kept for the reason during the load only: the embedding program's
  // own callback (a library user may have set one) is back afterwards.
  const libbpf_print_fn_t previous = libbpf_set_print(keep_warning);
  std::string why = load_program(s);
  libbpf_set_print(previous);
  return why;
}

// The calls of one kind whose total fell in the bucket of percentile p (nearest rank).
ExplainSplit percentile_split(const iob_bucket* row, std::uint64_t calls, double p) {
  const std::uint64_t rank = LatencyHistogram::nearest_rank(p, calls);
  std::uint64_t seen = 0;
  for (std::size_t b = 0; b < IOB_NBUCKETS; ++b) {
    seen += row[b].count;
    if (row[b].count != 0 && seen >= rank) {
      return {row[b].count,    row[b].total_ns,  row[b].fs_kernel_ns,
              row[b].queue_ns, row[b].device_ns, row[b].off_cpu_ns};
    }
  }
  return {};
}

// Attaches (syscalls) or detaches (ops) the raw_syscalls programs for this phase; "" or why not.
std::string attach_mode(Session& s, ExplainMode mode) {
  auto& links = s.skel->links;
  if (mode == ExplainMode::kOps) {
    for (bpf_link** link : {&links.iob_sys_enter, &links.iob_sys_exit}) {
      if (*link != nullptr) bpf_link__destroy(*link);
      *link = nullptr;
    }
    return {};
  }
  const libbpf_print_fn_t previous = libbpf_set_print(keep_warning);
  std::string why;
  if (links.iob_sys_enter == nullptr)
    links.iob_sys_enter = bpf_program__attach(s.skel->progs.iob_sys_enter);
  if (links.iob_sys_enter == nullptr) why = load_failure("attaching sys_enter", errno);
  if (why.empty() && links.iob_sys_exit == nullptr)
    links.iob_sys_exit = bpf_program__attach(s.skel->progs.iob_sys_exit);
  if (why.empty() && links.iob_sys_exit == nullptr) why = load_failure("attaching sys_exit", errno);
  libbpf_set_print(previous);
  return why;
}

}  // namespace

void explain_bpf_phase_begin(ExplainMode mode) {
  static std::once_flag once;
  Session& s = session();
  std::call_once(once, [&s] {
    s.unavailable = load(s);
    if (s.unavailable.empty()) {
      g_workers_fd = s.workers_fd;
    } else if (s.skel != nullptr) {
      if (s.buckets != nullptr) ::munmap(s.buckets, kBucketBytes);
      if (s.totals != nullptr) ::munmap(s.totals, kTotalsBytes);
      if (s.outside != nullptr) ::munmap(s.outside, sizeof(iob_outside));
      if (s.slots != nullptr) ::munmap(s.slots, kSlotsBytes);
      s.outside = nullptr;
      s.slots = nullptr;
      s.buckets = nullptr;
      s.totals = nullptr;
      explain_bpf__destroy(s.skel);
      s.skel = nullptr;
    }
  });
  if (!s.unavailable.empty()) return;
  s.mode = mode;
  s.phase_unavailable = attach_mode(s, mode);
  if (!s.phase_unavailable.empty()) return;
  s.skel->bss->ops_mode = mode == ExplainMode::kOps ? 1 : 0;
  // No worker is registered between phases: nothing writes these now.
  std::memset(static_cast<void*>(s.buckets), 0, kBucketBytes);
  std::memset(static_cast<void*>(s.totals), 0, kTotalsBytes);
  std::memset(static_cast<void*>(s.slots), 0, kSlotsBytes);
  *s.outside = iob_outside{};
  g_phase_open.store(true);
}

namespace {

// The calls' (ops mode: the ops') rows of the bucket and totals arrays; `names` by index.
void collect(const Session& s, const std::vector<std::string>& names, ExplainBpfPhase& phase) {
  for (std::size_t c = 0; c < names.size() && c < IOB_NCALLS; ++c) {
    const iob_call_totals& t = s.totals[c];
    ExplainCall call{.call = names[c],
                     .block_requests = t.block_requests,
                     .clamped = t.clamped,
                     .requests = {.completed = t.requests_completed,
                                  .queue_ns = t.request_queue_ns,
                                  .device_ns = t.request_device_ns}};
    const iob_bucket* row = s.buckets + c * IOB_NBUCKETS;
    for (std::size_t b = 0; b < IOB_NBUCKETS; ++b) {
      call.all.calls += row[b].count;
      call.all.total_ns += row[b].total_ns;
      call.all.fs_kernel_ns += row[b].fs_kernel_ns;
      call.all.queue_ns += row[b].queue_ns;
      call.all.device_ns += row[b].device_ns;
      call.all.off_cpu_ns += row[b].off_cpu_ns;
    }
    if (call.all.calls == 0) continue;
    call.cache_hits =
        call.all.calls - std::min<std::uint64_t>(t.calls_with_requests, call.all.calls);
    call.p50 = percentile_split(row, call.all.calls, 50);
    call.p99 = percentile_split(row, call.all.calls, 99);
    phase.calls.push_back(std::move(call));
  }
  std::sort(phase.calls.begin(), phase.calls.end(), [](const ExplainCall& a, const ExplainCall& b) {
    return a.all.total_ns > b.all.total_ns;
  });
}

}  // namespace

ExplainBpfPhase explain_bpf_phase_end(const std::vector<std::string>& op_names) {
  const Session& s = session();
  g_phase_open.store(false);
  ExplainBpfPhase phase;
  if (!s.unavailable.empty() || s.skel == nullptr) {
    phase.unavailable = s.unavailable.empty() ? "not loaded" : s.unavailable;
    return phase;
  }
  if (!s.phase_unavailable.empty()) {
    phase.unavailable = s.phase_unavailable;
    return phase;
  }
  phase.split_of = s.mode;
  if (s.mode == ExplainMode::kOps) {
    phase.unavailable = ops_phase_gap(s.slots[0]);
    if (!phase.unavailable.empty()) return phase;
    collect(s, op_names, phase);
    return phase;
  }
  phase.off_cpu_outside_calls_ns = s.outside->off_cpu_ns;
  phase.switches_outside_calls = s.outside->switches;
  std::vector<std::string> names;
  for (std::size_t c = 0; c < IOB_NCALLS; ++c) names.emplace_back(explain_bpf_call_names()[c].name);
  collect(s, names, phase);
  return phase;
}

void explain_bpf_phase_close() noexcept { g_phase_open.store(false); }

bool explain_bpf_phase_open() noexcept { return g_phase_open.load(); }

// The task storage map's key: a pidfd of the calling thread (PIDFD_THREAD, which is O_EXCL:
// Linux 6.9; older kernels refuse a thread that does not lead its process). Kept open until the
// worker's end: closing it while registered would be a tracked call (close) of its own.
thread_local int t_pidfd = -1;

ExplainOps* explain_bpf_worker_begin(std::size_t op_kinds) noexcept {
  if (g_workers_fd < 0 || !g_phase_open.load() || t_pidfd >= 0) return nullptr;
  Session& s = session();
  const bool ops = s.mode == ExplainMode::kOps;
  const std::uint32_t slot = ops ? ops_take_slot(s.slots[0]) : 0;
  if (ops && slot == 0) return nullptr;  // no slot left (counted: the phase says so)
  const auto tid = static_cast<pid_t>(::syscall(SYS_gettid));
  const int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, tid, O_EXCL));
  if (pidfd < 0) return nullptr;
  // The value holds a bpf_spin_lock the kernel initialises; user space writes zeros, and the
  // slot's index at offset 4 (struct call_state, explain.bpf.c).
  unsigned char value[256] = {};  // bigger than the value (load_program checks)
  std::memcpy(value + 4, &slot, sizeof slot);
  if (bpf_map_update_elem(g_workers_fd, &pidfd, value, BPF_ANY) != 0) {
    ::close(pidfd);
    return nullptr;
  }
  t_pidfd = pidfd;
  return ops ? ops_worker_begin(s.slots[0], s.slots[slot], op_kinds) : nullptr;
}

void explain_bpf_worker_end() noexcept {
  if (t_pidfd < 0) return;
  const Session& s = session();
  // Its last op ends here; its split joins the phase's (in a forked worker too: shared maps).
  if (s.mode == ExplainMode::kOps) ops_worker_end(s.buckets, s.totals);
  (void)bpf_map_delete_elem(g_workers_fd, &t_pidfd);
  ::close(t_pidfd);
  t_pidfd = -1;
}

bool explain_bpf_loaded() noexcept { return session().skel != nullptr; }

}  // namespace iobench::detail

namespace iobench {
std::string explain_bpf_build_gap() { return {}; }
}  // namespace iobench
