// SPDX-License-Identifier: GPL-2.0
// The kernel half of `iobench run --explain`: for the threads user space registered (the
// workers, while they run), each tracked system call's time from entry to exit is split, instant
// by instant, into exactly one layer: device (a block request the call caused is at the device:
// issued, not completed), else block queue (one is queued: started, not issued), else off CPU
// (the thread is switched out), else file system and kernel (on CPU: the residual). The layers
// therefore add up to the call's total by construction.
// --explain=ops (the default, `ops_mode`) takes the same split over each op, whose boundaries
// iobench's own clock publishes in the thread's slot (struct iob_op_slot): no system call is
// hooked, and an op that causes no block request and no context switch (a page cache hit) runs
// no BPF at all. --explain=syscalls hooks raw_syscalls sys_enter/sys_exit (every system call of
// every process pays for it: +300 ns per call here).
#include "vmlinux.h"

#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "explain_bpf_shared.h"

char LICENSE[] SEC("license") = "GPL";

// One worker thread's call in flight. Only its own thread's events touch it (its calls, its
// switches in and out, the requests it submits), one at a time, except the issue and completion
// of its block requests, which run on any CPU: while one of those is in flight (`inflight`), every
// access takes the lock, which keeps the transitions and the time accounted for them in one
// order. With none in flight (page cache hits) nothing else can touch the state: no lock.
struct call_state {
  struct bpf_spin_lock lock;
  __u32 slot;    // ops mode: the thread's iob_op_slot (user space sets it; offset 4)
  __u64 op_seq;  // ops mode: the slot's seq the split is of
  __u32 call;  // call index + 1; 0: not in a tracked call
  __u32 seq;   // bumped at every entry: a request of an earlier call is not this one's
  __u32 at_device;
  __u32 queued;
  __u32 off_cpu;
  __u32 requests;
  __u64 start;
  __u64 last;  // accounted up to here
  __u64 queue_ns;
  __u64 device_ns;
  __u64 off_cpu_ns;
  __u64 out_at;  // switched out outside a call at (0: on CPU or in a call)
  __u64 inflight;  // requests submitted and not completed (any call's); changed under the lock
};

// Per task: user space adds a worker's entry (key: a pidfd of the thread) when its measurement
// starts and removes it after its run. A task-local lookup is a pointer walk, not a hash.
struct {
  __uint(type, BPF_MAP_TYPE_TASK_STORAGE);
  __uint(map_flags, BPF_F_NO_PREALLOC);
  __type(key, int);
  __type(value, struct call_state);
} workers SEC(".maps");

extern struct task_struct *bpf_task_from_pid(s32 pid) __ksym;
extern void bpf_task_release(struct task_struct *p) __ksym;

struct rq_owner {
  // The thread's id in the initial PID namespace, both ways: bpf_get_current_pid_tgid() gives it
  // and bpf_task_from_pid() looks it up there, so a worker inside another PID namespace (a
  // container) is found, and no host thread is taken for it (checked under unshare --pid).
  __u32 tid;
  __u32 seq;
  __u32 at_device;  // 0: queued, 1: issued
  __u32 call;       // the causing call's index + 1
  __u64 start;      // started (or inserted) at
  __u64 issued;     // issued at (0: not yet)
};

// A block request caused by a worker's call, by its struct request address.
struct {
  __uint(type, BPF_MAP_TYPE_LRU_HASH);
  __uint(max_entries, 65536);
  __type(key, __u64);
  __type(value, struct rq_owner);
} requests SEC(".maps");

// [call][bucket of the total latency], LatencyHistogram's buckets; mapped by user space.
struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(map_flags, BPF_F_MMAPABLE);
  __uint(max_entries, IOB_NCALLS * IOB_NBUCKETS);
  __type(key, __u32);
  __type(value, struct iob_bucket);
} buckets SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(map_flags, BPF_F_MMAPABLE);
  __uint(max_entries, IOB_NCALLS);
  __type(key, __u32);
  __type(value, struct iob_call_totals);
} totals SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(map_flags, BPF_F_MMAPABLE);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, struct iob_outside);
} outside SEC(".maps");

