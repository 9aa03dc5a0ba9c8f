#!/usr/bin/env bash
# The whole loop on the H200 machine in ONE device call (docs/loop.md, "On the H200"):
#   build (CUDA, sm_90) -> ctrl devices -> ctrl power --idle -> for dgemm and fft2d, on
#   {cpu:0-7, cuda:0} and on {cpu:0-7, cpu:8-14, cuda:0}: profile -> Pareto fronts (dynamic and
#   total energy; tables, JSON, SVG) -> run the fastest, the least-energy, the load-balanced (equal
#   times) and the even-split (equal rows) distributions -> measured beside predicted.
#
#   bench/lab/h200-loop.sh              on the H200 (the device tool): everything under $OUT
#   CTRL_DRY=1 bench/lab/h200-loop.sh   here, CPU only: {cpu:0, offload:1} and {cpu:0, cpu:1} stand
#                                       in for the two configurations (same file names), small
#                                       sizes, the build in $CTRL_BUILD_DIR (default build/dev)
#
#   LOOP_APPS="jacobi/4096/256:2048:256 ..." bench/lab/h200-loop.sh
#                                       the named applications (app/N/sizes) on {cpu:0-14, cuda:0}
#                                       instead of dgemm and fft2d on the two configurations
#
# Writes to $OUT (default ./h200-out), three files:
#   h200-loop.tar.gz   everything: build.log, devices.{txt,json}, power.{txt,json}, nvidia-smi.txt,
#                      check-{dgemm,fft2d}.txt (a first small checked run on every processor),
#                      profiles/<app>-<config>.{csv,log}, fronts/<app>-<config>[-total].{txt,json,svg},
#                      fronts/<app>-<config>-profile.svg (the profile's plot),
#                      runs/<app>-<config>-<pick>.{txt,json}, summary.md
#   h200-summary.md    measured beside predicted for every run, and the fronts (the same summary.md)
#   h200-loop.log      this script's own log
# Core 15 is left to the GPU controller's host thread in the 3-processor configuration (the
# paper's abstract processors give each accelerator a host core); set GROUP2=cpu:8-15 to use it.
# Time: each profile gets its share of what is left before CTRL_DEADLINE_S (460 s after the start,
# the build included), at most CTRL_PROFILE_LIMIT_S (95 s); it is stopped with SIGINT and keeps the sizes it measured.
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUT:-$repo/h200-out}
dry=${CTRL_DRY:-0}
deadline=${CTRL_DEADLINE_S:-460}      # everything done by then (one device call allows 600 s)
mkdir -p "$out"
out=$(cd "$out" && pwd)
work=$(mktemp -d)/h200-loop
mkdir -p "$work"/{profiles,fronts,runs}
cd "$work"   # paths in the outputs are relative to the archive's root
exec > >(tee "$out/h200-loop.log") 2>&1
t0=$SECONDS
say() { printf '[%4ds] %s\n' $((SECONDS - t0)) "$*"; }

