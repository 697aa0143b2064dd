#!/usr/bin/env bash
# bench/bfs.sh — bfs-gpu benchmarks (docs/PERFORMANCE.md, "bfs-gpu", and docs/SCALING.md have the method and numbers).
#
#   bench/bfs.sh gpu      on a GPU host (bench/gpu-check.sh runs it there):
#                         one GPU at scales $SCALES (default "21 24 26"), 64 roots,
#                         harmonic-mean TEPS and the phase breakdown, for each
#                         --direction in $DIRS (default "top-down auto") and
#                         --transport in $ONE_TRANSPORTS (auto: message levels;
#                         pull: device levels, one host wait a level), with
#                         the per-level table (direction, time, edges examined)
#                         of the auto runs;
#                         k = 1, 2, 4, 8 edges per thread at scales $KSCALES (21);
#                         weak scaling 1x1 / 1x2 / 2x1 / 2x2 at $WEAK (21) + 0 / 1 / 1 / 2
#                         (as many GPUs as there are), bitmap on / off / auto,
#                         transports pull (auto), CUDA IPC copies (ipc) and
#                         MPI (mpi);
#                         the transports (PARTS "transports"): 1x1 at scale
#                         $TP_SCALE - 1 (22 - 1) and grids $TP_GRIDS (1x2 2x1)
#                         at $TP_SCALE, direction $TP_DIRS (auto), each
#                         transport in $TRANSPORTS (pull nccl nccl-sockets mpi
#                         ipc; nccl-sockets: NCCL_P2P_DISABLE=1
#                         NCCL_SHM_DISABLE=1, NCCL's network transport as a
#                         stand-in for ranks on different nodes);
#                         the big graphs last, so a time limit cuts the least.
#                         a 2D lattice and a long chain (PARTS "shapes"),
#                         auto against top-down; the direction rule's alpha x
#                         beta at scales $AB_SCALES (PARTS "ab": ALPHAS, BETAS);
#                         a stand-in for two GPUs on one (PARTS "proxy"): MPS
#                         runs two ranks at once, each at MPS_PCT (50) % of
#                         the SMs; 1x1 at $PROXY_SCALE - 1 (21 - 1) against
#                         $PROXY_GRIDS (1x2 2x1) at $PROXY_SCALE, transports
#                         $PROXY_TRANSPORTS (pull mpi; nccl too: NCCL's
#                         socket transport, --test-shared-gpus);
#                         where users run (PARTS "pergpu"): 2^PERGPU_SCALE (26)
#                         vertices per GPU, 1x1 at LAT_SCALE (21; empty or
#                         26: no latency row) and 26, PERGPU_GRIDS (1x2
#                         2x1; 4-rank grids such as 4x1 2x2 1x4 run at 28: a
#                         grid of n ranks at 26 + log2 n) by PERGPU_TRANSPORTS
#                         (pull nccl mpi), each
#                         row REPS (3) times alternating with BASE_BIN (another
#                         build's bin/) when set, and with each GRID:RULE of
#                         PERGPU_RULES_OFF (bfs-gpu --rule-off RULE on that
#                         grid's rows, several joined by +, e.g. "2x2:row-carries
#                         1x2:row-as-column+bottom-up-turns")
#                         and each GRID:OPTION=VALUE of PERGPU_OPTS (bfs-gpu
#                         --OPTION VALUE on that grid's rows, e.g.
#                         "1x4:alpha=20"); PERGPU_ONE_PART=1 makes each grid's
#                         partition just before its rows and removes it after
#                         them (one partition on the disk at a time); medians
#                         and ratios at the end
#                         (new/off: what the rule gains; new/opt: what the
#                         option loses);
#                         PARTS (default "k weak one shapes") picks the sections;
#                         IPC_PUSH=0 / IPC_OFF=0 leave out the ipc / mpi rows
#                         of the weak scaling; BITMAPS picks the bitmap modes.
#   bench/bfs.sh cpu      this machine: the CPU backend at scale $SCALE (18), as
#                         1 rank x 2 threads and 2 ranks x 1 thread, top-down and
#                         auto, beside gapbs (GAPBS_BFS=/path/to/gapbs/bfs: its
#                         `bfs -g SCALE -k 16 -n 64` in the same run, its Graph500
#                         rate = our mean nedge / its average time; PAIRS (5) runs
#                         of gapbs and of our 1x1 auto back to back, each pair's
#                         ratio printed) and the
#                         Graph500 reference BFS (G500_BFS=/path/to/graph500_reference_bfs);
#                         each column skipped when its variable is unset; then the
#                         lattice and the chain, auto against top-down.
#
# Environment: BIN (programs, default bin/), MPIEXEC (mpiexec), WORK (graphs and
# results, default /tmp/b2bench), GEN_NP (ranks for rmat-gen), PART_NP (for
# partition2d, default GEN_NP), PART_MEM (partition2d --mem a rank: large enough,
# nothing spills to disk beside the output; default partition2d's),
# NROOTS (64), EF (16), REPS (1: runs of each row, one line each; report the median),
# LEVELS (1: per-level tables of auto runs), ROOTS (--roots: any or
# largest-component; the runs' root rule, printed by the summary),
# KEEP_BFS (a directory: keep every BFS file there, for bench/model.py).
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
  local e f=$WORK/rmat-s$1-e$EF.g$2.h5
  if [ ! -e "$f" ]; then
    e=$(gen "$1")
    local t0=$SECONDS
    mpi "$PART_NP" "$BIN/partition2d" -q --grid "$2" ${PART_MEM:+--mem "$PART_MEM"} "$e" -o "$f" >&2
    echo "# partition2d scale $1 grid $2: $((SECONDS - t0)) s on $PART_NP ranks" >&2
  fi
  echo "$f"
}
# summary LABEL BFS.h5: one line of results from a BFS file
summary() {
  python3 - "$1" "$2" "${LEVELS:-1}" <<'PY'
import sys, h5py, numpy as np
label, path = sys.argv[1], sys.argv[2]
with h5py.File(path, "r") as f:
    t, ne, ph = f["time"][...], f["nedge"][...], f["phase_time"][...]
    a = f.attrs
    s = lambda k: a[k].decode() if isinstance(a[k], bytes) else a[k]
    hm = len(t) / np.sum(t / ne)
    lev = f["frontier_size"].shape[1]
    ex = f["edges_examined"][...].sum(axis=1)
    print(("%-28s %5s %-4s %-9s grid %dx%d  scale %s  roots %d (" + s("roots_from") + ")  hmean %8.3f GTEPS  mean %.3f ms  "
          "phases ms [xexp %.3f exp %.3f xfold %.3f upd %.3f term %.3f pred %.3f]  levels<=%d  "
          "examined/edge %.3f  msgs bitmap/list %d/%d  load %.1f s  %s  [%s]")
          % (label, s("backend"), s("bitmap"), s("direction"), a["grid_rows"], a["grid_cols"],
             a.get("scale", "?"), len(t), hm * 1e-9, 1e3 * t.mean(), *(1e3 * ph.mean(axis=0)),
             lev, np.mean(ex / (2.0 * ne)), a["bitmap_messages"], a["list_messages"],
             a["load_time"], s("devices"), s("exchange") if "exchange" in a else "-"))
    if "rank_phase_time" in f and f["rank_phase_time"].shape[1] > 1:
        rp = f["rank_phase_time"][...]                   # [K][P][6]
        mx, mn = 1e3 * rp.max(axis=1).mean(axis=0), 1e3 * rp.mean(axis=1).mean(axis=0)
        lb = f["level_bytes"][...].sum(axis=(1, 2)).mean(axis=0) / 2**20   # MiB a search
        print("    per rank, ms mean/max (max/mean): " + "  ".join(
              "%s %.3f/%.3f (%.2f)" % (n, a_, b_, b_ / a_ if a_ > 0 else 1.0)
              for n, a_, b_ in zip(("xexp", "exp", "xfold", "upd", "term", "pred"), mn, mx)) +
              "  |  MiB a search: expand %.1f fold %.1f visited %.1f pred %.1f"
              % (*lb, f["pred_bytes"][...].sum(axis=1).mean() / 2**20))
    if s("direction") == "auto" and sys.argv[3] == "1":
        d, lt, e, fs = (f[k][...] for k in ("level_direction", "level_time", "edges_examined", "frontier_size"))
        print("    step  dir  runs  frontier(mean)  median ms  edges examined(mean)")
        for l in range(min(lev, 40)):
            m = d[:, l] >= 0
            if not m.any():
                break
            bu = (d[m, l] == 1).mean()
            print("    %4d  %-3s  %4d  %14.0f  %9.4f  %20.0f" % (l, "BU" if bu == 1 else "TD" if bu == 0 else "mix",
                  m.sum(), fs[m, l].mean(), 1e3 * np.median(lt[m, l]), e[m, l].mean()))
PY
}
# bfs LABEL NP PART ARGS...
bfs() {
  local label=$1 np=$2 p=$3; shift 3
  local out=$WORK/bfs-$label.h5 r
  for r in $(seq "${REPS:-1}"); do
    mpi "$np" "$BIN/bfs-gpu" -q "$p" -n "$NROOTS" --keep-pred none ${ROOTS:+--roots "$ROOTS"} "$@" -o "$out"
    LEVELS=$([ "$r" = 1 ] && echo "${LEVELS:-1}" || echo 0) summary "$label" "$out"
    # KEEP_BFS=DIR keeps the BFS files (no predecessors: small) for bench/model.py
    if [ -n "${KEEP_BFS:-}" ]; then mkdir -p "$KEEP_BFS"; mv "$out" "$KEEP_BFS/$label-$r-$$.h5"; else rm -f "$out"; fi
  done
}

