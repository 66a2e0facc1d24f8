#!/usr/bin/env bash
# The generated bash completion completes as a user types: commands, options, option values,
# workloads and suites, params of the workload on the line and their values, with bash's own
# splitting of words at '=' and ':' (COMP_WORDBREAKS) and without it.
# Usage: completion_bash_test.sh COMPLETION_SCRIPT
set -uo pipefail
script=$1
bash -n "$script" || { echo "FAIL: $script does not parse" >&2; exit 1; }
# shellcheck disable=SC1090
source "$script"
failures=0
passed=0

# complete LINE: COMPREPLY as one sorted, space-separated line, for the cursor at the end.
complete_line() {
  COMP_LINE=$1
  COMP_POINT=${#1}
  COMPREPLY=()
  _iobench
  printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' ' | sed 's/ $//'
}
# expect LINE WORD...: each WORD is offered.
expect() {
  local line=$1 got word
  shift
  got=" $(complete_line "$line") "
  for word in "$@"; do
    if [[ $got != *" $word "* ]]; then
      echo "FAIL: '$line' offers [${got# }] without '$word'" >&2
      ((failures++))
      return
    fi
  done
  ((passed++))
}
# expect_only LINE WORDS: exactly WORDS (sorted, space-separated).
expect_only() {
  local got
  got=$(complete_line "$1")
  if [[ $got != "$2" ]]; then
    echo "FAIL: '$1' offers [$got], expected [$2]" >&2
    ((failures++))
    return
  fi
  ((passed++))
}

COMP_WORDBREAKS=$' \t\n"\'><=;|&(:'
expect_only "iobench " "compare completion history list report run validate"
expect_only "iobench ru" "run"
expect "iobench run " disk bonnie tiotest tiobench dbench quick suite:dbench seed-reports
expect_only "iobench run suite:db" "dbench"   # bash completes after the ':'
expect "iobench run disk " bs= blocks= operation= mode=
expect_only "iobench run disk operation=" "mixed randtrim read trim write"
expect_only "iobench run disk operation=wr" "write"
# fio's params come from the registry like the rest.
expect "iobench run disk " numjobs= nrfiles= bssplit= thinktime= rwmixtrim=
expect_only "iobench run disk operation=t" "trim"
expect_only "iobench run disk mode=d" "direct"
expect "iobench run disk --engine " psync pvsync2 io_uring libaio mmap null
expect "iobench run disk engine=" psync io_uring
expect "iobench run disk bs=4k -d /tmp --tim" --time
expect_only "iobench run disk -f " "csv json markdown text"
expect "iobench compare a.json --fr" --from
expect "iobench compare a.json --from " bonnie-csv fio-json dbench
expect_only "iobench completion " "bash zsh"
expect "iobench history runs.db " workload= host= fs= kernel= last=
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
touch "$scratch/runs.db"
expect "iobench run disk --store $scratch/ru" "$scratch/runs.db"
expect "iobench history $scratch/r" "$scratch/runs.db"
# A value-taking option's value is not taken for the workload.
expect "iobench run -d /tmp disk op" operation=
# After a suite, params of every workload (a suite's key=value reaches each step declaring it).
expect "iobench run quick " bs= procs= operation=

# Without '=' and ':' in COMP_WORDBREAKS bash completes the whole word.
COMP_WORDBREAKS=$' \t\n'
expect_only "iobench run disk operation=wr" "operation=write"
expect_only "iobench run suite:db" "suite:dbench"

echo "bash completion: $passed passed, $failures failed"
echo "$passed passed, $failures failed"
((failures == 0))
