#!/usr/bin/env bash
# Files what bench/lab/h200-loop.sh wrote on the H200 into the repository:
#   bench/lab/h200-import.sh DIR  DIR: the folder holding h200-loop.tar.gz (the device call's $OUT)
# Writes
#   bench/results/h200-loop.md                  the summary: measured beside predicted, the fronts
#   bench/results/h200-loop/                    the archive's contents: profiles/*.csv (the example
#                                               data sets), fronts/*.{txt,json,svg}, runs/*, devices,
#                                               power, nvidia-smi (the build log is dropped: the
#                                               summary names the build and its last line)
#   docs/figures/h200-<app>-<config>.svg        the fronts with their load-balanced point (and
#                                               -total.svg, -profile.svg: total energy, the profile)
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
rm -f "$dest"/profiles/*.out
mv "$dest/summary.md" "$repo/bench/results/h200-loop.md"
for f in "$dest"/fronts/*.svg; do
  [[ -e $f ]] && cp "$f" "$repo/docs/figures/h200-$(basename "$f")"
done
echo "imported into bench/results/h200-loop/, bench/results/h200-loop.md and docs/figures/h200-*.svg:"
(cd "$repo" && git status --short bench/results/h200-loop bench/results/h200-loop.md docs/figures)
echo "next: read bench/results/h200-loop.md, write the results into docs/loop.md, then git add those paths"
echo "(the previous h200-loop.md and h200-loop/ were replaced: fold what docs/loop.md still quotes of them into the new summary)"
