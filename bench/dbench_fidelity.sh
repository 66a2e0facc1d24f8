#!/usr/bin/env bash
# Fidelity of iobench's "dbench" workload against Debian's dbench 4.0.
#
# Runs the same loadfile with the same number of clients for the same time with both tools, on a
# tmpfs and on a loop-mounted ext4, alternating the tools (and their order) round by round, and
# compares:
#   - throughput: dbench's "Throughput" figure, mean over the rounds; pass if iobench's is within
#     10 % of dbench's;
#   - operation mix: each operation's share of all operations in the table; pass if, for every
#     operation with at least 1 % of the operations, iobench's share is within 2 % (relative) of
#     dbench's.
# It also prints the CPU time per loadfile line of both tools (user + system), which the load of
# a shared machine distorts far less than throughput: on a CPU-bound tmpfs the throughput ratio
# follows the ratio of these costs.
#
# Needs root (mount), dbench, mkfs.ext4 and a built iobench. Usage:
#   bench/dbench_fidelity.sh [-t SECONDS] [-n CLIENTS] [-r ROUNDS] [-l LOADFILE] [-b IOBENCH]
# Defaults: -t 10 -n 2 -r 3 -l /usr/share/dbench/client.txt -b build/release/apps/iobench/iobench
# Exit status: 0 all criteria pass, 1 a criterion fails, 2 bad usage or missing tools.

set -euo pipefail

seconds=10
clients=2
rounds=3
loadfile=/usr/share/dbench/client.txt
iobench=build/release/apps/iobench/iobench

while getopts "t:n:r:l:b:h" opt; do
  case "$opt" in
    t) seconds=$OPTARG ;;
    n) clients=$OPTARG ;;
    r) rounds=$OPTARG ;;
    l) loadfile=$OPTARG ;;
    b) iobench=$OPTARG ;;
    h) sed -n '2,19p' "$0"; exit 0 ;;
    *) exit 2 ;;
  esac
done

die() { echo "dbench_fidelity: $*" >&2; exit 2; }
[[ $(id -u) -eq 0 ]] || die "must run as root (it mounts a tmpfs and a loop ext4)"
command -v dbench >/dev/null || die "dbench is not installed (apt-get install dbench)"
command -v mkfs.ext4 >/dev/null || die "mkfs.ext4 is missing (e2fsprogs)"
command -v python3 >/dev/null || die "python3 is missing (reads iobench's JSON)"
[[ -x /usr/bin/time ]] || die "/usr/bin/time is missing (apt-get install time)"
[[ -x $iobench ]] || die "iobench binary '$iobench' not found; build it or pass -b PATH"
[[ -r $loadfile ]] || die "loadfile '$loadfile' is not readable"
iobench=$(realpath "$iobench")

work=$(mktemp -d /tmp/dbench_fidelity.XXXXXX)
cleanup() {
  for m in "$work/tmpfs" "$work/ext4"; do
    mountpoint -q "$m" && umount "$m"
  done
  rm -rf "$work"
}
trap cleanup EXIT

mkdir -p "$work/tmpfs" "$work/ext4" "$work/out"
mount -t tmpfs -o size=4g tmpfs "$work/tmpfs"
truncate -s 4G "$work/ext4.img"
mkfs.ext4 -q -F "$work/ext4.img"
mount -o loop "$work/ext4.img" "$work/ext4"

# Prints "<throughput>" on the first line, then "<op> <count>" per row of the first table.
parse_dbench() {
  awk '/^Throughput/ { tp = $2; exit }
       /^ Operation/ && !seen { table = 1; seen = 1; next }
       table && NF == 0 { table = 0 }
       table && NF == 4 && $2 ~ /^[0-9]+$/ { rows = rows $1 " " $2 "\n" }
       END { printf "%s\n%s", tp, rows }' "$1"
}

# Writes "<cpu seconds> <loadfile lines>" of a run to "$out.cpu": a measure of the cost of a line
# that the load of a shared machine does not distort as it distorts throughput.
run_dbench() {  # dir out
  (cd "$1" && /usr/bin/time -f "%U %S" -o "$2.time" \
    dbench -D "$1" -c "$loadfile" -t "$seconds" --per-client-results "$clients") >"$2" 2>&1
  rm -rf "$1/clients"  # dbench leaves its directory skeleton
  # dbench's line counts include the warm-up, as does its CPU time.
  awk -v t="$(cat "$2.time")" '/^Client [0-9]+ did/ { lines += $4 }
    END { split(t, c, " "); print c[1] + c[2], lines }' "$2" >"$2.cpu"
}

