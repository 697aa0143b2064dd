#!/usr/bin/env bash
# bench/gpu-check.sh — the GPU checks of bfs-gpu in one go, for a GPU host
# where the programs come from the bundle (tools/gpu-bundle.sh):
#   source .gpu/env.sh; bench/gpu-check.sh [check] [sanitize] [bench]
#   check:    tests/test_bfs_gpu.py (CUDA levels == CPU levels == serial BFS on
#             1x1, 1x2, 2x1, 2x2 as the GPUs allow; bitmap modes; k = 1..8)
#   sanitize: compute-sanitizer memcheck and racecheck on an R-MAT graph of
#             scale $SAN_SCALE (10; larger graphs give the kernels' grid-stride
#             loops more than one pass), 1x1 (auto: message levels; pull: device levels) and
#             (with 2 GPUs) 1x2 and 2x1 with every transport in
#             $SAN_TRANSPORTS (default pull nccl mpi; pull: the fold, resp.
#             the expand exchange, read from the peer GPU); with one GPU,
#             1x2 and 2x1 sharing it, by mpi and ipc, by pull with
#             --test-shared-gpus (device levels, the GPU time-sliced), and
#             by nccl with it (NCCL's socket transport)
#             SAN_GRIDS (default "1x1 1x2 2x1") picks the grids: 2x2, 1x4,
#             4x1 with four GPUs (pull, the device levels, by default);
#             SAN_ARGS adds bfs-gpu options (--rule-off all, say);
#             SAN_BITMAPS the --bitmap modes of several ranks ("on auto")
#   validate: bfs-validate on the trees of 4 roots at scale $VALIDATE_SCALE
#             (26) on each of $VALIDATE_GRIDS (default "4x1 2x2 1x4") that
#             the GPUs allow, --direction auto, the transports' auto choice;
#             VALIDATE_ARGS adds bfs-gpu options (--evict-first on, say)
#   bench:    bench/bfs.sh gpu
# Everything is also logged to $OUT/gpu-check.log when OUT is set.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
export B2_BIN=${B2_BIN:-$(dirname "$(command -v bfs-gpu)")}
export BIN=$B2_BIN B2_MPIEXEC=${B2_MPIEXEC:-mpiexec} PYTHONPATH=$top/tests
export B2_TMP=${B2_TMP:-/tmp/b2gpu}; mkdir -p "$B2_TMP"
log=${OUT:-/tmp}/gpu-check.log
steps=${*:-check sanitize bench}
fail=0
{
nvidia-smi -L
for step in $steps; do
  echo "=== $step ($(date -u +%T))"
  case $step in
  check)
    python3 tests/test_bfs_gpu.py || fail=1 ;;
  sanitize)
    ss=${SAN_SCALE:-10}
    rmat-gen -q -s "$ss" -o "$B2_TMP/san-s.h5"
    ng=$(nvidia-smi -L | wc -l)
    for g in ${SAN_GRIDS:-1x1 1x2 2x1}; do
      n=$(( ${g%x*} * ${g#*x} ))
      if [ $n = 1 ]; then tps="auto pull"            # message levels; device levels
      elif [ $n -le $ng ]; then tps=${SAN_TRANSPORTS:-pull nccl mpi}
      elif [ $ng = 1 ]; then tps="mpi ipc pull nccl" # one GPU shared (--test-shared-gpus)
      else continue; fi
      partition2d -q --grid $g "$B2_TMP/san-s.h5" -o "$B2_TMP/san-s.$g.h5"
      for tp in $tps; do
        # one rank: bitmap auto; several: bitmaps only, and auto (lists
        # where they are smaller; the updates' frontier lists on device
        # levels), or SAN_BITMAPS. NCCL probes its kernels with calls
        # that fail by design (no image for this GPU): not reported as API
        # errors; memory accesses are checked all the same
        if [ $n = 1 ]; then run=""; bms=auto; else run="mpiexec -n $n"; bms=${SAN_BITMAPS:-on auto}; fi
        api=$([ $tp = nccl ] && echo "--report-api-errors no")
        testing=$([ $n -gt $ng ] && echo --test-shared-gpus)
        for tool in memcheck racecheck; do
          for bm in $bms; do
            l=$B2_TMP/san-$tool-$g-$tp-$bm.log
            $run compute-sanitizer --tool $tool $api --error-exitcode 9 bfs-gpu "$B2_TMP/san-s.$g.h5" -n 4 --backend cuda --bitmap $bm --transport $tp $testing ${SAN_ARGS:-} -o "$B2_TMP/san.h5" >"$l" 2>&1
            rc=$?
            echo "compute-sanitizer $tool $g $tp --bitmap $bm: exit $rc; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$l" | sort | uniq -c | tr '\n' ' ')"
            [ $rc = 0 ] || { fail=1; tail -n 30 "$l"; }
          done
        done
      done
    done ;;
  validate)
    s=${VALIDATE_SCALE:-26} np=$(nproc)
    mpiexec -n "$np" rmat-gen -q -s "$s" -o "$B2_TMP/v$s.h5"
    for g in ${VALIDATE_GRIDS:-4x1 2x2 1x4}; do
      n=$(( ${g%x*} * ${g#*x} )); [ "$n" -le "$(nvidia-smi -L | wc -l)" ] || continue
      mpiexec -n "$np" partition2d -q --grid "$g" "$B2_TMP/v$s.h5" -o "$B2_TMP/v$s.$g.h5"
      mpiexec -n "$n" bfs-gpu -q "$B2_TMP/v$s.$g.h5" -n 4 --backend cuda ${VALIDATE_ARGS:-} -o "$B2_TMP/v$s.$g.bfs.h5" &&
        mpiexec -n "$np" bfs-validate -q "$B2_TMP/v$s.h5" "$B2_TMP/v$s.$g.bfs.h5" -o "$B2_TMP/v$s.$g.valid.h5"
      rc=$?
      echo "bfs-validate scale $s $g ${VALIDATE_ARGS:-}(4 roots, $(python3 -c "import h5py,sys; print(h5py.File(sys.argv[1])['/'].attrs['exchange'].decode())" "$B2_TMP/v$s.$g.bfs.h5" 2>/dev/null)): exit $rc; $(python3 -c "
import h5py, sys
f = h5py.File(sys.argv[1], 'r')
print('passed %d of %d' % (f['passed'][...].sum(), len(f['passed'])))" "$B2_TMP/v$s.$g.valid.h5" 2>&1)"
      [ $rc = 0 ] || fail=1
      rm -f "$B2_TMP/v$s.$g.h5" "$B2_TMP/v$s.$g.bfs.h5" "$B2_TMP/v$s.$g.valid.h5"
    done
    rm -f "$B2_TMP/v$s.h5" ;;
  bench)
    WORK=${WORK:-/tmp/b2bench} bench/bfs.sh gpu || fail=1 ;;
  esac
done
echo "=== done ($(date -u +%T)), fail=$fail"; echo $fail >"$B2_TMP/fail"
} 2>&1 | tee "$log"
exit "$(cat "$B2_TMP/fail")"
