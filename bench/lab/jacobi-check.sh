#!/usr/bin/env bash
# bench/lab/jacobi-check.sh — issue 15's Jacobi goals on the GPU machine in ONE `device` call of
# about 4 minutes: gpu-goals.sh's quick mode (CTRL_GOALS=jacobi). Builds bench_cuda and the CUDA
# test programs (Release, sm_90), runs the vector-run, recorded-launch, variant and geometry tests
# (ctest -L cuda -R ...), the SASS widths of the vector-run kernels against the hand-written ones,
# and the benchmarks: Jacobi's update and copy and matadd against hand-written float4 kernels
# (with ctrl's runs also on the table's block, and the hand kernel with coherent loads and on
# 64x4 blocks), and Jacobi 512x512 x 1000 replayed against a hand-captured graph (with ctrl's
# kernels captured by hand beside them). Results under $OUT: goals.log, ctest.log, sass.txt,
# cuda-goals.{md,json}.
#
#   bench/lab/jacobi-check.sh      # from the repository root
exec env CTRL_GOALS=jacobi CTEST_LIMIT_S="${CTEST_LIMIT_S:-90}" "$(dirname "$0")/gpu-goals.sh" "$@"
