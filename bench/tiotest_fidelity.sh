#!/usr/bin/env bash
# Fidelity check of iobench's tiotest workload against fio running the equivalent jobs.
#
# Both tools run the same four phases on the same filesystems: THREADS threads, each with its own
# file of SIZE_MB MiB, block size BS, pread/pwrite (fio: ioengine=psync, thread=1), files sized
# with ftruncate first (fio: fallocate=truncate), fsync at the end of each phase (fio:
# end_fsync=1), no cache invalidation between phases (fio: invalidate=0), random phases of
# RANDOM_OPS ops per thread at uniform block-aligned offsets with repetition (fio: norandommap,
# io_size = RANDOM_OPS x BS). Filesystems: a tmpfs and an ext4 on a loop device (its image lives
# on a second tmpfs, so the comparison is not at the mercy of the host's disk).
#
# fio runs each time in two modes: "fio-lat" with its latency statistics, whose mean clat (from
# issuing the pread/pwrite to its completion: what tiotest and iobench time around the call) is
# the reference for the mean latency per op (bandwidth logging, slat and buffer scrambling off to
# keep fio's own cost down), and "fio-rate" with gtod_reduce=1, fio's documented low-overhead
# mode, the reference for the rate. Even so, fio spends a few tenths of a microsecond of its own
# per op, which shows at 4 KiB on a tmpfs (ops of 1-3 us); a larger BS shows the filesystem
# rather than the tools. The three runs rotate their order from one repetition to the next,
# with sync + drop_caches before every run.
#
# A fourth run, "floor", is bench/psync_floor.c: the same phases as bare pread/pwrite loops with
# no clock reads or statistics, i.e. the rate a tool without any overhead of its own would see.
# It settles which tool is closer to the truth where iobench and fio disagree.
#
# Reported per filesystem and phase: the median rate (MiB/s) of iobench, fio and the floor, the
# median of the mean latency (us) of iobench and fio, the floor's whole time per op and thread
# (us), with ratios, and then the run-to-run spread of each. A phase passes when its rate is
# within RATE_TOLERANCE (10 %) of fio's, or, where fio's own per-op cost keeps it further below
# the floor, when iobench's rate is above fio's and within RATE_TOLERANCE of the floor (on
# either side of it: the floor's own run-to-run spread on a shared machine is several percent);
# and when its mean latency is within LATENCY_TOLERANCE (15 %) of fio's mean clat, or, where
# fio's clat exceeds the floor's whole time per op (so it counts fio's own completion work, not
# only the syscall), within LATENCY_TOLERANCE of the floor's time per op. iobench times
# back-to-back ops with one clock read each, so its mean latency is close to its own time per
# op: that second latency test mostly restates the rate test; the comparison with fio's clat
# is the independent one.
#
# Needs root (mount, loop device, drop_caches), fio, python3, mkfs.ext4, cc.
# Usage: bench/tiotest_fidelity.sh [path/to/iobench]   (use a Release build)
# Environment: THREADS SIZE_MB BS RANDOM_OPS REPS RATE_TOLERANCE LATENCY_TOLERANCE KEEP_RESULTS
#   SCHED (default fifo: every run is started with `chrt -f 1`, a real-time priority above all
#   ordinary tasks, so that other work on a shared machine does not preempt the benchmark threads
#   in the middle of their syscalls; the kernel's RT throttling still leaves 5 % of each CPU to
#   others. "other" runs them as ordinary tasks at nice level NICE, default -10.) The same for
#   every tool, so the comparison stays fair.
# Exit status: 0 all within tolerance, 1 some figure outside it, 2 missing tools or setup failure.

set -euo pipefail

IOBENCH=${1:-${IOBENCH:-$(dirname "$0")/../build/release/apps/iobench/iobench}}
THREADS=${THREADS:-2}
SIZE_MB=${SIZE_MB:-512}
BS=${BS:-4096}
RANDOM_OPS=${RANDOM_OPS:-100000}
REPS=${REPS:-5}
RATE_TOLERANCE=${RATE_TOLERANCE:-0.10}
LATENCY_TOLERANCE=${LATENCY_TOLERANCE:-0.15}
SCHED=${SCHED:-fifo}
NICE=${NICE:--10}
if [[ $SCHED == fifo ]]; then
  PRIORITY=(chrt -f 1)
else
  PRIORITY=(nice -n "$NICE")
fi

die() {
  echo "tiotest_fidelity: $*" >&2
  exit 2
}
[[ $(id -u) -eq 0 ]] || die "needs root (tmpfs and loop mounts, drop_caches)"
command -v fio >/dev/null || die "fio not found"
command -v python3 >/dev/null || die "python3 not found"
command -v mkfs.ext4 >/dev/null || die "mkfs.ext4 not found"
command -v chrt >/dev/null || die "chrt not found (util-linux)"
command -v cc >/dev/null || die "cc not found (for bench/psync_floor.c)"
[[ -x $IOBENCH ]] || die "iobench binary not found at '$IOBENCH'; pass its path"