_Static_assert(__builtin_offsetof(struct call_state, slot) == 4, "session.cpp writes it there");

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(map_flags, BPF_F_MMAPABLE);
  __uint(max_entries, IOB_MAX_SLOTS);
  __type(key, __u32);
  __type(value, struct iob_op_slot);
} slots SEC(".maps");

// Set by user space per phase: 1 for --explain=ops. The sys_enter/sys_exit programs are then
// detached too; checked there for the instant in between.
volatile __u32 ops_mode = 0;

static __always_inline struct iob_op_slot *slot_of(struct call_state *s) {
  if (!ops_mode) return 0;
  __u32 key = s->slot;
  return bpf_map_lookup_elem(&slots, &key);
}

// Ops mode: catches up with the op the slot says is in progress. A new one (its seq moved)
// starts its split at its start, as a call's entry does; whether the thread is off CPU is the
// thread's, kept. No helper call: this runs under the state's lock.
static __always_inline void sync_op(struct call_state *s, struct iob_op_slot *o) {
  if (!o) return;
  const __u64 seq = *(volatile __u64 *)&o->seq;
  if (seq == s->op_seq) return;
  const __u64 start = *(volatile __u64 *)&o->start;
  s->op_seq = seq;
  s->call = start ? 1 : 0;
  s->seq++;
  s->at_device = s->queued = s->requests = 0;
  s->start = s->last = start;
  s->queue_ns = s->device_ns = s->off_cpu_ns = 0;
}

// Ops mode: the op's layers so far, for user space to read at its end (res_seq last).
static __always_inline void publish(struct call_state *s, struct iob_op_slot *o) {
  if (!o || !s->call) return;
  o->queue_ns = s->queue_ns;
  o->device_ns = s->device_ns;
  o->off_cpu_ns = s->off_cpu_ns;
  o->requests = s->requests;
  *(volatile __u64 *)&o->res_seq = s->op_seq;
}

static __always_inline struct call_state *state_of(struct task_struct *task) {
  return bpf_task_storage_get(&workers, task, 0, 0);
}

// Number of bits needed for x (C++'s std::bit_width), without a loop.
static __always_inline __u32 bit_width(__u64 x) {
  __u32 n = 0;
  if (x >> 32) { n += 32; x >>= 32; }
  if (x >> 16) { n += 16; x >>= 16; }
  if (x >> 8) { n += 8; x >>= 8; }
  if (x >> 4) { n += 4; x >>= 4; }
  if (x >> 2) { n += 2; x >>= 2; }
  if (x >> 1) { n += 1; x >>= 1; }
  return n + (__u32)x;
}

// LatencyHistogram::bucket_index.
static __always_inline __u32 bucket_index(__u64 ns) {
  const __u64 top = (2ULL << IOB_MAX_EXPONENT) - 1;
  const __u64 v = ns < top ? ns : top;
  const __u32 shift = bit_width(v | (1ULL << IOB_SUB_BITS)) - 1 - IOB_SUB_BITS;
  return (shift << IOB_SUB_BITS) + (__u32)(v >> shift);
}

// Charges [last, now) to the layer the call is in; `now` taken before the lock may be older than
// `last` (another CPU accounted meanwhile): nothing is charged then.
static __always_inline void account(struct call_state *s, __u64 now) {
  if (now <= s->last) return;
  const __u64 d = now - s->last;
  if (s->at_device)
    s->device_ns += d;
  else if (s->queued)
    s->queue_ns += d;
  else if (s->off_cpu)
    s->off_cpu_ns += d;
  s->last = now;
}

