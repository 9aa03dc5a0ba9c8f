#!/usr/bin/env bash
# bench/lab/multi-gpu.sh — issue #19 on a GPU machine, in one `device` call: build the targets it
# touches (Release, CUDA backend, sm_90), run the tests of tiles moving between controllers
# (Controller::take on every kind, two controllers of cuda:0, and cuda:0 <-> cuda:1, which skip
# with "needs a second GPU" on one), the NVML bus-id match (fake NVML, and `ctrl devices` on this
# machine's GPUs), then BM_cudaMemcpyPeer / BM_peer_tile_move (goal: take >= 90 % of
# cudaMemcpyPeer between the same devices; on one GPU both controllers are on cuda:0).
#
#   bench/lab/multi-gpu.sh        # from the repository root; results under $OUT (or build/multi-gpu-out)
#
# Files written: multi-gpu.log (all of it), build.log, ctest.log, bench.json, goals.md.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-$PWD/build/multi-gpu-out}
mkdir -p "$OUT"
BUILD=${CTRL_GPU_BUILD:-build/gpu}
JOBS=${CTRL_GPU_JOBS:-16}
exec > >(tee -a "$OUT/multi-gpu.log") 2>&1
T0=$(date +%s)
step() { echo; echo "=== [$(( $(date +%s) - T0 ))s] $*"; }

step "machine"
nvidia-smi --query-gpu=index,name,pci.bus_id,memory.total --format=csv || true
nvidia-smi topo -m || true

step "configure and build"
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCTRL_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
  >"$OUT/build.log" 2>&1 || { tail -40 "$OUT/build.log"; echo "CONFIGURE FAILED"; exit 1; }
ninja -C "$BUILD" -j"$JOBS" cuda_test kinds_test kinds_cuda_test energy_test ctrl_tool bench_cuda >>"$OUT/build.log" 2>&1 ||
  { grep -E "error|FAILED" "$OUT/build.log" | head -40; echo "BUILD FAILED"; exit 1; }

step "tests: take on every kind, peer copies, NVML by PCI bus id"
(cd "$BUILD" && ctest -R 'TakeTest|CudaPeer|Pci|MakeMeter' --output-on-failure --timeout 600 &&
  ctest -L cuda --output-on-failure --timeout 600) >"$OUT/ctest.log" 2>&1
tail -15 "$OUT/ctest.log"
"$BUILD/tests/kinds_cuda_test" --gtest_filter='*TakeTest*' 2>&1 | tail -5
"$BUILD/tests/cuda_test" --gtest_filter='CudaPeer.*' 2>&1 | grep -E "RUN|OK|SKIP|FAIL|needs"
"$BUILD/tests/energy_test" --gtest_filter='*Pci*' 2>&1 | tail -3
"$BUILD/bin/ctrl" devices 2>&1 | grep -iE "cuda|nvml" || true

step "benchmark: take against cudaMemcpyPeer"
rm -f "$OUT/goals.md"
CTRL_BENCH_SUMMARY="$OUT/goals.md" timeout 300 "$BUILD/bench/bench_cuda" \
  --benchmark_filter='BM_cudaMemcpyPeer|BM_peer_tile_move' --benchmark_out="$OUT/bench.json" --benchmark_out_format=json
echo "bench exit: $?"
