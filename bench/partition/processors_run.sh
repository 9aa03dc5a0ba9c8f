#!/usr/bin/env bash
# Runs the growth-with-processors benchmark (processors_bench.cpp) and writes, in bench/results/:
#   partition-processors.json       Google Benchmark JSON, p = 2 .. 1000 (the exact fronts up to
#                                   p = 500; 3 repetitions, the machine is shared: read the fastest)
#   partition-processors-peak.json  one process per (algorithm, p): wall time, peak resident memory,
#                                   front size, kept partial points, load average before and after
# then prints the fitted growth (processors_fit.py). The exact front for p = 1000 needs about
# 15 GiB: it is run only when that much memory is available, and is otherwise extrapolated.
# usage: bench/partition/processors_run.sh BUILD_DIR   (an optimised build: RelWithDebInfo or Release)
set -euo pipefail
build=${1:?usage: bench/partition/processors_run.sh BUILD_DIR}
here=$(cd "$(dirname "$0")" && pwd)
results=$here/../results
bench=$build/bench/partition_processors_bench
"$bench" --exact-max-p=500 --benchmark_format=json --benchmark_out="$results/partition-processors.json" \
         --benchmark_out_format=json --benchmark_repetitions=3 >/dev/null
available_gib() { awk '/MemAvailable/ {print int($2 / 1048576)}' /proc/meminfo; }
{
  echo '['
  first=1
  for algo in hpopta load_balanced even_split hepopta htpopta; do
    for p in 2 5 10 20 50 100 200 500 1000; do
      if [[ $p -eq 1000 && $algo == htpopta ]]; then continue; fi  # HEPOPTA's cost plus O(front)
      if [[ $p -eq 1000 && $algo == hepopta && $(available_gib) -lt 18 ]]; then continue; fi
      [[ $first -eq 1 ]] || echo ','
      first=0
      before=$(cut -d' ' -f1 /proc/loadavg)
      line=$(/usr/bin/timeout 600 "$bench" --peak "$algo" "$p" | tr -d '\n')
      echo "${line%\}}, \"load_before\": $before, \"load_after\": $(cut -d' ' -f1 /proc/loadavg)}"
    done
  done
  echo ']'
} > "$results/partition-processors-peak.json"
echo "wrote $results/partition-processors.json and $results/partition-processors-peak.json"
python3 "$here/processors_fit.py" "$results/partition-processors-peak.json"