// Whether a block request of this thread is in flight, so that another CPU may be in the state:
// a fetching atomic, so that it is also a full barrier (the completion's last write, below, is
// seen with every write before it).
static __always_inline bool shared(struct call_state *s) {
  return __sync_fetch_and_add(&s->inflight, 0) != 0;
}

static __always_inline void begin_call(struct call_state *s, __u32 c, __u64 now) {
  s->call = c;
  s->seq++;
  s->at_device = s->queued = s->off_cpu = s->requests = 0;
  s->start = s->last = now;
  s->queue_ns = s->device_ns = s->off_cpu_ns = 0;
}

// Entry of a tracked call (`c`: its index + 1) by the current thread.
static __always_inline int call_enter(__u32 c) {
  if (ops_mode) return 0;
  struct call_state *s = state_of(bpf_get_current_task_btf());
  if (!s) return 0;
  const __u64 now = bpf_ktime_get_ns();
  if (!shared(s)) {
    begin_call(s, c, now);
    return 0;
  }
  bpf_spin_lock(&s->lock);
  begin_call(s, c, now);
  bpf_spin_unlock(&s->lock);
  return 0;
}

struct call_end {
  __u64 total, queue, device, off;
  __u32 call, requests;
};

static __always_inline void end_call(struct call_state *s, __u64 now, struct call_end *e) {
  account(s, now);
  e->call = s->call;
  e->total = s->last - s->start;
  e->queue = s->queue_ns;
  e->device = s->device_ns;
  e->off = s->off_cpu_ns;
  e->requests = s->requests;
  s->call = 0;
}

// Its exit: the call's total and layers go to its bucket. A page cache hit (no request, never off
// CPU) adds three sums; a layer or a total that is zero adds nothing.
static __always_inline int call_exit(void) {
  if (ops_mode) return 0;
  struct call_state *s = state_of(bpf_get_current_task_btf());
  if (!s || s->call == 0) return 0;  // only its owner thread sets `call`: no lock to read it
  const __u64 now = bpf_ktime_get_ns();
  struct call_end e;
  if (!shared(s)) {
    end_call(s, now, &e);
  } else {
    bpf_spin_lock(&s->lock);
    end_call(s, now, &e);
    bpf_spin_unlock(&s->lock);
  }
  const __u32 c = e.call;
  const __u64 total = e.total, queue = e.queue, device = e.device, off = e.off;
  const __u32 requests = e.requests;
  if (c == 0 || c > IOB_NCALLS) return 0;

  __u32 key = (c - 1) * IOB_NBUCKETS + bucket_index(total);
  struct iob_bucket *b = bpf_map_lookup_elem(&buckets, &key);
  if (!b) return 0;
  const __u64 layers = queue + device + off;
  __sync_fetch_and_add(&b->count, 1);
  __sync_fetch_and_add(&b->total_ns, total);
  if (layers < total) __sync_fetch_and_add(&b->fs_kernel_ns, total - layers);
  if (queue) __sync_fetch_and_add(&b->queue_ns, queue);
  if (device) __sync_fetch_and_add(&b->device_ns, device);
  if (off) __sync_fetch_and_add(&b->off_cpu_ns, off);
  if (requests == 0 && layers <= total) return 0;
  __u32 ci = c - 1;
  struct iob_call_totals *t = bpf_map_lookup_elem(&totals, &ci);
  if (!t) return 0;
  if (requests) {
    __sync_fetch_and_add(&t->calls_with_requests, 1);
    __sync_fetch_and_add(&t->block_requests, requests);
  }
  if (layers > total) __sync_fetch_and_add(&t->clamped, 1);  // cannot happen: `last` only moves on
  return 0;
}

// Syscall number -> call index + 1 (0: not tracked); user space sets it before the load (this
// architecture's numbers), so the lookup is a plain load of a constant array.
const volatile __u8 call_of_nr[IOB_MAX_SYSCALL_NR] = {};

