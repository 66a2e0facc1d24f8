#!/usr/bin/env python3
"""iobench's filebench interpreter against filebench 1.5-alpha3 itself, on a tmpfs and on ext4
over a loop device, the two tools alternating (and their order) round by round, medians of the
rounds:

- fileset statistics: a .f file of each personality's filesets (examples/filebench/*.f) with
  STAT_ENTRIES entries, run 1 s with a statfile thread so that nothing changes the fileset; the
  tree left on disk is walked (files, directories, mean size, total bytes). Pass: the file count
  within 1 % of filebench's; directories, mean size and total bytes are shown only: filebench
  makes the same tree every run, and one tree's directory count varies by ~2.6 % (sd) and its
  mean gamma-drawn size by ~1 % at 20000 files, so bench/filebench_fileset_stats.py compares
  them over the means of many trees.
- ops/s of fileserver, varmail, webserver and webproxy (iobench's examples/filebench/*.f, which
  filebench runs as they are: tests/filebench/reference_filebench_test.cpp) with at least
  OPS_MIN_FILES files, for -t seconds: the ops/s of each tool's own `IO Summary:` line. Pass:
  iobench within +-10 % of filebench.
- cost per flowop: CPU time (user + system, and user alone) of the whole process tree per op of a
  run whose one thread loops on one flowop on the tmpfs: statfile on a 100-file fileset, read
  and write of 4 KiB at random offsets of a 1 MiB file, and hog value=1 (no system call: the
  loop and the recording alone). Both tools then make the same system calls per op, so the
  difference is the interpreter's own cost (its pick, path and recording). The ops are the
  flowop's own line (`stat1  123ops ...`). CPU is sampled from /proc/PID/stat of every process
  of the tree every 20 ms (the last <= 20 ms of each process is missed: < 1 % of a 10 s run).
  Reported, and pass if iobench's is at most filebench's.
- beside each personality's ops/s, the CPU time per op of the whole run (fileset creation
  included) split into system (the kernel's work for the flowops' system calls: info) and user
  (the tool's own: pass if iobench's is at most filebench's), and the CPUs the run kept busy
  (info): where both tools keep the CPUs busy, the ops/s differ by what each spends per flowop.

The machine's load (/proc/loadavg) is printed before and after. Needs root (mounts), mkfs.ext4,
setarch, a built iobench and filebench. Usage:
  bench/filebench_proof.py [-t SECONDS] [-r ROUNDS] [-b IOBENCH] [-f FILEBENCH] [--cost-only]
                           [--ops-only]
Defaults: -t 10 -r 3 -b build/ci/apps/iobench/iobench -f $IOBENCH_FILEBENCH. Environment:
FS_SIZE (12g) sizes the tmpfs and the ext4 image, which lives in IMAGE_DIR (/var/tmp). --ops-only runs the personalities' ops/s
alone (no fileset statistics, no cost runs). --cost-only runs
the cost-per-flowop runs alone (no ext4, no fileset statistics, no personalities).
Exit status: 0 every criterion passes, 1 one fails, 2 bad usage or missing tools.
"""

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES = os.path.join(ROOT, "examples", "filebench")
PERSONALITIES = ["fileserver", "varmail", "webserver", "webproxy"]
# Fileset-statistics runs: the personality's fileset lines with these entries.
STAT_ENTRIES = 20000
# ops/s runs: at least this many files. filebench 1.5-alpha3 stops varmail and webproxy early on a
# tmpfs with the examples' 200 files ("Run stopped early": a createfile of one thread finds no
# free entry while the others hold them), every run; with 1000 files (the published varmail
# size) it runs to the end.
OPS_MIN_FILES = 1000
TICK = os.sysconf("SC_CLK_TCK")
# Size of the tmpfs and of the ext4 image (sparse, in the temporary directory): FS_SIZE.
FS_SIZE = os.environ.get("FS_SIZE", "12g")
# Where the ext4 image lives: a disk, not a tmpfs (a 12g image on a tmpfs would take RAM).
IMAGE_DIR = os.environ.get("IMAGE_DIR", "/var/tmp")


def die(message):
    print(f"filebench_proof: {message}", file=sys.stderr)
    sys.exit(2)


def tree_cpu_s(root_pid, seen):
    """Updates `seen` (pid -> CPU seconds, utime + stime of all its threads) for root_pid's tree."""
    children = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append((int(entry), fields))
    stack = [root_pid]
    while stack:
        pid = stack.pop()
        for child, fields in children.get(pid, []):
            # utime, stime (fields 14 and 15 of stat, here 11 and 12 after the name)
            seen[(child, "u")] = max(seen.get((child, "u"), 0), int(fields[11]) / TICK)
            seen[(child, "s")] = max(seen.get((child, "s"), 0), int(fields[12]) / TICK)
            stack.append(child)