DIRS=${DIRS:-top-down auto}
SHAPE_ROOTS=${SHAPE_ROOTS:-8}
# shape_part lattice|chain RxC: a 1024 x 1024 grid graph or a path of 2^16
# vertices (many levels, small frontiers), imported once
shape_part() {
  local e=$WORK/$1.h5 f=$WORK/$1.g$2.h5
  if [ ! -e "$e" ]; then
    python3 - "$1" "$WORK/$1.txt" <<'PY'
import sys, numpy as np
kind, out = sys.argv[1], sys.argv[2]
if kind == "lattice":
    n = 1024
    v = np.arange(n * n).reshape(n, n)
    e = np.concatenate([np.stack([v[:, :-1].ravel(), v[:, 1:].ravel()], 1),
                        np.stack([v[:-1, :].ravel(), v[1:, :].ravel()], 1)])
else:
    n = 1 << 16
    e = np.stack([np.arange(n - 1), np.arange(1, n)], 1)
np.savetxt(out, e, fmt="%d", delimiter="\t")
PY
    "$BIN/snap-import" -q "$WORK/$1.txt" -o "$e" >&2
  fi
  [ -e "$f" ] || "$BIN/partition2d" -q --grid "$2" "$e" -o "$f" >&2
  echo "$f"
}
# nedge_mean SCALE: our mean nedge over the roots at this scale (1x1 run)
nedge_mean() {
  local out=$WORK/nedge-s$1.h5
  "$BIN/bfs-gpu" -q "$(part "$1" 1x1)" -n "$NROOTS" --keep-pred none --backend cpu -o "$out" >&2
  python3 -c "import h5py, sys; print(h5py.File(sys.argv[1], 'r')['nedge'][...].mean())" "$out"
  rm -f "$out"
}

