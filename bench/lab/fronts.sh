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
#   APPS=mandelbrot APP_OPTS="--cols 8192" WORKLOAD=8192 TWINS=1   options of the application, the
#                                  workload to split (else 3/4 of the capacity), and the case study's
#                                  twins timed on the same processors (OpenMP on the CPU group, CUDA
#                                  on the GPU) with the ideal split of their speeds, 1/(1/t_cpu + 1/t_gpu)
#   PROFILE_OPTS="--sizes cuda:0=512:8192:512"  more options of ctrl profile (sizes per processor)
#   LEARN=1                        then the point whose time missed most is run with --learn, and
#                                  again: its new prediction (the slowest processor's, from the
#                                  learned profile) beside that fresh run's time
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
read -r -a app_opts <<<"${APP_OPTS:-}"
read -r -a profile_opts <<<"${PROFILE_OPTS:-}"
say() { printf '[%4ds] %s\n' $((SECONDS - t0)) "$*"; }

if [[ ${CTRL_DRY:-0} == 1 ]]; then
  build=${CTRL_BUILD_DIR:-$repo/build/dev}
  popts=(--steps 5 --largest-run 0.01 --min-reps 3 --max-reps 4 --max-seconds 1 --idle-seconds 0.5)
  ropts=(--min-reps 3 --max-reps 4 --max-seconds 1 --idle-seconds 0.5)
