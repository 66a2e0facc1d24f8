#!/usr/bin/env bash
# Fuzzes the libFuzzer targets of tests/fuzz (issue 10 §6) and prints, per target, the executions
# per second and the crashes, timeouts (hangs) and out-of-memory inputs found.
#
# Each target runs in libFuzzer's fork mode, which goes on after a crash, for SECONDS of wall time,
# at nice 10, up to JOBS targets at a time. It starts from the seed corpus tests/fuzz/corpus/NAME
# (read only) and the inputs earlier runs found (OUT/corpus/NAME, kept between runs), with the
# dictionary tests/fuzz/dict/NAME.dict where there is one. Crashing inputs are saved as
# OUT/artifacts/NAME/{crash,timeout,oom,leak}-<sha1>; reproduce one with
#   build/fuzz/tests/fuzz/fuzz_NAME OUT/artifacts/NAME/crash-...
# and, once fixed, keep it in tests/fuzz/corpus/NAME/ as a regression input. Logs: OUT/logs/.
#
# Needs the fuzz build: cmake --workflow --preset fuzz (clang, libFuzzer, ASan+UBSan).
# Usage: bench/fuzz.sh [-t SECONDS] [-j JOBS] [-b BUILD_DIR] [-o OUT_DIR] [NAME[=SECONDS]...]
# Defaults: -t 600 -j 1 -b build/fuzz -o BUILD_DIR/fuzz-runs, every target. NAME=SECONDS gives
# one target its own time. Exit status: 0 nothing found, 1 a target crashed, hung or ran out of
# memory (or ran no input), 2 bad usage or no fuzz build.

set -euo pipefail

seconds=600
jobs=1
build=build/fuzz
out=

while getopts "t:j:b:o:h" opt; do
  case "$opt" in
    t) seconds=$OPTARG ;;
    j) jobs=$OPTARG ;;
    b) build=$OPTARG ;;
    o) out=$OPTARG ;;
    h) sed -n '2,18p' "$0"; exit 0 ;;
    *) exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[[ $seconds =~ ^[0-9]+$ && $seconds -gt 0 ]] || { echo "fuzz.sh: -t must be seconds > 0" >&2; exit 2; }
[[ $jobs =~ ^[0-9]+$ && $jobs -gt 0 ]] || { echo "fuzz.sh: -j must be a count > 0" >&2; exit 2; }
out=${out:-$build/fuzz-runs}

source_dir=$(cd "$(dirname "$0")/.." && pwd)
fuzz_dir=$build/tests/fuzz
if ! compgen -G "$fuzz_dir/fuzz_*" >/dev/null; then
  echo "fuzz.sh: no fuzz targets in $fuzz_dir; build them with: cmake --workflow --preset fuzz" >&2
  exit 2
fi

# Targets: NAME or NAME=SECONDS from the command line, else every fuzz_NAME built.
declare -a names=()
declare -A time_of=()
if (($#)); then
  for arg in "$@"; do
    name=${arg%%=*}
    [[ -x $fuzz_dir/fuzz_$name ]] || { echo "fuzz.sh: no target $fuzz_dir/fuzz_$name" >&2; exit 2; }
    names+=("$name")
    time_of[$name]=$seconds
    [[ $arg == *=* ]] && time_of[$name]=${arg#*=}
  done
else
  for bin in "$fuzz_dir"/fuzz_*; do
    name=${bin##*/fuzz_}
    names+=("$name")
    time_of[$name]=$seconds
  done
fi

mkdir -p "$out/logs"

run_one() {
  local name=$1 time=$2
  local corpus=$out/corpus/$name artifacts=$out/artifacts/$name
  mkdir -p "$corpus" "$artifacts"
  touch "$out/logs/$name.start"  # inputs saved by this run are newer
  local -a extra=()
  [[ -f $source_dir/tests/fuzz/dict/$name.dict ]] && extra+=("-dict=$source_dir/tests/fuzz/dict/$name.dict")
  # -timeout: an input taking 10 s is a hang; -rss_limit_mb: libFuzzer's default, stated.
  nice -n 10 "$fuzz_dir/fuzz_$name" -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
    -max_total_time="$time" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$artifacts/" "${extra[@]}" "$corpus" "$source_dir/tests/fuzz/corpus/$name" \
    >"$out/logs/$name.log" 2>&1 || true
}

running=0
for name in "${names[@]}"; do
  if ((running >= jobs)); then
    wait -n || true
    running=$((running - 1))
  fi
  echo "fuzzing $name for ${time_of[$name]} s" >&2
  run_one "$name" "${time_of[$name]}" &
  running=$((running + 1))
done
wait

# Fork mode's status lines end with the totals: "#EXECS: cov: ... oom/timeout/crash: O/T/C
# time: Ss ...". Summed over its jobs, so execs/time is the mean rate over the whole run. Its
# counts include jobs that died before running an input (e.g. fork failing on a loaded machine,
# no input saved), so the table counts the inputs saved instead and notes any difference.
status=0
printf '%-16s %8s %12s %10s %8s %9s %5s %7s\n' target seconds execs execs/s crashes timeouts ooms corpus
for name in "${names[@]}"; do
  log=$out/logs/$name.log
  line=$(grep -a -E '^#[0-9]+: cov: .* oom/timeout/crash: ' "$log" | tail -n 1 || true)
  if [[ -z $line ]]; then
    printf '%-16s did not run; see %s\n' "$name" "$log"
    status=1
    continue
  fi
  execs=$(sed -E 's/^#([0-9]+):.*/\1/' <<<"$line")
  reported=$(sed -E 's#.*oom/timeout/crash: ([0-9]+)/([0-9]+)/([0-9]+).*#\1 + \2 + \3#' <<<"$line")
  elapsed=$(sed -E 's/.* time: ([0-9]+)s.*/\1/' <<<"$line")
  ((elapsed > 0)) || elapsed=1
  artifacts=$out/artifacts/$name
  crashes=$(find "$artifacts" -type f -newer "$out/logs/$name.start" \( -name 'crash-*' -o -name 'leak-*' \) | wc -l)
  timeouts=$(find "$artifacts" -type f -newer "$out/logs/$name.start" -name 'timeout-*' | wc -l)
  ooms=$(find "$artifacts" -type f -newer "$out/logs/$name.start" -name 'oom-*' | wc -l)
  corpus_files=$(find "$out/corpus/$name" -type f | wc -l)
  printf '%-16s %8s %12s %10s %8s %9s %5s %7s\n' "$name" "$elapsed" "$execs" \
    "$((execs / elapsed))" "$crashes" "$timeouts" "$ooms" "$corpus_files"
  if ((crashes + timeouts + ooms > 0)); then
    status=1
    find "$artifacts" -type f -newer "$out/logs/$name.start" -printf '    %p\n'
  fi
  if ((reported > crashes + timeouts + ooms)); then
    printf '    libFuzzer counted %s failed jobs, %s of them died before running an input (see %s)\n' \
      "$((reported))" "$((reported - crashes - timeouts - ooms))" "$log"
  fi
  ((execs > 0)) || status=1
done
exit $status
