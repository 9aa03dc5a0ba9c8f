#!/bin/sh
# One bounded libFuzzer run for ctest: bounded_run.sh FUZZER NAME RUNS FUZZ_DIR WORK_DIR
# New inputs go to a fresh work folder in the build tree (listed first, so libFuzzer writes
# there), never into the committed corpus, which is read after it.
set -eu
fuzzer=$1 name=$2 runs=$3 src=$4 work=$5/$2
rm -rf "$work" && mkdir -p "$work"
dict=
[ -f "$src/$name.dict" ] && dict=-dict=$src/$name.dict
exec "$fuzzer" -seed=1 -runs="$runs" -max_total_time=120 -timeout=10 -rss_limit_mb=2048 \
  -print_final_stats=1 $dict -artifact_prefix="$work/" "$work" "$src/corpus/$name"
