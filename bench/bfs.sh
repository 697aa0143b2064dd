#!/usr/bin/env bash
# bench/bfs.sh — bfs-gpu benchmarks (docs/PERFORMANCE.md, "bfs-gpu", has the method and numbers).
#
#   bench/bfs.sh gpu      on a GPU host (bench/gpu-check.sh runs it there):
#                         one GPU at scales $SCALES (default "21 24 26"), 64 roots,
#                         harmonic-mean TEPS and the phase breakdown;
#                         k = 1, 2, 4, 8 edges per thread at scales $KSCALES (21);
#                         weak scaling 1x1 / 1x2 / 2x2 at $WEAK (21) + 0 / 1 / 2
#                         (as many GPUs as there are), bitmap on / off / auto,
#                         exchanges by CUDA IPC pull mode (auto), CUDA IPC
#                         copies (--ipc push) and MPI (--ipc off);
#                         the big graphs last, so a time limit cuts the least.
#                         PARTS (default "k weak one") picks the sections;
#                         IPC_PUSH=0 / IPC_OFF=0 leave out the --ipc push /
#                         --ipc off rows; BITMAPS picks the bitmap modes.
#   bench/bfs.sh cpu      this machine: the CPU backend at scale $SCALE (18) on
#                         $NP (2) ranks, beside the Graph500 reference BFS when
#                         G500_BFS=/path/to/graph500_reference_bfs is set.
#
# Environment: BIN (programs, default bin/), MPIEXEC (mpiexec), WORK (graphs and
# results, default /tmp/b2bench), GEN_NP (ranks for rmat-gen), PART_NP (for
# partition2d, default GEN_NP),
# NROOTS (64), EF (16).
set -euo pipefail
mode=${1:-}
top=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BIN:-$top/bin}
MPIEXEC=${MPIEXEC:-mpiexec}
WORK=${WORK:-/tmp/b2bench}
NROOTS=${NROOTS:-64}
EF=${EF:-16}
GEN_NP=${GEN_NP:-$(nproc)}
PART_NP=${PART_NP:-$GEN_NP}
mkdir -p "$WORK"

mpi() { local n=$1; shift; if [ "$n" = 1 ]; then "$@"; else $MPIEXEC -n "$n" "$@"; fi; }

# gen SCALE: the Graph500 Kronecker graph, seed 1, once
gen() {
  local f=$WORK/rmat-s$1-e$EF.h5
  if [ ! -e "$f" ]; then
    local t0=$SECONDS
    mpi "$GEN_NP" "$BIN/rmat-gen" -q -s "$1" -e "$EF" --seed 1 -o "$f" >&2
    echo "# rmat-gen scale $1: $((SECONDS - t0)) s on $GEN_NP ranks" >&2
  fi
  echo "$f"
}
# part SCALE RxC
part() {
  local e f; e=$(gen "$1"); f=$WORK/rmat-s$1-e$EF.g$2.h5
  if [ ! -e "$f" ]; then
    local t0=$SECONDS
    mpi "$PART_NP" "$BIN/partition2d" -q --grid "$2" "$e" -o "$f" >&2
    echo "# partition2d scale $1 grid $2: $((SECONDS - t0)) s on $PART_NP ranks" >&2
  fi
  echo "$f"
}
# summary LABEL BFS.h5: one line of results from a BFS file
summary() {
  python3 - "$1" "$2" <<'PY'
import sys, h5py, numpy as np
label, path = sys.argv[1], sys.argv[2]
with h5py.File(path, "r") as f:
    t, ne, ph = f["time"][...], f["nedge"][...], f["phase_time"][...]
    a = f.attrs
    s = lambda k: a[k].decode() if isinstance(a[k], bytes) else a[k]
    hm = len(t) / np.sum(t / ne)
    lev = f["frontier_size"].shape[1]
    print("%-28s %5s %-4s grid %dx%d  scale %s  roots %d  hmean %8.3f GTEPS  mean %.2f ms  "
          "phases ms [xexp %.2f exp %.2f xfold %.2f upd %.2f term %.2f pred %.2f]  levels<=%d  "
          "msgs bitmap/list %d/%d  load %.1f s  %s  [%s]"
          % (label, s("backend"), s("bitmap"), a["grid_rows"], a["grid_cols"], a.get("scale", "?"),
             len(t), hm * 1e-9, 1e3 * t.mean(), *(1e3 * ph.mean(axis=0)), lev - 1,
             a["bitmap_messages"], a["list_messages"], a["load_time"], s("devices"),
             s("exchange") if "exchange" in a else "-"))
PY
}
# bfs LABEL NP PART ARGS...
bfs() {
  local label=$1 np=$2 p=$3; shift 3
  local out=$WORK/bfs-$label.h5
  mpi "$np" "$BIN/bfs-gpu" -q "$p" -n "$NROOTS" --keep-pred none "$@" -o "$out"
  summary "$label" "$out"
  rm -f "$out"
}

