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
echo "man page: $(wc -l <<<"$options") options and $(wc -w <<<"$commands") commands documented"
echo "1 passed, 0 failed"