def run_measured(argv, cwd):
    """Runs argv; returns (stdout + stderr text, user CPU s, system CPU s) of its whole tree.
    Sets run_measured.wall_s to the run's wall time, s."""
    with tempfile.TemporaryFile("w+") as out:
        # A shell in between: its children are the tool's processes, sampled by parent pid.
        proc = subprocess.Popen(["/bin/sh", "-c", 'exec "$@"', "sh"] + argv, cwd=cwd,
                                stdout=out, stderr=subprocess.STDOUT)
        seen = {}
        sh = os.getpid()
        began = time.monotonic()
        while proc.poll() is None:
            tree_cpu_s(sh, seen)
            time.sleep(0.02)
        run_measured.wall_s = time.monotonic() - began
        out.seek(0)
        text = out.read()
    user = sum(v for (pid, kind), v in seen.items() if kind == "u" and pid != sh)
    system = sum(v for (pid, kind), v in seen.items() if kind == "s" and pid != sh)
    if proc.returncode != 0:
        raise RuntimeError(f"{argv[0]} exited {proc.returncode}:\n{text[-3000:]}")
    return text, user, system


def io_summary(text):
    m = re.search(r"IO Summary:\s+(\d+) ops ([0-9.]+) ops/s", text)
    if not m:
        raise RuntimeError("no IO Summary line:\n" + text[-3000:])
    return int(m.group(1)), float(m.group(2))


def walk(top):
    files = dirs = size = 0
    for path, dnames, fnames in os.walk(top):
        dirs += len(dnames)
        for n in fnames:
            files += 1
            size += os.lstat(os.path.join(path, n)).st_size
    return {"files": files, "dirs": dirs, "total_bytes": size,
            "mean_bytes": size / files if files else 0}


def personality(name, dest, seconds, stats_only=False):
    """The example's text, path= moved to dest and run N to seconds; stats_only: its filesets
    with STAT_ENTRIES entries and one statfile thread."""
    with open(os.path.join(EXAMPLES, name + ".f")) as f:
        text = f.read()
    text = re.sub(r"path=[^,\n]*", "path=" + dest, text)
    text = re.sub(r"\nrun [0-9]+", f"\nrun {seconds}", text)
    if not stats_only:
        return re.sub(r"^set \$files=([0-9]+)",
                      lambda m: f"set $files={max(int(m.group(1)), OPS_MIN_FILES)}", text,
                      flags=re.M)
    keep = [l for l in text.splitlines() if l.startswith(("set ", "define fileset", "define file"))]
    keep = [re.sub(r"entries=[^,\n]*", f"entries={STAT_ENTRIES}", l) for l in keep]
    first = re.search(r"name=([^,\n]+)", [l for l in keep if l.startswith("define")][0]).group(1)
    keep += ["define process name=p,instances=1", "{", "  thread name=t,instances=1", "  {",
             f"    flowop statfile name=stat1,filesetname={first}", "  }", "}", "run 1"]
    return "\n".join(keep) + "\n"


# Formatted twice (the flowop, then dest and seconds): braces the .f file keeps are doubled twice.
COST_PROCESS = """define process name=p,instances=1
{{{{
  thread name=t,instances=1,memsize=1m
  {{{{
    flowop {flowop}
  }}}}
}}}}
run {{seconds}}
"""
STAT_SET = "define fileset name=costset,path={dest},size=4k,entries=100,dirwidth=20,prealloc=100\n"
FILE_SET = "define fileset name=costset,path={dest},size=1m,entries=1,dirwidth=20,prealloc=100\n"
# workload -> (.f text with {dest} and {seconds}, the flowop's name)
COSTS = {
    "statfile": (STAT_SET + COST_PROCESS.format(flowop="statfile name=stat1,filesetname=costset"),
                 "stat1"),
    "read 4k": (FILE_SET + COST_PROCESS.format(
        flowop="read name=read1,filesetname=costset,iosize=4k,random"), "read1"),
    "write 4k": (FILE_SET + COST_PROCESS.format(
        flowop="write name=write1,filesetname=costset,iosize=4k,random"), "write1"),
    "hog 1": ("define fileset name=costset,path={dest},size=4k,entries=1,dirwidth=20,prealloc=100\n" +
              COST_PROCESS.format(flowop="hog name=hog1,value=1"), "hog1"),
}