else
  build=$repo/build/cuda
  say "building ctrl_tool (cuda preset)"
  twins=()
  # An application's twins are its case study's (fft2d-whole: fft2d's, FFTW's and cuFFT's own 2-D).
  [[ ${TWINS:-0} == 1 ]] && for a in $apps; do a=${a%%:*} && twins+=("${a%-whole}" "${a%-whole}_native" "${a%-whole}_native_cuda"); done
  (cd "$repo" && cmake --preset cuda -DCTRL_BUILD_TESTS=OFF -DCTRL_BUILD_BENCH=OFF >/dev/null &&
     cmake --build build/cuda --target ctrl_tool "${twins[@]}" -j 16) >"$work/build.log" 2>&1 ||
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
    --cpu-power "$watts" "${app_opts[@]}" "${popts[@]}" "${profile_opts[@]}" --progress plain >"$name-profile.txt" 2>"$name-profile.err"
  echo "(exit $?, $((SECONDS - p0)) s)" >>"$name-profile.txt"
  { printf '\n```\n$ ctrl profile %s --groups %s ...\n' "$app" "$g"; cat "$name-profile.txt"; printf '```\n'; } >>"$md"
  n=$(sed -n 's/.*--workload \([0-9]*\).*/\1/p' "$name-profile.txt" | head -1)
  [[ -n $n ]] || { say "$name: no profile"; tail -5 "$name-profile.err"; continue; }
  n=${WORKLOAD:-$((n * 3 / 4))}
  shown "$ctrl" pareto --profile "$name.csv" --workload "$n"
  "$ctrl" pareto --profile "$name.csv" --workload "$n" --format json >"$name-front.json" 2>/dev/null
  left=$((budget - (SECONDS - t0)))
  say "$name: run --pick all --points $points (at most $((left - 10))s)"
  timeout --signal=INT --kill-after=15 $((left - 10)) "$ctrl" run "$app" --front "$name-front.json" --pick all \
    --points "$points" --profile "$name.csv" --cpu-power "$watts" "${app_opts[@]}" "${ropts[@]}" --progress none \
    --json "$name-runs.json" >"$name-runs.txt" 2>&1
  echo "(exit $?)" >>"$name-runs.txt"
  { printf '\n```\n'; sed -n '/measured beside predicted/,$p' "$name-runs.txt"; printf '```\n'; } >>"$md"
  sed -n '/measured beside predicted/,$p' "$name-runs.txt"
  learn_json=null
  worst=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["worst"]["time"]["point"])' "$name-runs.json" 2>/dev/null)
  if [[ ${LEARN:-0} == 1 && -n $worst ]]; then
    # The front file fixes the distribution; the profile, once taught, the predictions.
    common=(run "$app" --front "$name-front.json" --pick "$worst" --profile "$name.csv" --cpu-power "$watts"
            "${app_opts[@]}" "${ropts[@]}" --progress none --format json)
    "$ctrl" "${common[@]}" --learn >"$name-learn-1.json" 2>>"$name-runs.txt"
    "$ctrl" "${common[@]}" >"$name-learn-2.json" 2>>"$name-runs.txt"
    learn_json=$(python3 - "$name-learn-1.json" "$name-learn-2.json" <<'PY'
import json, sys
def slowest(run, key):
    return max(p["time"][key]["mean"] if key == "measured" else p["time"][key]
               for p in run["processors"] if p["rows"] > 0)
first, second = (json.load(open(f)) for f in sys.argv[1:3])
before, after = slowest(first, "predicted"), slowest(second, "predicted")
fresh = second["total"]["time"]["measured"]["mean"]
print(json.dumps({"point": int(first.get("distribution_from", "").split("point ")[1].split()[0]) if "point " in first.get("distribution_from", "") else None,
                  "learned_rows": first["learned_rows"], "predicted_before_s": before,
                  "measured_learning_s": first["total"]["time"]["measured"]["mean"],
                  "predicted_after_s": after, "measured_fresh_s": fresh, "error_after": after / fresh - 1}))
PY
    )
    printf '\nlearned at point %s: %s\n' "$worst" "$learn_json" | tee -a "$md"
  fi
  twin_json=null
  twin=${app%-whole}
  if [[ ${TWINS:-0} == 1 && -x $build/bin/${twin}_native ]]; then
    # The twins on the profile's processors: its first CPU group, and the GPU. Same picture.
    cpus=$(sed -n 's/^\(cpu:[^,]*\),.*/\1/p' "$name.csv" | head -1)
    size=(--size "$n" "$(python3 -c 'import csv,sys; print(next(csv.DictReader(open(sys.argv[1])))["cols"])' "$name.csv")")
    tc=$("$build/bin/${twin}_native" --device "$cpus" "${size[@]}" --repeat 3 --quiet | sed -n 's/^time_s=\([^ ]*\).*/\1/p')
    tg=$("$build/bin/${twin}_native_cuda" --device cuda:0 "${size[@]}" --repeat 3 --quiet | sed -n 's/^time_s=\([^ ]*\).*/\1/p')
    # The case study's ctrl program on the GPU alone, beside its CUDA twin.
    tp=$("$build/bin/${twin}" --device cuda:0 "${size[@]}" --repeat 3 --quiet | sed -n 's/^time_s=\([^ ]*\).*/\1/p')
    ideal=$(python3 -c "import sys; c,g=map(float,sys.argv[1:]); print(1/(1/c+1/g))" "$tc" "$tg" 2>/dev/null)
    printf '\ntwins at %s: %s_native on %s %s s, %s_native_cuda on cuda:0 %s s; ideal split 1/(1/t_cpu + 1/t_gpu) = %s s; %s (ctrl) on cuda:0 %s s\n' \
      "${size[*]}" "$twin" "$cpus" "$tc" "$twin" "$tg" "$ideal" "$twin" "${tp:-?}" | tee -a "$md"
    [[ -n $ideal ]] && twin_json="{\"cpu\": \"$cpus\", \"t_cpu_s\": $tc, \"t_gpu_s\": $tg, \"ideal_s\": $ideal, \"t_ctrl_gpu_s\": ${tp:-null}}"
  fi
  ((first)) || echo ',' >>"$json"
  first=0
  printf '"%s": {"profile": ' "$name" >>"$json"
  python3 -c 'import csv,json,sys; print(json.dumps(list(csv.DictReader(open(sys.argv[1])))))' "$name.csv" >>"$json" 2>/dev/null || echo null >>"$json"
  printf ', "front": ' >>"$json"; { [[ -s $name-front.json ]] && cat "$name-front.json"; } >>"$json" || echo null >>"$json"
  printf ', "runs": ' >>"$json"; { [[ -s $name-runs.json ]] && cat "$name-runs.json"; } >>"$json" || echo null >>"$json"
  printf ', "twins": %s, "learn": %s' "$twin_json" "${learn_json:-null}" >>"$json"
  echo '}' >>"$json"
done
echo '}' >>"$json"
say "done in $((SECONDS - t0)) s: $md"