WORK=$(mktemp -d /tmp/tiotest_fidelity.XXXXXX)
DATA_MB=$((THREADS * SIZE_MB))
FS_MB=$((DATA_MB + DATA_MB / 4 + 128)) # room for the files plus ext4's metadata and journal
mkdir -p "$WORK/tmpfs" "$WORK/ext4" "$WORK/backing" "$WORK/results"
cc -O2 -pthread -o "$WORK/psync_floor" "$(dirname "$0")/psync_floor.c" || die "cannot build psync_floor"

cleanup() {
  set +e
  mountpoint -q "$WORK/ext4" && umount "$WORK/ext4"
  mountpoint -q "$WORK/backing" && umount "$WORK/backing"
  mountpoint -q "$WORK/tmpfs" && umount "$WORK/tmpfs"
  if [[ -n ${KEEP_RESULTS:-} ]]; then
    echo "results kept in $WORK/results" >&2
  else
    rm -rf "$WORK"
  fi
}
trap cleanup EXIT

mount -t tmpfs -o "size=${FS_MB}m" tmpfs "$WORK/tmpfs"
mount -t tmpfs -o "size=$((FS_MB + 64))m" tmpfs "$WORK/backing"
truncate -s "${FS_MB}M" "$WORK/backing/ext4.img"
mkfs.ext4 -q -F "$WORK/backing/ext4.img"
mount -o loop "$WORK/backing/ext4.img" "$WORK/ext4"

drop_caches() {
  sync
  echo 3 >/proc/sys/vm/drop_caches
}

run_iobench() { # dir out.json
  "${PRIORITY[@]}" "$IOBENCH" run tiotest -d "$1" "threads=$THREADS" "size=${SIZE_MB}m" \
    "block_size=$BS" "random_ops=$RANDOM_OPS" --seed 1 -q -f json -o "$2" >/dev/null
}

run_fio() { # mode dir out.json
  local job="$WORK/tiotest.fio" tuning
  if [[ $1 == rate ]]; then
    tuning="gtod_reduce=1"
  else
    tuning=$'disable_slat=1\ndisable_bw_measurement=1'
  fi
  cat >"$job" <<JOB
[global]
ioengine=psync
thread=1
bs=$BS
size=${SIZE_MB}m
numjobs=$THREADS
directory=$2
filename_format=tiotest.\$jobnum
fallocate=truncate
invalidate=0
end_fsync=1
norandommap=1
randrepeat=0
scramble_buffers=0
group_reporting=1
$tuning

[write]
rw=write

[random_write]
stonewall
rw=randwrite
io_size=$((RANDOM_OPS * BS))

[read]
stonewall
rw=read

[random_read]
stonewall
rw=randread
io_size=$((RANDOM_OPS * BS))
JOB
  "${PRIORITY[@]}" fio --output-format=json --output="$3" "$job" >/dev/null
  rm -f "$2"/tiotest.*
}

run_floor() { # dir out.txt
  "${PRIORITY[@]}" "$WORK/psync_floor" "$1" "$THREADS" $((SIZE_MB << 20)) "$BS" "$RANDOM_OPS" >"$2"
}

run_tool() { # tool dir out.json
  case $1 in
    floor) run_floor "$2" "$3" ;;
    iobench) run_iobench "$2" "$3" ;;
    fio-lat) run_fio latency "$2" "$3" ;;
    fio-rate) run_fio rate "$2" "$3" ;;
  esac
}

echo "tiotest fidelity: $THREADS threads x $SIZE_MB MiB, bs $BS, $RANDOM_OPS random ops per" \
  "thread, $REPS repetitions per tool and filesystem, run as: ${PRIORITY[*]}" >&2
tools=(iobench fio-lat fio-rate floor)
for fs in tmpfs ext4; do
  for rep in $(seq 1 "$REPS"); do
    for k in 0 1 2 3; do
      tool=${tools[$(((rep - 1 + k) % 4))]}
      drop_caches
      echo "  $fs run $rep: $tool" >&2
      run_tool "$tool" "$WORK/$fs" "$WORK/results/$tool.$fs.$rep.out"
    done
  done
done

python3 - "$WORK/results" "$REPS" "$RATE_TOLERANCE" "$LATENCY_TOLERANCE" \
  "$THREADS" "$SIZE_MB" "$BS" "$RANDOM_OPS" <<'SUMMARY'
import json
import statistics
import sys

results, reps = sys.argv[1], int(sys.argv[2])
rate_tol, lat_tol = float(sys.argv[3]), float(sys.argv[4])
threads, size_mb, bs, random_ops = (int(a) for a in sys.argv[5:9])
phases = [("Write", "write", "write"), ("Random Write", "random_write", "write"),
          ("Read", "read", "read"), ("Random Read", "random_read", "read")]
expected = {"Write": threads * size_mb * 2**20, "Read": threads * size_mb * 2**20,
            "Random Write": threads * random_ops * bs, "Random Read": threads * random_ops * bs}


def iobench_figures(path):
    step = json.load(open(path))["steps"][0]
    out = {}
    for p in step["phases"]:
        op = p["ops_by_kind"]["write" if "Write" in p["name"] else "read"]
        assert op["bytes"] == expected[p["name"]], (path, p["name"], op["bytes"])
        out[p["name"]] = (op["bytes"] / 2**20 / (p["wall_ns"] / 1e9),
                          op["latency_ns"]["mean"] / 1e3)
    return out


