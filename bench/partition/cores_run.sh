#!/usr/bin/env bash
# Fronts for clusters (issue #16): runs cores_bench once per goal and thread count, each in a
# fresh process (time and peak resident memory), and writes a JSON array to OUT_JSON.
#   classes_exact   p = 1000, the processors of a kind share a profile: exact front    goal <= 2 s (2-core box)
#   distinct_exact  p = 1000, no two profiles equal: exact front                        goal <= 10 s, <= 2 GiB (16 cores)
#   wide_exact      p = 32, m = 2000, n = 4000: exact front                             goal <= 0.5 s (16 cores)
#   approx_10k      p = 10,000: (1 + 0.01)-approximate front                            goal <= 10 s, <= 4 GiB
# and, beside them, the approximate fronts at p = 1000 and HPOPTA and the load-balanced solution.
# Builds nothing: BUILD_DIR must hold an optimised build of the target partition_cores_bench
# (cmake --preset release (or dev), then cmake --build build/release --target partition_cores_bench).
# Every run has a time limit (LIMIT_S, default 240 s; a run past it is recorded as timed out), so
# the whole script ends within about 10 minutes.
# usage: bench/partition/cores_run.sh BUILD_DIR OUT_JSON
set -euo pipefail
build=${1:?usage: bench/partition/cores_run.sh BUILD_DIR OUT_JSON}
out=${2:?usage: bench/partition/cores_run.sh BUILD_DIR OUT_JSON}
limit=${LIMIT_S:-240}
bench=$build/bench/partition_cores_bench
[[ -x $bench ]] || { echo "cores_run.sh: $bench is not built (target partition_cores_bench)" >&2; exit 2; }
cores=$(nproc)
{
  echo '['
  first=1
  for goal in classes_exact wide_exact approx_10k classes_approx distinct_approx hpopta load_balanced distinct_exact; do
    for threads in 1 0; do
      # HPOPTA and the load-balanced solution are single-threaded; one run each. The exact front
      # of distinct profiles on one core is known (223 s, partition-processors.md): all cores only.
      [[ $threads == 0 && ($goal == hpopta || $goal == load_balanced) ]] && continue
      [[ $threads == 1 && $goal == distinct_exact ]] && continue
      [[ $first -eq 1 ]] || echo ','
      first=0
      before=$(cut -d' ' -f1 /proc/loadavg)
      if line=$(/usr/bin/timeout "$limit" "$bench" --peak "$goal" "$threads" | tr -d '\n'); then
        echo "${line%\}}, \"cores\": $cores, \"load_before\": $before, \"load_after\": $(cut -d' ' -f1 /proc/loadavg)}"
      else
        echo "{\"goal\": \"$goal\", \"threads_asked\": $threads, \"cores\": $cores, \"timed_out_after_s\": $limit}"
      fi
    done
  done
  echo ']'
} > "$out"
echo "wrote $out"
cat "$out"
