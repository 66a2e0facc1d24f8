#!/usr/bin/env python3
"""Proof that iobench's mdtest workload rates the file system as mdtest does (issue 30).

On a tmpfs and on ext4 over a loop device, with 1 and 2 ranks (mpirun for both tools, so the 2-rank
runs go through iobench's MPI path: one mdtest rank per MPI process), runs hpc/ior's mdtest and
`iobench run mdtest` with the same tree and items, alternately (mdtest, iobench, then iobench,
mdtest, ... so a slow moment of the shared machine hits both), REPS times each, and prints per
phase the median rate (ops/s, each tool's own SUMMARY rate table) of both and iobench / mdtest.
The issue asks >= 0.95 for every phase. The tree phases make or remove a handful of directories
in well under a millisecond: their rates are dominated by the timer and scheduling of both tools
and are printed, not judged.

mdtest flags: -n ITEMS -b BRANCH -z DEPTH -u (and -F with FILES_ONLY=1, -w WRITE_BYTES,
-e READ_BYTES, -X with VERIFY=1); iobench params: items, branch, depth, unique_dir (files_only,
write_bytes, read_bytes, verify_read). Each run gets a fresh directory, removed after it.

Needs root (tmpfs and loop mounts), OpenMPI's mpirun, mkfs.ext4, a built mdtest. Usage:
  bench/mdtest_proof.py [path/to/iobench [path/to/mdtest]]
      (defaults: build/ci/apps/iobench/iobench and /work/scratch/ior/src/mdtest, or $MDTEST)
Environment: REPS (3), ITEMS (2000 per rank), BRANCH (2), DEPTH (1), FILES_ONLY (0),
  WRITE_BYTES (0), READ_BYTES (0), VERIFY (0: 1 checks the data read, mdtest -X / verify_read),
  RANKS ("1 2"), FS ("tmpfs ext4"), IMAGE_DIR (/var/tmp: where the ext4 image lives),
  FS_SIZE (8G: the tmpfs's and the ext4 image's size), IOBENCH_PARAMS (extra iobench params,
  blank-separated, e.g. "paths=dirfd" to rate iobench's lower-overhead descriptor mode).
Exit status: 0 every judged ratio >= 0.95, 1 some below, 2 setup failure.
"""

import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
IOBENCH = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
    HERE, "..", "build", "ci", "apps", "iobench", "iobench")
MDTEST = sys.argv[2] if len(sys.argv) > 2 else os.environ.get(
    "MDTEST", "/work/scratch/ior/src/mdtest")
REPS = int(os.environ.get("REPS", "3"))
ITEMS = int(os.environ.get("ITEMS", "2000"))
BRANCH = int(os.environ.get("BRANCH", "2"))
DEPTH = int(os.environ.get("DEPTH", "1"))
FILES_ONLY = os.environ.get("FILES_ONLY", "0") == "1"
WRITE_BYTES = int(os.environ.get("WRITE_BYTES", "0"))
READ_BYTES = int(os.environ.get("READ_BYTES", "0"))
VERIFY = os.environ.get("VERIFY", "0") == "1"
RANKS = [int(r) for r in os.environ.get("RANKS", "1 2").split()]
FILESYSTEMS = os.environ.get("FS", "tmpfs ext4").split()
IMAGE_DIR = os.environ.get("IMAGE_DIR", "/var/tmp")
# The tmpfs's size and the ext4 image's (sparse): mkfs.ext4 gives one inode per 16 KiB, so 1G
# held 65536 inodes, too few for 2 ranks x 50000 items of both kinds.
FS_SIZE = os.environ.get("FS_SIZE", "8G")
IOBENCH_PARAMS = os.environ.get("IOBENCH_PARAMS", "").split()
TARGET = 0.95
MPIRUN = ["mpirun", "--oversubscribe", "--allow-run-as-root", "--bind-to", "none"]

ROW = re.compile(r"^\s+([A-Za-z][A-Za-z ]*?)\s*:?\s+([0-9.]+)\s+([0-9.]+)\s+([0-9.]+)\s+([0-9.]+)\s*$")


def fail(message):
    print(f"mdtest_proof: {message}", file=sys.stderr)
    sys.exit(2)


def run(argv):
    done = subprocess.run(argv, capture_output=True, text=True)
    if done.returncode != 0:
        fail(f"{' '.join(argv)} exited {done.returncode}:\n{done.stdout}\n{done.stderr}")
    return done.stdout


def summary_rates(text):
    """Operation -> Max of the 'SUMMARY rate' table (one iteration: every column the same)."""
    rates = {}
    inside = False
    for line in text.splitlines():
        if line.startswith("SUMMARY rate"):
            inside = True
            continue
        if inside:
            if line.startswith("SUMMARY") or (line.strip() == "" and rates):
                break
            m = ROW.match(line)
            if m:
                rates[m.group(1).strip()] = float(m.group(2))
    if not rates:
        fail(f"no SUMMARY rate table in:\n{text}")
    return rates


