#!/usr/bin/env bash
# tests/run.sh — runs every tests/test_*.sh and tests/test_*.py, first against
# the release build (bin/), then against the ASan+UBSan build (build/san/bin).
# A test script prints one line per assertion: "ok NAME" or "FAIL NAME: why";
# a script that dies without saying FAIL counts as one failure.
# Ends with one line "N passed, M failed"; exits 1 on any failure.
#   tests/run.sh [--quick] [-k PATTERN] [--no-san] [--only-san]
# --quick is `make test`'s tier: the release build without the SLOW scripts,
# and the sanitizer build on SAN_QUICK only; `make test-all` runs everything.
set -u
cd "$(dirname "$0")/.."
top=$(pwd)
# The quick tier's two lists (script names without .sh/.py), the one place
# that says which scripts are slow. SLOW: minutes each on 2 cores, sweeping
# many graphs and grids; the quick tier still runs their programs end to end
# (test_pipeline: trees through bfs-validate, nedge against numpy, on 1 and
# 4 ranks) and bfs-gpu on 2x2, 1x3 and 3x1 under the sanitizers
# (test_bfs_records).
# SAN_QUICK: the sanitizer pass of the quick tier, a script for each program
# and the input-handling scripts, where memory errors and overflows live.
SLOW="test_bfs test_bfs_grids test_partition"
SAN_QUICK="test_inputs test_rmat_gen_errors test_snap_import test_partition_errors test_validate test_report_reading test_edge_export test_bfs_records"
pattern="" ; passes="rel san"; quick=0
while [ $# -gt 0 ]; do
  case $1 in
    -k) [ $# -ge 2 ] || { echo "tests/run.sh: -k needs a pattern" >&2; exit 2; }; pattern=$2; shift ;;
    --quick) quick=1 ;;
    --no-san) passes="rel" ;;
    --only-san) passes="san" ;;
    *) echo "usage: tests/run.sh [--quick] [-k PATTERN] [--no-san] [--only-san]" >&2; exit 2 ;;
  esac; shift
done
# in_list NAME LIST: NAME is a word of LIST
in_list() { case " $2 " in *" $1 "*) return 0 ;; esac; return 1; }
for n in $SLOW $SAN_QUICK; do
  [ -e tests/$n.sh ] || [ -e tests/$n.py ] || { echo "tests/run.sh: SLOW or SAN_QUICK names $n, which is not a test script" >&2; exit 2; }
done
left_out=0
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
    if [ $quick = 1 ]; then
      if { [ $pass = rel ] && in_list "$name" "$SLOW"; } || { [ $pass = san ] && ! in_list "$name" "$SAN_QUICK"; }; then
        left_out=$((left_out + 1)); continue
      fi
    fi
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
[ $left_out -gt 0 ] && echo "# quick tier: $left_out script runs left out (make test-all runs every script in both builds)"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
