#!/usr/bin/env bash
# The generated zsh completion: it parses, and, run as the function zsh would autoload, with
# compadd, compset and _files standing in for zsh's completion system (they print what they
# are given), it offers what a user expects at each point of a command line.
# Usage: completion_zsh_test.sh COMPLETION_SCRIPT. Exits 77 (skipped) without zsh.
set -uo pipefail
script=$1
if ! command -v zsh >/dev/null; then
  echo "SKIP: zsh is not installed (apt-get install zsh)"
  exit 77
fi
zsh -n "$script" || { echo "FAIL: $script does not parse in zsh" >&2; exit 1; }
failures=0
passed=0
# offers WORD...: what the completion passes to compadd/_files for the words of the line.
offers() {
  zsh -f -c '
    compadd() { while [[ $1 == -* && $1 != -- ]]; do [[ $1 == -[SPg] ]] && shift; shift; done
                [[ $1 == -- ]] && shift; print -l -- "$@"; }
    compset() { return 0; }
    _files() { print -- "<files $*>"; }
    words=("$@"); CURRENT=$#
    eval "_iobench() { $(<"$SCRIPT") }"
    _iobench' zsh "$@" | sort | tr '\n' ' ' | sed 's/ $//'
}
expect() {
  local got word line=$1 i
  local -a parts
  shift
  read -ra parts <<<"$line"
  for i in "${!parts[@]}"; do [[ ${parts[i]} == "''" ]] && parts[i]=; done
  got=" $(offers "${parts[@]}") "
  for word in "$@"; do
    if [[ $got != *" $word "* ]]; then
      echo "FAIL: '$line' offers [${got# }] without '$word'" >&2
      ((failures++))
      return
    fi
  done
  ((passed++))
}
export SCRIPT=$script
expect "iobench ''" run validate list compare report history completion
expect "iobench history runs.db ''" workload= last=
expect "iobench run ''" disk bonnie dbench quick suite:dbench "<files -g *.json>"
expect "iobench run disk ''" bs= operation= mode=
expect "iobench run disk operation=" read write mixed trim randtrim
expect "iobench run disk --engine ''" psync io_uring null
expect "iobench run -d ''" "<files -/>"
expect "iobench compare ''" "<files >"
expect "iobench run disk --ti" --time
echo "zsh completion: $passed passed, $failures failed"
echo "$passed passed, $failures failed"
((failures == 0))
