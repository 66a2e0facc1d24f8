#!/usr/bin/env python3
"""Proof that iobench's io500 workload scores the file system as IO500 does (issue 30).

On a tmpfs and on ext4 over a loop device, with 1 and 2 ranks (mpirun for both tools: one IO500
rank per MPI process, so the 2-rank runs go through iobench's MPI path), runs IO500 built from
source (its `io500` binary with a generated .ini) and `iobench run io500` with the same sizes and
stonewall, alternately (io500, iobench, then iobench, io500, ... so a slow moment of the shared
machine hits both), REPS times each, and prints per phase the median of each tool's own
`[RESULT]` figure (GiB/s or kIOPS), the ratio iobench / io500, the same for the `[SCORE ]` line's
bandwidth, IOPS and TOTAL, and find's match counts (io500: `found` in its result.txt; iobench:
the find phase's `matched` counter). Ratios are printed, not judged: at io500-quick sizes the
write phases end before the stonewall and last milliseconds, so the figures say whether the two
agree in kind, not to a few percent; give larger sizes (below) for a judged comparison.

Sizes (the io500-quick suite's by default) map one to one:
  IOR_EASY_SIZE  -> [ior-easy] blockSize (per rank; transferSize 2m)   / ior_easy_size
  IOR_HARD_SEGS  -> [ior-hard] segmentCount                          / ior_hard_segments
  MD_EASY_ITEMS  -> [mdtest-easy] n                                  / mdtest_easy_items
  MD_HARD_ITEMS  -> [mdtest-hard] n                                  / mdtest_hard_items
  STONEWALL (s)  -> [debug] stonewall-time                           / stonewall
The script syncs and drops the page cache before every run of either tool (settle()). Without
CACHE_PROOF the tools drop none themselves (io500 drop-caches FALSE, iobench cache_proof off);
with CACHE_PROOF=1 io500 drops the page cache (no sync) before every phase, iobench syncs and
drops it before every read, stat, delete and find phase: both write phases end clean (ior's fsync at
close, mdtest's sync), so the write phases start alike. With CACHE_PROOF=checkpoint each drop
(io500's drop-caches-cmd, iobench's cache_proof) and settle() is preceded by a freeze and thaw of
the file system (fsfreeze -f, -u; iobench's checkpoint=true, before every phase as io500's
command runs): ext4 writes its journal's blocks home, so the drop also frees the metadata the
journal held and the cold stat phases start alike whenever the journal last checkpointed.

Building IO500 (never inside the iobench repository): it needs hpc/ior at the commit its
prepare.sh pins (IOR_HASH 5fcf0ba995f) built with mpicc, and VI4IO/pfind (PFIND_HASH 2742734),
whose headers and pfind.a IO500's find phase is compiled against (it has no find of its own
without pfind: an external find script replaces pfind only at run time). Offline:
  git clone <IO500 mirror> /work/scratch/io500 && cd /work/scratch/io500
  mkdir -p build && ln -s /work/scratch/ior build/ior     # ior built: src/libaiori.a, build.conf
  git clone <pfind> build/pfind && (cd build/pfind && ./prepare.sh && ./compile.sh)
  make                                                   # -> ./io500
(prepare.sh itself clones from GitHub and re-runs ior's bootstrap/configure: not offline.)

Needs root (tmpfs and loop mounts), OpenMPI's mpirun, mkfs.ext4. Usage:
  bench/io500_proof.py [path/to/iobench [path/to/io500]]
      (defaults: build/ci/apps/iobench/iobench and /work/scratch/io500/io500, or $IO500)
Environment: REPS (3), RANKS ("1 2"), FS ("tmpfs ext4"), IMAGE_DIR (/var/tmp), FS_SIZE (2G),
  IOR_EASY_SIZE (8m), IOR_HARD_SEGS (64), MD_EASY_ITEMS (200), MD_HARD_ITEMS (200), STONEWALL (1),
  CACHE_PROOF (0; 1: both tools drop the page cache before their read phases; checkpoint: also
  freeze and thaw the file system before every phase, so the drops free what the journal held),
  THROTTLE_MBPS (0; N: ext4's loop device capped at N MB/s each way, so the device sets the
  pace: needs cgroup v1's blkio controller with this script in its root group, checked before
  anything is mounted).
  IOBENCH_PARAMS (extra iobench params, blank-separated, e.g. "paths=dirfd"), PER_RUN (0; 1:
  every run's figure too).
Exit status: 0 both tools ran every configuration, 2 setup failure or a run that failed.
"""

