#!/usr/bin/env bash
# bench/lab/gpu-check.sh — everything the CUDA backend needs checked on a GPU, in one `device` call:
# configure and build (Release, CUDA backend, sm_90, -j16), the CUDA tests (ctest -L cuda), the
# CUDA benchmarks (Google Benchmark, JSON; the coarsening sweep's lines follow the goals in
# goals.md) and the host-side submit benchmark, then, side by side, compute-sanitizer memcheck and
# racecheck on the GPU test program, the rest of the test suite, and the case-study programs
# end to end on cuda:0. A summary (tests, sanitizers, every goal against its anchor) comes last.
#
#   bench/lab/gpu-check.sh        # from the repository root; results under $OUT (or build/gpu-check-out)
#
# Files written (at most 8, for the device tool): gpu-check.log (all of it), build.log, ctest.log,
# memcheck.log, racecheck.log, bench.json, goals.md, apps.log.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-$PWD/build/gpu-check-out}
mkdir -p "$OUT"
BUILD=${CTRL_GPU_BUILD:-build/gpu}
JOBS=${CTRL_GPU_JOBS:-16}
exec > >(tee -a "$OUT/gpu-check.log") 2>&1
T0=$(date +%s)
step() { echo; echo "=== [$(( $(date +%s) - T0 ))s] $*"; }
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)

step "machine"
date -u +"%Y-%m-%dT%H:%M:%SZ"
uname -srm
echo "cores: $(nproc)"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm,power.draw,pstate --format=csv || true
nvcc --version | tail -2
cmake --version | head -1
"$SAN" --version | tail -1 || true

step "configure"
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCTRL_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
  >"$OUT/build.log" 2>&1 || { tail -40 "$OUT/build.log"; echo "CONFIGURE FAILED"; exit 1; }
grep -E "CUDA backend|CUDA compiler" "$OUT/build.log" || true

step "build (the CUDA backend's targets first, then everything, -k 0)"
MINE="cuda_test cuda_geometry_test cuda_sticky_error_test bench_cuda bench_submit"
for app in matadd jacobi blackscholes recurrence matmul mandelbrot; do MINE="$MINE ${app}_native_cuda"; done
ninja -C "$BUILD" -j"$JOBS" $MINE >>"$OUT/build.log" 2>&1 || { grep -E "error|FAILED" "$OUT/build.log" | head -40; echo "BUILD OF THE CUDA TARGETS FAILED"; }
ninja -C "$BUILD" -j"$JOBS" -k 0 >>"$OUT/build.log" 2>&1 || { echo "(some other targets failed to build:)"; grep -E "^FAILED" "$OUT/build.log" | head -20; }
echo "build done"

step "CUDA tests (ctest -L cuda)"
(cd "$BUILD" && ctest -L cuda --output-on-failure --timeout 300) >"$OUT/ctest.log" 2>&1
tail -25 "$OUT/ctest.log"

step "benchmarks"
rm -f "$OUT/goals.md"
CTRL_BENCH_SUMMARY="$OUT/goals.md" timeout 420 "$BUILD/bench/bench_cuda" --benchmark_out="$OUT/bench.json" \
  --benchmark_out_format=json --benchmark_counters_tabular=false
echo "bench exit: $?"
# The host cost of a launch through the controller core (no GPU involved): ns and heap
# allocations per launch on the inline path (CUDA's queue) and the owning path (queue threads).
"$BUILD/bench/bench_submit" --benchmark_repetitions=3 --benchmark_report_aggregates_only=true \
  2>&1 | grep -E "median|Benchmark" | tee "$OUT/submit.txt"
{ echo; echo "Host cost of a launch in the controller core (bench_submit, medians):"; sed 's/^/    /' "$OUT/submit.txt"; } >>"$OUT/goals.md"
rm -f "$OUT/submit.txt"

step "compute-sanitizer memcheck + racecheck, the other tests, the programs (side by side)"
# The two tests that make CUDA calls fail on purpose (out of memory, an invalid launch) are left
# out: the sanitizers would report those API errors. The planted device fault has its own program.
PLANTED='-CudaErrors.OutOfMemory*:CudaErrors.FailedLaunch*'
# Each job's pid is waited for by name: a bare `wait` would also wait for the tee above, forever.
PIDS=()
(CTRL_COHERENCE_SEEDS=2 timeout 300 "$SAN" --tool memcheck --leak-check full --error-exitcode 86 \
   "$BUILD/tests/cuda_test" --gtest_filter="$PLANTED" >"$OUT/memcheck.log" 2>&1; echo "exit: $?" >>"$OUT/memcheck.log") &
PIDS+=($!)
(CTRL_COHERENCE_SEEDS=2 timeout 300 "$SAN" --tool racecheck --racecheck-report all --error-exitcode 86 \
   "$BUILD/tests/cuda_test" --gtest_filter="$PLANTED" >"$OUT/racecheck.log" 2>&1; echo "exit: $?" >>"$OUT/racecheck.log") &
PIDS+=($!)
(cd "$BUILD" && timeout 300 ctest -LE cuda -j6 --output-on-failure --timeout 240) >>"$OUT/ctest.log" 2>&1 &
PIDS+=($!)
(
  for app in matadd jacobi blackscholes recurrence matmul mandelbrot; do
    case $app in
      matadd) size="4096 4096" ;; jacobi) size="2048 2048" ;; blackscholes) size=4000000 ;;
      recurrence) size="2048 2048" ;; matmul) size=1024 ;; mandelbrot) size="4096 4096" ;;
    esac
    for prog in "$app" "${app}_native_cuda"; do
      if [ -x "$BUILD/bin/$prog" ]; then
        echo "\$ $prog --device cuda:0 --size $size --repeat 5 --check"
        timeout 120 "$BUILD/bin/$prog" --device cuda:0 --size $size --repeat 5 --check 2>&1 | tail -4
        echo "exit: ${PIPESTATUS[0]}"
      else
        echo "($prog not built)"
      fi
    done
  done
  for v in generic blas; do
    for prog in matmul matmul_native_cuda; do
      [ -x "$BUILD/bin/$prog" ] || continue
      echo "\$ $prog --device cuda:0 --size 2048 --variant $v --repeat 5 --check"
      timeout 120 "$BUILD/bin/$prog" --device cuda:0 --size 2048 --variant $v --repeat 5 --check 2>&1 | tail -4
    done
  done
) >"$OUT/apps.log" 2>&1 &
PIDS+=($!)
wait "${PIDS[@]}"

step "summary"
echo "-- CUDA tests (ctest -L cuda):"
grep -E "tests passed|tests failed|Skipped|\(Failed\)|Not Run" "$OUT/ctest.log" | head -20
echo "-- cuda_test counts:"
grep -hE "^\[  (PASSED|SKIPPED|FAILED) +\]" "$OUT/ctest.log" | sort | uniq -c | head -10
echo "-- memcheck:"; grep -E "ERROR SUMMARY|LEAK SUMMARY|PASSED|FAILED|exit:" "$OUT/memcheck.log" | tail -6
echo "-- racecheck:"; grep -E "RACECHECK SUMMARY|ERROR SUMMARY|PASSED|FAILED|exit:" "$OUT/racecheck.log" | tail -6
echo "-- programs on cuda:0:"; grep -E "^\\$|exit:|error|seconds|time" "$OUT/apps.log" | head -60
echo "-- goals:"; cat "$OUT/goals.md" 2>/dev/null
echo "total: $(( $(date +%s) - T0 ))s"