def flowop_ops(text, name):
    """The ops of flowop `name`'s own line of the summary (`name   123ops ...`)."""
    m = re.search(r"^" + re.escape(name) + r"\s+(\d+)ops", text, re.MULTILINE)
    if not m:
        raise RuntimeError(f"no line of flowop {name}:\n" + text[-3000:])
    return int(m.group(1))


def run_tool(tool, args, fs_dir, wml, seed):
    """Runs `wml` with `tool` in fs_dir (emptied first); returns (text, user, sys, fileset root)."""
    for e in os.listdir(fs_dir):
        p = os.path.join(fs_dir, e)
        shutil.rmtree(p) if os.path.isdir(p) and not os.path.islink(p) else os.unlink(p)
    spool = tempfile.mkdtemp(prefix="fbproof.")
    f = os.path.join(spool, "w.f")
    with open(f, "w") as out:
        out.write(wml)
    try:
        if tool == "filebench":
            text, u, s = run_measured(["setarch", "-R", args.filebench, "-f", f], spool)
            return text, u, s, fs_dir
        text, u, s = run_measured([args.iobench, "run", "filebench", "-d", fs_dir, "file=" + f,
                                   "--keep", "-q", "--seed", str(seed)], spool)
        runs = [e for e in os.listdir(fs_dir) if e.startswith("iobench.")]
        return text, u, s, os.path.join(fs_dir, runs[0]) if runs else fs_dir
    finally:
        shutil.rmtree(spool)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-t", type=int, default=10, dest="seconds")
    ap.add_argument("-r", type=int, default=3, dest="rounds")
    ap.add_argument("-b", default=os.path.join(ROOT, "build/ci/apps/iobench/iobench"),
                    dest="iobench")
    ap.add_argument("-f", default=os.environ.get("IOBENCH_FILEBENCH", ""), dest="filebench")
    only = ap.add_mutually_exclusive_group()
    only.add_argument("--cost-only", action="store_true")
    only.add_argument("--ops-only", action="store_true")
    args = ap.parse_args()
    if os.getuid() != 0:
        die("must run as root (it mounts a tmpfs and a loop ext4)")
    for tool in ("setarch", "mkfs.ext4"):
        if shutil.which(tool) is None:
            die(f"{tool} is missing")
    if not os.access(args.iobench, os.X_OK):
        die(f"iobench binary '{args.iobench}' not found; build it or pass -b PATH")
    if not args.filebench or not os.access(args.filebench, os.X_OK):
        die("no filebench binary: pass -f PATH or set IOBENCH_FILEBENCH")
    args.iobench = os.path.realpath(args.iobench)
    with open("/proc/loadavg") as f:
        print("load before:", f.read().strip())

    work = tempfile.mkdtemp(prefix="filebench_proof.")
    mounts = {"tmpfs": os.path.join(work, "tmpfs"), "ext4": os.path.join(work, "ext4")}
    for m in mounts.values():
        os.mkdir(m)
    img = os.path.join(IMAGE_DIR, f"filebench_proof.{os.getpid()}.img")
    try:
        # webserver's log grows by about 0.3 GB/s on the tmpfs (both tools): 10 s filled 3 GB.
        subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={FS_SIZE}", "tmpfs",
                        mounts["tmpfs"]], check=True)
        subprocess.run(["truncate", "-s", FS_SIZE, img], check=True)
        # Inode tables and journal written now, not by a kernel thread during the first runs.
        subprocess.run(["mkfs.ext4", "-q", "-F", "-E", "lazy_itable_init=0,lazy_journal_init=0",
                        img], check=True)
        subprocess.run(["mount", "-o", "loop", img, mounts["ext4"]], check=True)
        return measure(args, mounts)
    finally:
        for m in mounts.values():
            subprocess.run(["umount", m], stderr=subprocess.DEVNULL)
        shutil.rmtree(work, ignore_errors=True)
        if os.path.exists(img):
            os.unlink(img)


