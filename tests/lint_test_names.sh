#!/usr/bin/env bash
# ctest cuts a test's name at ';' (catch_discover_tests makes a list of it): the cut names match
# no Catch2 test and "pass" without running anything. This fails on any TEST_CASE whose name
# holds one. Usage: lint_test_names.sh TESTS_DIR
set -uo pipefail
# -z: a file is one record, so a name that clang-format wrapped onto the line after
# "TEST_CASE(" is seen too.
found=$(grep -rlPz 'TEST_CASE\(\s*"[^"]*;' "$1" --include='*.cpp')
if [[ -n $found ]]; then
  echo "FAIL: test names with ';' (ctest would cut them and run nothing), in:" >&2
  echo "$found" >&2
  exit 1
fi
echo "test names: none holds ';'"
echo "1 passed, 0 failed"
