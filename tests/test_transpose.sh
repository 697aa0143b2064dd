#!/usr/bin/env bash
# test_transpose.sh — a local block's rows (tests/transpose_test.c): the
# hub classes' bounds and each row's columns with the hubs first, against
# rows worked out by hand; on the build under test (release or sanitizer).
top=$(cd "$(dirname "$0")/.." && pwd)
t=$top/build/$([ "${B2_SAN:-0}" = 1 ] && echo san || echo rel)/tests/transpose-test
[ -x "$t" ] || { echo "FAIL transpose-test: $t is not built (make all)"; exit 1; }
"$t"
