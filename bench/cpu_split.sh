#!/usr/bin/env bash
# Kernel and user CPU time per op of one command, from perf's cpu-clock samples (10 kHz), so that
# a tool's own user-space cost per op can be compared with a bare loop's on a machine too noisy
# for wall-clock ratios (this 2-core VM: +-10 % between back-to-back runs of the same loop; the
# sample counts of the same runs agree within 3 %). Runs pinned to CPU PIN_CPU (default: the
# last) at real-time priority. Startup (the dynamic loader, JSON and fmt output) is left out.
#
# Usage: bench/cpu_split.sh LABEL OPS COMMAND...
# Example (psync, 4 KiB page-cache reads of a 256 MiB file on tmpfs, 2*10^6 ops):
#   bench/cpu_split.sh iobench 2000000 build/release/apps/iobench/iobench run -q disk -d /mnt/t \
#     engine=psync operation=read seek=random random_order=uniform bs=4k size=256m \
#     iterations=1000 --ops 2000000 -f json
#   bench/cpu_split.sh loop 2000000 ./pread_loop /mnt/t/f 4096 2000000   (bench/pread_loop.c)
# Output: "LABEL kernel N ns/op  user M ns/op". Needs perf and root (chrt).
set -euo pipefail
[[ $# -ge 3 ]] || { sed -n 2,15p "$0" >&2; exit 2; }
label=$1 ops=$2
shift 2
pin=${PIN_CPU:-$(($(nproc) - 1))}
data=$(mktemp)
trap 'rm -f "$data"' EXIT
perf record -q -e cpu-clock -F 10000 -o "$data" -- taskset -c "$pin" chrt -f 1 "$@" >/dev/null
perf report -i "$data" --no-children --sort dso,symbol -q -F sample,dso,sym 2>/dev/null |
  awk -v ops="$ops" -v label="$label" '
    $2 ~ /kernel/ { kernel += $1; next }
    $0 ~ /ld-linux|_dl_|do_lookup|check_match|json|fmt::|AlignedBuffer|memset|memmove/ { next }
    { user += $1 }
    END { printf "%-8s kernel %.0f ns/op  user %.1f ns/op\n", label, kernel * 1e5 / ops, user * 1e5 / ops }'
