/* Shapes shared by explain.bpf.c and the C++ that reads its maps (C, for both compilers). */
#ifndef IOBENCH_EXPLAIN_BPF_SHARED_H
#define IOBENCH_EXPLAIN_BPF_SHARED_H

/* The system calls whose latency is split (calls.cpp names them, in this order). */
#define IOB_NCALLS 24
/* Syscall numbers mapped to a call (array size: every number below this). */
#define IOB_MAX_SYSCALL_NR 512
/* LatencyHistogram's bucket scheme (latency_histogram.hpp): 7 sub-bits, top exponent 44. */
#define IOB_SUB_BITS 7
#define IOB_MAX_EXPONENT 44
#define IOB_NBUCKETS ((1 << IOB_SUB_BITS) * (IOB_MAX_EXPONENT - IOB_SUB_BITS + 2))

/* The calls of one call kind whose total latency fell in one bucket: how many, and the sums (ns)
 * of their total and of each layer. fs_kernel is the residual: total - queue - device - off_cpu. */
struct iob_bucket {
  unsigned long long count;
  unsigned long long total_ns;
  unsigned long long fs_kernel_ns;
  unsigned long long queue_ns;
  unsigned long long device_ns;
  unsigned long long off_cpu_ns;
};

/* Per call kind (its calls are the buckets' counts): calls that caused a block request (the rest
 * are page cache hits), block requests caused, and calls whose measured layers exceeded their
 * total (clamped; a clock-ordering artefact of events on two CPUs, reported so it is never
 * hidden). Only what is not zero is added: a cache hit costs no add here. Then, per request the
 * calls caused and that completed, its own time from start to issue (queue) and from issue to
 * completion (device), also after its call returned (asynchronous calls). */
struct iob_call_totals {
  unsigned long long calls_with_requests;
  unsigned long long block_requests;
  unsigned long long clamped;
  unsigned long long requests_completed;
  unsigned long long request_queue_ns;
  unsigned long long request_device_ns;
};

/* The workers' time off CPU outside the tracked calls (preempted in user space, or on the way back
 * from a call: the kernel reschedules after the sys_exit tracepoint), and how many times. */
struct iob_outside {
  unsigned long long off_cpu_ns;
  unsigned long long switches;
};

/* --explain=ops (the default): op boundaries come from iobench's own clock. Each registered
 * worker thread owns one slot of an mmapped array: user space writes `seq` and `start` (the op
 * in progress began at `start`, CLOCK_MONOTONIC ns, which bpf_ktime_get_ns() reads too; 0: not
 * in an op) with plain stores; the BPF program, which runs only on a block request or a context
 * switch of the thread, writes the op's layers so far (valid when res_seq == seq) and sums the
 * thread's block requests' own times (req_*, cumulative: user space takes deltas). */
#define IOB_MAX_SLOTS 256
struct iob_op_slot {
  unsigned long long seq;
  unsigned long long start;
  unsigned long long res_seq;
  unsigned long long queue_ns;
  unsigned long long device_ns;
  unsigned long long off_cpu_ns;
  unsigned long long requests;
  unsigned long long req_completed;
  unsigned long long req_queue_ns;
  unsigned long long req_device_ns;
  unsigned long long pad[6]; /* one slot per 128 bytes: workers share no cache line */
};

#endif
