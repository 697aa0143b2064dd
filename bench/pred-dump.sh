#!/usr/bin/env bash
# bench/pred-dump.sh — the predecessor dump's size and write time (README,
# "Predecessor dump size").
#
#   bench/pred-dump.sh [DIR]   (default /tmp/pred-dump; SCALES, default "16 17 18")
#
# For each scale: an R-MAT graph (edgefactor 16), partitions 1x1 and 2x1,
# bfs-gpu --backend cpu (64 searches) with --compress-pred off and on on one
# and two ranks, best of 2 runs: the BFS file's size and the dump's write
# time (bfs-gpu -v). Then the filters against each other on the scale's
# one-rank dump alone (h5py, best of 3): none, deflate 1, deflate 1 with
# shuffle, scale-offset, scale-offset then deflate 1.
set -eu
bin=$(cd "$(dirname "$0")/.." && pwd)/bin
dir=${1:-/tmp/pred-dump}
mkdir -p "$dir"
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
printf '%-6s %-5s %-4s %14s %10s\n' scale mode rank bytes "write s"
for s in ${SCALES:-16 17 18}; do
  "$bin/rmat-gen" -q -s "$s" -o "$dir/g$s.h5"
  "$bin/partition2d" -q --grid 1x1 "$dir/g$s.h5" -o "$dir/g$s.1.h5"
  "$bin/partition2d" -q --grid 2x1 "$dir/g$s.h5" -o "$dir/g$s.2.h5"
  for m in off on; do
    for p in 1 2; do
      best=
      for r in 1 2; do
        t=$(mpiexec -n $p "$bin/bfs-gpu" "$dir/g$s.$p.h5" --backend cpu -v --compress-pred $m \
              -o "$dir/b$s.$p.$m.h5" 2>&1 | sed -n 's/.*predecessor dump: .* in \([0-9.]*\) s$/\1/p')
        best=$(python3 -c "print(min(x for x in [$t, ${best:-1e9}]))")
      done
      printf '%-6s %-5s %-4s %14s %10s\n' "$s" $m $p "$(stat -c %s "$dir/b$s.$p.$m.h5")" "$best"
    done
  done
  python3 - "$dir/b$s.1.off.h5" "$dir/filters.h5" <<'EOF'
import sys, time, os
import h5py
src, out = sys.argv[1], sys.argv[2]
p = h5py.File(src, "r")["pred"][...]
for name, kw in [("none", {}), ("deflate1", dict(compression="gzip", compression_opts=1)),
                 ("deflate1+shuffle", dict(compression="gzip", compression_opts=1, shuffle=True)),
                 ("scaleoffset", dict(scaleoffset=0)),
                 ("scaleoffset+deflate1", dict(scaleoffset=0, compression="gzip", compression_opts=1))]:
    best = 1e9
    for _ in range(3):
        t = time.time()
        with h5py.File(out, "w") as f:
            f.create_dataset("pred", data=p, chunks=(1, min(p.shape[1], 1 << 20)), **kw)
        best = min(best, time.time() - t)
    size = os.path.getsize(out)
    print("  filters %-22s %12d bytes %6.2fx %8.3f s" % (name, size, p.nbytes / size, best))
os.unlink(out)
EOF
done
