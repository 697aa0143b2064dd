# rmat-gen: bad input gives one clear message, docs/DESIGN.md's exit code, no file left.
. "$(dirname "$0")/lib.sh"
d=$T/out; mkdir -p "$d"
none() { # NAME: nothing at all in $d
  if [ -z "$(ls -A "$d")" ]; then ok "$1: no file left"; else fail "$1: no file left" "$(ls -A "$d")"; fi; }
expect_exit 2 "scale 0" run 1 rmat-gen -s 0 -o "$d/g.h5"; none "scale 0"
expect_exit 2 "scale 41" run 1 rmat-gen -s 41 -o "$d/g.h5"; none "scale 41"
expect_exit 2 "edgefactor 0" run 1 rmat-gen -s 8 -e 0 -o "$d/g.h5"; none "edgefactor 0"
expect_exit 2 "initiator sum 1.1" run 1 rmat-gen -s 8 --initiator 0.5,0.3,0.3 -o "$d/g.h5"; none "initiator sum"
expect_exit 2 "initiator sum exactly 1" run 1 rmat-gen -s 8 --initiator 0.5,0.25,0.25 -o "$d/g.h5"
expect_exit 2 "initiator malformed" run 1 rmat-gen -s 8 --initiator 0.5,x,0.1 -o "$d/g.h5"
expect_exit 2 "initiator negative" run 1 rmat-gen -s 8 --initiator 0.5,-0.1,0.1 -o "$d/g.h5"
expect_exit 2 "missing -o" run 1 rmat-gen -s 8
expect_exit 2 "missing -s" run 1 rmat-gen -o "$d/g.h5"
expect_exit 2 "unknown option" run 1 rmat-gen -s 8 --bogus -o "$d/g.h5"
grep -q "Try 'rmat-gen --help'" "$T/last.err" && ok "usage error points to --help" || fail "usage error points to --help" "$(cat "$T/last.err")"
expect_exit 2 "two ranks agree on usage errors" run 2 rmat-gen -s 0 -o "$d/g.h5"
[ "$(grep -c . "$T/last.err")" -le 2 ] && ok "usage error printed once on 2 ranks" || fail "usage error printed once on 2 ranks" "$(cat "$T/last.err")"
none "usage errors"
expect_exit 4 "missing directory" run 1 rmat-gen -s 8 -o "$d/nodir/g.h5"
expect_exit 4 "unwritable location" run 1 rmat-gen -s 8 -o /proc/g.h5
expect_exit 2 "output is a directory" run 1 rmat-gen -s 8 -o "$d"
# a full disk: a 1 MiB tmpfs in a private mount namespace (needs root)
full() { # NAME NP ARGS...: expect exit 4, a message, nothing left on the small disk
  local n=$1 np=$2; shift 2
  local m=$T/small; mkdir -p "$m"
  local cmd="$B2_BIN/rmat-gen"; [ "$np" -gt 1 ] && cmd="$B2_MPIEXEC -n $np $cmd"
  unshare -m sh -c "mount -t tmpfs -o size=1m tmpfs '$m' && $cmd $* -o '$m/g.h5'; rc=\$?; ls -A '$m' > '$T/left'; exit \$rc" >"$T/last.out" 2>"$T/last.err"
  local rc=$?
  if [ $rc -eq 4 ] && grep -q "g.h5\|disk full" "$T/last.err" && [ ! -s "$T/left" ]; then ok "$n"
  else fail "$n" "rc=$rc left=[$(cat "$T/left")] $(head -c 300 "$T/last.err")"; fi
}
if [ "$(id -u)" = 0 ] && unshare -m sh -c "mount -t tmpfs -o size=1m tmpfs '$T' && umount '$T'" 2>/dev/null; then
  full "full disk found before writing" 1 -s 16
  full "full disk while writing (deflate, 1 rank)" 1 -s 16 -e 64 --deflate 1
  full "full disk while writing (deflate, 2 ranks)" 2 -s 16 -e 64 --deflate 1
  full "full disk on 2 ranks" 2 -s 16
else
  echo "# skipped: full-disk tests need root and mount namespaces"
fi
# overwriting is fine
check "write" run 1 rmat-gen -q -s 8 -o "$d/g.h5"
check "overwrite" run 1 rmat-gen -q -s 9 -o "$d/g.h5"
python3 -c "import h5py,sys; sys.exit(0 if h5py.File('$d/g.h5','r').attrs['scale']==9 else 1)" && ok "overwritten file is the new one" || fail "overwritten file is the new one"
[ "$(ls -A "$d")" = "g.h5" ] && ok "no temporary left after success" || fail "no temporary left after success" "$(ls -A "$d")"
rm -f "$d/g.h5"
# killed while writing: neither the output nor its temporary remains
s=22; [ "$B2_SAN" = 1 ] && s=20
"$B2_BIN/rmat-gen" -s $s -o "$d/big.h5" >/dev/null 2>&1 & pid=$!
for i in $(seq 50); do compgen -G "$d/.big.h5.tmp-*" >/dev/null && break; sleep 0.1; done
sleep 0.3; kill -TERM $pid; wait $pid; rc=$?
[ $rc -ne 0 ] && ok "killed run exits non-zero" || fail "killed run exits non-zero" "finished before the kill"
none "killed run"
# help and version
check "--help exits 0" run 1 rmat-gen --help
grep -q "Usage: rmat-gen" "$T/last.out" && grep -q "16 MiB" "$T/last.out" && ok "--help states the memory bound" || fail "--help states the memory bound"
check "--version exits 0" run 1 rmat-gen --version
grep -q "rmat-gen (bfs2d)" "$T/last.out" && ok "--version prints the version" || fail "--version prints the version"
