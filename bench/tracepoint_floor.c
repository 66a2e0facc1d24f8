// The floor of `--explain`'s cost (bench/explain_cost.sh): what the raw_syscalls sys_enter and
// sys_exit tracepoints cost every system call of every process once any BPF program is attached
// to them, measured with empty programs (return 0) and nothing else of explain.bpf.c.
//
// Build: cc -O2 -o tracepoint_floor bench/tracepoint_floor.c -lbpf
// Usage: tracepoint_floor FILE OPS   CPU time per 4 KiB pread of FILE (its first 4 MiB, in turn),
//                                    OPS of them, without and then with the empty programs
//        tracepoint_floor hold SECONDS  keeps the empty programs attached that long (run
//                                    `iobench run ...` beside it to see the floor in its figures)
// Output: "none NS" and "empty sys_enter/sys_exit programs NS" (CPU ns per pread), or nothing.
// Needs root (or CAP_BPF and CAP_PERFMON) and kernel BTF. fentry/fexit would be cheaper, but some
// kernels refuse them (EPERM on the 2-CPU VM where this was written), so explain.bpf.c uses these.
#define _GNU_SOURCE
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double cpu_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

// An empty tp_btf program attached to the raw tracepoint `name`; returns its link fd (-1: failed).
static int attach_empty(const struct btf* vmlinux, const char* name) {
  char typedef_name[64];
  snprintf(typedef_name, sizeof typedef_name, "btf_trace_%s", name);
  const int btf_id = btf__find_by_name_kind(vmlinux, typedef_name, BTF_KIND_TYPEDEF);
  if (btf_id < 0) return -1;
  const struct bpf_insn insns[] = {
      {.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0},
      {.code = BPF_JMP | BPF_EXIT},
  };
  LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = BPF_TRACE_RAW_TP,
              .attach_btf_id = (__u32)btf_id);
  const int prog = bpf_prog_load(BPF_PROG_TYPE_TRACING, name, "GPL", insns, 2, &opts);
  if (prog < 0) return -1;
  return bpf_link_create(prog, 0, BPF_TRACE_RAW_TP, NULL);
}

static double per_pread(int fd, long ops) {
  static char buffer[4096];
  const double start = cpu_ns();
  for (long i = 0; i < ops; ++i) {
    if (pread(fd, buffer, sizeof buffer, (off_t)(i & 1023) * 4096) < 0) return -1;
  }
  return (cpu_ns() - start) / (double)ops;
}

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: tracepoint_floor FILE OPS | tracepoint_floor hold SECONDS\n");
    return 2;
  }
  struct btf* vmlinux = btf__load_vmlinux_btf();
  if (vmlinux == NULL) {
    fprintf(stderr, "tracepoint_floor: no kernel BTF: %s\n", strerror(errno));
    return 1;
  }
  const int hold = strcmp(argv[1], "hold") == 0;
  const int fd = hold ? -1 : open(argv[1], O_RDONLY);
  const long ops = atol(argv[2]);
  if ((!hold && fd < 0) || ops <= 0) {
    fprintf(stderr, "tracepoint_floor: %s: %s\n", argv[1], fd < 0 ? strerror(errno) : "OPS <= 0");
    return 2;
  }
  if (!hold) printf("none %.1f\n", per_pread(fd, ops));
  if (attach_empty(vmlinux, "sys_enter") < 0 || attach_empty(vmlinux, "sys_exit") < 0) {
    fprintf(stderr, "tracepoint_floor: attaching: %s\n", strerror(errno));
    return 1;
  }
  if (hold) {
    sleep((unsigned)ops);
  } else {
    printf("empty sys_enter/sys_exit programs %.1f\n", per_pread(fd, ops));
  }
  return 0;
}