def mdtest_run(ranks, directory):
    argv = MPIRUN + ["-n", str(ranks), MDTEST, "-n", str(ITEMS), "-b", str(BRANCH),
                     "-z", str(DEPTH), "-u", "-d", directory]
    if FILES_ONLY:
        argv.append("-F")
    argv += ["-w", str(WRITE_BYTES), "-e", str(READ_BYTES)] + (["-X"] if VERIFY else [])
    text = run(argv)
    if "ERROR: verifying" in text:  # mdtest -X's errors (it exits 0 with them)
        fail(f"mdtest's data check failed:\n{text}")
    return summary_rates(text)


def iobench_run(ranks, directory):
    argv = MPIRUN + ["-n", str(ranks), IOBENCH, "run", "mdtest", "-d", directory,
                     f"items={ITEMS}", f"branch={BRANCH}", f"depth={DEPTH}", "unique_dir=true",
                     "-q"]
    if FILES_ONLY:
        argv.append("files_only=true")
    argv += [f"write_bytes={WRITE_BYTES}", f"read_bytes={READ_BYTES}"]
    if VERIFY:
        argv.append("verify_read=true")
    argv += IOBENCH_PARAMS
    return summary_rates(run(argv))


def fresh_dir(mount, name):
    path = os.path.join(mount, name)
    if os.path.exists(path):
        shutil.rmtree(path)
    os.makedirs(path)
    return path


def measure(mount, ranks):
    """Per phase: (mdtest rates, iobench rates) over REPS alternating runs."""
    md, io = {}, {}
    for rep in range(REPS):
        order = [("mdtest", mdtest_run, md), ("iobench", iobench_run, io)]
        if rep % 2:
            order.reverse()
        for name, runner, into in order:
            directory = fresh_dir(mount, f"{name}.{rep}")
            for op, rate in runner(ranks, directory).items():
                into.setdefault(op, []).append(rate)
            shutil.rmtree(directory)
    return md, io


def mount_fs(kind, base):
    mount = os.path.join(base, kind)
    os.makedirs(mount)
    if kind == "tmpfs":
        run(["mount", "-t", "tmpfs", "-o", f"size={FS_SIZE}", "tmpfs", mount])
        return mount, None
    image = tempfile.NamedTemporaryFile(dir=IMAGE_DIR, prefix="mdtest_proof.", suffix=".img",
                                        delete=False).name
    run(["truncate", "-s", FS_SIZE, image])
    # Inode tables and journal written now, not by a kernel thread during the first runs.
    run(["mkfs.ext4", "-q", "-F", "-E", "lazy_itable_init=0,lazy_journal_init=0", image])
    run(["mount", "-o", "loop", image, mount])
    return mount, image


def load():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def main():
    for tool in (IOBENCH, MDTEST):
        if not os.access(tool, os.X_OK):
            fail(f"{tool} is not an executable (see the usage in this script's docstring)")
    if os.geteuid() != 0:
        fail("needs root (tmpfs and loop mounts)")
    print(f"load average before: {load()}; nproc {os.cpu_count()}; REPS={REPS} ITEMS={ITEMS} "
          f"per rank, -b {BRANCH} -z {DEPTH} -u{' -F' if FILES_ONLY else ''} -w {WRITE_BYTES} "
          f"-e {READ_BYTES}{' -X' if VERIFY else ''}; iobench params: {' '.join(IOBENCH_PARAMS) or '(defaults)'}")
    base = tempfile.mkdtemp(prefix="mdtest_proof.")
    missed = False
    try:
        for kind in FILESYSTEMS:
            mount, image = mount_fs(kind, base)
            try:
                for ranks in RANKS:
                    md, io = measure(mount, ranks)
                    print(f"\n{kind}, {ranks} rank(s), medians of {REPS} (load {load()}):")
                    print(f"  {'phase':<20} {'mdtest ops/s':>14} {'iobench ops/s':>14} "
                          f"{'iobench/mdtest':>15}")
                    for op in md:
                        if op not in io:
                            continue
                        a, b = statistics.median(md[op]), statistics.median(io[op])
                        ratio = b / a if a > 0 else float("nan")
                        judged = not op.startswith("Tree")
                        verdict = ("" if not judged else "ok" if ratio >= TARGET else "BELOW")
                        missed = missed or (judged and not ratio >= TARGET)
                        print(f"  {op:<20} {a:14.1f} {b:14.1f} {ratio:15.3f} {verdict}")
            finally:
                subprocess.run(["umount", mount])
                if image:
                    os.unlink(image)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    print(f"\nload average after: {load()}")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
