#!/usr/bin/env bash
# bench/lab/gpu-goals.sh — issue 15's and 16's goals on the GPU machine, in ONE `device` call:
#   build everything (Release, sm_90, build/gpu, -k 0) -> the GPU's tests (ctest -L cuda) ->
#   compute-sanitizer memcheck on the new GPU paths (recorded launches, wrapped memory, vector runs)
#   -> the SASS widths of the vector-run kernels -> then, one at a time on a quiet machine:
#   CPU launch + wait against OpenMP on every core and on 2 (taskset), the CUDA goal benchmarks
#   (vector runs, replays against hand-captured CUDA graphs, wrapped transfers, Controller::take
#   GPU to GPU against cudaMemcpyPeer: two controllers of cuda:0 on one GPU), the cluster fronts
#   (bench/partition/cores_run.sh, LIMIT_S a run).
#
#   bench/lab/gpu-goals.sh      # from the repository root; results under $OUT (or build/gpu-goals-out)
#   LIMIT_S=N (a cluster-front run's limit, 25 s), CTRL_ALL_TESTS=1 (the whole suite, not only label cuda)
#   CTRL_GOALS=jacobi: only what issue 15's Jacobi goals need, in about 4
#   minutes: the targets of the vector-run and recorded-launch tests and of bench_cuda, those tests,
#   the SASS, and the vector-run and Jacobi replay benchmarks (no sanitizer, CPU launch, apps, fronts)
#   CTRL_GOALS=verify: a check after changes, in about 7 minutes: everything built, the GPU's tests,
#   memcheck, the SASS, the Jacobi benchmarks, then the cluster fronts of issue 16 that need the
#   16 cores (wide and distinct exact fronts on every core, the latter with 64 and 128 probes; each
#   run's JSON says where its time went)
#
# Files: goals.log (all of it), build.log, ctest.log, memcheck.log, sass.txt, cpu-launch-16.json,
# cpu-launch-2.json, cuda-goals.json, partition-cores.json.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-$PWD/build/gpu-goals-out}
mkdir -p "$OUT"
BUILD=${CTRL_GPU_BUILD:-build/gpu}
JOBS=${CTRL_GPU_JOBS:-16}
GOALS=${CTRL_GOALS:-all}
quick() { [[ $GOALS == jacobi ]]; }
verify() { [[ $GOALS == verify ]]; }
exec > >(tee -a "$OUT/goals.log") 2>&1
T0=$(date +%s)
step() { echo; echo "=== [$(($(date +%s) - T0))s] $*"; }
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
CUOBJDUMP=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)

step "machine"
date -u +"%Y-%m-%dT%H:%M:%SZ"; uname -srm; echo "cores: $(nproc)"
nvidia-smi --query-gpu=index,name,pci.bus_id,driver_version,clocks.max.sm,power.draw,pstate --format=csv || true
nvidia-smi topo -m 2>/dev/null | head -8 || true

step "build (Release, sm_90, benchmarks on)"
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCTRL_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DCTRL_BUILD_BENCH=ON >"$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; echo "CONFIGURE FAILED"; exit 1; }
targets=()
quick && targets=(bench_cuda cuda_test kinds_cuda_test cuda_geometry_test)
ninja -C "$BUILD" -j"$JOBS" -k 0 "${targets[@]}" >>"$OUT/build.log" 2>&1 ||
  { echo "(some targets failed:)"; grep -E "^FAILED" "$OUT/build.log" | head -20; }

# The GPU's tests (label cuda: every kind's tests with cuda:0, the backend's own); the rest of the
# suite needs no GPU and runs everywhere (./run test). CTRL_ALL_TESTS=1 runs the whole suite.
step "the GPU's tests"
label=(-L cuda); [[ ${CTRL_ALL_TESTS:-0} == 1 ]] && label=()
quick && label+=(-R 'VectorRuns|GraphsTest|IndexSpaces|CudaVariants|CudaGeometry|CudaCoarsening')
(cd "$BUILD" && timeout "${CTEST_LIMIT_S:-150}" ctest "${label[@]}" -j10 --timeout 140 --output-on-failure) >"$OUT/ctest.log" 2>&1
grep -E "tests passed|tests failed|\(Failed\)|\(Timeout\)|\(SEGFAULT\)|\(Subprocess" "$OUT/ctest.log" | head -30

quick || step "compute-sanitizer memcheck: recorded launches, wrapped memory, flat 2-D kernels, vector runs"
quick || for t in kinds_cuda_test cuda_test; do
  [[ -x $BUILD/tests/$t ]] || continue
  # Left out: the tests that fail a launch or unregister a moved vector's pages on purpose (the
  # sanitizer reports those API errors).
  timeout 90 "$SAN" --tool memcheck --leak-check full --error-exitcode 86 "$BUILD/tests/$t" \
    --gtest_filter='*GraphsTest*cuda*:*WrappedTest*cuda*:*IndexSpaces*cuda*:*VectorRuns*-*AFailure*:*Reallocated*' \
    >>"$OUT/memcheck.log" 2>&1
  echo "$t memcheck exit: $?"
