#!/usr/bin/env bash
# Runs the partition benchmarks and writes the results committed in bench/results/:
#   partition-benchmark.json  Google Benchmark JSON (times, front sizes, states; 3 repetitions each,
#                             the machine is shared: read the fastest)
#   partition-peak.json       one process per configuration: wall time and peak resident memory
# usage: bench/partition/run.sh BUILD_DIR   (an optimised build: RelWithDebInfo or Release)
set -euo pipefail
build=${1:?usage: bench/partition/run.sh BUILD_DIR}
here=$(cd "$(dirname "$0")" && pwd)
results=$here/../results
bench=$build/bench/partition_bench
"$bench" --benchmark_format=json --benchmark_out="$results/partition-benchmark.json" --benchmark_out_format=json \
         --benchmark_repetitions=3 >/dev/null
{
  echo '['
  first=1
  while read -r algo p m n; do
    [[ $first -eq 1 ]] || echo ','
    first=0
    /usr/bin/timeout 900 "$bench" --peak "$algo" "$p" "$m" "$n" | tr -d '\n'
  done <<'RUNS'
dp 5 450 268
dp1 5 450 268
paper 5 450 268
hpopta 5 450 268
dp 32 2000 4000
dp1 32 2000 4000
hpopta 32 2000 4000
paper 8 900 536
paper 12 450 268
paper 16 1000 1000
RUNS
  echo
  echo ']'
} > "$results/partition-peak.json"
echo "wrote $results/partition-benchmark.json and $results/partition-peak.json"
