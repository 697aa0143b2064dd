#!/usr/bin/env bash
# bench/gen.sh — rmat-gen throughput: tuples per second for generation alone,
# for the write, and end to end, at several scales on 1 and 2 ranks (one core
# per rank: OMP_NUM_THREADS=1), side by side with the Graph500 reference
# generator's `graph_generation` time at the same scale and ranks.
#
#   SCALES="20 21 22 23 24" RANKS="1 2" REPS=3 G500_BFS=/path/to/graph500_reference_bfs bench/gen.sh
#
# G500_BFS unset: the reference column is skipped. Medians of REPS runs
# (the reference: of G500_REPS runs, default 1, it is slow). Output: a
# markdown table on stdout; raw logs under $OUTDIR (default /tmp/bfs2d-bench-gen).
set -euo pipefail
cd "$(dirname "$0")/.."
SCALES=${SCALES:-"20 21 22 23 24"}
RANKS=${RANKS:-"1 2"}
REPS=${REPS:-3}
G500_REPS=${G500_REPS:-1}
EF=${EF:-16}
OUTDIR=${OUTDIR:-/tmp/bfs2d-bench-gen}
MPIEXEC=${MPIEXEC:-mpiexec}
mkdir -p "$OUTDIR"
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
launch() { local np=$1; shift; if [ "$np" = 1 ]; then "$@"; else $MPIEXEC -n "$np" "$@"; fi; }

echo "# rmat-gen, edgefactor $EF, one core per rank; medians of $REPS runs"
echo "# host: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| scale | ranks | tuples | generation s | gen M tuples/s/core | write s | total s | end-to-end M tuples/s | Graph500 ref graph_generation s | speed-up end to end |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for s in $SCALES; do
  for np in $RANKS; do
    m=$(( EF << s ))
    gens=(); writes=(); totals=()
    for r in $(seq "$REPS"); do
      log=$OUTDIR/gen-s$s-np$np-r$r.log
      OMP_NUM_THREADS=1 launch "$np" bin/rmat-gen -s "$s" -e "$EF" -o "$OUTDIR/g.h5" >"$log" 2>&1
      line=$(grep '  time: ' "$log")
      gens+=("$(echo "$line" | sed -E 's/.*generation ([0-9.]+) s.*/\1/')")
      writes+=("$(echo "$line" | sed -E 's/.*write ([0-9.]+) s.*/\1/')")
      totals+=("$(echo "$line" | sed -E 's/.*total ([0-9.]+) s.*/\1/')")
    done
    rm -f "$OUTDIR/g.h5"
    g=$(printf '%s\n' "${gens[@]}" | median); w=$(printf '%s\n' "${writes[@]}" | median)
    t=$(printf '%s\n' "${totals[@]}" | median)
    ref="-"; speed="-"
    if [ -n "${G500_BFS:-}" ]; then
      refs=()
      for r in $(seq "$G500_REPS"); do
        log=$OUTDIR/g500-s$s-np$np-r$r.log
        # only graph_generation is read: the reference may fail later (its
        # one-rank CSR construction crashes at scale 24 here) and that is not ours
        (cd "$OUTDIR" && SKIP_BFS=1 SKIP_VALIDATION=1 launch "$np" "$G500_BFS" "$s" "$EF" >"$log" 2>&1) || true
        refs+=("$(awk '/^graph_generation:/ {print $2}' "$log")")
      done
      ref=$(printf '%s\n' "${refs[@]}" | median)
      speed=$(awk -v a="$ref" -v b="$t" 'BEGIN {printf "%.1fx", a / b}')
    fi
    awk -v s="$s" -v np="$np" -v m="$m" -v g="$g" -v w="$w" -v t="$t" -v ref="$ref" -v sp="$speed" \
      'BEGIN {printf "| %d | %d | %d | %.3f | %.1f | %.3f | %.3f | %.1f | %s | %s |\n", s, np, m, g, m / g / np / 1e6, w, t, m / t / 1e6, ref, sp}'
  done
done
