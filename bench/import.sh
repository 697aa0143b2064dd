#!/usr/bin/env bash
# bench/import.sh — snap-import throughput on a SNAP-format text edge list
# written from an rmat-gen graph, plain and gzipped, on 1 and 2 ranks,
# against `wc -l` (plain) and `zcat >/dev/null` (gzip) on the same files.
#
#   bench/import.sh                      # SCALE=22 EF=16: about 1.04 GB of text
#   SCALE=16 bench/import.sh             # small, a few seconds
#
# Environment: SCALE (22), EF (16), NP ("1 2": rank counts), REPS (3: runs of
# every case; the median wall time is shown, with the -v lines of that run),
# DIR (work directory, default data/bench-import; the text files are kept
# there and reused), MPIEXEC (mpiexec), GZIP_LEVEL (6, gzip's default, as
# SNAP ships), KEEP_H5=1 keeps the imported edge files.
# Targets (issue 3): plain >= 150 MB/s of text per rank; gzip within 1.5x of zcat.
set -u
cd "$(dirname "$0")/.."
SCALE=${SCALE:-22} EF=${EF:-16} NP=${NP:-"1 2"} DIR=${DIR:-data/bench-import} REPS=${REPS:-3}
MPIEXEC=${MPIEXEC:-mpiexec} GZIP_LEVEL=${GZIP_LEVEL:-6}
BIN=${BIN:-bin}
mkdir -p "$DIR"
base=$DIR/rmat-s$SCALE-e$EF
txt=$base.txt gz=$base.txt.gz

[ -x "$BIN/rmat-gen" ] && [ -x "$BIN/snap-import" ] || { echo "build first: make" >&2; exit 4; }
if [ ! -s "$txt" ]; then
  echo "# writing $txt from rmat-gen -s $SCALE -e $EF" >&2
  "$BIN/rmat-gen" -q -s "$SCALE" -e "$EF" -o "$base.h5" || exit 1
  # SNAP layout: '#' header with Nodes/Edges, tab-separated, LF
  python3 - "$base.h5" "$txt.tmp" <<'EOF' || exit 1
import sys, h5py, numpy as np
src, dst = sys.argv[1], sys.argv[2]
with h5py.File(src, "r") as f, open(dst, "w") as out:
    e = f["edges"]; m = e.shape[0]
    out.write("# Undirected graph: %s\n# R-MAT graph written by rmat-gen for bench/import.sh\n"
              "# Nodes: %d Edges: %d\n# FromNodeId\tToNodeId\n" % (src, int(f.attrs["num_vertices"]), m))
    step = 1 << 22
    for lo in range(0, m, step):
        c = e[lo:lo + step].tolist()
        out.write("\n".join(map("%d\t%d".__mod__, map(tuple, c))))
        out.write("\n")
EOF
  mv "$txt.tmp" "$txt"
  rm -f "$base.h5"
fi
if [ ! -s "$gz" ]; then
  echo "# writing $gz (gzip -$GZIP_LEVEL)" >&2
  gzip -c -"$GZIP_LEVEL" "$txt" > "$gz.tmp" && mv "$gz.tmp" "$gz" || exit 1
fi

bytes=$(stat -c %s "$txt"); gzbytes=$(stat -c %s "$gz")
# measure1 CMD...: one run; sets W (wall s), C (CPU s, user+sys of it and its children), K (max RSS KB)
measure1() { /usr/bin/time -f "%e %U %S %M" -o "$DIR/last.time" "$@" >/dev/null 2>"$DIR/last.err"; local rc=$?
             read -r W u s K < "$DIR/last.time"; C=$(echo "$u + $s" | bc); return $rc; }
