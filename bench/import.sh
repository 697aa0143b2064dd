#!/usr/bin/env bash
# bench/import.sh — snap-import throughput on a SNAP-format text edge list
# written from an rmat-gen graph, plain and gzipped, on 1 and 2 ranks,
# against `wc -l` (plain) and `zcat >/dev/null` (gzip) on the same files.
#
#   bench/import.sh                      # SCALE=22 EF=16: about 1.07 GB of text
#   SCALE=16 bench/import.sh             # small, a few seconds
#
# Environment: SCALE (22), EF (16), NP ("1 2": rank counts), DIR (work
# directory, default data/bench-import; the text files are kept there and
# reused), MPIEXEC (mpiexec), GZIP_LEVEL (6, gzip's default, as SNAP ships),
# KEEP_H5=1 keeps the imported edge files.
# Targets (issue 3): plain >= 150 MB/s of text per rank; gzip within 1.5x of zcat.
set -u
cd "$(dirname "$0")/.."
SCALE=${SCALE:-22} EF=${EF:-16} NP=${NP:-"1 2"} DIR=${DIR:-data/bench-import}
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
# measure CMD...: sets W (wall s), C (CPU s, user+sys of it and its children), K (max RSS KB)
measure() { /usr/bin/time -f "%e %U %S %M" -o "$DIR/last.time" "$@" >/dev/null 2>"$DIR/last.err"; local rc=$?
            read -r W u s K < "$DIR/last.time"; C=$(echo "$u + $s" | bc); return $rc; }
rate() { if [ "$(echo "$1 > 0" | bc)" = 1 ]; then echo "scale=1; $bytes / $1 / 1000000" | bc; else echo "-"; fi; }
ratio() { if [ "$(echo "$2 > 0" | bc)" = 1 ]; then echo "scale=2; $1 / $2" | bc; else echo "-"; fi; }
load() { cut -d' ' -f1-3 /proc/loadavg; }

cat "$txt" "$gz" > /dev/null   # warm the page cache: we measure parsing, not the disk
echo "# machine: $(nproc) cores, $(uname -r); load average before: $(load)"
echo "# text: $txt, $bytes bytes ($(wc -l < "$txt") lines); gzip: $gzbytes bytes"
echo "# MB/s = text bytes / wall s; MB/cpu-s = text bytes / CPU s (all ranks and threads):"
echo "# the per-core rate, which other jobs on the machine do not change"
printf "%-24s %8s %8s %8s %9s %9s  %s\n" case wall-s cpu-s "MB/s" "MB/cpu-s" "MB/s/rank" "vs reference (wall, cpu)"
measure wc -l "$txt";  W_wc=$W C_wc=$C
printf "%-24s %8.2f %8.2f %8s %9s\n" "wc -l" "$W" "$C" "$(rate "$W")" "$(rate "$C")"
measure zcat "$gz";    W_zc=$W C_zc=$C
printf "%-24s %8.2f %8.2f %8s %9s\n" "zcat >/dev/null" "$W" "$C" "$(rate "$W")" "$(rate "$C")"
fps=""
for kind in plain gzip; do
  in=$txt; [ $kind = gzip ] && in=$gz
  for np in $NP; do
    out=$DIR/out-$kind-np$np.h5
    if [ "$np" = 1 ]; then cmd=("$BIN/snap-import" -v "$in" -o "$out")
    else cmd=($MPIEXEC -n "$np" "$BIN/snap-import" -v "$in" -o "$out"); fi
    measure "${cmd[@]}" || { echo "FAILED: ${cmd[*]}: $(tail -n 3 "$DIR/last.err")"; exit 1; }
    if [ $kind = plain ]; then ref="$(ratio "$W" "$W_wc")x, $(ratio "$C" "$C_wc")x wc -l"
    else ref="$(ratio "$W" "$W_zc")x, $(ratio "$C" "$C_zc")x zcat"; fi
    printf "%-24s %8.2f %8.2f %8s %9s %9s  %s\n" "snap-import $kind np$np" "$W" "$C" "$(rate "$W")" \
      "$(rate "$C")" "$(echo "scale=1; $bytes / $W / 1000000 / $np" | bc)" "$ref"
    grep -E "times:|CPU seconds|peak memory:" "$DIR/last.err" | sed 's/^snap-import: /    /'
    fps="$fps $(python3 -c "import h5py; print(h5py.File('$out','r').attrs['fingerprint'])")"
    [ "${KEEP_H5:-0}" = 1 ] || rm -f "$out"
  done
done
n_distinct=$(echo $fps | tr ' ' '\n' | sort -u | wc -l)
echo "# fingerprints of all imports identical: $([ "$n_distinct" = 1 ] && echo yes || echo NO)"
echo "# load average after: $(load)"
