#!/usr/bin/env bash
# Where the latency search and the curve end against a known IOPS ceiling (issue 32, "Curves and
# the latency knee"): a loop device whose reads a blkio cgroup throttles to CEILING read IOPS
# (cgroup v1 blkio.throttle.read_iops_device, else cgroup v2 io.max riops), read with O_DIRECT
# 4 KiB random reads through libaio at iodepth 8. Each run is one disk step: the closed-loop
# phase, the curve's 100 % point, then the search for latency_target=p90:50ms at 1 % precision
# (up to 125 % of the closed-loop figure, no confirmation runs). Prints, per run, where the
# search ended and the curve's 100 % point, as % of the ceiling, and every probe.
#
# Needs root, loop devices and python3. The loop device's reads come from its backing file's
# page cache, so the throttle is the bottleneck. A loaded machine delays the open loop's
# issues and the throttle's dispatch: the runs then say so in the late column (reads issued
# over 1 ms late in the first probe).
#
# Usage: bench/knee_proof.sh IOBENCH [RUNS] [PHASE]   (defaults: 3 runs, 2s phases)
# Env: CEILING (400), TARGET (p90:50ms), PRECISION (1), RAMP (500ms).
set -euo pipefail

IOBENCH=${1:?usage: bench/knee_proof.sh IOBENCH [RUNS] [PHASE]}
RUNS=${2:-3}
PHASE=${3:-2s}
CEILING=${CEILING:-400}
TARGET=${TARGET:-p90:50ms}
PRECISION=${PRECISION:-1}
RAMP=${RAMP:-500ms}
IOBENCH=$(readlink -f "$IOBENCH")

WORK=$(mktemp -d /tmp/knee-proof.XXXXXX)
LOOP=""
GROUP=""
cleanup() {
  if [ -n "$GROUP" ] && [ -d "$GROUP" ]; then rmdir "$GROUP" 2>/dev/null || true; fi
  if [ -n "$LOOP" ]; then losetup -d "$LOOP" 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT

# A 16 MiB backing file, in the page cache (written, not sparse).
dd if=/dev/urandom of="$WORK/backing" bs=1M count=16 status=none
LOOP=$(losetup --find --show "$WORK/backing")
DEVNO=$(lsblk -dno MAJ:MIN "$LOOP" | tr -d ' ')

if [ -w /sys/fs/cgroup/blkio/blkio.throttle.read_iops_device ]; then
  GROUP=/sys/fs/cgroup/blkio/iobench-knee-proof-$$
  mkdir "$GROUP"
  echo "$DEVNO $CEILING" > "$GROUP/blkio.throttle.read_iops_device"
elif grep -qw io /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then
  echo +io > /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null || true
  GROUP=/sys/fs/cgroup/iobench-knee-proof-$$
  mkdir "$GROUP"
  echo "$DEVNO riops=$CEILING" > "$GROUP/io.max"
else
  echo "knee_proof: no blkio (cgroup v1) or io (cgroup v2) controller to throttle with" >&2
  exit 2
fi

echo "loop device $LOOP ($DEVNO) throttled to $CEILING read IOPS in $GROUP"
echo "O_DIRECT 4 KiB random reads, libaio iodepth 8, $PHASE phases, latency_target=$TARGET," \
  "latency_precision=$PRECISION, latency_ramp=$RAMP; load: $(cut -d' ' -f1-3 /proc/loadavg)"
for run in $(seq 1 "$RUNS"); do
  # The shell moves itself into the group, then becomes iobench: every thread is throttled.
  sh -c 'echo $$ > "$1/cgroup.procs" && shift && exec "$@"' sh "$GROUP" \
    "$IOBENCH" run disk -d "$LOOP" operation=read mode=direct bs=4k size=8m seek=random \
    random_order=uniform time_based=true engine=libaio iodepth=8 curve=100 \
    latency_target="$TARGET" latency_precision="$PRECISION" latency_search_max=125 \
    latency_confirm=0 latency_ramp="$RAMP" --time "$PHASE" --warmup 200ms --format json -q \
    > "$WORK/run$run.json"
  python3 - "$WORK/run$run.json" "$CEILING" "$run" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
ceiling = float(sys.argv[2])
step = doc["steps"][0]
a = step["attributes"]
phases = step["phases"]
probe1 = next(p for p in phases if p["name"].endswith("probe 1"))
late = probe1.get("pacing", {}).get("late_ops", 0)
reads = probe1.get("ops", 0)
pct = lambda v: 100.0 * v / ceiling
print(f"run {sys.argv[3]}: search ended at {a['latency_search.result_iops']:.1f} IOPS "
      f"({pct(a['latency_search.result_iops']):.1f} %), first failing "
      f"{a['latency_search.upper_iops']:.1f} ({pct(a['latency_search.upper_iops']):.1f} %); "
      f"closed loop {a['curve.max_iops']:.1f} ({pct(a['curve.max_iops']):.1f} %); "
      f"curve 100 % point {a['curve.100%.iops']:.1f} ({pct(a['curve.100%.iops']):.1f} %); "
      f"late issues in probe 1: {late} of {reads}")
n = 1
while f"latency_search.probe.{n}.result" in a:
    k = f"latency_search.probe.{n}."
    print(f"  probe {n}: rate {a[k + 'rate_iops']:.1f} ({pct(a[k + 'rate_iops']):.1f} %) "
          f"iops {a[k + 'iops']:.1f} p {a[k + 'percentile_ns'] / 1e6:.2f} ms "
          f"growth {a[k + 'growth_ns'] / 1e6:.1f} ms {a[k + 'result']} "
          f"{a.get(k + 'failed', '')}")
    n += 1
PY
done
