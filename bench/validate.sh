#!/usr/bin/env bash
# bench/validate.sh — bfs-validate's seconds per search against the Graph500
# reference's validation time, same scale, edgefactor and rank count.
#
#   bench/validate.sh                 # SCALES="18 19 20 21 22", NP=2
#   SCALES="12 14" NROOTS=4 bench/validate.sh      # small, quick
#   G500_BFS=/path/to/graph500_reference_bfs bench/validate.sh
#
# Environment:
#   SCALES     R-MAT scales (default "18 19 20 21 22")
#   EF         edgefactor (default 16)
#   NP         MPI ranks for bfs-validate and the reference (default 2)
#   NROOTS     searches bfs-gpu keeps and bfs-validate checks (default 8)
#   G500_BFS   the Graph500 reference binary; its column is left out when unset
#   G500_NVAL  reference validations to average before it is stopped (default 4;
#              it would otherwise run 64 BFS, 64 validations and SSSP)
#   G500_CACHE 1: reuse the reference's time from an earlier run in WORK
#              (default 0: measure it again, right after ours)
#   BIN        bfs2d programs (default bin/); MPIEXEC (default mpiexec)
#   WORK       scratch directory for the graphs (default $TMPDIR or /tmp, /bfs2d-bench-validate);
#              files are reused when present, KEEP=0 removes them at the end
#   REPEAT     bfs-validate runs per scale; ours_s is the median of their means
#              (default 3: a shared machine's load comes and goes)
#   OMP_NUM_THREADS  threads per rank (default 1: NP ranks already fill the cores)
# BFS files come from rmat-gen + partition2d (grid NPx1) + bfs-gpu --backend cpu
# when those exist, else from tests/test_validate.py's serial Python writer.
# Output: one table row per scale; timing never decides anything here.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
SCALES=${SCALES:-"18 19 20 21 22"}
EF=${EF:-16}; NP=${NP:-2}; NROOTS=${NROOTS:-8}
BIN=${BIN:-$top/bin}; MPIEXEC=${MPIEXEC:-mpiexec}
WORK=${WORK:-${TMPDIR:-/tmp}/bfs2d-bench-validate}; KEEP=${KEEP:-1}
G500_NVAL=${G500_NVAL:-4}; REPEAT=${REPEAT:-3}
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
mkdir -p "$WORK"
launch() { local np=$1; shift; if [ "$np" = 1 ]; then "$@"; else $MPIEXEC -n "$np" "$@"; fi; }
have_pipeline=1
for p in rmat-gen partition2d bfs-gpu; do [ -x "$BIN/$p" ] || have_pipeline=0; done
[ -x "$BIN/bfs-validate" ] || { echo "bench/validate.sh: $BIN/bfs-validate missing (make)" >&2; exit 4; }

# g500 SCALE: mean of the reference's first G500_NVAL "Validate time for BFS k is X"
g500() {
  local s=$1 log=$WORK/g500-s$1-np$NP.log pid k=0
  if [ "${G500_CACHE:-0}" != 1 ] || [ ! -s "$log.done" ]; then
    : >"$log"
    $MPIEXEC -n "$NP" "$G500_BFS" "$s" "$EF" >"$log.out" 2>"$log" &
    pid=$!
    while kill -0 $pid 2>/dev/null; do
      k=$(grep -c "Validate time for BFS" "$log")
      [ "$k" -ge "$G500_NVAL" ] && break
      sleep 1
    done
    kill $pid 2>/dev/null; wait $pid 2>/dev/null
    grep "Validate time for BFS" "$log" | head -n "$G500_NVAL" | awk '{s+=$NF; n++} END {if (n) printf "%.4f\n", s/n}' >"$log.done"
  fi
  cat "$log.done"
}

printf "%-6s %-6s %-9s %-11s %-12s %-12s %-12s %-9s %s\n" scale ranks searches tuples \
  "setup_s" "ours_s" "g500_s" "speedup" "load"
for s in $SCALES; do
  e=$WORK/rmat-s$s-e$EF.h5; b=$WORK/rmat-s$s-e$EF.np$NP.bfs.h5; v=$WORK/rmat-s$s-e$EF.np$NP.valid.h5
  if [ ! -s "$b" ]; then
    if [ $have_pipeline = 1 ]; then
      [ -s "$e" ] || launch "$NP" "$BIN/rmat-gen" -q -s "$s" -e "$EF" -o "$e" || exit 1
      p=$WORK/rmat-s$s-e$EF.g${NP}x1.h5
      launch "$NP" "$BIN/partition2d" -q --grid "${NP}x1" "$e" -o "$p" || exit 1
      launch "$NP" "$BIN/bfs-gpu" -q "$p" --backend cpu -n "$NROOTS" -o "$b" || exit 1
      rm -f "$p"
    else
      PYTHONPATH=$top/tests python3 - "$s" "$EF" "$NROOTS" "$e" "$b" <<'EOF' || exit 1
import sys, numpy as np, test_validate as tv, b2ref
s, ef, k, e, b = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
n = 1 << s; rng = np.random.default_rng(1)
# a skewed random graph (not Graph500's generator: only for when rmat-gen is absent)
u = (rng.pareto(1.5, n * ef) * 50).astype(np.int64) % n; v = rng.integers(0, n, n * ef)
perm = rng.permutation(n); t = np.stack([perm[u], v], axis=1)
tv.write_edges(e, n, t); ptr, idx = b2ref.undirected_csr(n, t)
roots = tv.pick_roots(n, t, k, rng); preds, levels, ne = [], [], []
for r in roots:
    p, l = tv.random_tree(n, ptr, idx, int(r), rng); preds.append(p); levels.append(l); ne.append(tv.nedge_of(t, p >= 0))
tv.write_bfs(b, e, roots, preds, ne, levels=levels)
EOF
    fi
  fi
  load=$(cut -d' ' -f1 /proc/loadavg)
  runs=""
  for r in $(seq "$REPEAT"); do
    launch "$NP" "$BIN/bfs-validate" -q "$e" "$b" -o "$v" >/dev/null; rc=$?
    [ $rc = 0 ] || { echo "bfs-validate exited $rc at scale $s" >&2; exit 1; }
    runs="$runs $(python3 - "$v" <<'EOF'
import sys, h5py
with h5py.File(sys.argv[1], "r") as f:
    t = f["time"][...]
    print("%d:%.3f:%.4f" % (len(t), f.attrs["setup_time"], t.mean() if len(t) else 0))
EOF
)"
  done
  read -r searches setup ours < <(python3 -c '
import sys
r = sorted((float(x.split(":")[2]), x) for x in sys.argv[1:])
print(*r[len(r) // 2][1].split(":"))' $runs)
  tuples=$(( (1 << s) * EF ))
  g="-"; sp="-"
  if [ -n "${G500_BFS:-}" ]; then
    g=$(g500 "$s"); [ -n "$g" ] && sp=$(awk -v a="$g" -v b="$ours" 'BEGIN {printf "%.1fx", a / b}')
  fi
  printf "%-6s %-6s %-9s %-11s %-12s %-12s %-12s %-9s %s\n" "$s" "$NP" "$searches" "$tuples" \
    "$setup" "$ours" "${g:--}" "$sp" "$load"
done
[ "$KEEP" = 0 ] && rm -rf "$WORK"
exit 0