import json
import os
import re
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
IOBENCH = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
    HERE, "..", "build", "ci", "apps", "iobench", "iobench")
IO500 = sys.argv[2] if len(sys.argv) > 2 else os.environ.get(
    "IO500", "/work/scratch/io500/io500")
REPS = int(os.environ.get("REPS", "3"))
RANKS = [int(r) for r in os.environ.get("RANKS", "1 2").split()]
FILESYSTEMS = os.environ.get("FS", "tmpfs ext4").split()
IMAGE_DIR = os.environ.get("IMAGE_DIR", "/var/tmp")
FS_SIZE = os.environ.get("FS_SIZE", "2G")
IOR_EASY_SIZE = os.environ.get("IOR_EASY_SIZE", "8m")
IOR_HARD_SEGS = int(os.environ.get("IOR_HARD_SEGS", "64"))
MD_EASY_ITEMS = int(os.environ.get("MD_EASY_ITEMS", "200"))
MD_HARD_ITEMS = int(os.environ.get("MD_HARD_ITEMS", "200"))
STONEWALL = int(os.environ.get("STONEWALL", "1"))
# CACHE_PROOF=1: io500 drops the page cache before every phase (drop-caches TRUE), iobench before
# every read, stat, delete and find phase (cache_proof=true): the read phases then read the device.
# CACHE_PROOF=checkpoint: as 1, and the file system frozen and thawed before every phase of both
# tools and before every run (settle()), so the drops also free what ext4's journal held.
CACHE_PROOF_MODE = os.environ.get("CACHE_PROOF", "0")
if CACHE_PROOF_MODE not in ("0", "1", "checkpoint"):
    print(f"io500_proof: CACHE_PROOF={CACHE_PROOF_MODE}: give 0, 1 or checkpoint", file=sys.stderr)
    sys.exit(2)
CACHE_PROOF = CACHE_PROOF_MODE != "0"
CHECKPOINT = CACHE_PROOF_MODE == "checkpoint"
# The mount point of the file system under test (measure() sets it): what the freezes freeze;
# SCRATCH (main() sets it): a directory off it, for io500's drop script and its lock.
MOUNT = None
SCRATCH = None
# THROTTLE_MBPS=N (ext4 only): the loop device's reads and writes are capped at N * 10^6 bytes/s
# (cgroup v1 blkio.throttle.*_bps_device of the root group, which also holds the writeback
# threads), so that the device, not the tools' CPU, sets the pace, as on the list's systems.
THROTTLE_MBPS = int(os.environ.get("THROTTLE_MBPS", "0"))
# PER_RUN=1: each run's figure too, in run order, after the medians.
PER_RUN = os.environ.get("PER_RUN", "0") == "1"
# Extra iobench params, blank-separated (e.g. "paths=dirfd": iobench's lower-overhead naming).
IOBENCH_PARAMS = os.environ.get("IOBENCH_PARAMS", "").split()
THROTTLE_DIR = "/sys/fs/cgroup/blkio"
MPIRUN = ["mpirun", "--oversubscribe", "--allow-run-as-root", "--bind-to", "none"]

# IO500's and iobench's own lines (iobench prints IO500's format).
RESULT = re.compile(r"^\[RESULT\]\s+(\S+)\s+([0-9.]+)\s+(GiB/s|kIOPS)\s+:\s+time\s+([0-9.]+)")
SCORE = re.compile(r"^\[SCORE \]\s+Bandwidth\s+([0-9.]+)\s+GiB/s\s+:\s+IOPS\s+([0-9.]+)\s+kiops"
                   r"\s+:\s+TOTAL\s+([0-9.]+)")
