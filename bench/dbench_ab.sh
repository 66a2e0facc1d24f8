#!/usr/bin/env bash
# A/B cost of a change to iobench's dbench workload: two iobench binaries (A = before, B = after)
# and, as the reference, Debian's dbench 4.0, on the same tmpfs, the same loadfile and clients,
# alternating the order round by round. Prints per tool and round:
#   - throughput (dbench's "Throughput" figure, MB/sec = 10^6 bytes/s),
#   - CPU time of the clients per loadfile line (us; user + system, from the JSON of iobench and
#     /usr/bin/time for dbench), which a shared machine distorts far less than throughput,
#   - peak RSS (KiB, /usr/bin/time's "Maximum resident set size": that of the largest single
#     process of the run, parent or client), and that process's split into anonymous pages,
#     file-backed pages (mostly the code of shared libraries) and shared memory (iobench's
#     phase results), with the peak sums over the whole process tree (bench/tree_memory.py,
#     sampling every 0.1 s, alike for all three tools), and per client process (median over the
#     clients of each one's peak, KiB): RssAnon, Pss_Anon and private anonymous memory (the pages
#     only that client maps: what the client costs beyond its parent; tree_memory.py --clients),
#   - the op-weighted mean latency over all operations (us: the sum over the op kinds of count x
#     mean, divided by the count; dbench's from its table, whose AvgLat is rounded to 1 us),
#   - the mean latency (us) of the most frequent operations (NTCreateX, Qpathinfo, Unlink, Find,
#     Close, ReadX, WriteX), for all three tools,
# then medians over the rounds with their spread (min-max), B's change against A and both
# against dbench (medians: a shared machine's bursts of load hit single rounds). After the
# rounds, `validate` of each iobench (it reads and parses the loadfile, then stops before any
# I/O) gives the parse time, wall and CPU, median of ROUNDS runs. Last, the op-weighted mean
# latency per us of CPU per line: on tmpfs the replay is CPU-bound, and a tool that spends less
# CPU per line also shows lower latencies, in the same proportion where the share of each line's
# work inside the timed window is the same.
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
    h) sed -n '2,30p' "$0"; exit 0 ;;
    *) exit 2 ;;
  esac
done

die() { echo "dbench_ab: $*" >&2; exit 2; }
[[ $(id -u) -eq 0 ]] || die "must run as root (it mounts a tmpfs)"
command -v dbench >/dev/null || die "dbench is not installed (apt-get install dbench)"
command -v python3 >/dev/null || die "python3 is missing"
[[ -x /usr/bin/time ]] || die "/usr/bin/time is missing (apt-get install time)"
tree_memory="$(dirname "$(realpath "$0")")/tree_memory.py"
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

# The op kinds whose mean latency is printed one by one.
kinds="NTCreateX Qpathinfo Unlink Find Close ReadX WriteX"

# Each run writes "$out.row": throughput, CPU us per line, peak RSS KiB, op-weighted mean
# latency us, "kind=us,..." for $kinds, then the 7 KiB figures of bench/tree_memory.py (largest
# process: Rss, anonymous, file-backed, shmem; tree sums: anonymous, file-backed, shmem), then per
# client (tree_memory.py --clients, medians over the clients): RssAnon, Pss_Anon, private anon.
run_dbench() {  # out
  (cd "$work/tmpfs" && python3 "$tree_memory" "$1.mem" --wrapper --clients "$1.cl" -- /usr/bin/time \
    -f "%U %S %M" \
    -o "$1.time" dbench -D "$work/tmpfs" -c "$loadfile" -t "$seconds" --per-client-results \
    "$clients") >"$1" 2>&1
  rm -rf "$work/tmpfs/clients"
  # dbench's line counts include the warm-up, as does its CPU time. Its first table is the
  # whole run's (AvgLat in ms).
  python3 -c 'import re, sys
text = open(sys.argv[1]).read()
user, system, rss = open(sys.argv[1] + ".time").read().split()[-3:]
tp = re.search(r"^Throughput (\S+)", text, re.M).group(1)
lines = sum(int(n) for n in re.findall(r"^Client \d+ did (\d+) lines", text, re.M))
table = text.split(" Operation", 1)[1].split("\n\n", 1)[0]
rows = {m[0]: (int(m[1]), float(m[2]) * 1e3)
        for m in re.findall(r"^ (\w+) +(\d+) +([\d.]+) +[\d.]+$", table, re.M)}
count = sum(c for c, _ in rows.values())
wmean = sum(c * us for c, us in rows.values()) / count
cpu = (float(user) + float(system)) / lines * 1e6 if lines else float("nan")
lat = ",".join("%s=%.2f" % (k, rows[k][1] if k in rows else float("nan"))
               for k in sys.argv[2].split())
clients = open(sys.argv[1] + ".cl").read().splitlines()[-2].split()[1:]
print(tp, "%.3f" % cpu, rss, "%.3f" % wmean, lat, open(sys.argv[1] + ".mem").read().strip(),
      *clients)' \
    "$1" "$kinds" >"$1.row"
}

