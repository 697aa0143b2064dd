#!/usr/bin/env bash
# test_plan.sh — the level plan's unit tests (tests/plan_test.c), on the
# build under test: release, or the sanitizer build.
top=$(cd "$(dirname "$0")/.." && pwd)
t=$top/build/$([ "${B2_SAN:-0}" = 1 ] && echo san || echo rel)/tests/plan-test
[ -x "$t" ] || { echo "FAIL plan-test: $t is not built (make all)"; exit 1; }
"$t"