FOUND = re.compile(r"^found\s+=\s+([0-9]+)", re.MULTILINE)


def fail(message):
    print(f"io500_proof: {message}", file=sys.stderr)
    sys.exit(2)


def run(argv, cwd=None):
    done = subprocess.run(argv, capture_output=True, text=True, cwd=cwd)
    if done.returncode != 0:
        fail(f"{' '.join(argv)} exited {done.returncode}:\n{done.stdout}\n{done.stderr}")
    return done.stdout


def figures(text):
    """phase -> figure of the [RESULT] lines, plus 'score:bw', 'score:md', 'score:total'."""
    out = {}
    for line in text.splitlines():
        m = RESULT.match(line)
        if m:
            out[m.group(1)] = float(m.group(2))
            continue
        m = SCORE.match(line)
        if m:
            out["score:bw"], out["score:md"], out["score:total"] = (
                float(m.group(1)), float(m.group(2)), float(m.group(3)))
    if "score:total" not in out:
        fail(f"no [SCORE ] line in:\n{text}")
    return out


def drop_command():
    """io500's drop-caches-cmd: the drop, after a checkpoint with CACHE_PROOF=checkpoint (one
    rank's freeze at a time: every rank runs the command; a file system that cannot be frozen,
    tmpfs, just drops). A script, since the .ini's values end at a ';'; it and its lock live in
    SCRATCH, off the file system it freezes."""
    if not CHECKPOINT:
        return "echo 3 > /proc/sys/vm/drop_caches"
    script = os.path.join(SCRATCH, "drop.sh")
    mount = shlex.quote(MOUNT)
    with open(script, "w") as f:
        f.write(f"""#!/bin/sh
flock {shlex.quote(os.path.join(SCRATCH, "drop.lock"))} sh -c 'sync; fsfreeze -f {mount} && fsfreeze -u {mount}' 2>/dev/null
echo 3 > /proc/sys/vm/drop_caches
""")
    os.chmod(script, 0o755)
    return script


def checkpoint_now():
    """Freezes and thaws MOUNT (CACHE_PROOF=checkpoint), with this script's signals blocked
    between so that its SIGTERM/SIGHUP exit cannot leave the file system frozen; tmpfs refuses the
    freeze (nothing to thaw). A failed thaw of a frozen file system ends the proof."""
    signals = {signal.SIGTERM, signal.SIGHUP, signal.SIGINT}
    old = signal.pthread_sigmask(signal.SIG_BLOCK, signals)
    try:
        if subprocess.run(["fsfreeze", "-f", MOUNT], capture_output=True).returncode == 0:
            thaw = subprocess.run(["fsfreeze", "-u", MOUNT], capture_output=True, text=True)
            if thaw.returncode != 0:
                fail(f"fsfreeze -u {MOUNT} failed, the file system may be frozen: {thaw.stderr}")
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def io500_run(ranks, directory):
    ini = os.path.join(directory, "config.ini")
    with open(ini, "w") as f:
        f.write(f"""[global]
datadir = {directory}/datafiles
timestamp-datadir = FALSE
resultdir = {directory}/results
timestamp-resultdir = FALSE
drop-caches = {"TRUE" if CACHE_PROOF else "FALSE"}
drop-caches-cmd = {drop_command()}

[debug]
stonewall-time = {STONEWALL}

[ior-easy]
transferSize = 2m
blockSize = {IOR_EASY_SIZE}

[mdtest-easy]
n = {MD_EASY_ITEMS}

[ior-hard]
segmentCount = {IOR_HARD_SEGS}

[mdtest-hard]
n = {MD_HARD_ITEMS}
""")
    out = figures(run(MPIRUN + ["-n", str(ranks), IO500, ini], cwd=directory))
    with open(os.path.join(directory, "results", "result.txt")) as f:
        text = f.read()
    find = text[text.find("\n[find]"):]
    m = FOUND.search(find)
    out["find:matched"] = float(m.group(1)) if m else float("nan")
    return out


