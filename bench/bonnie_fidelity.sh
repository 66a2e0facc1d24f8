#!/usr/bin/env bash
# Fidelity of iobench's bonnie workload against Debian's bonnie++ 2.00a.
#
# Runs bonnie++ and `iobench run bonnie` with the same size, chunk, file shape and seed on a fresh
# tmpfs and on a loop-mounted ext4 (its image lives on a tmpfs too, so no disk noise enters),
# alternating the tools (and which goes first) RUNS times per filesystem, then prints per phase
# the median rate and CPU % of each tool over the runs and the ratio iobench / bonnie++: the
# geometric mean of the per-run ratios (each run's two measurements are back to back, so slow
# drifts of the machine's load cancel, and with an even RUNS each tool goes first equally often,
# so an advantage of going first cancels too), and the same per CPU-second (rate / CPU %), which
# also cancels a different share of the CPUs on a busy machine. Phases under 0.5 s print "+++++"
# and have no ratio.
#
# Needs root (mount, losetup) and bonnie++. Usage:
#   sudo bench/bonnie_fidelity.sh [path/to/iobench]
# Environment: SIZE (MiB[:chunk], default 1536), FILES (bonnie++ -n, default 256), RAM (MiB for
# the 2x RAM rule, default SIZE/2), RUNS (default 4), SEED (default 42), KEEP_CSV=dir to keep the
# raw CSV lines, FS="tmpfs ext4" to choose the filesystems, NICE (default -10: both tools run at
# this priority so that other load on a shared machine disturbs them less).
set -euo pipefail

IOBENCH=${1:-$(dirname "$0")/../build/bonnie-release/apps/iobench/iobench}
SIZE=${SIZE:-2048}
FILES=${FILES:-256}
RAM=${RAM:-$(( ${SIZE%%:*} / 2 ))}
RUNS=${RUNS:-4}
SEED=${SEED:-42}
FS=${FS:-"tmpfs ext4"}
NICE=${NICE:--10}

die() { echo "bonnie_fidelity: $*" >&2; exit 2; }
[[ $(id -u) -eq 0 ]] || die "must run as root (mount, losetup)"
command -v bonnie++ >/dev/null || die "bonnie++ is not installed (apt-get install bonnie++)"
[[ -x $IOBENCH ]] || die "no iobench binary at $IOBENCH (build it, or give its path)"

