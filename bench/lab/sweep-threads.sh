#!/usr/bin/env bash
# bench/lab/sweep-threads.sh — issue 16's wide_exact goal (p = 32, m = 2000, n = 4000, exact front
# <= 0.5 s on 16 cores): how the exact programme scales with threads, in ONE `device` call.
# Builds partition_cores_bench (Release, no CUDA, build/sweep-threads), then runs
# `partition_cores_bench --peak wide_exact T` for T = 1 2 4 8 16 and classes_exact on 1 thread,
# REPEAT times each (default 3), each in a fresh process, and prints one JSON line a run and the
# median seconds (total, bounds, sweep) per thread count.
#
#   bench/lab/sweep-threads.sh      # from the repository root; results under $OUT (or build/sweep-threads-out)
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-$PWD/build/sweep-threads-out}
BUILD=${BUILD:-build/sweep-threads}
REPEAT=${REPEAT:-3}
mkdir -p "$OUT"
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCTRL_CUDA=OFF -DCTRL_BUILD_TESTS=OFF > "$OUT/build.log" 2>&1
cmake --build "$BUILD" -j "$(nproc)" --target partition_cores_bench >> "$OUT/build.log" 2>&1
bench=$BUILD/bench/partition_cores_bench
runs=$OUT/runs.jsonl
: > "$runs"
for goal_threads in "wide_exact 1" "wide_exact 2" "wide_exact 4" "wide_exact 8" "wide_exact 16" "classes_exact 1"; do
  for _ in $(seq "$REPEAT"); do
    # shellcheck disable=SC2086
    line=$("$bench" --peak $goal_threads | tr -d '\n')
    echo "${line%\}}, \"load_before\": $(cut -d' ' -f1 /proc/loadavg), \"cores\": $(nproc)}" | tee -a "$runs"
  done
done
python3 - "$runs" <<'PY' | tee "$OUT/medians.txt"
import json, statistics, sys
runs = [json.loads(l) for l in open(sys.argv[1])]
for key in sorted({(r["goal"], r["threads"]) for r in runs}):
    rs = [r for r in runs if (r["goal"], r["threads"]) == key]
    med = lambda f: statistics.median(r[f] for r in rs)
    print(f"{key[0]:14s} threads {key[1]:2d}: {med('seconds'):.3f} s (bounds {med('bound_seconds'):.3f}, "
          f"sweep {med('sweep_seconds'):.3f}), peak {med('peak_rss_mib'):.0f} MiB, front {rs[0]['front']}")
PY
