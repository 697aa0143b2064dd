#!/usr/bin/env bash
# bench/launch-costs.sh — the fixed costs of a device level on this GPU host
# (bench/launch_costs.cu says what is timed; docs/PERFORMANCE.md, "The fixed
# costs of a device level", has the numbers). Builds with nvcc where there is one (NVCC=...),
# else runs a binary built elsewhere: LAUNCH_COSTS=/path.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
bin=${LAUNCH_COSTS:-$top/build/bench/launch-costs}
if [ ! -x "$bin" ]; then
  nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
  mkdir -p "$(dirname "$bin")"
  "$nvcc" -O3 -std=c++17 -arch=sm_90 -o "$bin" "$top/bench/launch_costs.cu"
fi
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
"$bin"
