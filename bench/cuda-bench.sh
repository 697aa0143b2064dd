#!/usr/bin/env bash
# bench/cuda-bench.sh PROGRAM [ARGS] — a CUDA measurement of this GPU host,
# apart from the search: launch-costs (bench/launch_costs.cu: the fixed costs
# of a device level) or peer-gather (bench/peer_gather.cu: the floor of a
# dense level's expand exchange). Each file says what it times;
# docs/PERFORMANCE.md has the numbers. Builds with nvcc where there is one
# (NVCC=...), else runs a binary built elsewhere: CUDA_BENCH_BIN=/path.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
prog=${1:?usage: bench/cuda-bench.sh launch-costs|peer-gather [ARGS]}; shift
src=$top/bench/${prog//-/_}.cu
[ -f "$src" ] || { echo "cuda-bench: no program $prog ($src)" >&2; exit 2; }
bin=${CUDA_BENCH_BIN:-$top/build/bench/$prog}
if [ ! -x "$bin" ]; then
  nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
  mkdir -p "$(dirname "$bin")"
  "$nvcc" -O3 -std=c++17 -arch=sm_90 -o "$bin" "$src"
fi
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
"$bin" "$@"