def measure(args, mounts):
    results = {}  # (fs, kind, name, tool) -> [values over rounds]

    def add(key, value):
        results.setdefault(key, []).append(value)

    for fs, d in mounts.items():
        if args.cost_only and fs != "tmpfs":
            continue
        for rnd in range(args.rounds):
            order = ["filebench", "iobench"] if rnd % 2 == 0 else ["iobench", "filebench"]
            for name in [] if args.cost_only else PERSONALITIES:
                for tool in [] if args.ops_only else order:
                    print(f"{fs} round {rnd + 1}: {name} fileset, {tool}", file=sys.stderr)
                    _, _, _, top = run_tool(tool, args, d, personality(name, d, 1, True), rnd + 1)
                    for k, v in walk(top).items():
                        add((fs, "fileset " + k, name, tool), v)
                for tool in order:
                    print(f"{fs} round {rnd + 1}: {name} {args.seconds} s, {tool}",
                          file=sys.stderr)
                    text, u, s, _ = run_tool(tool, args, d, personality(name, d, args.seconds),
                                             rnd + 1)
                    if "Run stopped early" in text and "IO Summary" not in text:
                        # filebench 1.5-alpha3 stops a run whose createfile finds no free entry
                        # (a race between its threads on small filesets): no sample this round.
                        print(f"  {tool} stopped early: no sample", file=sys.stderr)
                        add((fs, "ops/s", name, tool + " stopped early"), 1)
                        continue
                    ops, rate = io_summary(text)
                    add((fs, "ops/s", name, tool), rate)
                    if ops:
                        # Where the ops/s differ, whether the kernel's work per flowop (the same
                        # system calls) differs too, or only the tool's own (user) time. The
                        # whole run's CPU (fileset creation too) over its whole wall time.
                        add((fs, "sys us/flowop", name, tool), s / ops * 1e6)
                        add((fs, "user us/flowop", name, tool), u / ops * 1e6)
                        add((fs, "CPUs busy", name, tool), (u + s) / run_measured.wall_s)
            if fs == "tmpfs" and not args.ops_only:
                for cost, (wml, flowop) in COSTS.items():
                    for tool in order:
                        print(f"{fs} round {rnd + 1}: cost {cost}, {tool}", file=sys.stderr)
                        text, u, s, _ = run_tool(tool, args, d,
                                                 wml.format(dest=d, seconds=args.seconds), rnd + 1)
                        ops = flowop_ops(text, flowop)
                        add((fs, "cpu us/op", cost, tool), (u + s) / ops * 1e6)
                        add((fs, "user us/op", cost, tool), u / ops * 1e6)

    failed = False
    print(f"\nmedians of {args.rounds} rounds, runs of {args.seconds} s" +
          ("" if args.cost_only or args.ops_only
           else f" (fileset statistics: {STAT_ENTRIES} entries per fileset)"))
    print(f"{'fs':6} {'measure':22} {'workload':11} {'filebench':>14} {'iobench':>14} "
          f"{'diff %':>8}  verdict  (each tool's min-max over the rounds)")
    keys = sorted({k[:3] for k in results})
    for fs, kind, name in keys:
        stopped = sum(len(results.get((fs, kind, name, t + " stopped early"), []))
                      for t in ("filebench", "iobench"))
        if stopped:
            print(f"{fs:6} {kind:22} {name:11} {stopped} run(s) stopped early (no IO Summary)")
        if (fs, kind, name, "filebench") not in results or (fs, kind, name, "iobench") not in results:
            print(f"{fs:6} {kind:22} {name:11} no sample of one tool: n/a")
            failed = True
            continue
        fb = statistics.median(results[(fs, kind, name, "filebench")])
        ib = statistics.median(results[(fs, kind, name, "iobench")])
        diff = (ib - fb) / fb * 100 if fb else float("inf") if ib else 0.0
        info = kind in ("fileset dirs", "fileset mean_bytes", "fileset total_bytes",
                        "sys us/flowop", "CPUs busy")
        if info:
            # The CPU split of the personality runs explains ops/s, it is not judged. The fileset
            # figures: one tree per tool and round, filebench's always the same (drand48 never
            # seeded):
            # a tree's directory count varies by ~2.6 % (sd) and its mean gamma-drawn size by
            # ~1 %, so these are compared over many trees instead
            # (bench/filebench_fileset_stats.py).
            ok = True
        elif kind.startswith("fileset"):
            ok = abs(diff) <= 1
        elif kind == "ops/s":
            ok = abs(diff) <= 10
        else:
            ok = ib <= fb
        failed |= not ok
        spread = " / ".join(f"{min(v):.6g}-{max(v):.6g}" for v in (
            results[(fs, kind, name, "filebench")], results[(fs, kind, name, "iobench")]))
        print(f"{fs:6} {kind:22} {name:11} {fb:14.3f} {ib:14.3f} {diff:8.2f}  "
              f"{'info' if info else 'PASS' if ok else 'FAIL':7}  ({spread})")
    with open("/proc/loadavg") as f:
        print("load after:", f.read().strip())
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
