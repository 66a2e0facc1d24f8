#!/usr/bin/env python3
"""Fileset statistics of iobench's filebench interpreter against filebench 1.5-alpha3, over many
trees: each tool creates the filesets of filebench's own fileserver, varmail, webserver and
webproxy personalities (their `set` and `define fileset` lines, from FILEBENCH_WORKLOADS) N
times and the trees are walked (directories including the set's own, files, mean size, total
bytes); the means over the N trees are compared.

One tree's directory count varies by about 3.6 % (sd) at 10^4 files, dirwidth 20, so a single
tree of each tool cannot show a 1 % agreement: the comparison is of means over N trees.
filebench never seeds drand48, which draws its trees (and cvar-gamma sizes), nor rand() (its
preallocation), so it makes the same fileset every run: its round r runs with
bench/drand48_seed.c preloaded, seeding both with r. iobench's round r has --seed r.
Usage: bench/filebench_fileset_stats.py [-n ROUNDS] [-b IOBENCH] [-f FILEBENCH] [-w WORKLOADS]
       [-p fileserver,varmail,...] [--dirs-only] [-d DIR (default: a new directory in /dev/shm)]
--dirs-only sets prealloc=0 (only directories are made: cheap, for many rounds).
"""

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

PERSONALITIES = ["fileserver", "varmail", "webserver", "webproxy"]


def fileset_lines(path, dirs_only):
    keep = []
    with open(path) as f:
        for line in f:
            if line.startswith(("set ", "define fileset", "define file ")):
                if dirs_only and line.startswith("define fileset"):
                    line = re.sub(r"prealloc(=\d+)?", "prealloc=0", line)
                keep.append(line.rstrip("\n"))
    return keep


def walk(top):
    dirs, files, size = 1, 0, 0
    for path, dnames, fnames in os.walk(top):
        dirs += len(dnames)
        for n in fnames:
            files += 1
            size += os.lstat(os.path.join(path, n)).st_size
    return dirs, files, size


def set_names(lines):
    return [re.search(r"name=([^,\s]+)", l).group(1) for l in lines if l.startswith("define")]


def run(argv, cwd, env=None):
    r = subprocess.run(argv, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True)
    if r.returncode != 0:
        raise RuntimeError(f"{argv[0]} exited {r.returncode}:\n{r.stdout[-2000:]}")
    return r.stdout


def one_tree(tool, args, lines, rnd, work):
    target = os.path.join(work, "target")
    shutil.rmtree(target, ignore_errors=True)
    os.mkdir(target)
    text = [re.sub(r"path=[^,\n]*", "path=" + target, l) for l in lines]
    names = set_names(lines)
    f = os.path.join(work, "w.f")
    if tool == "filebench":
        text.append("create files")
        with open(f, "w") as out:
            out.write("\n".join(text) + "\n")
        env = dict(os.environ, LD_PRELOAD=args.preload, FB_SEED=str(rnd))
        run(["setarch", "-R", args.filebench, "-f", f], work, env)
        top = target
    else:
        text += ["define process name=p,instances=1", "{", "  thread name=t,instances=1", "  {",
                 f"    flowop statfile name=stat1,filesetname={names[0]}", "  }", "}", "run 1"]
        with open(f, "w") as out:
            out.write("\n".join(text) + "\n")
        run([args.iobench, "run", "filebench", "-d", target, "file=" + f, "--keep", "-q",
             "--seed", str(rnd)], work)
        top = os.path.join(target, [e for e in os.listdir(target) if e.startswith("iobench.")][0])
    return {n: walk(os.path.join(top, n)) for n in names}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-n", type=int, default=5, dest="rounds")
    ap.add_argument("-b", default="build/ci/apps/iobench/iobench", dest="iobench")
    ap.add_argument("-f", default=os.environ.get("IOBENCH_FILEBENCH", ""), dest="filebench")
    ap.add_argument("-w", default=os.environ.get("FILEBENCH_WORKLOADS", ""), dest="workloads")
    ap.add_argument("-d", default="", dest="dir")
    ap.add_argument("-p", default=",".join(PERSONALITIES), dest="personalities")
    ap.add_argument("--dirs-only", action="store_true")
    args = ap.parse_args()
    if not args.filebench or not args.workloads:
        print("need -f FILEBENCH and -w WORKLOADS_DIR", file=sys.stderr)
        return 2
    args.iobench = os.path.realpath(args.iobench)
    work = tempfile.mkdtemp(prefix="fbstats.", dir=args.dir or "/dev/shm")
    try:
        args.preload = os.path.join(work, "drand48_seed.so")
        subprocess.run(["cc", "-shared", "-fPIC", "-o", args.preload,
                        os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                     "drand48_seed.c")], check=True)
        print(f"{'set':22} {'measure':11} {'filebench':>14} {'iobench':>14} {'diff %':>7}"
              f"  (means of {args.rounds} trees; sd of one tree in brackets)")
        for p in args.personalities.split(","):
            lines = fileset_lines(os.path.join(args.workloads, p + ".f"), args.dirs_only)
            got = {}
            for rnd in range(1, args.rounds + 1):
                for tool in ("filebench", "iobench"):
                    for name, stats in one_tree(tool, args, lines, rnd, work).items():
                        got.setdefault((name, tool), []).append(stats)
            for name in set_names(lines):
                measures = ["dirs"] if args.dirs_only else ["dirs", "files", "mean bytes",
                                                            "total bytes"]
                for i, what in enumerate(measures):
                    vals = {}
                    for tool in ("filebench", "iobench"):
                        rows = got[(name, tool)]
                        if i < 2:
                            v = [r[i] for r in rows]
                        elif i == 2:
                            v = [r[2] / r[1] if r[1] else 0 for r in rows]
                        else:
                            v = [r[2] for r in rows]
                        sd = statistics.stdev(v) if len(v) > 1 else 0
                        vals[tool] = (statistics.mean(v), sd)
                    fb, ib = vals["filebench"][0], vals["iobench"][0]
                    diff = (ib - fb) / fb * 100 if fb else 0.0
                    print(f"{p + '/' + name:22} {what:11} {fb:14.1f} {ib:14.1f} {diff:7.2f}  "
                          f"({vals['filebench'][1]:.1f} / {vals['iobench'][1]:.1f})")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
