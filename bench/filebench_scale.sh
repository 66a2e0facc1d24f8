#!/usr/bin/env bash
# A 10^6-file filebench fileset: how long iobench takes to draw and create it, and its memory.
#
# Runs `iobench run filebench` on a .f file with one fileset of N files (default 10^6, dirwidth
# 100, every file preallocated at 0 bytes so that a tmpfs holds them in inodes alone), a 1 s run
# of statfile, once with N files and once with 1000, and prints for each the wall time of the
# whole step (mostly the fileset's creation) and the peak RSS of the runner (/usr/bin/time's
# "Maximum resident set size"), then the RSS growth per file between the two: the interpreter's
# metadata per file (iobench keeps 16 bytes of layout and 1 byte of pick state per file, 9 per
# directory) plus the allocator's slack. The progress line (percentage and ETA) goes to stderr.
#
# Not run in CI (it takes a minute and ~1 GB of tmpfs inodes). Needs root (mounts a tmpfs) and
# /usr/bin/time. Usage:
#   bench/filebench_scale.sh [-n FILES] [-b IOBENCH] [-d DIR]
# Defaults: -n 1000000 -b build/ci/apps/iobench/iobench; -d: a tmpfs mounted for the run.
set -euo pipefail

files=1000000
iobench=build/ci/apps/iobench/iobench
dir=
while getopts "n:b:d:h" opt; do
  case "$opt" in
    n) files=$OPTARG ;;
    b) iobench=$OPTARG ;;
    d) dir=$OPTARG ;;
    h) sed -n '2,15p' "$0"; exit 0 ;;
    *) exit 2 ;;
  esac
done
die() { echo "filebench_scale: $*" >&2; exit 2; }
[[ -x $iobench ]] || die "iobench binary '$iobench' not found; build it or pass -b PATH"
[[ -x /usr/bin/time ]] || die "/usr/bin/time is missing (apt-get install time)"
iobench=$(realpath "$iobench")

work=$(mktemp -d /tmp/filebench_scale.XXXXXX)
cleanup() {
  if mountpoint -q "$work/mnt" 2>/dev/null; then umount "$work/mnt"; fi
  rm -rf "$work"
}
trap cleanup EXIT
if [[ -z $dir ]]; then
  [[ $(id -u) -eq 0 ]] || die "must run as root to mount a tmpfs, or give -d DIR"
  mkdir "$work/mnt"
  mount -t tmpfs -o size=4g,nr_inodes=$((files * 2 + 100000)) tmpfs "$work/mnt"
  dir=$work/mnt
fi

# run N: prints "N seconds peak_rss_kib"
run() {
  local n=$1
  cat >"$work/scale.f" <<F
define fileset name=scale,path=/tmp,entries=$n,dirwidth=100,size=0,prealloc=100
define process name=stat,instances=1
{
  thread name=t,memsize=4k,instances=1
  {
    flowop statfile name=stat1,filesetname=scale
  }
}
run 1
F
  /usr/bin/time -f "%e %M" -o "$work/time" "$iobench" run filebench -d "$dir" \
    file="$work/scale.f" --progress 2s >"$work/out.$n" 2>"$work/err.$n" ||
    { cat "$work/err.$n" >&2; die "iobench failed at $n files"; }
  echo "$n $(cat "$work/time")"
}

small=$(run 1000)
big=$(run "$files")
tr '\r' '\n' <"$work/err.$files" | grep -E 'ETA|%' | tail -3 >&2 || true
read -r _ small_s small_kib <<<"$small"
read -r _ big_s big_kib <<<"$big"
echo "files      seconds  peak_rss_kib"
printf '%-10s %-8s %s\n' 1000 "$small_s" "$small_kib" "$files" "$big_s" "$big_kib"
awk -v a="$small_kib" -v b="$big_kib" -v n="$files" \
  'BEGIN { printf "RSS growth per file: %.1f bytes\n", (b - a) * 1024 / (n - 1000) }'