// The raw_syscalls tracepoints see every system call of every process: the common case (not a
// worker) ends at the first, task-local, lookup.
SEC("tp_btf/sys_enter")
int BPF_PROG(iob_sys_enter, struct pt_regs *regs, long id) {
  if (id < 0 || id >= IOB_MAX_SYSCALL_NR) return 0;
  const __u32 c = call_of_nr[id];
  if (c == 0) return 0;
  return call_enter(c);
}

SEC("tp_btf/sys_exit")
int BPF_PROG(iob_sys_exit, struct pt_regs *regs, long ret) {
  return call_exit();
}

// Switching out or in: the call's time so far goes to the layer it was in.
// Outside a call, the time off CPU is summed apart (iobench's op latency holds it, the split not).
// Returns the time off CPU outside a call that ends here (0: none).
static __always_inline __u64 switch_state(struct call_state *s, __u32 off, __u64 now) {
  __u64 away = 0;
  if (s->call) {
    account(s, now);
    s->off_cpu = off;
  } else if (off) {
    s->out_at = now;
  } else if (s->out_at) {
    away = now > s->out_at ? now - s->out_at : 0;
    s->out_at = 0;
  }
  return away;
}

static __always_inline void set_off_cpu(struct task_struct *task, __u32 off, __u64 now) {
  struct call_state *s = state_of(task);
  if (!s) return;
  struct iob_op_slot *o = slot_of(s);
  __u64 away;
  if (!shared(s)) {
    sync_op(s, o);
    away = switch_state(s, off, now);
    publish(s, o);
  } else {
    bpf_spin_lock(&s->lock);
    sync_op(s, o);
    away = switch_state(s, off, now);
    publish(s, o);
    bpf_spin_unlock(&s->lock);
  }
  if (away) {
    __u32 zero = 0;
    struct iob_outside *o = bpf_map_lookup_elem(&outside, &zero);
    if (o) {
      __sync_fetch_and_add(&o->off_cpu_ns, away);
      __sync_fetch_and_add(&o->switches, 1);
    }
  }
}

SEC("tp_btf/sched_switch")
int BPF_PROG(iob_sched_switch, bool preempt, struct task_struct *prev, struct task_struct *next) {
  const __u64 now = bpf_ktime_get_ns();
  set_off_cpu(prev, 1, now);
  set_off_cpu(next, 0, now);
  return 0;
}

// A request the current worker's call caused: queued (started or inserted) or straight at the
// device (issued with neither seen: a device without I/O accounting and no scheduler).
static __always_inline void own_request(__u64 rq, __u32 at_device) {
  struct call_state *s = state_of(bpf_get_current_task_btf());
  if (!s) return;
  const __u32 tid = (__u32)bpf_get_current_pid_tgid();
  const __u64 now = bpf_ktime_get_ns();
  struct rq_owner owner = {.tid = tid, .at_device = at_device, .start = now};
  if (at_device) owner.issued = now;
  struct iob_op_slot *o = slot_of(s);
  bpf_spin_lock(&s->lock);
  sync_op(s, o);
  const __u32 active = s->call;
  if (active) {
    account(s, now);
    if (at_device)
      s->at_device++;
    else
      s->queued++;
    s->requests++;
    s->inflight++;
    owner.seq = s->seq;
    owner.call = active;
    publish(s, o);
  }
  bpf_spin_unlock(&s->lock);
  if (active) bpf_map_update_elem(&requests, &rq, &owner, BPF_ANY);
}

// Ops mode: a completed request's own queue and device times, to the thread's cumulative sums.
static __always_inline void slot_request_times(struct iob_op_slot *slot, const struct rq_owner *o,
                                               __u64 now) {
  if (!slot || o->issued == 0 || o->issued < o->start || now < o->issued) return;
  __sync_fetch_and_add(&slot->req_queue_ns, o->issued - o->start);
  __sync_fetch_and_add(&slot->req_device_ns, now - o->issued);
  __sync_fetch_and_add(&slot->req_completed, 1);
}

