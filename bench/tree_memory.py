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

With --clients FILE, each process below the measured one (a dbench client, of iobench or of
dbench: both fork their clients from one parent) is also sampled through /proc/PID/smaps, and
FILE gets one line per client of its peaks over the run, in KiB:

  pid rss_anon pss_anon private_anon

- rss_anon: RssAnon, which counts the parent's heap pages a child still shares since the fork
  (copy-on-write, not yet written) in full in both processes;
- pss_anon: Pss_Anon, each anonymous page divided by the number of processes mapping it;
- private_anon: Private_Dirty of the private mappings, the anonymous pages this process alone
  maps (copied on write, or its own): what its exit would free. Shared mappings (the phase's
  shared memory) are left out, even pages only this process touched.

then a line "median" and a line "max" of each column over the clients. A smaps walk costs more
than /proc/PID/status (a page-table walk per mapping): 10 ms of CPU per sample of 16 iobench
clients (measured), 10 % of one CPU at the default interval, so compare tools sampled alike.

/proc/PID/status is read (counters: no page-table walk as smaps_rollup would take). One sample
of 17 processes costs 1.2 ms of CPU (measured on a 2-core VM), so at the default interval, 0.1 s,
the sampler takes 1.2 % of one CPU from the run it measures: compare tools sampled alike, not a
sampled run with an unsampled one. A peak shorter than the interval can be missed (the kernel's
high-water mark, /usr/bin/time's figure, is not): a steady replay reaches its level within its
first second, but a runner that reads its workers' results at the end peaks there.

Usage: bench/tree_memory.py OUT [--interval SECONDS] [--wrapper] [--clients FILE] -- COMMAND
       [ARGS...]
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


def anon_split(pid):
    """(RssAnon, Pss_Anon, private anonymous) in KiB from /proc/PID/smaps (Pss_Anon from
    smaps_rollup: the per-mapping lines have no such field), or None for a process gone."""
    rss_anon = pss_anon = private_anon = 0
    private_mapping = False
    try:
        with open(f"/proc/{pid}/smaps") as f:
            for line in f:
                field = line.split(maxsplit=2)
                if not field:
                    continue
                if not field[0].endswith(":"):  # a mapping's header: address range, perms, ...
                    private_mapping = len(field) > 1 and field[1].endswith("p")
                elif field[0] == "Anonymous:":
                    rss_anon += int(field[1])
                elif field[0] == "Private_Dirty:" and private_mapping:
                    private_anon += int(field[1])
        with open(f"/proc/{pid}/smaps_rollup") as f:
            pss_anon = sum(int(line.split()[1]) for line in f if line.startswith("Pss_Anon:"))
    except (OSError, ValueError, IndexError):
        return None
    return (rss_anon, pss_anon, private_anon) if rss_anon else None


def median(values):
    ordered = sorted(values)
    return ordered[len(ordered) // 2] if len(ordered) % 2 else \
        (ordered[len(ordered) // 2 - 1] + ordered[len(ordered) // 2]) // 2


def usage_error(message):
    print(f"tree_memory: {message}", file=sys.stderr)
    sys.exit(2)


def main(argv):
    if "--" not in argv or argv.index("--") < 1 or argv.index("--") == len(argv) - 1:
        usage_error("usage: bench/tree_memory.py OUT [--interval SECONDS] [--wrapper] [--clients FILE] -- "
                    "COMMAND [ARGS...]")
    split = argv.index("--")
    out, options, command = argv[0], argv[1:split], argv[split + 1:]
    interval = 0.1
    wrapper = False
    clients_out = None
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
        elif options[0] == "--clients" and len(options) >= 2:
            clients_out, options = options[1], options[2:]
        else:
            usage_error(f"unknown option '{options[0]}' (--interval SECONDS, --wrapper, "
                        "--clients FILE)")

    # OUT is opened before the command runs: a path that cannot be written fails at once
    # (exit 2) instead of after the measurement.
    try:
        out_file = open(out, "w")
    except OSError as e:
        usage_error(f"cannot write '{out}': {e.strerror}")
    try:
        clients_file = open(clients_out, "w") if clients_out else None
    except OSError as e:
        usage_error(f"cannot write '{clients_out}': {e.strerror}")
    try:
        child = subprocess.Popen(command)
    except OSError as e:
        print(f"tree_memory: cannot run '{command[0]}': {e.strerror}", file=sys.stderr)
        return 127
    largest = {k: 0 for k in FIELDS}
    sums = {k: 0 for k in FIELDS}
    client_peaks = {}  # pid -> [rss_anon, pss_anon, private_anon], each its peak
    try:
        while child.poll() is None:
            now = {k: 0 for k in FIELDS}
            measured = tree(child.pid)[1 if wrapper else 0:]
            for pid in measured[1:] if clients_file else []:
                split = anon_split(pid)
                if split is not None:
                    peaks = client_peaks.setdefault(pid, [0, 0, 0])
                    client_peaks[pid] = [max(p, v) for p, v in zip(peaks, split)]
            for pid in measured:
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
    if clients_file:
        with clients_file:
            for pid, peaks in sorted(client_peaks.items()):
                print(pid, *peaks, file=clients_file)
            columns = list(zip(*client_peaks.values())) or [[0], [0], [0]]
            print("median", *(median(c) for c in columns), file=clients_file)
            print("max", *(max(c) for c in columns), file=clients_file)
    # A command killed by a signal exits as a shell reports it: 128 + the signal's number.
    return child.returncode if child.returncode >= 0 else 128 - child.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
