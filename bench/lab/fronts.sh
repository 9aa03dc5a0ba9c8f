#!/usr/bin/env bash
# The loop's predictions held against runs, on the GPU machine in one device call: for each
# application of APPS, on the processors `ctrl devices` suggests (CPU_GROUPS CPU groups and the GPU),
#   ctrl profile APP               default sizes: a calibration, then sizes per processor
#   ctrl pareto  --workload N      N = 3/4 of the profile's capacity (between measured sizes)
#   ctrl run --pick all --points K every point of the front up to K, spread along it, measured
#                                  beside predicted, the worst named
# with the CPU groups' energy estimated at CPU_POWER W per busy core (no RAPL there).
#
#   bench/lab/fronts.sh                                  from the repository root, on the GPU machine
#   APPS="jacobi dgemm:2" CPU_GROUPS=1 POINTS=6 BUDGET_S=560   what to run (APP:G: G CPU groups), the budget
#   CTRL_DRY=1 bench/lab/fronts.sh                       here: CPU groups only, build/dev, short
#
# Writes to $OUT (default ./fronts-out): fronts.md (every command and its output), fronts.json (per
# application: the profile's rows, the front, the runs), fronts.log.
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUT:-$repo/fronts-out}
mkdir -p "$out" && out=$(cd "$out" && pwd)
work=$(mktemp -d) && cd "$work" || exit 1
exec > >(tee "$out/fronts.log") 2>&1
t0=$SECONDS
budget=${BUDGET_S:-560}
apps=${APPS:-"jacobi dgemm fft2d matadd blackscholes matmul recurrence"}
groups=${CPU_GROUPS:-1}
points=${POINTS:-6}
watts=${CPU_POWER:-4}
say() { printf '[%4ds] %s\n' $((SECONDS - t0)) "$*"; }

if [[ ${CTRL_DRY:-0} == 1 ]]; then
  build=${CTRL_BUILD_DIR:-$repo/build/dev}
  popts=(--steps 5 --largest-run 0.01 --min-reps 3 --max-reps 4 --max-seconds 1 --idle-seconds 0.5)
  ropts=(--min-reps 3 --max-reps 4 --max-seconds 1 --idle-seconds 0.5)
else
  build=$repo/build/cuda
  say "building ctrl_tool (cuda preset)"
  (cd "$repo" && cmake --preset cuda -DCTRL_BUILD_TESTS=OFF -DCTRL_BUILD_BENCH=OFF >/dev/null &&
     cmake --build build/cuda --target ctrl_tool -j 16) >"$work/build.log" 2>&1 ||
    { say "build failed"; tail -30 "$work/build.log"; exit 1; }
  popts=(--steps ${STEPS:-10} --largest-run ${LARGEST_RUN:-0.05} --min-reps 3 --max-reps 8 --max-seconds ${STEP_SECONDS:-3} --min-window 0.3)
  ropts=(--min-reps 3 --max-reps 6 --max-seconds 2 --min-window 0.3)
fi
ctrl=$build/bin/ctrl
md=$out/fronts.md
{
  echo "# Fronts against runs — $(hostname), $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo
  echo "bench/lab/fronts.sh, APPS=\"$apps\" CPU_GROUPS=$groups POINTS=$points CPU_POWER=$watts$([[ ${CTRL_DRY:-0} == 1 ]] && echo ' (CTRL_DRY)')"
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null | sed 's/^/GPU: /'
  echo "CPU: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
} >"$md"
shown() {  # a ctrl command and its output, into the summary
  { printf '\n```\n$ ctrl %s\n' "${*:2}"; "$@" 2>&1; echo "(exit $?)"; printf '```\n'; } >>"$md"
}

json=$out/fronts.json
echo '{' >"$json"
first=1
for entry in $apps; do
  # APP, or APP:G for G CPU groups beside the GPU (the default CPU_GROUPS otherwise).
  app=${entry%%:*}
  g=$groups
  [[ $entry == *:* ]] && g=${entry#*:}
  name=$app-$g
  left=$((budget - (SECONDS - t0)))
  ((left < 40)) && { say "$app: skipped, ${left}s left"; continue; }
  say "$name: profile"
  printf '\n## %s, %s CPU group%s and the GPU\n' "$app" "$g" "$([[ $g == 1 ]] || echo s)" >>"$md"
  p0=$SECONDS
  timeout --signal=INT --kill-after=20 $((left * 6 / 10)) "$ctrl" profile "$app" --groups "$g" --out "$name.csv" \
    --cpu-power "$watts" "${popts[@]}" --progress plain >"$name-profile.txt" 2>"$name-profile.err"
  echo "(exit $?, $((SECONDS - p0)) s)" >>"$name-profile.txt"
  { printf '\n```\n$ ctrl profile %s --groups %s ...\n' "$app" "$g"; cat "$name-profile.txt"; printf '```\n'; } >>"$md"
  n=$(sed -n 's/.*--workload \([0-9]*\).*/\1/p' "$name-profile.txt" | head -1)
  [[ -n $n ]] || { say "$name: no profile"; tail -5 "$name-profile.err"; continue; }
  n=$((n * 3 / 4))
  shown "$ctrl" pareto --profile "$name.csv" --workload "$n"
  "$ctrl" pareto --profile "$name.csv" --workload "$n" --format json >"$name-front.json" 2>/dev/null
  left=$((budget - (SECONDS - t0)))
  say "$name: run --pick all --points $points (at most $((left - 10))s)"
  timeout --signal=INT --kill-after=15 $((left - 10)) "$ctrl" run "$app" --front "$name-front.json" --pick all \
    --points "$points" --profile "$name.csv" --cpu-power "$watts" "${ropts[@]}" --progress none --json "$name-runs.json" \
    >"$name-runs.txt" 2>&1
  echo "(exit $?)" >>"$name-runs.txt"
  { printf '\n```\n'; sed -n '/measured beside predicted/,$p' "$name-runs.txt"; printf '```\n'; } >>"$md"
  sed -n '/measured beside predicted/,$p' "$name-runs.txt"
  ((first)) || echo ',' >>"$json"
  first=0
  printf '"%s": {"profile": ' "$name" >>"$json"
  python3 -c 'import csv,json,sys; print(json.dumps(list(csv.DictReader(open(sys.argv[1])))))' "$name.csv" >>"$json" 2>/dev/null || echo null >>"$json"
  printf ', "front": ' >>"$json"; { [[ -s $name-front.json ]] && cat "$name-front.json"; } >>"$json" || echo null >>"$json"
  printf ', "runs": ' >>"$json"; { [[ -s $name-runs.json ]] && cat "$name-runs.json"; } >>"$json" || echo null >>"$json"
  echo '}' >>"$json"
done
echo '}' >>"$json"
say "done in $((SECONDS - t0)) s: $md"
