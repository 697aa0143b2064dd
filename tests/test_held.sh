#!/usr/bin/env bash
# test_held.sh — b2_err_held (common/error.c): an error every rank may meet
# alike (a full disk under each rank's temporaries) prints one line, not one
# a rank: from the lowest rank holding it, with how many others did, once
# the ranks agree; at once on one rank; from b2_abort where the agreement
# never comes; running out of host memory (b2_alloc_n) likewise. Exit 4
# (B2_EIO) each time (tests/held_test.c drives it).
source "$(dirname "$0")/lib.sh"
top=$(cd "$(dirname "$0")/.." && pwd)
t=$top/build/$([ "$B2_SAN" = 1 ] && echo san || echo rel)/tests/held-test
[ -x "$t" ] || { echo "FAIL held-test: $t is not built (make all)"; exit 1; }
# held NAME NP WANT_RC WANT_STDERR ARGS...: exit code and the whole of stderr
held() {
  local n=$1 np=$2 rc=$3 want=$4; shift 4
  local got
  if [ "$np" = 1 ]; then "$t" "$@" >"$T/held.out" 2>"$T/held.err"; else
    $B2_MPIEXEC -n "$np" "$t" "$@" >"$T/held.out" 2>"$T/held.err"; fi
  got=$?
  [ $got = "$rc" ] && ok "$n: exit $rc" || fail "$n: exit $rc" "got $got: $(head -c 300 "$T/held.err")"
  [ "$(cat "$T/held.err")" = "$want" ] && ok "$n: stderr" || fail "$n: stderr" "got '$(cat "$T/held.err")', want '$want'"
}
held "every rank of 4 holds" 4 4 "held-test [rank 0]: no space under rank 0's temporaries (and on 3 other ranks)" all
held "ranks 1 and 3 of 4 hold" 4 4 "held-test [rank 1]: no space under rank 1's temporaries (and on 1 other rank)" 1,3
held "rank 2 of 4 alone holds" 4 4 "held-test [rank 2]: no space under rank 2's temporaries" 2
held "one rank" 1 4 "held-test: no space under rank 0's temporaries" all
held "no rank holds" 2 0 "" 5
# running out of host memory (b2_alloc_n) is held the same way
held "every rank of 3 out of memory" 3 4 "held-test [rank 0]: out of host memory: 18446744073709551612 bytes for a test's buffer (and on 2 other ranks)" all alloc
held "rank 1 of 3 out of memory" 3 4 "held-test [rank 1]: out of host memory: 18446744073709551612 bytes for a test's buffer" 1 alloc
# rank 0 waits in a barrier the holders never enter: each holder's
# agreement times out (B2_ERROR_WAIT) and b2_abort prints its own message
# before the job ends (the other holder's may or may not come first)
B2_ERROR_WAIT=1 $B2_MPIEXEC -n 3 "$t" 1,2 stuck >"$T/held.out" 2>"$T/held.err"
rc=$?
[ $rc = 4 ] && ok "holders without an agreement: exit 4" || fail "holders without an agreement: exit 4" "got $rc"
all=$(wc -l <"$T/held.err")
mine=$(grep -cE "^held-test \[rank ([12])\]: no space under rank \1's temporaries$" "$T/held.err")
dups=$(sort "$T/held.err" | uniq -d | wc -l)
[ "$all" -ge 1 ] && [ "$mine" = "$all" ] && [ "$dups" = 0 ] && ok "holders without an agreement: each its own message, once" ||
  fail "holders without an agreement: each its own message, once" "$(cat "$T/held.err")"
