#!/usr/bin/env bash
# The manual page renders without a warning and documents every option and command that
# `iobench --help` lists (so a new option fails here until the page has it).
# Usage: man_page_test.sh IOBENCH MAN_PAGE
set -euo pipefail
iobench=$1
page=$2
fail() { echo "FAIL: $*" >&2; exit 1; }

warnings=$(groff -man -Tutf8 -ww -z "$page" 2>&1) || fail "groff failed: $warnings"
[[ -z $warnings ]] || fail "groff warns about $page: $warnings"
if command -v man >/dev/null; then
  rendered=$(MANWIDTH=100 man -l "$page" 2>&1) || fail "man -l $page failed: $rendered"
  grep -q '^NAME' <<<"$rendered" || fail "man -l shows no NAME section"
fi

help=$("$iobench" --help)
options=$(grep -oE -- '--[a-z][a-z-]+' <<<"$help" | sort -u)
[[ $(wc -l <<<"$options") -ge 20 ]] || fail "found too few options in --help: $options"
for option in $options; do
  escaped=${option//-/\\-}
  grep -qF -- "$escaped" "$page" || fail "the manual page does not document $option"
done
# The commands of the usage lines, each with its own paragraph under COMMANDS.
commands=$(grep -oE '^ *(usage: )?iobench [a-z]+' <<<"$help" | awk '{print $NF}' | sort -u)
for command in $commands; do
  grep -qxF ".B $command" "$page" || fail "the manual page has no paragraph for '$command'"
done
# The format names of --format and --from, as the tables give them (the names the error of an
# unknown one lists), each in its option's paragraph.
section() { sed -n "/^$1/,/^\.\(TP\|PP\)\$/p" "$page" | sed 's/\\-/-/g'; }
check_names() {  # OPTION SECTION-START ARGS...
  local option=$1 start=$2 names
  shift 2
  names=$("$iobench" "$@" 2>&1 | sed -n 's/.*\(is not one of\|formats:\) //p' | tr -d ',' || true)
  [[ -n $names ]] || fail "found no $option names in the error of iobench $*"
  for name in $names; do
    grep -qw -- "$name" <<<"$(section "$start")" ||
      fail "the manual page's $option paragraph does not name the format '$name'"
  done
}
check_names --format '\.BR \\-f ", " \\-\\-format' compare a.json b.json --format '?'
check_names --format '\.BR \\-f ", " \\-\\-format' history a.db --format '?'
check_names --from '\.B \\-\\-from' compare a.json b.json --from '?'
echo "man page: $(wc -l <<<"$options") options and $(wc -w <<<"$commands") commands documented"
echo "1 passed, 0 failed"
