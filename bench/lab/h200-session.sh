#!/usr/bin/env bash
# One device call that does what a session needs on the H200: build everything (cuda preset), run
# the whole ctest suite, then the measured loop (bench/lab/h200-loop.sh) in the time that is left.
# Files under $OUT: build.log, ctest.log, and what h200-loop.sh writes (summary, log, archive).
# Usage (device tool): bench/lab/h200-session.sh   (the measured data it tests against is in data/)
set -uo pipefail
cd "$(dirname "$0")/../.."
: "${OUT:?OUT must name the folder for results}"
start=$SECONDS
echo "== build (cuda preset) =="
cmake --preset cuda >"$OUT/build.log" 2>&1 &&
  cmake --build build/cuda -j "$(nproc)" >>"$OUT/build.log" 2>&1
echo "build exit $? after $((SECONDS - start)) s"; tail -3 "$OUT/build.log"
echo "== ctest =="
(cd build/cuda && timeout 200 ctest -j 8 --timeout 150 --output-on-failure >"$OUT/ctest.log" 2>&1)
echo "ctest exit $? after $((SECONDS - start)) s"
grep -E "tests passed|tests failed|\(Failed\)|\(Timeout\)|\*\*\*" "$OUT/ctest.log" | head -30
echo "== loop =="
export CTRL_DEADLINE_S=$((${CTRL_SESSION_S:-560} - (SECONDS - start)))
echo "loop deadline ${CTRL_DEADLINE_S} s"
bench/lab/h200-loop.sh
