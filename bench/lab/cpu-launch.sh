#!/usr/bin/env bash
# bench/lab/cpu-launch.sh — issue 15's CPU launch goal alone (empty launch + wait on ctrl::cpu()
# against an OpenMP parallel for), in ONE `device` call on the GPU machine's host:
#   configure Release without CUDA (build/cpu-launch: only the CPU side is measured) -> build
#   bench_launch_cpu and core_test -> the pool's and the fast path's tests -> the benchmark on every
#   core, then on 2 (taskset -c 0,1), with the load average before and after each.
#
#   bench/lab/cpu-launch.sh     # from the repository root; results under $OUT (or build/cpu-launch-out)
#
# Files: cpu-launch.log (all of it), cpu-launch-all.json, cpu-launch-2.json. The goal: the
# `ratio` counter of BM_interleaved_all_cores (median of the rounds' ctrl/OpenMP) at most 1.0.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-$PWD/build/cpu-launch-out}
mkdir -p "$OUT"
BUILD=${CTRL_CPU_BUILD:-build/cpu-launch}
exec > >(tee -a "$OUT/cpu-launch.log") 2>&1
step() { echo; echo "=== $(date -u +%H:%M:%S) $*"; }

step "machine: $(uname -srm), $(nproc) cores, $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
step "topology: $(lscpu | grep -E '^(Model name|Thread\(s\) per core|Core\(s\) per socket|Socket\(s\))' | tr -s ' ' | paste -sd';')"
echo "core 0's SMT siblings: $(cat /sys/devices/system/cpu/cpu0/topology/thread_siblings_list 2>/dev/null || echo '?') (the 2-core run takes cores 0,1)"
step "build"
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCTRL_CUDA=OFF >"$OUT/configure.log" 2>&1 ||
  { tail -20 "$OUT/configure.log"; exit 1; }
cmake --build "$BUILD" -j"$(nproc)" --target bench_launch_cpu core_test 2>&1 | tail -3
step "tests: the worker pool, the waited launch, the queue"
"$BUILD/tests/core_test" --gtest_filter='WorkerPool*:CpuLaunch*:ThreadQueue*' 2>&1 | tail -3

B=$BUILD/bench/bench_launch_cpu
# The goal's figures: BM_interleaved_* (ctrl and OpenMP alternating in one process, medians of 30
# rounds each); the BM_ctrl_* / BM_omp_* rows are the same measured one after the other, as before.
# OpenMP runs with libgomp's defaults (OMP_WAIT_POLICY and GOMP_SPINCOUNT unset), as users get it.
run() {  # run NAME [taskset args...]
  local name=$1
  shift
  step "$name; load: $(cut -d' ' -f1-3 /proc/loadavg)"
  "$@" "$B" --benchmark_repetitions=3 --benchmark_report_aggregates_only=true \
    --benchmark_out="$OUT/cpu-launch-$name.json" --benchmark_out_format=json 2>&1 | grep -E "median"
}
unset OMP_WAIT_POLICY GOMP_SPINCOUNT OMP_PROC_BIND OMP_NUM_THREADS
run all
run 2 taskset -c 0,1
step "done; load: $(cut -d' ' -f1-3 /proc/loadavg)"
