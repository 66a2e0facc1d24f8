#!/usr/bin/env python3
"""Peak memory of a command's whole process tree, split into anonymous and file-backed pages.

/usr/bin/time's "Maximum resident set size" is one figure for the largest single process, and
most of it can be the code of shared libraries (file-backed pages, shared with every process
that maps the same library). This samples /proc/PID/status of the command and all its
descendants every INTERVAL seconds and writes, to OUT, one line of KiB figures:

  max_rss max_anon max_file max_shmem tree_anon tree_file tree_shmem

- max_*: the largest single process at its peak Rss (RssAnon + RssFile + RssShmem), split;
- tree_*: the peak over the run of each sum over the tree (anonymous pages of forked processes
  count in each process that still shares them, as the kernel reports them).

With --wrapper, COMMAND is a wrapper such as /usr/bin/time (1.4 MiB of Rss of its own): its own
process is left out and only its descendants count. The command's exit status is passed on.

/proc/PID/status is read (counters: no page-table walk as smaps_rollup would take). One sample
of 17 processes costs 1.2 ms of CPU (measured on a 2-core VM), so at the default interval, 0.1 s,
the sampler takes 1.2 % of one CPU from the run it measures: compare tools sampled alike, not a
sampled run with an unsampled one. A peak shorter than the interval can be missed (the kernel's
high-water mark, /usr/bin/time's figure, is not): a steady replay reaches its level within its
first second, but a runner that reads its workers' results at the end peaks there.

Usage: bench/tree_memory.py OUT [--interval SECONDS] [--wrapper] -- COMMAND [ARGS...]
"""

import os
import subprocess
import sys
import time

FIELDS = ("RssAnon", "RssFile", "RssShmem")


def tree(root):
    """root and its descendants, from each task's children list."""
    pids, i = [root], 0
    while i < len(pids):
        try:
            for task in os.listdir(f"/proc/{pids[i]}/task"):
                with open(f"/proc/{pids[i]}/task/{task}/children") as f:
                    pids += [int(p) for p in f.read().split()]
        except OSError:
            pass  # exited between listing and reading
        i += 1
    return pids


def rss_split(pid):
    """{RssAnon, RssFile, RssShmem} in KiB, or None for a process gone (or a zombie)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            values = {line.split(":")[0]: int(line.split()[1]) for line in f
                      if line.startswith(FIELDS)}
    except OSError:
        return None
    return values if len(values) == len(FIELDS) else None


def usage_error(message):
    print(f"tree_memory: {message}", file=sys.stderr)
    sys.exit(2)


def main(argv):
    if "--" not in argv or argv.index("--") < 1 or argv.index("--") == len(argv) - 1:
        usage_error("usage: bench/tree_memory.py OUT [--interval SECONDS] [--wrapper] -- "
                    "COMMAND [ARGS...]")
    split = argv.index("--")
    out, options, command = argv[0], argv[1:split], argv[split + 1:]
    interval = 0.1
    wrapper = False
    while options:
        if options[0] == "--wrapper":
            wrapper, options = True, options[1:]
        elif options[0] == "--interval" and len(options) >= 2:
            try:
                interval = float(options[1])
            except ValueError:
                interval = 0.0
            if not 0 < interval < 3600:
                usage_error(f"--interval '{options[1]}': give seconds between 0 and 3600, "
                            "e.g. 0.05")
            options = options[2:]
        else:
            usage_error(f"unknown option '{options[0]}' (--interval SECONDS, --wrapper)")

    # OUT is opened before the command runs: a path that cannot be written fails at once
    # (exit 2) instead of after the measurement.
    try:
        out_file = open(out, "w")
    except OSError as e:
        usage_error(f"cannot write '{out}': {e.strerror}")
    try:
        child = subprocess.Popen(command)
    except OSError as e:
        print(f"tree_memory: cannot run '{command[0]}': {e.strerror}", file=sys.stderr)
        return 127
    largest = {k: 0 for k in FIELDS}
    sums = {k: 0 for k in FIELDS}
    try:
        while child.poll() is None:
            now = {k: 0 for k in FIELDS}
            for pid in tree(child.pid)[1 if wrapper else 0:]:
                values = rss_split(pid)
                if values is None:
                    continue
                if sum(values.values()) > sum(largest.values()):
                    largest = values
                for k in FIELDS:
                    now[k] += values[k]
            for k in FIELDS:
                sums[k] = max(sums[k], now[k])
            time.sleep(interval)
    except KeyboardInterrupt:
        child.wait()  # Ctrl-C reached the command too (same process group): let it stop
    with out_file:
        print(sum(largest.values()), *(largest[k] for k in FIELDS), *(sums[k] for k in FIELDS),
              file=out_file)
    # A command killed by a signal exits as a shell reports it: 128 + the signal's number.
    return child.returncode if child.returncode >= 0 else 128 - child.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
