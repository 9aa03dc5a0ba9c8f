#!/usr/bin/env bash
# The whole loop on whatever machine this runs on (./run demo; docs/loop.md):
#   devices -> a small profile of dgemm on this machine's processors -> the Pareto front (table +
#   SVG) -> run the fastest and the least-energy distributions (or, without energy sensors, the
#   fastest and the load-balanced ones) -> measured beside predicted; then the case studies beside
#   their native twins.
# Usage: tools/demo.sh BUILD_DIR [loop | case-studies | all]   (outputs go to BUILD_DIR/demo/)
#   loop needs only the ctrl tool; case-studies the case-study programs (./run demo builds the
#   tool, runs the loop, then builds the programs: the first results come before the long build).
# Environment: CTRL_DEMO_GROUPS, the number of CPU groups to profile (default 2); CTRL_CPU_POWER,
# watts per busy CPU core to estimate the CPU's energy where no counter measures it (docs/energy.md).
set -euo pipefail
build=${1:?usage: tools/demo.sh BUILD_DIR [loop | case-studies | all]}
part=${2:-all}
case $part in loop | case-studies | all) ;; *) echo "usage: tools/demo.sh BUILD_DIR [loop | case-studies | all]" >&2; exit 2 ;; esac
bin=$build/bin
ctrl=$bin/ctrl
out=$build/demo
[[ -x $ctrl ]] || { echo "demo: $ctrl is not built" >&2; exit 1; }
mkdir -p "$out"
t0=$SECONDS
step() { printf '\n=== %s   [%ds]\n' "$*" $((SECONDS - t0)); }
gpus=$("$ctrl" devices --format json | grep -c '"device": "cuda:' || true)

loop() {
  step "1. What this machine offers as controllers: ctrl devices"
  "$ctrl" devices

  step "2. A small profile of dgemm on the processors ctrl devices suggests, all measured at once"
  # No --device, no --sizes: the suggested processors, and sizes chosen for each by a calibration
  # (a slow CPU group fine steps, a GPU coarse ones), up to runs of --largest-run seconds.
  local cols=512 largest=0.02
  ((gpus > 0)) && cols=1024 largest=0.05
  profile=$out/dgemm-profile.csv
  rm -f "$profile"  # a fresh profile each time (`ctrl profile` would resume an interrupted one)
  local cpu_power=()
  [[ -n ${CTRL_CPU_POWER:-} ]] && cpu_power=(--cpu-power "$CTRL_CPU_POWER")
  "$ctrl" profile dgemm --groups "${CTRL_DEMO_GROUPS:-2}" --cols "$cols" --steps 8 --largest-run "$largest" \
    --out "$profile" --min-round 0.1 --max-reps 15 --max-seconds 4 --idle-seconds 1 "${cpu_power[@]}" | tee "$out/profile.txt"
  # Any workload up to the capacity splits (sizes between measured ones interpolated): 3/4 of it.
  local workload
  workload=$(sed -n 's/.*(any workload up to \([0-9]*\).*/\1/p' "$out/profile.txt")
  workload=$((workload * 3 / 4))

  # A processor whose energy is neither measured nor estimated (energy_provenance "absent") would
  # count as free in a front of time and energy: ctrl pareto gives time only for such a profile.
  local time_only=() picks=(fastest least-energy)
  if grep -Eq ',absent,[01],' "$profile"; then
    time_only=(--time-only) picks=(fastest load-balanced)
    step "3. The fastest distribution of a workload of $workload rows (time only)"
    echo "a processor has no energy here, neither measured nor estimated (see step 2): the front is of time"
    echo "only, and the demo runs the fastest and the load-balanced distributions (CTRL_CPU_POWER=WATTS, the"
    echo "power of one busy core, estimates a CPU's energy)"
  else
    step "3. The Pareto front of (time, dynamic energy) for a workload of $workload rows"
  fi
  "$ctrl" pareto --profile "$profile" --workload "$workload" "${time_only[@]}" --plot "$out/front.svg" \
    --plot-profile "$out/profile.svg"
  "$ctrl" pareto --profile "$profile" --workload "$workload" "${time_only[@]}" --format json >"$out/front.json"
  echo "(plots: $out/front.svg, $out/profile.svg)"

  step "4. Running chosen distributions: measured beside predicted"
  for pick in "${picks[@]}"; do
    printf '\n--- %s\n' "$pick"
    "$ctrl" run dgemm --front "$out/front.json" --pick "$pick" --profile "$profile" --min-round 0.1 --max-reps 15 \
      --max-seconds 4 --progress none "${cpu_power[@]}"
  done

  echo "outputs in $out: dgemm-profile.csv, front.json, front.svg, profile.svg"
}

case_study() {  # name device native-binary args...
  local name=$1 device=$2 native=$3; shift 3
  local a b ta tb ca cb
  a=$("$bin/$name" --device "$device" "$@" --repeat 3 --check --quiet 2>&1) || true
  b=$("$bin/$native" --device "$device" "$@" --repeat 3 --check --quiet 2>&1) || true
  ta=$(sed -n 's/.*time_s=\([^ ]*\).*/\1/p' <<<"$a" | head -1)
  tb=$(sed -n 's/.*time_s=\([^ ]*\).*/\1/p' <<<"$b" | head -1)
  ca=$(sed -n 's/.* check=\([^ ]*\).*/\1/p' <<<"$a" | head -1)
  cb=$(sed -n 's/.* check=\([^ ]*\).*/\1/p' <<<"$b" | head -1)
  if [[ -z $ta || -z $tb ]]; then
    printf '%-13s %-10s %s\n' "$name" "$device" "failed: ${a//$'\n'/ } ${b//$'\n'/ }"
    return
  fi
  printf '%-13s %-10s %10.3fms %10.3fms %8.2f  %s/%s\n' "$name" "$device" "$(awk "BEGIN{print $ta*1000}")" \
    "$(awk "BEGIN{print $tb*1000}")" "$(awk "BEGIN{print $ta/$tb}")" "${ca:-?}" "${cb:-?}"
}

case_studies() {
  step "5. The case studies, each beside its native twin (best of 3 runs, results checked)"
  printf '%-13s %-10s %12s %12s %8s  %s\n' program device ctrl native ratio check
  studies=("matadd --size 2000" "blackscholes --size 1000000" "jacobi --size 512 --iterations 100"
           "matmul --size 512" "recurrence --size 500 --iterations 100" "mandelbrot --size 768 --iterations 500"
           "fft2d --size 1024")
  for s in "${studies[@]}"; do
    read -r -a words <<<"$s"
    name=${words[0]}
    [[ -x $bin/$name && -x $bin/${name}_native ]] || { echo "$name: not built"; continue; }
    case_study "$name" cpu "${name}_native" "${words[@]:1}"
    if ((gpus > 0)) && [[ -x $bin/${name}_native_cuda ]]; then
      case_study "$name" cuda:0 "${name}_native_cuda" "${words[@]:1}"
    fi
  done
  echo "(ratio: ctrl time / native time; check: ctrl/native results against a reference)"
  if [[ -x $bin/mandelbrot ]] && "$bin/mandelbrot" --size 768 1024 --quiet --png "$out/mandelbrot.png" >/dev/null 2>&1; then
    echo "(the Mandelbrot set as mandelbrot computed it: $out/mandelbrot.png)"
  fi
}

[[ $part == case-studies ]] || loop
if [[ $part != loop ]]; then
  case_studies
  step "done"
fi
