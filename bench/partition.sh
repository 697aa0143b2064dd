#!/usr/bin/env bash
# bench/partition.sh — partition2d end to end: input tuples per second (per
# rank) and peak memory per rank, at several scales, rank counts and grids,
# against the targets of issue 4: >= 10 M tuples/s per rank, and peak memory
# <= 2 x the rank's share of the output + the --mem budget.
#
#   SCALES="20 21 22 23 24" RANKS="1 2" GRIDS="1x1 2x2" REPS=1 bench/partition.sh
#
# Environment: EF (edgefactor, 16), MEM (partition2d --mem, default its own),
# OUTDIR (scratch, default /tmp/bfs2d-bench-partition: edge files are cached
# there, rmat-gen -s S -e EF; files found there are reused and kept, those
# generated are removed after their scale), MPIEXEC, KEEP=1 keeps all files,
# PARTITION2D (the program, default bin/partition2d: to compare builds),
# G500_BFS=/path/to/graph500_reference_bfs adds the reference's
# construction_time at the same scale and ranks (skipped when unset).
# Timing is partition2d's own partition_time (open to commit, wall clock).
# Peak memory is getrusage's max RSS per rank (partition2d -v); the share of
# the output of rank r: its blocks' col_ptr rows and row indices, and N/P of
# /tuple_degree. The load column is the 1-minute load average before each
# run (this machine may be shared). Output: a markdown table on stdout; logs
# under OUTDIR.
set -euo pipefail
cd "$(dirname "$0")/.."
SCALES=${SCALES:-"20 21 22 23 24"}
RANKS=${RANKS:-"1 2"}
GRIDS=${GRIDS:-"1x1 2x2"}
REPS=${REPS:-1}
EF=${EF:-16}
OUTDIR=${OUTDIR:-/tmp/bfs2d-bench-partition}
MPIEXEC=${MPIEXEC:-mpiexec}
PARTITION2D=${PARTITION2D:-bin/partition2d}
mkdir -p "$OUTDIR"
launch() { local np=$1; shift; if [ "$np" = 1 ]; then "$@"; else $MPIEXEC -n "$np" "$@"; fi; }
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

echo "# partition2d, R-MAT edgefactor $EF; median wall time of $REPS run(s); ${MEM:+--mem $MEM}"
echo "# host: $(nproc --all) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(free -g | awk '/Mem:/ {print $2}') GiB; load before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| scale | ranks | grid | tuples | time s | M tuples/s | M tuples/s/rank | peak MiB/rank (max) | output share MiB (max) | budget MiB | peak <= 2 share + budget | spilled runs | G500 construction s | load |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
for s in $SCALES; do
  edges=$OUTDIR/rmat-s$s-e$EF.h5
  made=0
  [ -f "$edges" ] || { bin/rmat-gen -q -s "$s" -e "$EF" -o "$edges"; made=1; }
  for np in $RANKS; do
    ref="-"
    if [ -n "${G500_BFS:-}" ]; then
      log=$OUTDIR/g500-s$s-np$np.log
      (cd "$OUTDIR" && SKIP_BFS=1 SKIP_VALIDATION=1 launch "$np" "$G500_BFS" "$s" "$EF" >"$log" 2>&1) || true
      ref=$(awk '/^construction_time:/ {print $2; exit}' "$log")
      ref=${ref:--}
    fi
    for g in $GRIDS; do
      out=$OUTDIR/part-s$s-np$np-g$g.h5
      times=()
      load=$(cut -d' ' -f1 /proc/loadavg)
      for r in $(seq "$REPS"); do
        log=$OUTDIR/part-s$s-np$np-g$g-r$r.log
        launch "$np" "$PARTITION2D" -v --grid "$g" ${MEM:+--mem "$MEM"} "$edges" -o "$out" >"$log" 2>&1
        times+=("$(python3 -c "import h5py; print(h5py.File('$out', 'r').attrs['partition_time'])")")
      done
      t=$(printf '%s\n' "${times[@]}" | median)
      peak=$(grep -o 'peak memory [0-9.]* MiB' "$log" | awk '{print $3}' | sort -g | tail -1)
      runs=$(grep -o '[0-9]* spilled runs' "$log" | awk '{s += $1} END {print s + 0}')
      budget=$(grep -o 'budget [0-9.]* MiB' "$log" | awk '{print $2}')
      share=$(python3 - "$out" "$np" <<'EOF'
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "r"); P = int(sys.argv[2])
cols = f["csc/col_ptr"].shape[1]; nnz = f["csc/nnz"][...]; n = int(f.attrs["num_vertices"])
print("%.1f" % (max(sum(cols * 8 + int(nnz[p]) * 4 for p in range(r, len(nnz), P)) + n * 8 / P
                    for r in range(P)) / 2**20))
EOF
)
      m=$(( EF << s ))
      awk -v s="$s" -v np="$np" -v g="$g" -v m="$m" -v t="$t" -v pk="$peak" -v sh="$share" \
          -v b="$budget" -v runs="$runs" -v ref="$ref" -v load="$load" 'BEGIN {
        ok = (pk <= 2 * sh + b) ? "yes" : "NO";
        printf "| %d | %d | %s | %d | %.2f | %.1f | %.1f | %.0f | %.0f | %.0f | %s | %d | %s | %s |\n",
               s, np, g, m, t, m / t / 1e6, m / t / np / 1e6, pk, sh, b, ok, runs, ref, load }'
      [ "${KEEP:-0}" = 1 ] || rm -f "$out"
    done
  done
  [ "${KEEP:-0}" = 1 ] || [ "$made" = 0 ] || rm -f "$edges"
done
echo
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