case $mode in
gpu)
  NGPU=${NGPU:-$(nvidia-smi -L | wc -l)}
  PARTS=${PARTS:-k weak one shapes}
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
    echo "## weak scaling (scale +1 per doubling); directions $DIRS; bitmap ${BITMAPS:-auto on off}; CUDA IPC pull / copies / MPI"
    for g in ${WEAK_GRIDS:-1x1 1x2 2x1 2x2}; do
      n=$(( ${g%x*} * ${g#*x} )); [ "$n" -le "$NGPU" ] || continue
      s=$(( W + (n == 1 ? 0 : n == 2 ? 1 : 2) ))
      p=$(part "$s" $g)
      for d in $DIRS; do
        for bm in ${BITMAPS:-auto on off}; do
          [ $n = 1 ] && [ $bm != auto ] && continue
          bfs "weak-$g-s$s-$d-$bm" $n "$p" --backend cuda --bitmap $bm --direction $d
          [ $n = 1 ] || [ "${IPC_PUSH:-1}" = 0 ] ||
            bfs "weak-$g-s$s-$d-$bm-ipc" $n "$p" --backend cuda --bitmap $bm --transport ipc --direction $d
          [ $n = 1 ] || [ "${IPC_OFF:-1}" = 0 ] ||
            bfs "weak-$g-s$s-$d-$bm-mpi" $n "$p" --backend cuda --bitmap $bm --transport mpi --direction $d
        done
      done
    done
  fi
  if [[ " $PARTS " == *" transports "* ]]; then
    S=${TP_SCALE:-22}
    echo "## transports: 1x1 at scale $((S - 1)), ${TP_GRIDS:-1x2 2x1} at scale $S, direction ${TP_DIRS:-auto}"
    bfs "tp-1x1-s$((S - 1))" 1 "$(part $((S - 1)) 1x1)" --backend cuda
    for g in ${TP_GRIDS:-1x2 2x1}; do
      n=$(( ${g%x*} * ${g#*x} )); [ "$n" -le "$NGPU" ] || continue
      p=$(part "$S" $g)
      for d in ${TP_DIRS:-auto}; do
        for tp in ${TRANSPORTS:-pull nccl nccl-sockets mpi ipc}; do
          if [ $tp = nccl-sockets ]; then
            NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 LEVELS=0 bfs "tp-$g-s$S-$d-$tp" $n "$p" --backend cuda --direction $d --transport nccl
          else
            LEVELS=0 bfs "tp-$g-s$S-$d-$tp" $n "$p" --backend cuda --direction $d --transport $tp
          fi
        done
      done
    done
  fi
  if [[ " $PARTS " == *" pergpu "* ]]; then
    # where users run: 2^26 vertices per GPU (PERGPU_SCALE), on 1x1 and on
    # 1x2 and 2x1 at one scale more, by each of PERGPU_TRANSPORTS; and 1x1
    # at scale 21 (LAT_SCALE), the latency check. BACKEND (cuda) may be cpu
    # to try the part on a machine without GPUs. BASE_BIN (a build of another commit)
    # runs each row alternately with BIN, REPS (3) pairs; the table at the
    # end gives each row's medians and their ratio. Graphs no longer needed
    # are removed as it goes (scale 27's edge file is 34 GB).
    S=${PERGPU_SCALE:-26} R=${REPS:-3} B=${BACKEND:-cuda}
    # the latency row's scale; none where it is empty or the 1x1 row's own
    L=${LAT_SCALE-21}; [ "$L" = "$S" ] && L=
    : >"$WORK/pergpu.log"
    # row LABEL NP PART ARGS...: REPS runs of each build, and of the rules
    # PERGPU_RULES_OFF and the options PERGPU_OPTS name for the label's
    # grid, alternating
    row() {
      local label=$1 np=$2 p=$3 r b g; shift 3
      g=$(echo "$label" | grep -o '[0-9]*x[0-9]*' | head -1)
      for r in $(seq "$R"); do
        for b in ${BASE_BIN:+base} new ${PERGPU_RULES_OFF:-} ${PERGPU_OPTS:-}; do
          local bin=$BIN args=(); [ $b = base ] && bin=$BASE_BIN
          if [ $b != base ] && [ $b != new ]; then
            [ "${b%%:*}" = "$g" ] || continue
            b=${b#*:}
            case $b in
              *=*) args=(--"${b%%=*}" "${b#*=}"); b=opt-$b ;;
              *) args=(); for x in ${b//+/ }; do args+=(--rule-off "$x"); done; b=off-$b ;;
            esac
          fi
          BIN=$bin REPS=1 LEVELS=0 bfs "$label-$b" "$np" "$p" --backend "$B" "$@" "${args[@]}" | tee -a "$WORK/pergpu.log"
        done
      done
    }
    # a grid of n = R*C ranks (a power of two) runs at S + log2(n)
    gscale() { local n=$(( ${1%x*} * ${1#*x} )) l=0; while [ $((1 << l)) -lt $n ]; do l=$((l + 1)); done; echo $((S + l)); }
    echo "## 2^$S vertices per GPU: 1x1 at scale ${L:+$L and }$S,$(for g in ${PERGPU_GRIDS-1x2 2x1}; do echo -n " $g at $(gscale $g)"; done) by ${PERGPU_TRANSPORTS:-pull nccl mpi}; $R run(s) of each${BASE_BIN:+, alternating with $BASE_BIN}"
    # PERGPU_ONE_PART=1: each grid's partition is made just before its rows
    # and removed after them, its edge file removed once partitioned, so the
    # disk holds the edges and one partition at most (scale 29: 137 GB of
    # edges and about 80 GB a partition on a 235-GB disk); the edges are
    # generated again for each grid
    one_part=${PERGPU_ONE_PART:-0}
    for sc in $(for g in ${PERGPU_GRIDS-1x2 2x1}; do gscale $g; done | sort -u); do
      [ "$one_part" = 1 ] && break
      for g in ${PERGPU_GRIDS-1x2 2x1}; do [ "$(gscale $g)" = "$sc" ] && part "$sc" $g >/dev/null; done
      [ "${KEEP_EDGES:-0}" = 1 ] || rm -f "$WORK/rmat-s$sc-e$EF.h5"
    done
    # PERGPU_RUN=0: the graphs only (a GPU host's CPUs can make them while
    # its GPUs run the checks); PERGPU_1X1=0 leaves out the 1x1 rows and
    # their graphs
    if [ "${PERGPU_1X1:-1}" = 1 ]; then
      p1=$(part "$S" 1x1); [ "${KEEP_EDGES:-0}" = 1 ] || rm -f "$WORK/rmat-s$S-e$EF.h5"
      [ -z "$L" ] || p0=$(part "$L" 1x1)
    fi
    [ "${PERGPU_RUN:-1}" = 1 ] || R=0
    if [ "$R" -gt 0 ]; then
    if [ "${PERGPU_1X1:-1}" = 1 ]; then
      [ -z "$L" ] || row "pergpu-1x1-s$L-auto" 1 "$p0"
      row "pergpu-1x1-s$S-auto" 1 "$p1"
    fi
    for g in ${PERGPU_GRIDS-1x2 2x1}; do
      if [ "$one_part" = 1 ]; then
        part "$(gscale $g)" $g >/dev/null
        rm -f "$WORK/rmat-s$(gscale $g)-e$EF.h5"
      fi
      for tp in ${PERGPU_TRANSPORTS:-pull nccl mpi}; do
        row "pergpu-$g-s$(gscale $g)-$tp" $(( ${g%x*} * ${g#*x} )) "$WORK/rmat-s$(gscale $g)-e$EF.g$g.h5" \
          --transport "$tp"
      done
      [ "$one_part" = 1 ] && rm -f "$WORK/rmat-s$(gscale $g)-e$EF.g$g.h5"
    done
    python3 - "$WORK/pergpu.log" <<'PY'
import re, sys, statistics as st
runs = {}
for line in open(sys.argv[1]):
    m = re.match(r"(\S+?)-(base|new|off-[a-z+-]+|opt-[a-z-]+=[\w.-]+)\s.*hmean\s+([\d.]+) GTEPS", line)
    if m:
        runs.setdefault(m.group(1), {}).setdefault(m.group(2), []).append(float(m.group(3)))
med = lambda v: st.median(v) if v else float("nan")
show = lambda v: " ".join("%.1f" % x for x in v)
print("%-30s %12s %12s %8s  runs" % ("row (GTEPS, median)", "base", "new", "new/base"))
for row, d in runs.items():
    b, n = d.get("base", []), d.get("new", [])
    mb, mn = med(b), med(n)
    print("%-30s %12.2f %12.2f %8.3f  base %s new %s" % (row, mb, mn, mn / mb if b and mb > 0 else float("nan"),
          show(b), show(n)))
    for k in sorted(x for x in d if x.startswith(("off-", "opt-"))):
        mo = med(d[k])
        name = " ".join("--rule-off " + x for x in k[4:].split("+")) if k.startswith("off-") else "--" + k[4:].replace("=", " ", 1)
        print("%-30s %12s %12.2f %8s  new/%s %.3f: %s %s" % ("  " + name, "", mo, "", k[:3],
              mn / mo if mo > 0 else float("nan"), k, show(d[k])))
PY
    fi
  fi
  if [[ " $PARTS " == *" proxy "* ]]; then
    # two ranks on one GPU, run concurrently by MPS with each held to
    # MPS_PCT % of the SMs: pull's device levels then wait on each other
    # for real (without MPS the GPU time-slices the two processes), so the
    # exchanges' and the level loop's costs of 1x2 and 2x1 can be measured
    # where no two-GPU host is lent. A stand-in: half a GPU per rank and
    # flags in one GPU's memory, not two GPUs and NVLink.
    S=${PROXY_SCALE:-21} PCT=${MPS_PCT:-50}
    echo "## two ranks on one GPU under MPS (each $PCT % of the SMs; pull and nccl with --test-shared-gpus): 1x1 at scale $((S - 1)), ${PROXY_GRIDS:-1x2 2x1} at $S, transports ${PROXY_TRANSPORTS:-pull mpi}"
    export CUDA_MPS_PIPE_DIRECTORY=$WORK/mps CUDA_MPS_LOG_DIRECTORY=$WORK/mps-log
    mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
    nvidia-cuda-mps-control -d || { echo "bfs.sh: could not start the MPS daemon (nvidia-cuda-mps-control -d)" >&2; exit 1; }
    trap 'echo quit | nvidia-cuda-mps-control' EXIT
    CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=$PCT bfs "proxy-1x1-s$((S - 1))-pull" 1 "$(part $((S - 1)) 1x1)" \
      --backend cuda --transport pull
    for g in ${PROXY_GRIDS:-1x2 2x1}; do
      for tp in ${PROXY_TRANSPORTS:-pull mpi}; do
        CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=$PCT LEVELS=0 \
          bfs "proxy-$g-s$S-$tp" 2 "$(part "$S" $g)" --backend cuda --transport $tp --test-shared-gpus
      done
    done
    echo quit | nvidia-cuda-mps-control
    trap - EXIT
    unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
  fi
  if [[ " $PARTS " == *" one "* ]]; then
    echo "## one GPU, 64 roots, directions $DIRS, transports ${ONE_TRANSPORTS:-auto}"
    for s in ${SCALES:-21 24 26}; do
      for d in $DIRS; do
        for tp in ${ONE_TRANSPORTS:-auto}; do
          bfs "1gpu-s$s-$d$([ $tp = auto ] || echo "-$tp")" 1 "$(part "$s" 1x1)" --backend cuda --direction $d --transport $tp
        done
      done
    done
  fi
  if [[ " $PARTS " == *" ab "* ]]; then
    echo "## the direction rule: alpha x beta, one GPU, auto"
    for s in ${AB_SCALES:-21 24 26}; do
      for a in ${ALPHAS:-5 15 30 60}; do
        for b in ${BETAS:-6 18 54}; do
          LEVELS=0 bfs "ab-s$s-a$a-b$b" 1 "$(part "$s" 1x1)" --backend cuda --alpha $a --beta $b
        done
      done
    done
  fi
  if [[ " $PARTS " == *" shapes "* ]]; then
    echo "## high-diameter graphs, one GPU: auto against top-down"
    for sh in lattice chain; do
      p=$(shape_part $sh 1x1)
      for d in top-down auto; do
        NROOTS=$SHAPE_ROOTS bfs "1gpu-$sh-$d" 1 "$p" --backend cuda --direction $d
      done
    done
  fi
  ;;
cpu)
  SCALE=${SCALE:-18}
  echo "# CPU backend against gapbs and the Graph500 reference BFS, scale $SCALE, edgefactor $EF, $(nproc) cores"
  for d in $DIRS; do
    OMP_NUM_THREADS=2 bfs "cpu-s$SCALE-1x1-2thr-$d" 1 "$(part "$SCALE" 1x1)" --backend cpu --direction $d
    OMP_NUM_THREADS=1 bfs "cpu-s$SCALE-1x2-1thr-$d" 2 "$(part "$SCALE" 1x2)" --backend cpu --direction $d
  done
  if [ -n "${GAPBS_BFS:-}" ]; then
    # gapbs generates its own Kronecker graph of the same scale and degree;
    # its rate in Graph500 counting uses our mean nedge at this scale. The
    # two run back to back, pair by pair: this machine's speed drifts over
    # minutes, so only neighbouring runs compare.
    ne=$(nedge_mean "$SCALE")
    p=$(part "$SCALE" 1x1)
    for r in $(seq "${PAIRS:-5}"); do
      g=$(OMP_NUM_THREADS=2 "$GAPBS_BFS" -g "$SCALE" -k "$EF" -n "$NROOTS" 2>&1 | awk '/^Average Time/ {print $3}')
      OMP_NUM_THREADS=2 "$BIN/bfs-gpu" -q "$p" -n "$NROOTS" --keep-pred none --backend cpu -o "$WORK/pair.h5"
      python3 - "$WORK/pair.h5" "$g" "$ne" <<'PY'
import sys, h5py
t = h5py.File(sys.argv[1], "r")["time"][...].mean()
g, ne = float(sys.argv[2]), float(sys.argv[3])
print("pair  gapbs average %.3f ms (Graph500 rate %.3f GTEPS)  bfs2d 1x1 2 threads auto mean %.3f ms  bfs2d/gapbs speed %.2fx"
      % (g * 1e3, ne / g * 1e-9, t * 1e3, g / t))
PY
      rm -f "$WORK/pair.h5"
    done
  else
    echo "gapbs: skipped (set GAPBS_BFS)"
  fi
  for sh in lattice chain; do
    for d in top-down auto; do
      OMP_NUM_THREADS=2 NROOTS=$SHAPE_ROOTS bfs "cpu-$sh-$d" 1 "$(shape_part $sh 1x1)" --backend cpu --direction $d
    done
  done
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
