#!/usr/bin/env bash
# A/B cost of a change to iobench's dbench workload: two iobench binaries (A = before, B = after)
# and, as the reference, Debian's dbench 4.0, on the same tmpfs, the same loadfile and clients,
# alternating the order round by round. Prints per tool and round:
#   - throughput (dbench's "Throughput" figure, MB/sec = 10^6 bytes/s),
#   - CPU time of the clients per loadfile line (us; user + system, from the JSON of iobench and
#     /usr/bin/time for dbench), which a shared machine distorts far less than throughput,
#   - the mean latency (us) of the path operations a confinement change touches (NTCreateX,
#     Qpathinfo, Unlink, Find, Close, ReadX, WriteX; iobench only, from its JSON),
# then means and medians over the rounds and B's change against A (medians: a shared machine's
# bursts of load hit single rounds).
#
# Needs root (mount), dbench, python3, /usr/bin/time. Usage:
#   bench/dbench_ab.sh -a OLD_IOBENCH -b NEW_IOBENCH [-t SECONDS] [-n CLIENTS] [-r ROUNDS]
#                      [-l LOADFILE]
# Defaults: -t 10 -n 4 -r 3 -l /usr/share/dbench/client.txt

set -euo pipefail

seconds=10
clients=4
rounds=3
loadfile=/usr/share/dbench/client.txt
a=""
b=""

while getopts "a:b:t:n:r:l:h" opt; do
  case "$opt" in
    a) a=$OPTARG ;;
    b) b=$OPTARG ;;
    t) seconds=$OPTARG ;;
    n) clients=$OPTARG ;;
    r) rounds=$OPTARG ;;
    l) loadfile=$OPTARG ;;
    h) sed -n '2,17p' "$0"; exit 0 ;;
    *) exit 2 ;;
  esac
done

die() { echo "dbench_ab: $*" >&2; exit 2; }
[[ $(id -u) -eq 0 ]] || die "must run as root (it mounts a tmpfs)"
command -v dbench >/dev/null || die "dbench is not installed (apt-get install dbench)"
command -v python3 >/dev/null || die "python3 is missing"
[[ -x /usr/bin/time ]] || die "/usr/bin/time is missing (apt-get install time)"
[[ -x $a && -x $b ]] || die "give both binaries: -a OLD_IOBENCH -b NEW_IOBENCH"
[[ -r $loadfile ]] || die "loadfile '$loadfile' is not readable"
a=$(realpath "$a")
b=$(realpath "$b")

work=$(mktemp -d /tmp/dbench_ab.XXXXXX)
cleanup() {
  mountpoint -q "$work/tmpfs" && umount "$work/tmpfs"
  rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$work/tmpfs" "$work/out"
mount -t tmpfs -o size=4g tmpfs "$work/tmpfs"

run_dbench() {  # out
  (cd "$work/tmpfs" && /usr/bin/time -f "%U %S" -o "$1.time" \
    dbench -D "$work/tmpfs" -c "$loadfile" -t "$seconds" --per-client-results "$clients") >"$1" 2>&1
  rm -rf "$work/tmpfs/clients"
  local tp
  tp=$(awk '/^Throughput/ { print $2 }' "$1")
  # dbench's line counts include the warm-up, as does its CPU time.
  awk -v t="$(cat "$1.time")" -v tp="$tp" '/^Client [0-9]+ did/ { lines += $4 }
    END { split(t, c, " "); printf "%s %.3f -\n", tp, (c[1] + c[2]) / lines * 1e6 }' "$1" \
    >"$1.row" 2>/dev/null || echo "$tp - -" >"$1.row"
}

run_iobench() {  # binary out
  "$1" run dbench -d "$work/tmpfs" "procs=$clients" "time_limit=${seconds}s" \
    "warmup=$((seconds / 5))s" "loadfile=$loadfile" -q -f json -o "$2.json" >"$2" 2>&1
  local tp
  tp=$(awk '/^Throughput/ { print $2 }' "$2")
  python3 -c 'import json, sys
p = json.load(open(sys.argv[1]))["steps"][0]["phases"][0]
cpu = (p["cpu"]["workers_user_ns"] + p["cpu"]["workers_system_ns"]) / 1e3
lines = sum(w["counters"]["lines"] for w in p["workers"])
ops = p["ops_by_kind"]
lat = ",".join("%s=%.2f" % (k, ops[k]["latency_ns"]["mean"] / 1e3)
               for k in ("NTCreateX", "Qpathinfo", "Unlink", "Find", "Close", "ReadX", "WriteX"))
print(sys.argv[2], "%.3f" % (cpu / lines), lat)' "$2.json" "$tp" >"$2.row"
}

for ((round = 1; round <= rounds; round++)); do
  case $((round % 3)) in
    1) order="A B dbench" ;;
    2) order="B dbench A" ;;
    0) order="dbench A B" ;;
  esac
  for tool in $order; do
    out="$work/out/$tool.$round"
    echo "round $round: $tool" >&2
    case $tool in
      A) run_iobench "$a" "$out" ;;
      B) run_iobench "$b" "$out" ;;
      dbench) run_dbench "$out" ;;
    esac || { cat "$out" >&2; die "$tool failed"; }
  done
done

echo "== tmpfs, $clients clients, ${seconds} s (+ warm-up), $rounds rounds, loadfile $loadfile"
echo "A = $a"
echo "B = $b"
for tool in A B dbench; do
  for ((round = 1; round <= rounds; round++)); do
    printf '%-6s round %d: throughput %s MB/sec, CPU %s us/line, mean latency us: %s\n' "$tool" \
      "$round" $(cat "$work/out/$tool.$round.row")
  done
done
cat "$work"/out/*.row >/dev/null
python3 - "$work/out" "$rounds" <<'EOF'
import sys, statistics
out, rounds = sys.argv[1], int(sys.argv[2])
rows = {t: [open(f"{out}/{t}.{r}.row").read().split() for r in range(1, rounds + 1)]
        for t in ("A", "B", "dbench")}
def values(t, i):
    return [float(r[i]) for r in rows[t] if r[i] != "-"]
def mean(t, i):
    v = values(t, i)
    return statistics.mean(v) if v else float("nan")
def median(t, i):
    v = values(t, i)
    return statistics.median(v) if v else float("nan")
for t in ("A", "B", "dbench"):
    print(f"{t:6}: throughput mean {mean(t, 0):8.2f} median {median(t, 0):8.2f} MB/sec; "
          f"CPU per line mean {mean(t, 1):6.3f} median {median(t, 1):6.3f} us")
lat = {}
for t in ("A", "B"):
    acc = {}
    for r in rows[t]:
        for kv in r[2].split(","):
            k, v = kv.split("=")
            acc.setdefault(k, []).append(float(v))
    lat[t] = {k: statistics.mean(v) for k, v in acc.items()}
print("mean of the rounds' mean latency, us (A -> B):",
      ", ".join(f"{k} {lat['A'][k]:.2f} -> {lat['B'][k]:.2f} ({(lat['B'][k] / lat['A'][k] - 1) * 100:+.1f} %)"
                for k in lat["A"]))
print(f"B vs A (medians): throughput {(median('B', 0) / median('A', 0) - 1) * 100:+.1f} %, "
      f"CPU per line {(median('B', 1) / median('A', 1) - 1) * 100:+.1f} %")
EOF