def iobench_run(ranks, directory):
    target = os.path.join(directory, "target")
    os.makedirs(target)
    doc = os.path.join(directory, "out.json")
    out = figures(run(MPIRUN + [
        "-n", str(ranks), IOBENCH, "run", "io500", "-d", target, "ranks=1",
        f"stonewall={STONEWALL}s", f"ior_easy_size={IOR_EASY_SIZE}",
        f"ior_hard_segments={IOR_HARD_SEGS}", f"mdtest_easy_items={MD_EASY_ITEMS}",
        f"mdtest_hard_items={MD_HARD_ITEMS}", f"cache_proof={str(CACHE_PROOF).lower()}",
        f"checkpoint={str(CHECKPOINT).lower()}", "-q", "-f", "json", "-o", doc] + IOBENCH_PARAMS))
    with open(doc) as f:
        step = json.load(f)["steps"][0]
    out["find:matched"] = float("nan")
    for phase in step["phases"]:
        if phase["name"] == "find":
            out["find:matched"] = float(phase["counters"]["matched"])
    return out


def fresh_dir(mount, name):
    path = os.path.join(mount, name)
    if os.path.exists(path):
        shutil.rmtree(path)
    os.makedirs(path)
    return path


def settle():
    """Every run starts from the same state: the previous run's removals and dirty pages written
    back (on ext4 a write phase would otherwise pay for them or not, depending on the order:
    ior-easy-write swung 0.46-2.9 x between the tools without it), and the page cache empty;
    with CACHE_PROOF=checkpoint the journal's blocks home first (tmpfs cannot be frozen)."""
    os.sync()
    if CHECKPOINT:
        checkpoint_now()
    with open("/proc/sys/vm/drop_caches", "w") as f:
        f.write("3\n")


def measure(mount, ranks):
    """Per figure: (io500 values, iobench values) over REPS alternating runs."""
    global MOUNT
    MOUNT = mount
    ref, io = {}, {}
    for rep in range(REPS):
        order = [("io500", io500_run, ref), ("iobench", iobench_run, io)]
        if rep % 2:
            order.reverse()
        for name, runner, into in order:
            directory = fresh_dir(mount, f"{name}.{rep}")
            settle()
            for key, value in runner(ranks, directory).items():
                into.setdefault(key, []).append(value)
            shutil.rmtree(directory)
    return ref, io


def mount_fs(kind, base):
    mount = os.path.join(base, kind)
    os.makedirs(mount)
    if kind == "tmpfs":
        run(["mount", "-t", "tmpfs", "-o", f"size={FS_SIZE}", "tmpfs", mount])
        return mount, None
    image = tempfile.NamedTemporaryFile(dir=IMAGE_DIR, prefix="io500_proof.", suffix=".img",
                                        delete=False).name
    run(["truncate", "-s", FS_SIZE, image])
    # Inode tables and journal written now, not by a kernel thread during the first runs.
    run(["mkfs.ext4", "-q", "-F", "-E", "lazy_itable_init=0,lazy_journal_init=0", image])
    run(["mount", "-o", "loop", image, mount])
    return mount, image


def loop_devno(mount):
    source = run(["findmnt", "-n", "-o", "SOURCE", mount]).strip()
    rdev = os.stat(source).st_rdev
    return f"{os.major(rdev)}:{os.minor(rdev)}"


def throttle_files():
    return [os.path.join(THROTTLE_DIR, f"blkio.throttle.{kind}_bps_device")
            for kind in ("read", "write")]


def check_throttle():
    """THROTTLE_MBPS's needs, before anything is mounted: cgroup v1's throttle files, and this
    process in the blkio root group (v1 limits are not hierarchical: a rule in the root group
    caps only the tasks in it, here the tools and the writeback threads)."""
    for path in throttle_files():
        if not os.access(path, os.W_OK):
            fail(f"THROTTLE_MBPS needs cgroup v1's {path}")
    with open("/proc/self/cgroup") as f:
        groups = [line.strip().split(":", 2) for line in f]
    blkio = [g[2] for g in groups if len(g) == 3 and "blkio" in g[1].split(",")]
    if blkio != ["/"]:
        fail(f"THROTTLE_MBPS: this process is in blkio cgroup {blkio}, not the root group, "
             "whose rules would not cap it")