# ---- build -----------------------------------------------------------------------------------
if [[ $dry == 1 ]]; then
  build=${CTRL_BUILD_DIR:-$repo/build/dev}
  [[ $build == /* ]] || build=$OLDPWD/$build
  say "dry run: CPU only, build $build"
  if [[ ! -x $build/bin/ctrl ]]; then
    cmake -S "$repo" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >"$work/build.log" 2>&1
  fi
  cmake --build "$build" --target ctrl_tool -j "$(nproc)" >>"$work/build.log" 2>&1 || { say "build failed"; tail -30 "$work/build.log"; }
  # Two cores: {cpu:0, offload:1} stands in for {CPU group, GPU}, {cpu:0, cpu:1} for two groups.
  config_a=(cpu:0 offload:1) config_b=(cpu:0 cpu:1)
  dgemm_cols=256 dgemm_sizes=16:128:16 fft_cols=1024 fft_sizes=16:128:16
  max_limit=40
  opts=(--min-reps 3 --max-reps 5 --max-seconds 2 --min-round 0.01)
else
  say "building with the cuda preset (CTRL_CUDA=ON, sm_90)"
  (cd "$repo" && cmake --preset cuda -DCTRL_BUILD_TESTS=OFF -DCTRL_BUILD_BENCH=OFF &&
     cmake --build build/cuda --target ctrl_tool -j 16) >"$work/build.log" 2>&1 ||
    { say "build failed:"; tail -40 "$work/build.log"; }
  build=$repo/build/cuda
  config_a=(cpu:0-7 cuda:0) config_b=(cpu:0-7 "${GROUP2:-cpu:8-14}" cuda:0)
  # Eight sizes per profile, each measured up to 8 s (rounds of at least 0.3 s): the CPU groups'
  # times on this VM scatter by 10-30 % from round to round, so fewer sizes, measured longer,
  # predict better than many short ones (bench/results/h200-loop.md).
  dgemm_cols=2048 dgemm_sizes=${DGEMM_SIZES:-2048:16384:2048}
  fft_cols=16384 fft_sizes=${FFT_SIZES:-1024:8192:1024}
  max_limit=${CTRL_PROFILE_LIMIT_S:-95}
  opts=(--min-reps 4 --max-reps 12 --max-seconds 8 --min-window 0.3)
fi
# CPU_POWER=W: the CPU groups' energy estimated at W per busy core (no RAPL on the H200's host);
# without it their energy is absent and the fronts are of time only (docs/energy.md).
[[ -n ${CPU_POWER:-} ]] && opts+=(--cpu-power "$CPU_POWER")
ctrl=$build/bin/ctrl
if [[ ! -x $ctrl ]]; then
  say "no ctrl binary at $ctrl"
  tar -czf "$out/h200-loop.tar.gz" -C "$work" . && exit 1
fi
say "built: $("$ctrl" --help | head -1)"

# ---- the machine -----------------------------------------------------------------------------
command -v nvidia-smi >/dev/null && nvidia-smi >"$work/nvidia-smi.txt" 2>&1
"$ctrl" devices | tee "$work/devices.txt"
"$ctrl" devices --format json >"$work/devices.json"
say "base power of every device, idle (nothing else runs)"
"$ctrl" power --idle --seconds 3 --format json >"$work/power.json"
"$ctrl" power --idle --seconds 2 | tee "$work/power.txt"

# A first check of every variant on its device, small and quick (results checked, time only).
for app in ${CHECK_APPS:-dgemm fft2d}; do
  args=()
  for d in "${config_b[@]}"; do args+=(--split "$d=37"); done
  "$ctrl" run "$app" "${args[@]}" --cols 256 --no-energy --max-reps 3 --progress none >"check-$app.txt" 2>&1
  say "check $app on ${config_b[*]}: exit $? — $(grep '^check:' "check-$app.txt" | cut -c1-60)"
done

# ---- profile, front, runs --------------------------------------------------------------------
summary=$work/summary.md
{
  echo "# The loop on $(hostname) — $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo
  echo "Generated by bench/lab/h200-loop.sh$([[ $dry == 1 ]] && echo ' (CTRL_DRY=1: CPU stand-ins, not the H200)')."
  echo "Build (${build#"$repo"/}): $(tail -1 "$work/build.log" 2>/dev/null)"
  echo "Profiles: ${opts[*]}; every processor measured at every size simultaneously."
  echo "Energy: measured (NVML) or estimated (the CPU groups, with CPU_POWER=${CPU_POWER:-unset} W per busy core),"
  echo "as energy_provenance in the profiles says; with a processor's energy absent the fronts are of time only."
  echo
  echo '```'
  cat "$work/power.txt"
  echo '```'
} >"$summary"

remaining=4   # loop() calls still to come
[[ -n ${LOOP_APPS:-} ]] && remaining=$(wc -w <<<"$LOOP_APPS")
loop() {  # app cols sizes config-name devices...
  local app=$1 cols=$2 sizes=$3 name=$4; shift 4
  local tag=$app-$name devs=() d
  for d in "$@"; do devs+=(--device "$d"); done
  # This profile's share of the time left, keeping 25 s per configuration for its fronts and runs.
  local left=$((deadline - (SECONDS - t0))) limit
  limit=$(((left - 25 * remaining) / remaining))
  ((limit > max_limit)) && limit=$max_limit
  remaining=$((remaining - 1))
  if ((limit < 15)); then
    say "$tag: skipped (${left}s left before the deadline)"
    echo -e "\n## $tag\n\nskipped: the time was spent\n" >>"$summary"
    return
  fi
  local csv=profiles/$tag.csv
  say "$tag: profile $app N=$cols sizes $sizes on $* (at most ${limit}s)"
  timeout --signal=INT --kill-after=20 "$limit" "$ctrl" profile "$app" "${devs[@]}" --cols "$cols" \
    --sizes "$sizes" --out "$csv" "${opts[@]}" --progress plain >"profiles/$tag.out" 2>"profiles/$tag.log"
  local rc=$?
  cat "profiles/$tag.out" >>"profiles/$tag.log"
  tail -4 "profiles/$tag.out"
  ((rc == 0)) || say "$tag: profile ended with $rc (130/124: stopped by the time limit; its sizes are kept)"
  # The workload: the largest size measured (every processor can take it whole, so the front spans
  # everything from one processor alone to every mix).
  local w
  w=$(awk -F, 'NR > 1 && $2 > m { m = $2 } END { print m + 0 }' "$csv" 2>/dev/null)
  if [[ -z $w || $w == 0 ]]; then
    say "$tag: no sizes measured"
    echo -e "\n## $tag\n\nno profile\n" >>"$summary"
    return
  fi
  local base time_only=() picks=(fastest least-energy load-balanced even)
  base=$(awk -F, 'NR > 1 && $10 != "" { b[$1] = $10 } END { s = 0; for (k in b) s += b[k]; print s + 0 }' "$csv")
  # A processor with no energy (neither measured nor estimated: no CPU_POWER) gets time only.
  if grep -Eq ',absent,[01],' "$csv"; then time_only=(--time-only) picks=(fastest load-balanced even); fi
  "$ctrl" pareto --profile "$csv" --workload "$w" "${time_only[@]}" --plot "fronts/$tag.svg" \
    --plot-profile "fronts/$tag-profile.svg" >"fronts/$tag.txt" 2>&1
  "$ctrl" pareto --profile "$csv" --workload "$w" "${time_only[@]}" --format json >"fronts/$tag.json" 2>>"fronts/$tag.txt"
  ((${#time_only[@]})) || "$ctrl" pareto --profile "$csv" --workload "$w" --energy total --base-power "$base" \
    --plot "fronts/$tag-total.svg" >"fronts/$tag-total.txt" 2>&1
  {
    echo -e "\n## $tag: $app, N = $cols, on $*\n"
    echo '```'
    tail -3 "profiles/$tag.out"
    echo
    head -60 "fronts/$tag.txt"
    echo '```'
  } >>"$summary"
  local pick
  for pick in "${picks[@]}"; do
    say "$tag: run $pick"
    timeout --signal=INT --kill-after=10 30 "$ctrl" run "$app" --front "fronts/$tag.json" --pick "$pick" \
      --profile "$csv" "${opts[@]}" --progress none --json "runs/$tag-$pick.json" >"runs/$tag-$pick.txt" 2>&1
    sed -n '/^processor/,/^check:/p' "runs/$tag-$pick.txt"
    {
      echo -e "\n### $tag: $pick\n"
      echo '```'
      cat "runs/$tag-$pick.txt"
      echo '```'
    } >>"$summary"
  done
}

if [[ -n ${LOOP_APPS:-} ]]; then
  # LOOP_APPS="app/cols/sizes ..." on {cpu:0-14, cuda:0} (CPU only: config_a): the case studies.
  for spec in $LOOP_APPS; do
    IFS=/ read -r app cols sizes <<<"$spec"
    if [[ $dry == 1 ]]; then loop "$app" "$cols" "$sizes" "cpu-gpu" "${config_a[@]}"
    else loop "$app" "$cols" "$sizes" "cpu15-gpu" cpu:0-14 cuda:0; fi
  done
else
  loop dgemm "$dgemm_cols" "$dgemm_sizes" "cpu8-gpu" "${config_a[@]}"
  loop fft2d "$fft_cols" "$fft_sizes" "cpu8-gpu" "${config_a[@]}"
  loop dgemm "$dgemm_cols" "$dgemm_sizes" "cpu8-cpu7-gpu" "${config_b[@]}"
  loop fft2d "$fft_cols" "$fft_sizes" "cpu8-cpu7-gpu" "${config_b[@]}"
fi

command -v nvidia-smi >/dev/null && nvidia-smi >>"$work/nvidia-smi.txt" 2>&1
say "done; packing $out/h200-loop.tar.gz"
cp "$summary" "$out/h200-summary.md"
tar -czf "$out/h200-loop.tar.gz" -C "$work" .
ls -la "$out"