WORK=$(mktemp -d /tmp/bonnie_fidelity.XXXXXX)
MOUNTS=()
LOOP=""
cleanup() {
  set +e
  for ((i = ${#MOUNTS[@]} - 1; i >= 0; i--)); do umount "${MOUNTS[i]}"; done
  [[ -n $LOOP ]] && losetup -d "$LOOP"
  umount "$WORK/image_fs" 2>/dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT

size_mib=${SIZE%%:*}
fs_mib=$(( size_mib + size_mib / 2 + 1024 ))

setup_fs() {  # $1 = tmpfs | ext4; sets FS_DIR to the mount point
  local kind=$1 dir="$WORK/$1"
  mkdir -p "$dir"
  case $kind in
    tmpfs)
      mount -t tmpfs -o size=${fs_mib}m tmpfs "$dir"
      ;;
    ext4)
      mkdir -p "$WORK/image_fs"
      mount -t tmpfs -o size=$(( fs_mib + 256 ))m tmpfs "$WORK/image_fs"
      truncate -s ${fs_mib}M "$WORK/image_fs/ext4.img"
      # Enough inodes for the file tests (the default ratio gives ~16 KiB per inode).
      mkfs.ext4 -q -F -N $(( ${FILES%%:*} * 1024 * 2 + 65536 )) "$WORK/image_fs/ext4.img"
      LOOP=$(losetup --find --show "$WORK/image_fs/ext4.img")
      mount -t ext4 "$LOOP" "$dir"
      ;;
    *) die "unknown filesystem $kind" ;;
  esac
  MOUNTS+=("$dir")
  FS_DIR=$dir
}

run_bonnie() {  # $1 = dir; prints one CSV line (fails if bonnie++ did not write one)
  (cd "$1" && nice -n "$NICE" bonnie++ -d "$1" -u root -q -r "$RAM" -s "$SIZE" -n "$FILES" -m fidelity \
     -z "$SEED" 2>"$WORK/bonnie.err") | grep '^1\.98,' ||
    die "bonnie++ failed in $1: $(cat "$WORK/bonnie.err")"
}

run_iobench() {  # $1 = dir; prints one CSV line
  nice -n "$NICE" "$IOBENCH" run bonnie -d "$1" -q -f csv -o "$WORK/iobench.csv" bonnie_s="$SIZE" files="$FILES" \
    ram="${RAM}m" seed="$SEED" machine=fidelity >/dev/null 2>"$WORK/iobench.err" ||
    die "iobench failed in $1: $(cat "$WORK/iobench.err")"
  grep '^1\.98,' "$WORK/iobench.csv" || die "iobench wrote no CSV line in $1"
}

echo "bonnie++ $(dpkg-query -W -f='${Version}' bonnie++ 2>/dev/null || echo '?') vs $IOBENCH"
echo "size=$SIZE files=$FILES ram=$RAM seed=$SEED runs=$RUNS nice=$NICE, $(nproc) CPUs," \
  "kernel $(uname -r), load average $(cut -d' ' -f1-3 /proc/loadavg)"
for kind in $FS; do
  setup_fs "$kind"
  dir=$FS_DIR
  : >"$WORK/$kind.bonnie" >"$WORK/$kind.iobench"
  for ((run = 1; run <= RUNS; run++)); do
    if ((run % 2 == 1)); then order="bonnie iobench"; else order="iobench bonnie"; fi
    for tool in $order; do
      echo "  $kind run $run: $tool" >&2
      "run_$tool" "$dir" >>"$WORK/$kind.$tool"
    done
  done
  if [[ -n ${KEEP_CSV:-} ]]; then
    mkdir -p "$KEEP_CSV" && cp "$WORK/$kind".{bonnie,iobench} "$KEEP_CSV/"
  fi
  python3 - "$kind" "$WORK/$kind.bonnie" "$WORK/$kind.iobench" <<'EOF'
import statistics
import sys

kind, bonnie_path, iobench_path = sys.argv[1:4]
phases = ["putc", "put_block", "rewrite", "getc", "get_block", "seeks",
          "seq_create", "seq_stat", "seq_del", "ran_create", "ran_stat", "ran_del"]
# CSV 1.98 columns of each phase's rate (its CPU % follows) and latency.
rate_col = [9, 11, 13, 15, 17, 19, 26, 28, 30, 32, 34, 36]
lat_col = list(range(38, 50))

def load(path):
    rows = [line.rstrip("\n").split(",") for line in open(path) if line.strip()]
    for row in rows:
        assert len(row) == 50, f"{path}: {len(row)} fields"
    return rows

def number(text):
    try:
        return float(text)
    except ValueError:
        return None

def latency_us(text):
    for suffix, scale in (("us", 1.0), ("ms", 1e3), ("s", 1e6)):
        if text.endswith(suffix) and number(text[: -len(suffix)]) is not None:
            return float(text[: -len(suffix)]) * scale
    return None

def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None

def geomean(values):
    values = [v for v in values if v]
    return statistics.geometric_mean(values) if values else None

bonnie, iobench = load(bonnie_path), load(iobench_path)
print(f"\n{kind}: medians of {len(bonnie)} bonnie++ and {len(iobench)} iobench runs; ratio = "
      "geometric mean of the per-run ratios iobench/bonnie++ (rates KiB/s or files/s; '+++++' "
      "= under 0.5 s)")
print(f"{'phase':<11} {'bonnie++':>10} {'iobench':>10} {'ratio':>6}   {'CPU% b++':>8} "
      f"{'CPU% iob':>8} {'ratio/CPU':>9}   {'max lat b++':>11} {'max lat iob':>11}   "
      "runs b++ / iobench")
for i, name in enumerate(phases):
    b_rates = [number(r[rate_col[i]]) for r in bonnie]
    i_rates = [number(r[rate_col[i]]) for r in iobench]
    b_cpu = median(number(r[rate_col[i] + 1]) for r in bonnie)
    i_cpu = median(number(r[rate_col[i] + 1]) for r in iobench)
    b, io = median(b_rates), median(i_rates)
    pairs = [(x, y) for x, y in zip(b_rates, i_rates) if x and y]
    ratio = f"{geomean(y / x for x, y in pairs):6.2f}" if pairs else "   n/a"
    b_cpus = [number(r[rate_col[i] + 1]) for r in bonnie]
    i_cpus = [number(r[rate_col[i] + 1]) for r in iobench]
    cpu_pairs = [(x / bc, y / ic) for x, y, bc, ic in zip(b_rates, i_rates, b_cpus, i_cpus)
                 if x and y and bc and ic]
    fmt = lambda v: f"{v:10.1f}" if v is not None else "     +++++"
    cpu = lambda v: f"{v:8.0f}" if v is not None else "     +++"
    b_lat = median(latency_us(r[lat_col[i]]) for r in bonnie)
    i_lat = median(latency_us(r[lat_col[i]]) for r in iobench)
    lat = lambda v: f"{v:9.0f}us" if v is not None else " " * 11
    runs = " ".join(r[rate_col[i]] for r in bonnie) + " / " + " ".join(r[rate_col[i]] for r in iobench)
    # Rate per CPU-second: what the ratio would be if both had had the same CPU share.
    per_cpu = f"{geomean(y / x for x, y in cpu_pairs):9.2f}" if cpu_pairs else "      n/a"
    print(f"{name:<11} {fmt(b)} {fmt(io)} {ratio}   {cpu(b_cpu)} {cpu(i_cpu)} {per_cpu}   "
          f"{lat(b_lat)} {lat(i_lat)}   {runs}")
EOF
done
