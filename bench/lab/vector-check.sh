#!/usr/bin/env bash
# bench/lab/vector-check.sh — the vector runs of issue 15 on a GPU, in one `device` call: build the
# CUDA tests and benchmarks (Release, sm_90), run the tests of the generic kernels' coarsening and
# vector runs, show in the SASS which kernels got 16-byte accesses, then the side-by-side benchmark
# (ctrl vs hand-written float4 vs scalar) and the bandwidth rows it is compared with before.
#
#   bench/lab/vector-check.sh     # from the repository root; results under $OUT (or build/vector-out)
#
# Files written: vector.log (all of it), vector.json (Google Benchmark), sass.txt (per kernel: LDG/STG
# widths of the vector kernels and the hand-written ones).
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-$PWD/build/vector-out}
mkdir -p "$OUT"
BUILD=${CTRL_GPU_BUILD:-build/gpu}
exec > >(tee -a "$OUT/vector.log") 2>&1
date -u +"%Y-%m-%dT%H:%M:%SZ"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv || true
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCTRL_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 >/dev/null ||
  { echo "CONFIGURE FAILED"; exit 1; }
ninja -C "$BUILD" -j"${CTRL_GPU_JOBS:-16}" cuda_test cuda_geometry_test bench_cuda >"$OUT/build.log" 2>&1 ||
  { grep -E "error|FAILED" "$OUT/build.log" | head -40; echo "BUILD FAILED"; exit 1; }

echo "=== tests"
"$BUILD/tests/cuda_geometry_test" --gtest_brief=1
"$BUILD/tests/cuda_test" --gtest_brief=1 --gtest_filter='CudaVectorRuns.*:CudaCoarsening.*'

echo "=== SASS: 128-bit global loads / stores per kernel (vector_1d/2d: ctrl's vector runs; hand_*: the anchors)"
OBJ=$(find "$BUILD/bench" -name 'bench_coarsening.cu.o' | head -1)
CUOBJDUMP=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)
"$CUOBJDUMP" -sass "$OBJ" | awk '
  /Function :/ { name = $3 }
  /LDG|STG/ { for (i = 1; i <= NF; i++) if ($i ~ /^(LDG|STG)/) { n[name " " $i]++; break } }
  END { for (k in n) print n[k], k }' | grep -E "vector_|hand_|coarse_2d" | c++filt | sort -k2 >"$OUT/sass.txt"
grep -E "vector_2d|hand_add4|hand_copy4" "$OUT/sass.txt" | cut -c1-200

echo "=== benchmarks"
"$BUILD/bench/bench_cuda" --benchmark_filter='BM_Vector|BM_MatAddBandwidth$|BM_BlackScholesBandwidth$|BM_DeviceCopy' \
  --benchmark_out="$OUT/vector.json" --benchmark_out_format=json --benchmark_counters_tabular=false
echo "bench exit: $?"
