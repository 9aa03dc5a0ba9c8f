#!/usr/bin/env bash
# The distributed loop on the H200 machine (docs/distributed.md): two MPI ranks on the one host,
# rank 0 owning a CPU group and rank 1 the GPU, through `ctrl devices --write-selection`,
# `ctrl profile --selection`, `ctrl pareto`, `ctrl run --selection --output`, and the same run in
# one process for comparison. Run after bench/lab/gpu-check.sh, in the same device call:
#   bench/lab/h200-mpi.sh [BUILD_DIR]    (default build/gpu; the log goes to $OUT/mpi.log;
#                                        its figures are summarised in bench/results/h200-mpi.md)
set -uo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build/gpu}
ctrl=$PWD/$build/bin/ctrl
OUT=${OUT:-$PWD/build/mpi-out}
mkdir -p "$OUT"
work=$(mktemp -d)
exec > >(tee "$OUT/mpi.log") 2>&1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
[[ -x $ctrl ]] || { echo "no ctrl at $ctrl"; exit 1; }
command -v mpirun >/dev/null || { echo "no mpirun"; exit 1; }
mpi=(mpirun -np 2 --oversubscribe --bind-to none)
step() { echo; echo "=== [$SECONDS s] $*"; }
cd "$work"

step "selection suggested by ctrl devices (both ranks on this host)"
timeout 60 "${mpi[@]}" "$ctrl" devices --write-selection suggested.txt --groups 1
printf 'rank 0: cpu:0-7\nrank 1: cuda:0\n' >sel.txt
echo "used: $(tr '\n' ' ' <sel.txt)"

step "profile dgemm N=2048 on both ranks at once"
timeout 200 "${mpi[@]}" "$ctrl" profile dgemm --selection sel.txt --cols 2048 --sizes 1024:8192:1024 \
  --out p.csv --min-reps 3 --max-reps 6 --max-seconds 4 --min-window 0.3 --progress plain
echo "exit $?"; cat p.csv

step "front"
"$ctrl" pareto --profile p.csv --workload 8192 | head -20
"$ctrl" pareto --profile p.csv --workload 8192 --format json >front.json

for pick in fastest load-balanced; do
  step "run $pick across the ranks, output gathered on rank 0"
  timeout 120 "${mpi[@]}" "$ctrl" run dgemm --selection sel.txt --front front.json --pick "$pick" --profile p.csv \
    --output "C-$pick.npy" --max-reps 6 --max-seconds 4 --min-window 0.3 --progress none
  echo "exit $?"
done

step "the fastest split in one process (cpu:0-7 and cuda:0), for comparison"
split=$(python3 -c "import json; d=json.load(open('front.json')); p=d['front'][0]['distribution']; print(p[0], p[1])")
set -- $split
timeout 120 "$ctrl" run dgemm --split cpu:0-7="$1" --split cuda:0="$2" --cols 2048 --output C-one.npy \
  --max-reps 6 --max-seconds 4 --min-window 0.3 --progress none
echo "exit $?"
cmp C-fastest.npy C-one.npy && echo "outputs: identical bytes" || echo "outputs differ (see the checks above)"
step "done"
