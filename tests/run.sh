#!/usr/bin/env bash
# tests/run.sh — runs every tests/test_*.sh and tests/test_*.py, first against
# the release build (bin/), then against the ASan+UBSan build (build/san/bin).
# A test script prints one line per assertion: "ok NAME" or "FAIL NAME: why";
# a script that dies without saying FAIL counts as one failure.
# Ends with one line "N passed, M failed"; exits 1 on any failure.
#   tests/run.sh [-k PATTERN] [--no-san] [--only-san]
set -u
cd "$(dirname "$0")/.."
top=$(pwd)
pattern="" ; passes="rel san"
while [ $# -gt 0 ]; do
  case $1 in
    -k) pattern=$2; shift ;;
    --no-san) passes="rel" ;;
    --only-san) passes="san" ;;
    *) echo "usage: tests/run.sh [-k PATTERN] [--no-san] [--only-san]" >&2; exit 2 ;;
  esac; shift
done
export B2_DATA=${B2_DATA:-$top/tests/data}
export B2_MPIEXEC=${B2_MPIEXEC:-mpiexec}
export PYTHONPATH=$top/tests${PYTHONPATH:+:$PYTHONPATH}
# MPICH and HDF5 keep some allocations for the life of the process
export LSAN_OPTIONS=suppressions=$top/tests/lsan.supp:print_suppressions=0
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=99
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-2}
passed=0; failed=0
mkdir -p tests/tmp
for pass in $passes; do
  if [ $pass = rel ]; then export B2_BIN=$top/bin B2_SAN=0; tag=""
  else export B2_BIN=$top/build/san/bin B2_SAN=1; tag="san:"; fi
  for t in tests/test_*.sh tests/test_*.py; do
    [ -e "$t" ] || continue
    name=$(basename "$t"); name=${name%.*}
    [ -n "$pattern" ] && [[ $name != *$pattern* ]] && continue
    export B2_TMP=$top/tests/tmp/$pass-$name
    rm -rf "$B2_TMP"; mkdir -p "$B2_TMP"
    log=$B2_TMP.log
    start=$(date +%s)
    case $t in *.py) python3 "$t" >"$log" 2>&1 ;; *) bash "$t" >"$log" 2>&1 ;; esac
    rc=$?
    p=$(grep -c '^ok ' "$log"); f=$(grep -c '^FAIL ' "$log")
    if [ $rc -ne 0 ] && [ "$f" -eq 0 ]; then
      echo "FAIL $tag$name: script exited $rc without reporting a failure" >>"$log"; f=1
    fi
    grep -E '^(ok|FAIL) ' "$log" | sed "s/^\(ok\|FAIL\) /\1 $tag$name: /"
    [ "$f" -gt 0 ] && { echo "---- $tag$name log (last 40 lines) ----"; tail -n 40 "$log"; echo "----"; }
    passed=$((passed + p)); failed=$((failed + f))
    echo "# $tag$name: $p passed, $f failed ($(( $(date +%s) - start ))s)"
    [ "$f" -eq 0 ] && rm -rf "$B2_TMP"
  done
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