run_iobench() {  # binary out
  python3 "$tree_memory" "$2.mem" --wrapper --clients "$2.cl" -- /usr/bin/time -f "%M" \
    -o "$2.time" "$1" run dbench \
    -d "$work/tmpfs" "procs=$clients" \
    "time_limit=${seconds}s" "warmup=$((seconds / 5))s" "loadfile=$loadfile" -q -f json \
    -o "$2.json" >"$2" 2>&1
  local tp
  tp=$(awk '/^Throughput/ { print $2 }' "$2")
  python3 -c 'import json, sys
p = json.load(open(sys.argv[1] + ".json"))["steps"][0]["phases"][0]
cpu = (p["cpu"]["workers_user_ns"] + p["cpu"]["workers_system_ns"]) / 1e3
lines = sum(w["counters"]["lines"] for w in p["workers"])
ops = p["ops_by_kind"]
count = sum(o["ops"] for o in ops.values())
wmean = sum(o["ops"] * o["latency_ns"]["mean"] for o in ops.values()) / count / 1e3
rss = open(sys.argv[1] + ".time").read().split()[-1]
lat = ",".join("%s=%.2f" % (k, ops[k]["latency_ns"]["mean"] / 1e3) for k in sys.argv[3].split())
clients = open(sys.argv[1] + ".cl").read().splitlines()[-2].split()[1:]
print(sys.argv[2], "%.3f" % (cpu / lines), rss, "%.3f" % wmean, lat,
      open(sys.argv[1] + ".mem").read().strip(), *clients)' "$2" "$tp" "$kinds" >"$2.row"
}

