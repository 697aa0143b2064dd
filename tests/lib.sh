# tests/lib.sh — helpers for shell tests (sourced). Environment from run.sh:
# B2_BIN (programs), B2_TMP (scratch dir), B2_DATA (test inputs, default tests/data), B2_MPIEXEC,
# B2_SAN (1 under the sanitizer build: keep sizes small).
set -u
: "${B2_BIN:=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/bin}"
: "${B2_TMP:=$(mktemp -d)}"
: "${B2_DATA:=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/data}"
: "${B2_MPIEXEC:=mpiexec}"
: "${B2_SAN:=0}"
T=$B2_TMP
ok()   { echo "ok $1"; }
fail() { echo "FAIL $1: ${2:-}"; }
# run NP PROG ARGS...: PROG from B2_BIN on NP ranks (NP=1 runs it without mpiexec)
run() {
  local np=$1 prog=$2; shift 2
  if [ "$np" = 1 ]; then "$B2_BIN/$prog" "$@"; else $B2_MPIEXEC -n "$np" "$B2_BIN/$prog" "$@"; fi
}
# check NAME CMD...: the command succeeds
check() { local n=$1; shift; if "$@" >"$T/last.out" 2>"$T/last.err"; then ok "$n"; else fail "$n" "exit $? from $*: $(tail -n 3 "$T/last.err" | tr '\n' ' ')"; fi; }
# expect_exit CODE NAME CMD...: the command exits with CODE and says something on stderr
expect_exit() {
  local code=$1 n=$2; shift 2
  "$@" >"$T/last.out" 2>"$T/last.err"; local rc=$?
  if [ $rc -eq "$code" ] && [ -s "$T/last.err" ]; then ok "$n"
  else fail "$n" "expected exit $code with a message, got $rc: $(head -c 300 "$T/last.err")"; fi
}
# same NAME A B: files are byte-identical
same() { if cmp -s "$2" "$3"; then ok "$1"; else fail "$1" "$2 and $3 differ"; fi; }
# no_leftovers NAME DIR: no file (temporary or not) other than those listed in $3...
no_files_like() { local n=$1 pat=$2; if compgen -G "$pat" >/dev/null; then fail "$n" "left behind: $(echo $pat)"; else ok "$n"; fi; }
