#!/usr/bin/env bash
# The suite under load: `ctest -j$(nproc)` ROUNDS times in a row (3 unless given) while a full
# build of the same tree, from scratch and again, runs on the same cores. Tests assert results,
# never times, so every round must pass; one that fails here depends on the machine's speed.
# Usage: tools/stress-test.sh [BUILD_DIR (build/dev, already built)] [ROUNDS]
# Logs: BUILD_DIR/stress-ctest-N.log. Exit status: the number of rounds that failed.
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/dev}
rounds=${2:-3}
[[ -f $build/CTestTestfile.cmake ]] || { echo "no test suite in $build: build it first (./run build)" >&2; exit 2; }
build=$(cd "$build" && pwd)
scratch=$(mktemp -d "${TMPDIR:-/tmp}/ctrl-stress-XXXXXX")
# The load, in a process group of its own so that it ends with this script.
setsid bash -c 'while :; do
  rm -rf "$1/b"
  cmake -S . -B "$1/b" -G Ninja -DCTRL_CUDA=OFF >/dev/null 2>&1 && cmake --build "$1/b" -j "$(nproc)" >/dev/null 2>&1
done' load "$scratch" &
load=$!
trap 'kill -- -"$load" 2>/dev/null; wait "$load" 2>/dev/null; rm -rf "$scratch"' EXIT
failed=0
for ((i = 1; i <= rounds; ++i)); do
  log=$build/stress-ctest-$i.log
  (cd "$build" && ctest -j "$(nproc)" --output-on-failure) >"$log" 2>&1 || failed=$((failed + 1))
  echo "round $i of $rounds (load average $(cut -d' ' -f1 /proc/loadavg)): $(grep -E 'tests passed' "$log")"
  grep -E '\((Failed|Timeout|SEGFAULT|Subprocess aborted)\)' "$log"
done
exit "$failed"