def fio_figures(path):
    doc = json.load(open(path))
    out = {}
    for name, job, direction in phases:
        j = next(j for j in doc["jobs"] if j["jobname"] == job)[direction]
        assert j["io_bytes"] == expected[name], (path, name, j["io_bytes"])
        out[name] = (j["bw_bytes"] / 2**20, j["clat_ns"]["mean"] / 1e3)
    return out


def floor_figures(path):
    out = {}
    names = {job: name for name, job, _ in phases}
    for line in open(path):
        job, nbytes, seconds = line.split()
        assert int(nbytes) == expected[names[job]], (path, job, nbytes)
        out[names[job]] = (int(nbytes) / 2**20 / float(seconds), 0.0)
    return out


ok = True
spread_rows = []
print(f"{'filesystem':<10} {'phase':<13} {'iobench':>8} {'fio':>8} {'floor':>8} {'io/fio':>6}"
      f" {'io/floor':>8} {'fio/floor':>9} {'iobench us':>10} {'fio us':>7} {'floor us':>8}"
      f" {'ratio':>6}  verdict")
for fs in ("tmpfs", "ext4"):
    runs = {tool: [f(f"{results}/{tool}.{fs}.{r}.out") for r in range(1, reps + 1)]
            for tool, f in (("iobench", iobench_figures), ("fio-lat", fio_figures),
                            ("fio-rate", fio_figures), ("floor", floor_figures))}
    for name, _, _ in phases:
        rate = {t: statistics.median(r[name][0] for r in runs[t])
                for t in ("iobench", "fio-rate", "floor")}
        lat = {t: statistics.median(r[name][1] for r in runs[t]) for t in ("iobench", "fio-lat")}
        rate_ratio = rate["iobench"] / rate["fio-rate"]
        floor_ratio = rate["iobench"] / rate["floor"]
        fio_floor_ratio = rate["fio-rate"] / rate["floor"]
        lat_ratio = lat["iobench"] / lat["fio-lat"]
        # The floor's whole time per op and thread (syscall + bare loop): no tool's latency of
        # the syscall alone can exceed it by much.
        floor_us = bs / (rate["floor"] * 2**20 / threads) * 1e6
        near_fio = abs(rate_ratio - 1) <= rate_tol
        # fio's own cost per op lowers its rate; nearer the floor than fio is nearer the truth.
        near_floor = rate["fio-rate"] < rate["iobench"] and abs(floor_ratio - 1) <= rate_tol
        lat_near_fio = abs(lat_ratio - 1) <= lat_tol
        # A fio clat above the floor's whole time per op counts more than the syscall (fio's
        # completion bookkeeping); then the floor's time per op is the reference.
        lat_near_floor = lat["fio-lat"] > floor_us and abs(lat["iobench"] / floor_us - 1) <= lat_tol
        good = (near_fio or near_floor) and (lat_near_fio or lat_near_floor)
        verdict = ("ok" if near_fio and lat_near_fio else "ok (floor)" if good else "OUTSIDE")
        ok = ok and good
        spread = lambda t, i: (min(r[name][i] for r in runs[t]), max(r[name][i] for r in runs[t]))
        spread_rows.append((fs, name, spread("iobench", 0), spread("fio-rate", 0),
                            spread("floor", 0), spread("iobench", 1), spread("fio-lat", 1)))
        print(f"{fs:<10} {name:<13} {rate['iobench']:>8.1f} {rate['fio-rate']:>8.1f}"
              f" {rate['floor']:>8.1f} {rate_ratio:>6.3f} {floor_ratio:>8.3f}"
              f" {fio_floor_ratio:>9.3f} {lat['iobench']:>10.2f} {lat['fio-lat']:>7.2f}"
              f" {floor_us:>8.2f} {lat_ratio:>6.3f}  {verdict}")
print(f"\nrun-to-run spread over the {reps} repetitions (min-max): rate MiB/s, mean latency us")
print(f"{'filesystem':<10} {'phase':<13} {'iobench rate':>17} {'fio rate':>17} {'floor rate':>17}"
      f" {'iobench us':>15} {'fio us':>15}")
for fs, name, io_rate, fio_rate, floor_rate, io_lat, fio_lat in spread_rows:
    cell = lambda lo_hi, digits: f"{lo_hi[0]:.{digits}f}-{lo_hi[1]:.{digits}f}"
    print(f"{fs:<10} {name:<13} {cell(io_rate, 0):>17} {cell(fio_rate, 0):>17}"
          f" {cell(floor_rate, 0):>17} {cell(io_lat, 2):>15} {cell(fio_lat, 2):>15}")
print(f"rates in MiB/s; tolerances: rate {rate_tol:.0%} (of fio, or of the floor when nearer it"
      f" than fio), mean latency {lat_tol:.0%}; {'all within' if ok else 'some figures outside'}")
sys.exit(0 if ok else 1)
SUMMARY
