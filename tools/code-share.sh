#!/usr/bin/env bash
# How much of each case study's code is shared between device kinds (the Xeon Phi paper's
# 97 % measure), counted in non-blank, non-comment lines. Prints a Markdown table.
set -euo pipefail
cd "$(dirname "$0")/.."
loc() { cat "$@" 2>/dev/null | sed -e 's://.*$::' -e '/^[[:space:]]*$/d' | wc -l; }
kind_lines() { cat "$@" 2>/dev/null | sed -e 's://.*$::' | grep -ciE 'cuda|offload|__device__|__global__|cublas|cufft' || true; }
echo "| case study | ctrl program + kernels (lines) | of which kind-specific | shared by every kind | OpenMP twin | CUDA twin |"
echo "| --- | ---: | ---: | ---: | ---: | ---: |"
for app in matadd blackscholes jacobi matmul recurrence; do
  d=apps/$app
  files=("$d/$app.cpp" "$d/${app}_kernels.hpp" "$d/${app}_problem.hpp")
  total=$(loc "${files[@]}")
  [[ -f $d/${app}_cuda_variants.cuh ]] && total=$((total + $(loc "$d/${app}_cuda_variants.cuh")))
  specific=$(kind_lines "${files[@]}" "$d/${app}_cuda_variants.cuh")
  omp=$(loc "$d/${app}_native.cpp" "$d/${app}_native_compute.hpp")
  cu=$(loc "$d/${app}_native_cuda.cu" "$d/${app}_native_cuda_compute.cuh")
  share=$(awk -v t="$total" -v s="$specific" 'BEGIN { printf "%.1f %%", 100 * (t - s) / t }')
  echo "| $app | $total | $specific | $share | $omp | $cu |"
done
echo
echo "What the offload kind had to write: $(loc src/offload/offload_kind.cpp) lines (src/offload/offload_kind.cpp),"
echo "plus one registration line in src/backends.cpp and one line of CMake."
