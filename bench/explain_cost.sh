#!/usr/bin/env bash
# Cost of `--explain` (the eBPF latency split) on 4 KiB page-cache reads: ROUNDS rounds, each one
# run without and one with --explain in alternating order (off first in odd rounds), each a
# time-based sequential psync read of a 64 MiB file the write phase left in the page cache.
# Prints per run ops/s and CPU time per op (us, workers' user + system, from the JSON), then the
# medians and the change, and the load average before and after (a shared machine's load shifts
# single runs; medians of alternating runs cancel its drift). Needs root for --explain.
# With -f FLOOR (a build of bench/tracepoint_floor.c), each round also runs without --explain
# while FLOOR holds empty programs on the raw_syscalls tracepoints: the floor of --explain's cost.
# With -e OPTION the runs "with" use OPTION (default --explain, the per-op split; give
# --explain=syscalls for the system call split).
# Usage: bench/explain_cost.sh IOBENCH [-d DIR] [-t SECONDS] [-r ROUNDS] [-f FLOOR] [-e OPTION]
# (defaults: a temporary directory under /dev/shm, 3 s, 5 rounds, no floor, --explain)
set -euo pipefail
iobench=${1:?usage: $0 IOBENCH [-d DIR] [-t SECONDS] [-r ROUNDS] [-f FLOOR] [-e OPTION]}
shift
dir=""
seconds=3
rounds=5
floor=""
explain=--explain
while getopts "d:t:r:f:e:" opt; do
  case $opt in
    d) dir=$OPTARG ;;
    t) seconds=$OPTARG ;;
    r) rounds=$OPTARG ;;
    f) floor=$OPTARG ;;
    e) explain=$OPTARG ;;
    *) exit 2 ;;
  esac
done
if [[ -z $dir ]]; then
  dir=$(mktemp -d /dev/shm/explain-cost.XXXXXX)
  trap 'rm -rf "$dir"' EXIT
fi
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
run() {  # $1: extra option or ""; prints "ops_per_s cpu_us_per_op"
  "$iobench" run disk -d "$dir" operation=read bs=4k size=64m time_based=true --time "${seconds}s" \
    -q --progress 0 --format json $1 |
    python3 -c '
import json, sys
p = json.load(sys.stdin)["steps"][0]["phases"][-1]
cpu = p["cpu"]["workers_user_ns"] + p["cpu"]["workers_system_ns"]
print("%.0f %.3f" % (p["ops_per_s"], cpu / 1000 / max(p["ops"], 1)))'
}
off=()
on=()
floored=()
for ((r = 1; r <= rounds; r++)); do
  if ((r % 2)); then order=(off on); else order=(on off); fi
  for mode in "${order[@]}"; do
    if [[ $mode == on ]]; then
      line=$(run "$explain"); on+=("$line")
    else
      line=$(run ""); off+=("$line")
    fi
    echo "round $r $mode: $line (ops/s, CPU us/op)"
  done
  if [[ -n $floor ]]; then
    "$floor" hold $((seconds + 10)) &
    holder=$!
    sleep 1
    line=$(run "")
    kill "$holder"
    wait "$holder" || true
    floored+=("$line")
    echo "round $r floor (off, empty tracepoint programs): $line (ops/s, CPU us/op)"
  fi
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "${off[@]}" -- "${on[@]}" -- "${floored[@]}" <<'PY'
import statistics, sys
args = sys.argv[1:]
cut = args.index("--")
cut2 = args.index("--", cut + 1)
def med(lines, i):
    return statistics.median(float(l.split()[i]) for l in lines)
off, on, floored = args[:cut], args[cut + 1:cut2], args[cut2 + 1:]
for i, name in ((0, "ops/s"), (1, "CPU us/op")):
    a, b = med(off, i), med(on, i)
    line = f"median {name}: off {a:.3f}, with {b:.3f} ({(b - a) / a * 100:+.1f} %)"
    if floored:
        f = med(floored, i)
        line += f", floor {f:.3f} ({(f - a) / a * 100:+.1f} %)"
    print(line)
PY