def throttle(devno, bytes_per_s):
    """Caps the reads and writes of block device `devno` ("major:minor"); 0 removes the caps.
    Removal goes on past a failure, so that no cap is left behind."""
    errors = []
    for path in throttle_files():
        try:
            with open(path, "w") as f:
                f.write(f"{devno} {bytes_per_s}\n")
        except OSError as e:
            errors.append(f"{path}: {e}")
            if bytes_per_s:
                break
    if errors:
        fail(f"cannot {'set' if bytes_per_s else 'remove'} the cap of {devno}: {'; '.join(errors)}")


def load():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def report(kind, ranks, ref, io):
    print(f"\n{kind}, {ranks} rank(s), medians of {REPS} (load {load()}):")
    print(f"  {'figure':<20} {'io500':>12} {'iobench':>12} {'iobench/io500':>14}")
    for key in ref:
        if key not in io:
            print(f"  {key:<20} {statistics.median(ref[key]):12.4f} {'-':>12}")
            continue
        a, b = statistics.median(ref[key]), statistics.median(io[key])
        ratio = b / a if a > 0 else float("nan")
        counts = key == "find:matched"
        if counts:  # each run's own count, not a rate: every run's, in order
            print(f"  {key:<20} {' '.join(f'{v:.0f}' for v in ref[key]):>12} "
                  f"{' '.join(f'{v:.0f}' for v in io[key]):>12} {ratio:14.3f}")
        else:
            print(f"  {key:<20} {a:12.4f} {b:12.4f} {ratio:14.3f}"
                  + (f"   io500 {' '.join(f'{v:.4g}' for v in ref[key])} | iobench "
                     f"{' '.join(f'{v:.4g}' for v in io[key])}" if PER_RUN else ""))


def main():
    for tool in (IOBENCH, IO500):
        if not os.access(tool, os.X_OK):
            fail(f"{tool} is not an executable (see the usage in this script's docstring)")
    if os.geteuid() != 0:
        fail("needs root (tmpfs and loop mounts)")
    if THROTTLE_MBPS:
        check_throttle()
    # SIGTERM and SIGHUP unwind as an exit does: the finally blocks unmount and lift the cap.
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda signum, frame: sys.exit(128 + signum))
    print(f"cache_proof {'on' if CACHE_PROOF else 'off'}"
          f"{' with a checkpoint (freeze, thaw) before every phase' if CHECKPOINT else ''}; "
          f"ext4's loop device "
          f"{f'capped at {THROTTLE_MBPS} MB/s' if THROTTLE_MBPS else 'not throttled'}")
    print(f"load average before: {load()}; nproc {os.cpu_count()}; REPS={REPS}; stonewall "
          f"{STONEWALL} s; per rank: ior-easy {IOR_EASY_SIZE}, ior-hard {IOR_HARD_SEGS} segments, "
          f"mdtest-easy {MD_EASY_ITEMS}, mdtest-hard {MD_HARD_ITEMS} items")
    base = tempfile.mkdtemp(prefix="io500_proof.")
    global SCRATCH
    SCRATCH = base
    try:
        for kind in FILESYSTEMS:
            mount, image = mount_fs(kind, base)
            capped = None
            try:
                if image and THROTTLE_MBPS:
                    capped = loop_devno(mount)
                    throttle(capped, THROTTLE_MBPS * 1000000)
                for ranks in RANKS:
                    report(kind, ranks, *measure(mount, ranks))
            finally:
                try:
                    if capped:
                        throttle(capped, 0)
                finally:
                    # A freeze a killed io500 rank left (its drop script) must not outlive the
                    # mount: a frozen file system's loop device would stay busy, unthawable.
                    subprocess.run(["fsfreeze", "-u", mount], capture_output=True)
                    subprocess.run(["umount", mount])
                if image:
                    os.unlink(image)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    print(f"\nload average after: {load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