// Moves one of the call's requests: from the queue to the device (issued), or off either
// (completed). Nothing if the call that caused it has ended, but a completion is no longer in
// flight: its fetching decrement, the last write under the lock, lets the owner go lockless.
static __always_inline void move_request(struct rq_owner *o, __u32 issued, __u64 now) {
  struct task_struct *task = bpf_task_from_pid((s32)o->tid);
  if (!task) return;
  struct call_state *s = state_of(task);
  if (!s) {
    bpf_task_release(task);
    return;
  }
  struct iob_op_slot *slot = slot_of(s);
  bpf_spin_lock(&s->lock);
  sync_op(s, slot);
  if (s->call && s->seq == o->seq) {
    account(s, now);
    if (o->at_device) {
      if (s->at_device) s->at_device--;
    } else if (s->queued) {
      s->queued--;
    }
    if (issued) s->at_device++;
    publish(s, slot);
  }
  if (!issued && s->inflight) (void)__sync_fetch_and_sub(&s->inflight, 1);
  bpf_spin_unlock(&s->lock);
  if (!issued) slot_request_times(slot, o, now);
  bpf_task_release(task);
}

// A request starts where /proc/diskstats starts counting its time (blk_account_io_start, Linux
// 6.5+): made from the call's bio, in the calling thread, before any plug, scheduler or queue.
// It is queued until issued, so that queue + device is the request's time as iostat's await
// counts it, and it is the caller's even when another thread (kblockd, a plug flush) inserts or
// issues it. Devices without I/O accounting (queue/iostats 0) skip this: insert and issue
// without an owner then take the current thread's call, if it is in one.
SEC("tp_btf/block_io_start")
int BPF_PROG(iob_io_start, struct request *rq) {
  own_request((__u64)rq, 0);
  return 0;
}

SEC("tp_btf/block_rq_insert")
int BPF_PROG(iob_rq_insert, struct request *rq) {
  __u64 key = (__u64)rq;
  if (!bpf_map_lookup_elem(&requests, &key)) own_request(key, 0);
  return 0;
}

SEC("tp_btf/block_rq_issue")
int BPF_PROG(iob_rq_issue, struct request *rq) {
  __u64 key = (__u64)rq;
  struct rq_owner *o = bpf_map_lookup_elem(&requests, &key);
  if (!o) {
    own_request(key, 1);
    return 0;
  }
  if (o->at_device) return 0;  // issued again (requeued): still at the device
  const __u64 now = bpf_ktime_get_ns();
  move_request(o, 1, now);
  o->at_device = 1;
  o->issued = now;
  return 0;
}

// A request's own queue and device time, whether or not its call is still in progress: an
// asynchronous call (io_uring_enter, io_submit) returns before its requests complete, so its split
// cannot hold them; these sums do, per request.
static __always_inline void add_request_times(const struct rq_owner *o, __u64 now) {
  if (ops_mode) return;  // the thread's slot has them (slot_request_times)
  if (o->call == 0 || o->call > IOB_NCALLS || o->issued == 0 || o->issued < o->start ||
      now < o->issued)
    return;
  __u32 ci = o->call - 1;
  struct iob_call_totals *t = bpf_map_lookup_elem(&totals, &ci);
  if (!t) return;
  __sync_fetch_and_add(&t->requests_completed, 1);
  __sync_fetch_and_add(&t->request_queue_ns, o->issued - o->start);
  __sync_fetch_and_add(&t->request_device_ns, now - o->issued);
}

SEC("tp_btf/block_rq_complete")
int BPF_PROG(iob_rq_complete, struct request *rq, int error, unsigned int nr_bytes) {
  __u64 key = (__u64)rq;
  struct rq_owner *o = bpf_map_lookup_elem(&requests, &key);
  if (!o) return 0;
  const __u64 now = bpf_ktime_get_ns();
  move_request(o, 0, now);
  add_request_times(o, now);
  bpf_map_delete_elem(&requests, &key);
  return 0;
}