case $mode in
gpu)
  NGPU=${NGPU:-$(nvidia-smi -L | wc -l)}
  PARTS=${PARTS:-k weak one}
  echo "# $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1), $NGPU GPU(s), $(nproc) cores"
  if [[ " $PARTS " == *" k "* ]]; then
    for ks in ${KSCALES:-21}; do
      echo "## edges per thread (one GPU, scale $ks)"
      for k in 1 2 4 8; do
        bfs "k$k-s$ks" 1 "$(part "$ks" 1x1)" --backend cuda --edges-per-thread $k
      done
    done
  fi
  if [[ " $PARTS " == *" weak "* ]]; then
    W=${WEAK:-21}
    echo "## weak scaling (scale +1 per doubling); bitmap on / off / auto; CUDA IPC / MPI"
    for g in 1x1 1x2 2x2; do
      n=$(( ${g%x*} * ${g#*x} )); [ "$n" -le "$NGPU" ] || continue
      s=$(( W + (n == 1 ? 0 : n == 2 ? 1 : 2) ))
      p=$(part "$s" $g)
      for bm in ${BITMAPS:-auto on off}; do
        [ $n = 1 ] && [ $bm != auto ] && continue
        bfs "weak-$g-s$s-$bm" $n "$p" --backend cuda --bitmap $bm
        [ $n = 1 ] || [ "${IPC_PUSH:-1}" = 0 ] ||
          bfs "weak-$g-s$s-$bm-push" $n "$p" --backend cuda --bitmap $bm --ipc push
        [ $n = 1 ] || [ "${IPC_OFF:-1}" = 0 ] ||
          bfs "weak-$g-s$s-$bm-mpi" $n "$p" --backend cuda --bitmap $bm --ipc off
      done
    done
  fi
  if [[ " $PARTS " == *" one "* ]]; then
    echo "## one GPU, top-down, 64 roots"
    for s in ${SCALES:-21 24 26}; do
      bfs "1gpu-s$s" 1 "$(part "$s" 1x1)" --backend cuda
    done
  fi
  ;;
cpu)
  SCALE=${SCALE:-18}; NP=${NP:-2}
  g=$([ "$NP" = 2 ] && echo 1x2 || echo ${NP}x1)
  echo "# CPU backend against the Graph500 reference BFS, scale $SCALE, edgefactor $EF, $NP ranks, $(nproc) cores"
  OMP_NUM_THREADS=${OMP_NUM_THREADS:-1} bfs "cpu-s$SCALE-$g" "$NP" "$(part "$SCALE" $g)" --backend cpu
  if [ -n "${G500_BFS:-}" ]; then
    SKIP_VALIDATION=1 $MPIEXEC -n "$NP" "$G500_BFS" "$SCALE" "$EF" 2>&1 |
      grep -E 'bfs +(harmonic_mean_TEPS|mean_time|median_TEPS)' | sed 's/^/graph500-reference  /'
  else
    echo "graph500-reference: skipped (set G500_BFS)"
  fi
  ;;
*)
  sed -n '2,18p' "$0"; exit 2 ;;
esac