run_iobench() {  # dir out
  # dbench's warm-up is whole seconds of -t / 5; give it explicitly (suites may set another).
  "$iobench" run dbench -d "$1" "procs=$clients" "time_limit=${seconds}s" \
    "warmup=$((seconds / 5))s" "loadfile=$loadfile" -q -f json -o "$2.json" >"$2" 2>&1
  # The workers' CPU time and lines of the execute period.
  python3 -c 'import json, sys
p = json.load(open(sys.argv[1]))["steps"][0]["phases"][0]
cpu = (p["cpu"]["workers_user_ns"] + p["cpu"]["workers_system_ns"]) / 1e9
print(cpu, sum(w["counters"]["lines"] for w in p["workers"]))' "$2.json" >"$2.cpu"
}

for fs in tmpfs ext4; do
  for ((round = 1; round <= rounds; round++)); do
    if ((round % 2 == 1)); then order="dbench iobench"; else order="iobench dbench"; fi
    for tool in $order; do
      out="$work/out/$fs.$tool.$round"
      echo "round $round on $fs: $tool" >&2
      "run_$tool" "$work/$fs" "$out" || { cat "$out" >&2; die "$tool failed on $fs"; }
      parse_dbench "$out" >"$out.parsed"
      [[ -n $(head -1 "$out.parsed") ]] || { cat "$out" >&2; die "no Throughput line from $tool"; }
    done
  done
done

status=0
for fs in tmpfs ext4; do
  echo
  echo "== $fs: $clients clients, ${seconds} s, $rounds rounds, loadfile $loadfile"
  for tool in dbench iobench; do
    printf '%-8s throughput MB/sec:' "$tool"
    for ((round = 1; round <= rounds; round++)); do
      printf ' %s' "$(head -1 "$work/out/$fs.$tool.$round.parsed")"
    done
    printf ';  CPU per loadfile line, us:'
    for ((round = 1; round <= rounds; round++)); do
      awk '{ printf " %.2f", ($2 > 0 ? $1 / $2 * 1e6 : 0) }' "$work/out/$fs.$tool.$round.cpu"
    done
    echo
  done
  # Mean throughput per tool, then the mix: op shares over all rounds' summed counts.
  verdict=$(
    for tool in dbench iobench; do
      for ((round = 1; round <= rounds; round++)); do
        awk -v tool="$tool" 'NR == 1 { print "tp", tool, $1; next } { print "op", tool, $1, $2 }' \
          "$work/out/$fs.$tool.$round.parsed"
      done
    done | awk -v rounds="$rounds" '
      $1 == "tp" { tp[$2] += $3 }
      $1 == "op" { count[$2, $3] += $4; total[$2] += $4; ops[$3] = 1 }
      END {
        d = tp["dbench"] / rounds; i = tp["iobench"] / rounds
        diff = 100
        if (d > 0) diff = (i - d) / d * 100
        fail = 0
        verdict = "PASS"
        if (diff > 10 || diff < -10) { verdict = "FAIL"; fail = 1 }
        printf "mean throughput: dbench %.2f MB/sec, iobench %.2f MB/sec (%+.1f %%) -> %s\n", d, i, diff, verdict
        printf "%-12s %9s %9s %8s\n", "op", "dbench%", "iobench%", "rel.diff"
        worst = 0
        for (op in ops) {
          sd = 0; si = 0; rel = 0
          if (total["dbench"] > 0) sd = count["dbench", op] / total["dbench"] * 100
          if (total["iobench"] > 0) si = count["iobench", op] / total["iobench"] * 100
          if (sd > 0) rel = (si - sd) / sd * 100
          note = ""
          if (sd < 1) note = "  (under 1 %, not judged)"
          printf "%-12s %9.3f %9.3f %+7.2f%%%s\n", op, sd, si, rel, note
          a = rel; if (a < 0) a = -a
          if (sd >= 1 && a > worst) worst = a
        }
        verdict = "PASS"
        if (worst > 2) { verdict = "FAIL"; fail = 1 }
        printf "op mix: largest relative difference of an op share (ops >= 1 %%): %.2f %% -> %s\n", worst, verdict
        if (fail) print "RESULT FAIL"; else print "RESULT PASS"
      }')
  echo "$verdict" | grep -v '^RESULT'
  grep -q '^RESULT FAIL' <<<"$verdict" && status=1
done
exit $status