# Parse time: `validate` reads and parses the loadfile, then stops before any I/O.
run_parse() {  # binary out
  /usr/bin/time -f "%e %U %S" -o "$2" "$1" validate dbench -d "$work/tmpfs" "procs=$clients" \
    "loadfile=$loadfile" >/dev/null 2>&1
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
for ((round = 1; round <= rounds; round++)); do
  run_parse "$a" "$work/out/A.$round.parse" || die "validate with A failed"
  run_parse "$b" "$work/out/B.$round.parse" || die "validate with B failed"
done

echo "== tmpfs, $clients clients, ${seconds} s (+ warm-up), $rounds rounds, loadfile $loadfile"
echo "A = $a"
echo "B = $b"
for tool in A B dbench; do
  for ((round = 1; round <= rounds; round++)); do
    printf '%-6s round %d: throughput %s MB/sec, CPU %s us/line, peak RSS %s KiB, ' \
      "$tool" "$round" $(cut -d' ' -f1-3 "$work/out/$tool.$round.row")
    printf 'op-weighted mean latency %s us, mean latency us: %s\n' \
      $(cut -d' ' -f4-5 "$work/out/$tool.$round.row")
    printf '         largest process: anonymous %s, file-backed %s, shared memory %s KiB; ' \
      $(cut -d' ' -f7-9 "$work/out/$tool.$round.row")
    printf 'tree sums: anonymous %s, file-backed %s, shared memory %s KiB\n' \
      $(cut -d' ' -f10-12 "$work/out/$tool.$round.row")
    printf '         per client (median): RssAnon %s, Pss_Anon %s, private anonymous %s KiB\n' \
      $(cut -d' ' -f13-15 "$work/out/$tool.$round.row")
  done
done
python3 - "$work/out" "$rounds" <<'EOF'
import sys, statistics
out, rounds = sys.argv[1], int(sys.argv[2])
tools = ("A", "B", "dbench")
rows = {t: [open(f"{out}/{t}.{r}.row").read().split() for r in range(1, rounds + 1)]
        for t in tools}
def values(t, i):
    return [float(r[i]) for r in rows[t] if r[i] != "-"]
def median(t, i):
    v = values(t, i)
    return statistics.median(v) if v else float("nan")
def spread(t, i):
    v = values(t, i)
    return f"{min(v):.2f}-{max(v):.2f}" if v else "-"
names = {0: "throughput MB/sec", 1: "CPU us/line", 2: "peak RSS KiB",
         3: "op-weighted mean latency us", 6: "largest process anonymous KiB",
         7: "its file-backed KiB", 8: "its shared memory KiB", 9: "tree sum of anonymous KiB",
         12: "per client RssAnon KiB", 13: "per client Pss_Anon KiB",
         14: "per client private anonymous KiB"}
for t in tools:
    print(f"{t:6}: " + "; ".join(f"{n} median {median(t, i):.3f} ({spread(t, i)})"
                                  for i, n in names.items()))
lat = {}
for t in tools:
    acc = {}
    for r in rows[t]:
        for kv in r[4].split(","):
            k, v = kv.split("=")
            acc.setdefault(k, []).append(float(v))
    lat[t] = {k: statistics.median(v) for k, v in acc.items()}
print("median of the rounds' mean latency per op kind, us (A / B / dbench): " +
      ", ".join(f"{k} {lat['A'][k]:.2f} / {lat['B'][k]:.2f} / {lat['dbench'][k]:.2f}"
                for k in lat["A"]))
for t in ("A", "B"):
    parses = [open(f"{out}/{t}.{r}.parse").read().split() for r in range(1, rounds + 1)]
    wall = statistics.median(float(p[0]) for p in parses)
    cpu = statistics.median(float(p[1]) + float(p[2]) for p in parses)
    print(f"{t}: parse (validate) median wall {wall:.2f} s, CPU {cpu:.2f} s")
def ratio(t, u, i):
    return median(t, i) / median(u, i)
print(f"B vs A (medians): throughput {(ratio('B', 'A', 0) - 1) * 100:+.1f} %, "
      f"CPU per line {(ratio('B', 'A', 1) - 1) * 100:+.1f} %, "
      f"peak RSS {(ratio('B', 'A', 2) - 1) * 100:+.1f} %, "
      f"op-weighted latency {(ratio('B', 'A', 3) - 1) * 100:+.1f} %")
for t in ("A", "B"):
    print(f"{t} / dbench (medians): throughput {ratio(t, 'dbench', 0):.3f}x, "
          f"peak RSS {ratio(t, 'dbench', 2):.2f}x, "
          f"op-weighted mean latency {(ratio(t, 'dbench', 3) - 1) * 100:+.1f} %")
    print(f"{t} / dbench (medians), memory: largest process anonymous "
          f"{ratio(t, 'dbench', 6):.2f}x, file-backed {ratio(t, 'dbench', 7):.2f}x; "
          f"tree sum of anonymous {ratio(t, 'dbench', 9):.2f}x; per client RssAnon "
          f"{ratio(t, 'dbench', 12):.2f}x, Pss_Anon {ratio(t, 'dbench', 13):.2f}x, private "
          f"anonymous {ratio(t, 'dbench', 14):.2f}x")
for t in tools:
    per_cpu = [float(r[3]) / float(r[1]) for r in rows[t]]
    print(f"{t:6}: op-weighted mean latency per us of CPU per line: median "
          f"{statistics.median(per_cpu):.3f} ({min(per_cpu):.3f}-{max(per_cpu):.3f})")
EOF