# measure CMD...: REPS runs; W, C, K of the run with the median wall time, its
# stderr in $DIR/median.err, every wall time in WALLS, the load before in LOADS
measure() { local i runs=() rc=0
            WALLS="" LOADS=""
            for ((i = 0; i < REPS; i++)); do
              LOADS="$LOADS $(cut -d' ' -f1 /proc/loadavg)"
              measure1 "$@" || { rc=1; break; }
              runs+=("$W $C $K"); cp "$DIR/last.err" "$DIR/run$i.err"; WALLS="$WALLS $W"
            done
            [ $rc = 0 ] || return 1
            local med=$(for i in "${!runs[@]}"; do echo "${runs[$i]} $i"; done | sort -n | sed -n "$(( (REPS + 1) / 2 ))p")
            read -r W C K i <<< "$med"; cp "$DIR/run$i.err" "$DIR/median.err"; rm -f "$DIR"/run*.err; }
rate() { if [ "$(echo "$1 > 0" | bc)" = 1 ]; then echo "scale=1; $bytes / $1 / 1000000" | bc; else echo "-"; fi; }
ratio() { if [ "$(echo "$2 > 0" | bc)" = 1 ]; then echo "scale=2; $1 / $2" | bc; else echo "-"; fi; }
load() { cut -d' ' -f1-3 /proc/loadavg; }

cat "$txt" "$gz" > /dev/null   # warm the page cache: we measure parsing, not the disk
echo "# machine: $(nproc) cores, $(uname -r); load average before: $(load)"
echo "# text: $txt, $bytes bytes ($(wc -l < "$txt") lines); gzip: $gzbytes bytes"
echo "# MB/s = text bytes / wall s; MB/cpu-s = text bytes / CPU s (all ranks and threads):"
echo "# the per-core rate, which other jobs on the machine do not change"
echo "# median of $REPS runs (wall, and CPU of that run); 'runs' lists every wall time and the"
echo "# 1-minute load average before each run"
printf "%-24s %8s %8s %8s %9s %9s  %s\n" case wall-s cpu-s "MB/s" "MB/cpu-s" "MB/s/rank" "vs reference (wall, cpu)"
measure wc -l "$txt";  W_wc=$W C_wc=$C
printf "%-24s %8.2f %8.2f %8s %9s\n" "wc -l" "$W" "$C" "$(rate "$W")" "$(rate "$C")"
echo "    runs:$WALLS s; load before:$LOADS"
measure zcat "$gz";    W_zc=$W C_zc=$C
printf "%-24s %8.2f %8.2f %8s %9s\n" "zcat >/dev/null" "$W" "$C" "$(rate "$W")" "$(rate "$C")"
echo "    runs:$WALLS s; load before:$LOADS"
fps=""
for kind in plain gzip; do
  in=$txt; [ $kind = gzip ] && in=$gz
  for np in $NP; do
    out=$DIR/out-$kind-np$np.h5
    if [ "$np" = 1 ]; then cmd=("$BIN/snap-import" -v "$in" -o "$out")
    else cmd=($MPIEXEC -n "$np" "$BIN/snap-import" -v "$in" -o "$out"); fi
    measure "${cmd[@]}" || { echo "FAILED: ${cmd[*]}: $(tail -n 3 "$DIR/last.err")"; exit 1; }
    # every run wrote the same output file; the last one is checked below
    if [ $kind = plain ]; then ref="$(ratio "$W" "$W_wc")x, $(ratio "$C" "$C_wc")x wc -l"
    else ref="$(ratio "$W" "$W_zc")x, $(ratio "$C" "$C_zc")x zcat"; fi
    printf "%-24s %8.2f %8.2f %8s %9s %9s  %s\n" "snap-import $kind np$np" "$W" "$C" "$(rate "$W")" \
      "$(rate "$C")" "$(echo "scale=1; $bytes / $W / 1000000 / $np" | bc)" "$ref"
    echo "    runs:$WALLS s; load before:$LOADS"
    grep -E "times:|CPU seconds|relabel on|peak memory:" "$DIR/median.err" | sed 's/^snap-import: /    /'
    fps="$fps $(python3 -c "import h5py; print(h5py.File('$out','r').attrs['fingerprint'])")"
    [ "${KEEP_H5:-0}" = 1 ] || rm -f "$out"
  done
done
n_distinct=$(echo $fps | tr ' ' '\n' | sort -u | wc -l)
echo "# fingerprints of all imports identical: $([ "$n_distinct" = 1 ] && echo yes || echo NO)"
echo "# load average after: $(load)"
