#!/usr/bin/env bash
# How fast a run ends after a stop signal, and what it leaves: the cases of issue 10 §3.
#
# Each case starts iobench on a fresh target holding one file of the user's, sends a signal
# sequence DELAY seconds later (into the untimed set-up for most cases), and reports the exit
# status, the time from the first signal to the exit, what the target holds besides the user's
# file (must be nothing) and the -o JSON's status (must be "interrupted"). The requirement is an
# exit within 1 s of the first signal whatever the sizes; on a loaded 2-CPU machine the process
# cases (hundreds of dbench clients) are bounded by how fast the scheduler lets every client
# see the stop and exit.
#
# Usage: bench/stop_latency.sh [IOBENCH] [TARGET_PARENT]   (default: build/release, /tmp)
set -euo pipefail
# Job control: each case runs in a process group of its own (as a terminal's foreground job,
# which timeout(1) and Ctrl-C signal), and without it a background job would start with SIGINT
# ignored, which iobench (like every program) then keeps ignoring.
set -m

IOBENCH=${1:-build/release/apps/iobench/iobench}
PARENT=${2:-/tmp}
WORK=$(mktemp -d "$PARENT/stop-latency.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

LOADFILE=$WORK/load.txt
cat > "$LOADFILE" <<'LOAD'
Deltree "\clients\client1" NT_STATUS_OK
Mkdir "\clients" NT_STATUS_OK
Mkdir "\clients\client1" NT_STATUS_OK
NTCreateX "\clients\client1\f.doc" 0x40 0x2 9938 NT_STATUS_OK
WriteX 9938 0 65536 65536 NT_STATUS_OK
Close 9938 NT_STATUS_OK
LOAD

now_ns() { date +%s%N; }

# run_case LABEL DELAY SIGNALS(comma list; GROUP:SIG signals the process group too) ARGS...
run_case() {
  local label=$1 delay=$2 signals=$3
  shift 3
  local target=$WORK/target out=$WORK/r.json
  rm -rf "$target" "$out"
  mkdir -p "$target"
  echo survive > "$target/precious"
  "$IOBENCH" run "$@" -d "$target" --format json -o "$out" -q > /dev/null 2> "$WORK/err" &
  local pid=$!
  sleep "$delay"
  local first
  first=$(now_ns)
  local sig n=0
  for sig in ${signals//,/ }; do
    # Signals sent apart, so that the kernel does not merge a second one into a pending first.
    (( n++ == 0 )) || sleep 0.01
    if [[ $sig == GROUP:* ]]; then
      kill -s "${sig#GROUP:}" "$pid" 2> /dev/null || true
      kill -s "${sig#GROUP:}" -- "-$pid" 2> /dev/null || true
    else
      kill -s "$sig" "$pid" 2> /dev/null || true
    fi
  done
  local status=0
  wait "$pid" || status=$?
  local took_ms=$(( ($(now_ns) - first) / 1000000 ))
  local left
  left=$(find "$target" -mindepth 1 ! -name precious | wc -l)
  local json=missing
  [[ -s $out ]] && json=$(grep -m1 -o '"status": "[a-z_]*"' "$out" | cut -d'"' -f4)
  printf '%-46s exit %3d after %5d ms  left behind: %d entries  json: %s\n' \
    "$label" "$status" "$took_ms" "$left" "$json"
}

run_case "disk read, 2 GiB file being created, Ctrl-C" 1.0 INT \
  disk operation=read size=2g bs=1m
run_case "disk read, 2 GiB file being created, Ctrl-C x2" 1.0 GROUP:INT,GROUP:INT \
  disk operation=read size=2g bs=1m
run_case "tiotest 4 x 256 MiB, as timeout(1) signals" 1.0 GROUP:INT \
  tiotest size=256m threads=4 --time 30s
run_case "tiotest 4 x 256 MiB, SIGHUP" 1.0 GROUP:HUP \
  tiotest size=256m threads=4 --time 30s
run_case "bonnie 512 MiB, SIGTERM" 1.5 TERM \
  bonnie size=512 ram=0 force=true
for procs in 512 1024; do
  run_case "dbench $procs procs, Ctrl-C in start-up" 0.5 GROUP:INT \
    dbench procs=$procs loadfile="$LOADFILE" time_limit=60s warmup=0
  run_case "dbench $procs procs, Ctrl-C x2 in start-up" 0.5 GROUP:INT,GROUP:INT \
    dbench procs=$procs loadfile="$LOADFILE" time_limit=60s warmup=0
  run_case "dbench $procs procs, Ctrl-C while running" 4 GROUP:INT \
    dbench procs=$procs loadfile="$LOADFILE" time_limit=60s warmup=0
done