done
quick || grep -E "ERROR SUMMARY|PASSED|FAILED" "$OUT/memcheck.log" | head

step "SASS: 128-bit accesses of the vector-run kernels against the hand-written ones"
OBJ=$(find "$BUILD/bench" -name 'bench_coarsening.cu.o' | head -1)
"$CUOBJDUMP" -sass "$OBJ" | awk '
  /Function :/ { name = $3 }
  /LDG|STG/ { for (i = 1; i <= NF; i++) if ($i ~ /^(LDG|STG)/) { n[$i " " name]++; break } }
  END { for (k in n) print n[k], k }' | grep -E "vector_|hand_" | c++filt | sort -k3 -k2 >"$OUT/sass.txt"
# "count instruction kernel": vector_2d<4u, 1u, apps::JacobiUpdate, ...> (phase 1, Traits::interior(1))
# should show LDG.E.128 and STG.E.128 like hand_jacobi4 (its ragged first and last runs add scalar ones);
# hand_jacobi4's loads are LDG.E.128.CONSTANT, hand_jacobi4_coherent's plain LDG.E.128 as ctrl's.
grep -E "vector_2d|hand_add4|hand_jacobi4" "$OUT/sass.txt" | cut -c1-160

if quick || verify; then
  step "vector runs and Jacobi replayed (issue 15's Jacobi goals)"
  rm -f "$OUT/cuda-goals.md"
  CTRL_BENCH_SUMMARY="$OUT/cuda-goals.md" timeout 150 "$BUILD/bench/bench_cuda" \
    --benchmark_filter='BM_VectorMatAdd|BM_VectorJacobi|BM_ReplayJacobi' --benchmark_out="$OUT/cuda-goals.json" \
    --benchmark_out_format=json --benchmark_counters_tabular=false 2>&1 | grep -E "^vector |^jacobi |^ctrl |Error|error"
  echo "bench_cuda exit: ${PIPESTATUS[0]}"
  cat "$OUT/cuda-goals.md" 2>/dev/null
  if verify; then
    step "cluster fronts on every core (issue 16): wide, then distinct with 64 and 128 probes"
    for args in "wide_exact 0" "distinct_exact 0 2048 64" "distinct_exact 0 2048 128"; do
      # shellcheck disable=SC2086  # the arguments are words
      timeout "${LIMIT_S:-60}" "$BUILD/bench/partition_cores_bench" --peak $args | tee -a "$OUT/partition-cores.json"
    done
  fi
  step "done"
  exit 0
fi

step "CPU launch + wait against OpenMP: every core, then 2 (taskset -c 0,1)"
B=$BUILD/bench/bench_launch_cpu
"$B" --benchmark_repetitions=3 --benchmark_report_aggregates_only=true --benchmark_out="$OUT/cpu-launch-16.json" \
  --benchmark_out_format=json 2>&1 | grep -E "median|Benchmark"
taskset -c 0,1 "$B" --benchmark_repetitions=3 --benchmark_report_aggregates_only=true \
  --benchmark_out="$OUT/cpu-launch-2.json" --benchmark_out_format=json 2>&1 | grep -E "median|Benchmark"

step "ctrl devices: GPUs matched to their NVML meters by PCI bus id (issue 19)"
"$BUILD/bin/ctrl" devices 2>&1 | grep -iE "cuda|nvml|meter" | head -8

step "CUDA goals: vector runs, replays, wrapped transfers, tiles taken GPU to GPU"
rm -f "$OUT/cuda-goals.md"
CTRL_BENCH_SUMMARY="$OUT/cuda-goals.md" timeout 240 "$BUILD/bench/bench_cuda" \
  --benchmark_filter='BM_Vector|BM_ReplayEmpty|BM_ReplayJacobi|BM_EmptyLaunch|BM_WrappedTransfers|BM_DeviceCopy|BM_MatAddBandwidth$|BM_BlackScholesBandwidth$|BM_cudaMemcpyPeer|BM_peer_tile_move|BM_DgemmTwoGpus' \
  --benchmark_out="$OUT/cuda-goals.json" --benchmark_out_format=json --benchmark_counters_tabular=false >/dev/null 2>&1
echo "bench_cuda exit: $?"
cat "$OUT/cuda-goals.md" 2>/dev/null

step "jacobi 512x512 x 1000 on cuda:0: the ctrl program (one recorded iteration, replayed) and its twin"
for prog in jacobi jacobi_native_cuda; do
  timeout 60 "$BUILD/bin/$prog" --device cuda:0 --size 512 --iterations 1000 --repeat 5 --check 2>&1 | tail -2
done

step "cluster fronts (issue 16), each run limited to ${LIMIT_S:=25} s"
LIMIT_S=$LIMIT_S bench/partition/cores_run.sh "$BUILD" "$OUT/partition-cores.json" | tail -40
step "done"
