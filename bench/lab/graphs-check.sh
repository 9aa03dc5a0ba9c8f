#!/usr/bin/env bash
# Recorded launches on the GPU machine, in one device call: builds what they need (Release, sm_90),
# runs the per-kind graph tests on cuda:0 (and the CPU kinds), the same under compute-sanitizer
# memcheck (without the test that fails a launch on purpose: the sanitizer reports that API
# error), the replay benchmarks against hand-captured CUDA graphs, and Jacobi's program and twin.
#   bench/lab/graphs-check.sh            # OUT=<dir> keeps the logs and the benchmark JSON there
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-$PWD/build/graphs-check-out}
BUILD=${CTRL_GPU_BUILD:-build/gpu}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/graphs-check.log") 2>&1
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
step() { echo; echo "=== $*"; }

step "build"
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCTRL_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
  >"$OUT/build.log" 2>&1 &&
  ninja -C "$BUILD" -j"${CTRL_GPU_JOBS:-16}" kinds_cuda_test bench_cuda jacobi jacobi_native_cuda >>"$OUT/build.log" 2>&1 ||
  { grep -E "error|FAILED" "$OUT/build.log" | head -40; echo "BUILD FAILED"; exit 1; }

step "graph tests (every kind)"
"$BUILD/tests/kinds_cuda_test" --gtest_filter='*GraphsTest*' 2>&1 | grep -vE '^\[ +(RUN|OK) +\]'

step "compute-sanitizer memcheck, graph tests on cuda:0"
timeout 300 "$SAN" --tool memcheck --leak-check full --error-exitcode 86 "$BUILD/tests/kinds_cuda_test" \
  --gtest_filter='Devices/GraphsTest.*/cuda_0:-*AFailure*' 2>&1 | grep -E "ERROR SUMMARY|LEAK SUMMARY|PASSED|FAILED|Invalid"
echo "memcheck exit: ${PIPESTATUS[0]}"

step "benchmarks: replay against hand-captured CUDA graphs"
CTRL_BENCH_SUMMARY="$OUT/goals.md" timeout 300 "$BUILD/bench/bench_cuda" --benchmark_filter='EmptyLaunch|Replay' \
  --benchmark_out="$OUT/bench.json" --benchmark_out_format=json --benchmark_counters_tabular=false

step "jacobi 512x512 x 1000 on cuda:0: the ctrl program (replays) and its native twin"
for prog in jacobi jacobi_native_cuda; do
  timeout 120 "$BUILD/bin/$prog" --device cuda:0 --size 512 --iterations 1000 --repeat 5 --check 2>&1 | tail -2
done
