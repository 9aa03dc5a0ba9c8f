#!/usr/bin/env bash
# Files what bench/lab/h200-loop.sh wrote on the H200 into the repository:
#   bench/lab/h200-import.sh DIR  DIR: the folder holding h200-loop.tar.gz (the device call's $OUT)
# Writes
#   bench/results/h200-loop.md                  the summary: measured beside predicted, the fronts
#   bench/results/h200-loop/                    the archive's raw data: profiles/*.csv (the example
#                                               data sets), fronts/*.json, fronts/*-total.txt, runs/*.json,
#                                               devices.json, power.json (logs and printed reports the
#                                               summary quotes are dropped: build, profiles' logs,
#                                               checks, nvidia-smi, runs/*.txt, fronts/<tag>.txt)
#   docs/figures/h200-<app>-<config>.svg        the fronts with their load-balanced point (and
#                                               -total.svg, -profile.svg: total energy, the profile),
#                                               moved there: one copy, where the docs link
# and lists what to `git add`. It never commits.
set -euo pipefail
src=${1:?usage: bench/lab/h200-import.sh DIR (holding h200-loop.tar.gz)}
repo=$(cd "$(dirname "$0")/../.." && pwd)
dest=$repo/bench/results/h200-loop
[[ -f $src/h200-loop.tar.gz ]] || { echo "h200-import: no $src/h200-loop.tar.gz" >&2; exit 2; }
rm -rf "$dest"
mkdir -p "$dest" "$repo/docs/figures"
tar -xzf "$src/h200-loop.tar.gz" -C "$dest"
rm -f "$dest/build.log"  # logs are not committed: summary.md carries the build's last line
rm -f "$dest"/profiles/*.out "$dest"/profiles/*.log "$dest"/check-*.txt "$dest/nvidia-smi.txt"
# printed reports: summary.md quotes them, or a JSON beside them holds the same
rm -f "$dest"/runs/*.txt "$dest/power.txt" "$dest/devices.txt"
for f in "$dest"/fronts/*.txt; do
  [[ -e $f && $f != *-total.txt ]] && rm -f "$f"
done
mv "$dest/summary.md" "$repo/bench/results/h200-loop.md"
for f in "$dest"/fronts/*.svg; do
  [[ -e $f ]] && mv "$f" "$repo/docs/figures/h200-$(basename "$f")"
done
echo "imported into bench/results/h200-loop/, bench/results/h200-loop.md and docs/figures/h200-*.svg:"
(cd "$repo" && git status --short bench/results/h200-loop bench/results/h200-loop.md docs/figures)
echo "next: read bench/results/h200-loop.md, add what the run shows against its goal, then git add those paths"
echo "(the previous h200-loop.md and h200-loop/ were replaced: fold what is worth keeping of them into the new summary)"
